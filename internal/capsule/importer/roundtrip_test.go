package importer_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func exportTo(t *testing.T, in *capsuletest.Instance, tenant uuid.UUID, out string, zip bool) export.Result {
	t.Helper()
	res, err := export.Export(context.Background(), in.App, export.Options{TenantID: tenant, TenantName: "alice", Out: out, Zip: zip,
		History: true, Generator: "monitor test", Now: func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }})
	require.NoError(t, err)
	return res
}

func importFrom(t *testing.T, in *capsuletest.Instance, tenant uuid.UUID, path string, dry bool) importer.Report {
	t.Helper()
	src, err := capsule.Open(path)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "%v", res.Problems)
	rep, err := importer.Import(context.Background(), in.App, src, res, importer.Options{TenantID: tenant, DryRun: dry})
	require.NoError(t, err)
	return rep
}

// normalGraph drops instance-local entity ids and re-encodes data, so
// graphs from two instances compare by content.
func normalGraph(t *testing.T, g *app.GraphView) string {
	t.Helper()
	type ent struct {
		Key, Type, ExternalID string
		Data                  any
		Resources             []app.ResourceView
	}
	var out struct {
		Root      string
		Entities  []ent
		Relations []app.RelationView
	}
	out.Root, out.Relations = g.Root, g.Relations
	for _, e := range g.Entities {
		var d any
		require.NoError(t, json.Unmarshal(e.Data, &d))
		out.Entities = append(out.Entities, ent{e.Key, e.Type, e.ExternalID, d, e.Resources})
	}
	b, err := json.Marshal(out)
	require.NoError(t, err)
	return string(b)
}

// allCollections lists a tenant's collections by post address: an
// imported copy has another id than the collection it was exported from.
func allCollections(t *testing.T, a *app.App, tenant uuid.UUID) []app.CollectionView {
	t.Helper()
	page, err := a.Collections(context.Background(), tenant, 100, "")
	require.NoError(t, err)
	sort.Slice(page.Items, func(i, j int) bool { return page.Items[i].SourceURL < page.Items[j].SourceURL })
	return page.Items
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		src := capsuletest.NewPipeline(t, st)
		alice := src.Tenant(t, "alice", nil)
		src.Capture(t, alice, capsuletest.FixturePosts()...)

		dir := filepath.Join(t.TempDir(), "capsule")
		res := exportTo(t, src, alice, dir, false)
		require.Equal(t, 4, res.Collections)
		require.Positive(t, res.Bytes)

		// A fresh instance on the same kind of database.
		dst := capsuletest.New(t, storetest.New(t, st.Driver()))
		bob := dst.Tenant(t, "bob", nil)
		rep := importFrom(t, dst, bob, dir, true)
		require.Len(t, rep.Created, 4, "dry run reports")
		require.Empty(t, allCollections(t, dst.App, bob), "a dry run writes nothing")
		n, err := dst.Store.BlobCount(ctx)
		require.NoError(t, err)
		require.Zero(t, n)

		rep = importFrom(t, dst, bob, dir, false)
		require.Len(t, rep.Created, 4)
		require.Empty(t, rep.Skipped)
		require.Positive(t, rep.UploadedFiles)
		for _, o := range rep.Created {
			require.NotEqual(t, o.FileID, o.ID, "a public claim gets the private id")
			require.Contains(t, o.Reason, "the capsule calls it public")
		}

		// The content comes back whole, as bob's private copy: an import
		// is no evidence of what the public post says.
		want, got := allCollections(t, src.App, alice), allCollections(t, dst.App, bob)
		require.Len(t, got, len(want))
		for i := range want {
			w, g := want[i], got[i]
			require.Equal(t, app.PrivateCollectionID(bob, w.Platform, w.EntityType, "", w.ExternalID), g.ID)
			require.Equal(t, "public", w.Visibility)
			require.Equal(t, "private", g.Visibility)
			require.Equal(t, w.Text, g.Text)
			require.Equal(t, w.Summary, g.Summary)
			require.Equal(t, w.AuthorName, g.AuthorName)
			require.Equal(t, w.SourceURL, g.SourceURL)
			require.True(t, w.SavedAt.Equal(g.SavedAt), "saved_at %s vs %s", w.SavedAt, g.SavedAt)
			require.Equal(t, w.PublishedAt.UTC(), g.PublishedAt.UTC())
			require.Equal(t, w.Media, g.Media)
			require.Equal(t, normalGraph(t, w.Graph), normalGraph(t, g.Graph))
			require.Equal(t, app.StateComplete, g.State)
			for _, m := range g.Media {
				rc, _, err := dst.App.OpenMedia(ctx, bob, m.SHA256, nil)
				require.NoError(t, err)
				b, err := io.ReadAll(rc)
				require.NoError(t, rc.Close())
				require.NoError(t, err)
				sum := sha256.Sum256(b)
				require.Equal(t, m.SHA256, hex.EncodeToString(sum[:]))
			}
			for _, e := range g.Graph.Entities {
				for _, r := range e.Resources {
					rc, _, err := dst.App.OpenMedia(ctx, bob, r.SHA256, nil)
					require.NoError(t, err, "resource %s of %s", r.Purpose, e.Key)
					require.NoError(t, rc.Close())
				}
				_, err := dst.App.Entity(ctx, bob, e.EntityID)
				require.NoError(t, err)
			}
			revs, err := dst.App.Revisions(ctx, bob, g.ID)
			require.NoError(t, err)
			require.Len(t, revs, 1)
			if st.Driver() == "sqlite" {
				// SQLite keeps content as written: the rebuilt content is
				// the same bytes as the captured one.
				orig, err := src.App.Revisions(ctx, alice, w.ID)
				require.NoError(t, err)
				require.Equal(t, orig[0].ContentBytes, revs[0].ContentBytes)
			}
		}
		usage, err := dst.App.Usage(ctx, bob)
		require.NoError(t, err)
		require.Positive(t, usage.UsedBytes)
		require.Zero(t, usage.ReservedBytes)

		// Again: everything is skipped, nothing stored twice.
		blobs, err := dst.Store.BlobCount(ctx)
		require.NoError(t, err)
		rep = importFrom(t, dst, bob, dir, false)
		require.Empty(t, rep.Created)
		require.Empty(t, rep.Linked)
		require.Len(t, rep.Skipped, 4)
		again, err := dst.Store.BlobCount(ctx)
		require.NoError(t, err)
		require.Equal(t, blobs, again)

		// Another tenant of the same instance gets private copies of its
		// own, in its own scope: nothing of bob's is linked or shared.
		carol := dst.Tenant(t, "carol", nil)
		rep = importFrom(t, dst, carol, dir, false)
		require.Len(t, rep.Created, 4)
		require.Empty(t, rep.Linked)
		require.Positive(t, rep.UploadedFiles)
		for _, c := range allCollections(t, dst.App, carol) {
			require.Equal(t, app.PrivateCollectionID(carol, c.Platform, c.EntityType, "", c.ExternalID), c.ID)
		}

		// Re-exported, the copies say what they are and what was claimed.
		re := filepath.Join(t.TempDir(), "re")
		_, err = export.Export(ctx, dst.App, export.Options{TenantID: bob, TenantName: "bob", Out: re, IncludePrivate: true})
		require.NoError(t, err)
		files, err := filepath.Glob(filepath.Join(re, "collections", "x", "*", "*.md"))
		require.NoError(t, err)
		require.Len(t, files, 4)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		require.Contains(t, string(b), "\nvisibility: private\nclaimed_visibility: public\n")

		// A second export of the same archive gives the same files, apart
		// from the manifest's time.
		dir2 := filepath.Join(t.TempDir(), "capsule")
		exportTo(t, src, alice, dir2, false)
		requireSameTree(t, dir, dir2)
	})
}

func requireSameTree(t *testing.T, a, b string) {
	t.Helper()
	read := func(root string) map[string]string {
		out := map[string]string{}
		require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			b, err := os.ReadFile(p)
			out[rel] = string(b)
			return err
		}))
		return out
	}
	require.Equal(t, read(a), read(b))
}

func TestImportQuota(t *testing.T) {
	t.Parallel()
	st := storetest.New(t, "sqlite")
	src := capsuletest.NewPipeline(t, st)
	alice := src.Tenant(t, "alice", nil)
	src.Capture(t, alice, capsuletest.FixturePosts()...)
	zip := filepath.Join(t.TempDir(), "capsule.zip")
	exportTo(t, src, alice, zip, true)

	dst := capsuletest.New(t, storetest.New(t, "sqlite"))
	small := int64(1000)
	bob := dst.Tenant(t, "bob", &small)
	s, err := capsule.Open(zip)
	require.NoError(t, err)
	defer s.Close()
	res, err := check.Run(context.Background(), s, check.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "%v", res.Problems)
	_, err = importer.Import(context.Background(), dst.App, s, res, importer.Options{TenantID: bob})
	require.ErrorIs(t, err, app.ErrQuota)
	require.Contains(t, err.Error(), "nothing was imported")
	require.Empty(t, allCollections(t, dst.App, bob))
	n, err := dst.Store.BlobCount(context.Background())
	require.NoError(t, err)
	require.Zero(t, n)
	objs, err := dst.Store.ObjectCounts(context.Background())
	require.NoError(t, err)
	require.Empty(t, objs, "the quota is checked before anything is uploaded: %v", objs)
}

type blobInfo = blob.Info

func openChecked(t *testing.T, path string) *checkedSource {
	t.Helper()
	src, err := capsule.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = src.Close() })
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "%v", res.Problems)
	return &checkedSource{src: src, res: res}
}

type checkedSource struct {
	src *capsule.Source
	res *check.Result
}

func importWith(ctx context.Context, in *capsuletest.Instance, tenant uuid.UUID, s *checkedSource, private bool) (importer.Report, error) {
	return importer.Import(ctx, in.App, s.src, s.res, importer.Options{TenantID: tenant, IncludePrivate: private})
}
