package importer_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestHistoryAndPrivate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := capsuletest.NewPipeline(t, storetest.New(t, "sqlite"))
	alice := src.Tenant(t, "alice", nil)
	photos := capsuletest.FixturePosts()[0]
	ids := src.Capture(t, alice, photos)

	// The post is edited upstream and refreshed: two revisions.
	body := bytes.Replace(src.FX.Raw("status-photos.json"), []byte("the old crane."), []byte("the old crane (edited)."), 1)
	src.FX.SetOverride("/2/status/2078399740166950912", 200, "application/json", body)
	res, err := src.App.Refresh(ctx, alice, ids[0], "")
	require.NoError(t, err)
	src.WaitCapture(t, alice, res.CaptureID)
	revs, err := src.App.Revisions(ctx, alice, ids[0])
	require.NoError(t, err)
	require.Len(t, revs, 2)

	dir := filepath.Join(t.TempDir(), "capsule")
	exportTo(t, src, alice, dir, false)
	files, err := filepath.Glob(filepath.Join(dir, "collections", "x", "*", "*.md"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.Contains(t, string(b), "\nhistory:\n")
	require.True(t, strings.HasSuffix(string(b), "(edited). #harbour\n"), string(b[len(b)-80:]))

	// A private collection, written by hand into the capsule.
	priv := strings.Replace(string(b), "visibility: public", "visibility: private", 1)
	priv = strings.Replace(priv, "id: "+ids[0].String(), "id: 0198a3f2-ac96-774b-bcce-b302099a8057", 1)
	priv = strings.Replace(priv, "external_id: \"2078399740166950912\"", "external_id: \"1\"", 1)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(files[0]), "private.md"), []byte(priv), 0o644))

	dst := capsuletest.New(t, storetest.New(t, "sqlite"))
	bob := dst.Tenant(t, "bob", nil)
	rep := importFrom(t, dst, bob, dir, false)
	require.Len(t, rep.Created, 1)
	require.Len(t, rep.Private, 1, "private collections need --include-private")
	mine := rep.Created[0].ID
	got, err := dst.App.Revisions(ctx, bob, mine)
	require.NoError(t, err)
	require.Len(t, got, 2, "history is imported")
	require.Equal(t, revs[0].Text, got[0].Text)
	require.Equal(t, revs[1].Text, got[1].Text)
	coll, err := dst.App.Collection(ctx, bob, mine)
	require.NoError(t, err)
	require.Equal(t, revs[0].Text, coll.Text, "the newest revision is current")

	// With --include-private the private one comes in, private to bob.
	s := openChecked(t, dir)
	r2, err := importWith(ctx, dst, bob, s, true)
	require.NoError(t, err)
	require.Len(t, r2.Created, 1)
	require.Len(t, r2.Skipped, 1)
	all := allCollections(t, dst.App, bob)
	require.Len(t, all, 2)
	for _, c := range all {
		require.Equal(t, "private", c.Visibility, "imports are private, whatever the file claims")
		require.Len(t, c.Media, 2)
	}
	// Private collections stay out of an export unless asked for.
	out := filepath.Join(t.TempDir(), "again")
	r3, err := export.Export(ctx, dst.App, export.Options{TenantID: bob, TenantName: "bob", Out: out})
	require.NoError(t, err)
	require.Equal(t, 0, r3.Collections)
	require.Equal(t, 2, r3.Skipped)
}

func TestExportListsUnreadableMedia(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t, "sqlite")
	src := capsuletest.NewPipeline(t, st)
	alice := src.Tenant(t, "alice", nil)
	src.Capture(t, alice, capsuletest.FixturePosts()[:2]...)
	// Lose every stored media file.
	var keys []string
	require.NoError(t, src.Blob.List(ctx, "", func(i blobInfo) error { keys = append(keys, i.Key); return nil }))
	require.NotEmpty(t, keys)
	for _, k := range keys {
		require.NoError(t, src.Blob.Delete(ctx, k))
	}
	out := filepath.Join(t.TempDir(), "capsule")
	_, err := export.Export(ctx, src.App, export.Options{TenantID: alice, TenantName: "alice", Out: out})
	var me *export.MediaError
	require.True(t, errors.As(err, &me), "%v", err)
	require.GreaterOrEqual(t, len(me.Missing), 3, "every unreadable file is listed")
	require.Contains(t, err.Error(), "no capsule was written")
	require.NoDirExists(t, out)
	left, err := filepath.Glob(filepath.Join(filepath.Dir(out), ".capsule.staging-*"))
	require.NoError(t, err)
	require.Empty(t, left, "the staging folder is removed")
}
