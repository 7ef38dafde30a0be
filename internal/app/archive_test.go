package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// These tests pin what the archive writer writes for a live capture and
// for an import: the content hashes (the canonical bytes of a revision,
// which exports, proofs and dedup rely on), when a revision is reused
// instead of written, and what a reuse does to its observed time. They
// were written against the two writers that came before the one archive
// writer and hold for both.

// A refresh that sees the same content reuses the revision and moves its
// observed time to the refresh; its creation time and hash stay.
func TestArchiveWriterCaptureReusesAndBumps(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		st := p.st
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		rev, err := st.RevisionGet(store.WithTenant(ctx, alice), *c.RevisionID)
		require.NoError(t, err)
		// The fake's address, in the profile's avatar and banner URLs, is
		// the one part that differs from run to run. The entities' data
		// come back from the staged fetch in the order the database keeps
		// JSON in, so each database has its own bytes.
		golden, err := os.ReadFile("testdata/photos-content." + st.Driver() + ".json")
		require.NoError(t, err)
		want := strings.ReplaceAll(string(golden), "http://fx.test", p.fx.URL())
		if st.Driver() == "sqlite" { // PostgreSQL keeps the content as jsonb, not as written
			require.Equal(t, want, string(rev.Content), "the canonical bytes of a captured revision changed")
		}
		require.Equal(t, sha256Hex([]byte(want)), rev.ContentHash, "the content hash of a captured revision changed")
		revs, err := p.app.Revisions(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, revs, 1)
		first := revs[0]
		require.Equal(t, first.CreatedAt, first.ObservedAt)

		p.clock.Advance(time.Hour)
		rr, err := p.app.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		c2 := p.wait(t, alice, rr.CaptureID)
		require.Equal(t, app.StateComplete, c2.State, c2.Error)
		require.Equal(t, first.ID, *c2.RevisionID, "the same content reuses the revision")
		revs, err = p.app.Revisions(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, revs, 1)
		require.Equal(t, first.CreatedAt, revs[0].CreatedAt)
		require.True(t, revs[0].ObservedAt.After(first.ObservedAt), "observed %s, then %s", first.ObservedAt, revs[0].ObservedAt)
		require.Equal(t, first.CaptureID, revs[0].CaptureID, "a reused revision keeps the capture that wrote it")
	})
}

// An import writes each distinct content once, dated when the file says it
// was captured; content that comes back later in the history reuses the
// earlier revision without moving its observed time, and media shown
// twice are stored once.
func TestArchiveWriterImportDatesAndReuses(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		alice := p.tenant(t, "alice", nil)
		files := importFiles{}
		photo := files.add([]byte("a photo of the tide"))
		t1 := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
		t2, t3 := t1.Add(24*time.Hour), t1.Add(48*time.Hour)

		it := xPost(uuid.Must(uuid.NewV7()), store.Private, "3000000000000000001", "first words", t3.Add(time.Hour))
		a := it.Revisions[0]
		a.CapturedAt = t1
		a.Media = []app.ImportMedia{{SHA256: photo, Kind: "image", Mime: "image/jpeg", Size: int64(len(files[photo])), Width: 4, Height: 3,
			SourceURL: "https://pbs.twimg.com/media/tide.jpg"}}
		a.Graph.Entities[0].Resources = []app.ImportResource{{Purpose: "avatar", SHA256: photo, Kind: "image", Mime: "image/jpeg",
			Size: int64(len(files[photo]))}}
		b := a
		b.CapturedAt, b.Text = t2, "second words"
		again := a
		again.CapturedAt = t3
		it.Revisions = []app.ImportRevision{a, b, again}

		rep := importItems(t, p, alice, files, it)
		require.Len(t, rep.Created, 1)
		require.Equal(t, 1, rep.UploadedFiles, "one file, shown four times")
		require.Equal(t, int64(len(files[photo])), rep.UploadedBytes)
		require.Equal(t, 0, rep.ReusedFiles)
		id := rep.Created[0].ID

		revs, err := p.app.Revisions(ctx, alice, id)
		require.NoError(t, err)
		require.Len(t, revs, 2, "the third revision repeats the first")
		older, newer := revs[1], revs[0]
		require.Equal(t, "first words", older.Text)
		require.Equal(t, "second words", newer.Text)
		require.Equal(t, t1, older.CreatedAt.UTC())
		require.Equal(t, t1, older.ObservedAt.UTC(), "an import never bumps the observed time")
		require.Equal(t, t2, newer.CreatedAt.UTC())
		require.Equal(t, t2, newer.ObservedAt.UTC())
		require.NotEqual(t, older.CaptureID, newer.CaptureID, "each written revision has its own stand-in capture")
		coll, err := p.app.Collection(ctx, alice, id)
		require.NoError(t, err)
		require.Equal(t, older.ID, *coll.RevisionID, "the last revision of the file, which is the first content, is current")
		require.Len(t, coll.Media, 1)
		require.Equal(t, photo, coll.Media[0].SHA256)
		require.Len(t, coll.Graph.Entities, 1)
		require.Equal(t, photo, coll.Graph.Entities[0].Resources[0].SHA256)
		ent, err := p.app.Entity(ctx, alice, coll.Graph.Entities[0].EntityID)
		require.NoError(t, err)
		require.JSONEq(t, `{"text":"first words"}`, string(ent.Data))

		tctx := store.WithTenant(ctx, alice)
		hashes := map[string]string{}
		for _, r := range revs {
			sr, err := st.RevisionGet(tctx, r.ID)
			require.NoError(t, err)
			hashes[r.Text] = sr.ContentHash
			var doc map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(sr.Content, &doc))
			require.JSONEq(t, `"plain"`, string(doc["text_kind"]), "an import without a text kind writes plain")
		}
		require.Equal(t, map[string]string{
			"first words":  "2901465632b8f82bf4b74a2c03afeb97d6a1b3f444fe76483661b6388b751f8a",
			"second words": "1b2eced52b56ffbefb898cffe5ac8ecf321bcd4199860e65a1786e2c509e517c",
		}, hashes, "the canonical bytes of an imported revision changed")

		// The same media in another collection: the blob is reused, in a
		// dry run as in a real one.
		other := xPost(uuid.Must(uuid.NewV7()), store.Private, "3000000000000000002", "other words", t1)
		other.Revisions[0].Media = a.Media
		rep, err = p.app.ImportCollections(ctx, alice, []app.ImportCollection{other}, app.ImportOptions{DryRun: true, Open: files.open})
		require.NoError(t, err)
		require.Equal(t, 0, rep.UploadedFiles)
		require.Equal(t, 1, rep.ReusedFiles)
		rep = importItems(t, p, alice, files, other)
		require.Equal(t, 0, rep.UploadedFiles)
		require.Equal(t, 1, rep.ReusedFiles)

		// New media in a dry run: counted as an upload, nothing stored.
		fresh := files.add([]byte("a photo nobody stored"))
		dry := xPost(uuid.Must(uuid.NewV7()), store.Private, "3000000000000000003", "dry words", t1)
		dry.Revisions[0].Media = []app.ImportMedia{{SHA256: fresh, Kind: "image", Mime: "image/png", Size: int64(len(files[fresh]))}}
		rep, err = p.app.ImportCollections(ctx, alice, []app.ImportCollection{dry}, app.ImportOptions{DryRun: true, Open: files.open})
		require.NoError(t, err)
		require.Len(t, rep.Created, 1)
		require.Equal(t, 1, rep.UploadedFiles)
		require.Equal(t, 0, rep.ReusedFiles)
		_, _, err = p.app.OpenMedia(ctx, alice, fresh, nil)
		require.ErrorIs(t, err, app.ErrNotFound, "a dry run stores nothing")
	})
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Media downloaded again under a new cache key (the post's photos got new
// ids upstream) hold the bytes stored already: the blob is reused and the
// fresh copies become garbage for the object collector.
func TestArchiveWriterDownloadReusesTheBlob(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		alice := p.tenant(t, "alice", nil)
		tctx := store.WithTenant(ctx, alice)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		blobs, err := st.BlobCount(tctx)
		require.NoError(t, err)
		counts, err := st.ObjectCounts(tctx)
		require.NoError(t, err)
		require.Equal(t, map[string]int{store.ObjectAttached: blobs}, counts)

		body := p.fx.Raw("status-photos.json")
		for _, id := range []string{"2078399587459792896", "2078399588604837889"} {
			require.Contains(t, string(body), id)
			body = bytes.ReplaceAll(body, []byte(id), []byte(id[:len(id)-1]+"0"))
		}
		p.fx.SetOverride("/2/status/2078399740166950912", 200, "application/json", body)
		rr, err := p.app.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		c2 := p.wait(t, alice, rr.CaptureID)
		require.Equal(t, app.StateComplete, c2.State, c2.Error)
		require.Equal(t, *c.RevisionID, *c2.RevisionID, "the same bytes make the same content")
		for _, photo := range []string{"/media/pbs.twimg.com/media/GwQx7fHa0AAbC1d.jpg", "/media/pbs.twimg.com/media/GwQx7fHa0AEzY9k.jpg"} {
			require.Equal(t, 2, p.fx.Hits(photo), "%s is downloaded by both captures", photo)
		}

		after, err := st.BlobCount(tctx)
		require.NoError(t, err)
		require.Equal(t, blobs, after, "no second blob for the same bytes")
		counts, err = st.ObjectCounts(tctx)
		require.NoError(t, err)
		require.Equal(t, map[string]int{store.ObjectAttached: blobs, store.ObjectGarbage: 2}, counts)
		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		for _, m := range coll.Media {
			rc, _, err := p.app.OpenMedia(ctx, alice, m.SHA256, nil)
			require.NoError(t, err)
			require.NoError(t, rc.Close())
		}
	})
}

// A post a capsule has twice is imported once, into an empty archive (where
// one look at the start stands for every collection's) as into one that
// holds posts already, and the second is reported saved.
func TestImportOfAPostTwiceInOneCapsule(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		p := newPipelineOn(t, st, testLimits())
		at := time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)
		for _, archive := range []struct {
			name   string
			before []app.ImportCollection
		}{
			{"empty", nil},
			{"with posts", []app.ImportCollection{xPost(uuid.Must(uuid.NewV7()), store.Private, "3000000000000000009", "an older post", at)}},
		} {
			tenant := p.tenant(t, "twice-"+strings.ReplaceAll(archive.name, " ", "-"), nil)
			if archive.before != nil {
				require.Len(t, importItems(t, p, tenant, importFiles{}, archive.before...).Created, 1)
			}
			first := xPost(uuid.Must(uuid.NewV7()), store.Private, "3000000000000000010", "the post", at)
			again := xPost(uuid.Must(uuid.NewV7()), store.Private, "3000000000000000010", "the post, as another file has it", at)
			rep := importItems(t, p, tenant, importFiles{}, first, again)
			require.Len(t, rep.Created, 1, archive.name)
			require.Len(t, rep.Skipped, 1, archive.name)
			require.Equal(t, rep.Created[0].ID, rep.Skipped[0].ID, archive.name)
			require.Contains(t, rep.Skipped[0].Reason, "saved in this archive already", archive.name)
			coll, err := p.app.Collection(ctx, tenant, rep.Created[0].ID)
			require.NoError(t, err)
			require.Equal(t, "the post", coll.Text, archive.name)
			lib, err := p.app.Collections(ctx, tenant, 100, "")
			require.NoError(t, err)
			require.Len(t, lib.Items, 1+len(archive.before), archive.name)
		}
	})
}
