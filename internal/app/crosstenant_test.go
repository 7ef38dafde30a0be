package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// photosID is the external id of photosPost.
const photosID = "2078399740166950912"

// importFiles is a capsule's media for ImportCollections: bytes by SHA-256.
type importFiles map[string][]byte

func (f importFiles) add(b []byte) string {
	sum := sha256.Sum256(b)
	s := hex.EncodeToString(sum[:])
	f[s] = b
	return s
}

func (f importFiles) open(sum string) (io.ReadCloser, error) {
	b, ok := f[sum]
	if !ok {
		return nil, errors.New("no such file in the capsule")
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// xPost is a one-revision X post as a capsule file would hold it.
func xPost(id uuid.UUID, visibility, externalID, text string, savedAt time.Time) app.ImportCollection {
	return app.ImportCollection{
		ID: id, Platform: "x", EntityType: "x.post", ExternalID: externalID,
		SourceURL: "https://x.com/archivist_demo/status/" + externalID, Visibility: visibility, SavedAt: savedAt,
		Label: "collections/x/" + externalID + ".md",
		Revisions: []app.ImportRevision{{CapturedAt: savedAt, Text: text, Summary: "Archivist Demo：" + text, AuthorName: "Archivist Demo",
			Graph: app.ImportGraph{Root: "post:" + externalID, Entities: []app.ImportEntity{{
				Key: "post:" + externalID, Type: "x.post", ExternalID: externalID, Data: json.RawMessage(`{"text":` + quote(text) + `}`),
			}}}}},
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func importItems(t *testing.T, p *pipeline, tenant uuid.UUID, files importFiles, items ...app.ImportCollection) app.ImportReport {
	t.Helper()
	rep, err := p.app.ImportCollections(context.Background(), tenant, items, app.ImportOptions{Open: files.open})
	require.NoError(t, err)
	return rep
}

// Tenant A holds a private collection with media and an entity. Tenant B
// feeds A's ids to every path that takes an id from outside and must not
// reach A's content: an import naming A's collection id, reading,
// revisions, capture status, refresh, delete, "save too", media by
// SHA-256, entities by id, and a capture of the same post. Before the
// fix, on SQLite, B's import linked A's private collection and B then read
// A's text, media and entity through every read path; on PostgreSQL the
// same import failed with "collection id is taken".
func TestCrossTenantPrivateIDs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		saved := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

		files := importFiles{}
		secret := xPost(uuid.Must(uuid.NewV7()), store.Private, photosID, "alice's secret draft", saved)
		secretSHA := files.add([]byte("alice's private photo"))
		secret.Revisions[0].Media = []app.ImportMedia{{SHA256: secretSHA, Kind: "image", Mime: "image/png", Size: int64(len(files[secretSHA]))}}
		rep := importItems(t, p, alice, files, secret)
		require.Len(t, rep.Created, 1)
		privA := rep.Created[0].ID
		va, err := p.app.Collection(ctx, alice, privA)
		require.NoError(t, err)
		require.Equal(t, "alice's secret draft", va.Text)
		require.Equal(t, store.Private, va.Visibility)
		entityA := va.Graph.Entities[0].EntityID
		require.NotEqual(t, uuid.Nil, entityA)
		revsA, err := p.app.Revisions(ctx, alice, privA)
		require.NoError(t, err)
		require.Len(t, revsA, 1)

		// Import: bob's one-file capsule names alice's collection id.
		forged := xPost(privA, store.Private, photosID, "bob's text", saved)
		rep = importItems(t, p, bob, importFiles{}, forged)
		require.Len(t, rep.Created, 1, "a new private collection of bob's, never alice's")
		require.Empty(t, rep.Linked)
		require.NotEqual(t, privA, rep.Created[0].ID)
		require.Equal(t, privA, rep.Created[0].FileID)
		require.Contains(t, rep.Created[0].Reason, "private to you, as "+rep.Created[0].ID.String())
		vb, err := p.app.Collection(ctx, bob, rep.Created[0].ID)
		require.NoError(t, err)
		require.Equal(t, "bob's text", vb.Text)
		page, err := p.app.Collections(ctx, bob, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		require.Equal(t, "bob's text", page.Items[0].Text)

		// Reads by id.
		_, err = p.app.Collection(ctx, bob, privA)
		require.ErrorIs(t, err, app.ErrNotFound, "collection")
		_, err = p.app.Revisions(ctx, bob, privA)
		require.ErrorIs(t, err, app.ErrNotFound, "revisions")
		_, err = p.app.Revision(ctx, bob, revsA[0].ID)
		require.ErrorIs(t, err, app.ErrNotFound, "revision")
		_, err = p.app.Capture(ctx, bob, revsA[0].CaptureID)
		require.ErrorIs(t, err, app.ErrNotFound, "capture")
		_, _, err = p.app.OpenMedia(ctx, bob, secretSHA, nil)
		require.ErrorIs(t, err, app.ErrNotFound, "media")
		_, err = p.app.Entity(ctx, bob, entityA)
		require.ErrorIs(t, err, app.ErrNotFound, "entity")

		// Writes by id.
		_, err = p.app.Refresh(ctx, bob, privA, "")
		require.ErrorIs(t, err, app.ErrNotFound, "refresh")
		require.ErrorIs(t, p.app.DeleteCollection(ctx, bob, privA), app.ErrNotFound, "delete")
		reply, err := p.app.SaveToo(ctx, bob, privA)
		require.NoError(t, err)
		require.Equal(t, channelapi.SaveRefused, reply.Result)
		require.Equal(t, "This post is not in the archive.", reply.Reason, "save too answers as for a post that does not exist")
		page, err = p.app.Collections(ctx, bob, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1, "bob saved nothing of alice's")

		// Capture join: bob's link to the same post captures the public
		// post; it neither joins nor shows alice's private copy.
		res, c := p.capture(t, bob, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		require.Equal(t, app.PublicCollectionID("x", "x.post", "", photosID), res.CollectionID)
		pub, err := p.app.Collection(ctx, bob, res.CollectionID)
		require.NoError(t, err)
		require.Contains(t, pub.Text, "Two frames from this morning")
		require.Equal(t, store.Public, pub.Visibility)

		// Alice's copy is as it was.
		va2, err := p.app.Collection(ctx, alice, privA)
		require.NoError(t, err)
		require.Equal(t, va.Text, va2.Text)
		require.Equal(t, va.RevisionID, va2.RevisionID)
		rc, _, err := p.app.OpenMedia(ctx, alice, secretSHA, nil)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
	})
}

// A capsule can name the id a public collection has (or will have) on
// every instance, here the album's. Before the fix the import created
// the private copy under that id, and every later capture of the album
// (here through a member's link, which moves to the canonical album)
// failed on the taken id.
func TestImportCannotTakeAPublicID(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		album := app.PublicCollectionID("telegram", "telegram.message", "tidewatch_demo", "tidewatch_demo/101")
		squat := app.ImportCollection{
			ID: album, Platform: "telegram", EntityType: "telegram.message", ObjectScope: "tidewatch_demo", ExternalID: "tidewatch_demo/101",
			SourceURL: albumFirst, Visibility: store.Private, SavedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), Label: "album.md",
			Revisions: []app.ImportRevision{{Text: "not the album"}},
		}
		rep := importItems(t, p, alice, importFiles{}, squat)
		require.Len(t, rep.Created, 1)
		require.NotEqual(t, album, rep.Created[0].ID)

		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: albumMember})
		require.NoError(t, err)
		c := p.wait(t, bob, res.CaptureID)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		require.Equal(t, album, c.CollectionID, "the member moved to the public album")
		v, err := p.app.Collection(ctx, bob, album)
		require.NoError(t, err)
		require.Equal(t, store.Public, v.Visibility)
		require.NotEqual(t, "not the album", v.Text)
		require.Len(t, v.Media, 4)

		mine, err := p.app.Collection(ctx, alice, rep.Created[0].ID)
		require.NoError(t, err)
		require.Equal(t, "not the album", mine.Text, "alice's copy stays hers")
		_, err = p.app.Collection(ctx, alice, album)
		require.ErrorIs(t, err, app.ErrNotFound, "alice did not save the album")
	})
}

// Bob's capsule claims that the public post says what bob wants. Before
// the fix the import created the shared public collection, and alice's
// link to the real post answered at once with bob's text. Now the import
// is bob's private copy (claim recorded, id changed), alice's link fetches
// the real post, and bob's link then puts the real post in his copy's
// place, keeping his saved time; importing the capsule again skips it.
func TestImportCannotForgeThePublicCopy(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		public := app.PublicCollectionID("x", "x.post", "", photosID)
		saved := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		forged := xPost(public, store.Public, photosID, "FORGED by bob", saved)

		rep := importItems(t, p, bob, importFiles{}, forged)
		require.Len(t, rep.Created, 1)
		copyID := rep.Created[0].ID
		require.NotEqual(t, public, copyID, "the id changed")
		require.Equal(t, app.PrivateCollectionID(bob, "x", "x.post", "", photosID), copyID)
		require.Contains(t, rep.Created[0].Reason, "the capsule calls it public")
		require.Contains(t, rep.Created[0].Reason, "private to you")
		v, err := p.app.Collection(ctx, bob, copyID)
		require.NoError(t, err)
		require.Equal(t, store.Private, v.Visibility)
		require.Equal(t, "FORGED by bob", v.Text)
		var exported []app.ExportedCollection
		_, err = p.app.ExportCollections(ctx, bob, app.ExportOptions{IncludePrivate: true}, func(ec app.ExportedCollection) error {
			exported = append(exported, ec)
			return nil
		})
		require.NoError(t, err)
		require.Len(t, exported, 1)
		require.Equal(t, store.Public, exported[0].ClaimedVisibility, "the claim is kept for a re-export")

		// Alice's link: not "already archived" with bob's text.
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: photosPost})
		require.NoError(t, err)
		require.Equal(t, public, res.CollectionID)
		require.Equal(t, app.StateQueued, res.State, "nothing public to answer from: the post is fetched")
		c := p.wait(t, alice, res.CaptureID)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		va, err := p.app.Collection(ctx, alice, public)
		require.NoError(t, err)
		require.Contains(t, va.Text, "Two frames from this morning")
		require.NotContains(t, va.Text, "FORGED")

		// Bob's link: archived already, and the real post takes the place
		// of his copy at once, with his saved time.
		rb, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: photosPost})
		require.NoError(t, err)
		require.Equal(t, app.StateComplete, rb.State)
		page, err := p.app.Collections(ctx, bob, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1, "one post, not two")
		require.Equal(t, public, page.Items[0].ID)
		require.Equal(t, va.Text, page.Items[0].Text)
		require.True(t, saved.Equal(page.Items[0].SavedAt), "saved_at kept: %s", page.Items[0].SavedAt)
		old, err := p.app.Collection(ctx, bob, copyID)
		require.NoError(t, err, "the copy's id still finds the post")
		require.Equal(t, public, old.ID)

		// Again: skipped, nothing created.
		rep = importItems(t, p, bob, importFiles{}, forged)
		require.Empty(t, rep.Created)
		require.Empty(t, rep.Linked)
		require.Len(t, rep.Skipped, 1)
		require.Equal(t, public, rep.Skipped[0].ID)
		page, err = p.app.Collections(ctx, bob, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
	})
}

// When the post is fetched for the first time, the capture's end puts the
// public post in the place of every submitter's imported copy, whichever
// tenant runs the capture.
func TestCaptureReplacesImportedCopiesOfItsSubmitters(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		carol, dave, erin := p.tenant(t, "carol", nil), p.tenant(t, "dave", nil), p.tenant(t, "erin", nil)
		public := app.PublicCollectionID("x", "x.post", "", photosID)
		savedC := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
		savedD := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)
		importItems(t, p, carol, importFiles{}, xPost(public, store.Public, photosID, "carol's copy", savedC))
		importItems(t, p, dave, importFiles{}, xPost(public, store.Public, photosID, "dave's copy", savedD))
		erinRep := importItems(t, p, erin, importFiles{}, xPost(public, store.Public, photosID, "erin's copy", savedD))

		// Hold the queue so that dave joins carol's capture.
		require.NoError(t, p.q.Stop(ctx))
		rc, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: carol, URL: photosPost})
		require.NoError(t, err)
		rd, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: dave, URL: photosPost})
		require.NoError(t, err)
		require.Equal(t, rc.CaptureID, rd.CaptureID)
		p.start(t)
		c := p.wait(t, carol, rc.CaptureID)
		require.Equal(t, app.StateComplete, c.State, c.Error)

		for _, who := range []struct {
			name   string
			id     uuid.UUID
			saved  time.Time
			copyID uuid.UUID
		}{{"carol", carol, savedC, app.PrivateCollectionID(carol, "x", "x.post", "", photosID)},
			{"dave", dave, savedD, app.PrivateCollectionID(dave, "x", "x.post", "", photosID)}} {
			page, err := p.app.Collections(ctx, who.id, 10, "")
			require.NoError(t, err)
			require.Len(t, page.Items, 1, who.name)
			require.Equal(t, public, page.Items[0].ID, who.name)
			require.Contains(t, page.Items[0].Text, "Two frames from this morning", who.name)
			require.True(t, who.saved.Equal(page.Items[0].SavedAt), "%s: saved_at %s", who.name, page.Items[0].SavedAt)
		}
		// Erin did not ask: her copy stays as it is.
		page, err := p.app.Collections(ctx, erin, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		require.Equal(t, erinRep.Created[0].ID, page.Items[0].ID)
		require.Equal(t, "erin's copy", page.Items[0].Text)
	})
}

// The quota is checked from the sizes the capsule states before anything
// is uploaded. Before the fix the import stored the media first (a
// refused 1 GiB file stayed behind until garbage collection).
func TestImportQuotaCheckedBeforeUpload(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		quota := int64(64 << 10)
		bob := p.tenant(t, "bob", &quota)
		files := importFiles{}
		it := xPost(uuid.Must(uuid.NewV7()), store.Public, photosID, "big", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		sum := files.add([]byte("stands for a 1 GiB video"))
		it.Revisions[0].Media = []app.ImportMedia{{SHA256: sum, Kind: "video", Mime: "video/mp4", Size: 1 << 30}}
		var opened atomic.Int32
		_, err := p.app.ImportCollections(ctx, bob, []app.ImportCollection{it}, app.ImportOptions{
			Open: func(s string) (io.ReadCloser, error) { opened.Add(1); return files.open(s) },
		})
		require.ErrorIs(t, err, app.ErrQuota)
		require.Contains(t, err.Error(), "nothing was imported")
		require.Contains(t, err.Error(), "delete something or ask the operator to raise the quota")
		require.Zero(t, opened.Load(), "no media was read")
		requireNoObjects(t, p)
	})
}

// An import refused after its uploads (here by the exact quota check in
// the transaction: the capsule did not state the media's size) deletes
// the bytes it stored. Before the fix they were only marked garbage.
func TestRefusedImportDeletesItsUploads(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		quota := int64(16 << 10)
		bob := p.tenant(t, "bob", &quota)
		files := importFiles{}
		it := xPost(uuid.Must(uuid.NewV7()), store.Private, photosID, "big", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		sum := files.add(bytes.Repeat([]byte("x"), 32<<10))
		it.Revisions[0].Media = []app.ImportMedia{{SHA256: sum, Kind: "image", Mime: "image/png"}}
		_, err := p.app.ImportCollections(ctx, bob, []app.ImportCollection{it}, app.ImportOptions{Open: files.open})
		require.ErrorIs(t, err, app.ErrQuota)
		require.Contains(t, err.Error(), "nothing was imported")
		requireNoObjects(t, p)
		page, err := p.app.Collections(ctx, bob, 10, "")
		require.NoError(t, err)
		require.Empty(t, page.Items)
	})
}

// requireNoObjects fails unless the media store and the object records
// are empty.
func requireNoObjects(t *testing.T, p *pipeline) {
	t.Helper()
	ctx := context.Background()
	var keys []string
	require.NoError(t, p.blob.List(ctx, "", func(i blob.Info) error { keys = append(keys, i.Key); return nil }))
	require.Empty(t, keys, "bytes left in the media store")
	objs, err := p.st.ObjectCounts(ctx)
	require.NoError(t, err)
	require.Empty(t, objs, "object records left")
}
