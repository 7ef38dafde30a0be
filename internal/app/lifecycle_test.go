package app_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/store"
)

const day = 24 * time.Hour

func countFiles(t *testing.T, bs blob.Store) int {
	t.Helper()
	n := 0
	require.NoError(t, bs.List(context.Background(), "", func(blob.Info) error { n++; return nil }))
	return n
}

func TestRetentionPurgesAfterTheDeadlineOnly(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		st := p.st
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		files := countFiles(t, p.blob)
		require.Positive(t, files)

		require.NoError(t, p.app.DeleteCollection(ctx, alice, res.CollectionID))
		p.clock.Advance(6 * day)
		n, err := p.app.PurgeCollections(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "nothing is purged before collection_retention_days (7)")
		_, err = st.RevisionGet(ctx, *c.RevisionID)
		require.NoError(t, err, "the content is still there")

		p.clock.Advance(2 * day)
		n, err = p.app.PurgeCollections(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		_, err = st.RevisionGet(ctx, *c.RevisionID)
		require.ErrorIs(t, err, store.ErrNotFound, "revisions are purged")
		blobs, err := st.BlobCount(ctx)
		require.NoError(t, err)
		require.Zero(t, blobs)
		counts, err := st.ObjectCounts(store.WithTenant(ctx, alice))
		require.NoError(t, err)
		require.Equal(t, map[string]int{store.ObjectGarbage: files}, counts)

		// Garbage goes at the next collection; the files with it.
		deleted, err := p.app.CollectGarbage(ctx)
		require.NoError(t, err)
		require.Equal(t, files, deleted)
		require.Zero(t, countFiles(t, p.blob))
		counts, err = st.ObjectCounts(store.WithTenant(ctx, alice))
		require.NoError(t, err)
		require.Empty(t, counts)

		// Saving the post again captures it afresh.
		_, c = p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		require.Equal(t, files, countFiles(t, p.blob))
	})
}

func TestDeleteKeepsWhatOthersSave(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		_, c = p.capture(t, bob, photosPost)
		require.Equal(t, app.StateComplete, c.State)
		ua, err := p.app.Usage(ctx, alice)
		require.NoError(t, err)
		ub, err := p.app.Usage(ctx, bob)
		require.NoError(t, err)
		require.Equal(t, ua.UsedBytes, ub.UsedBytes)

		require.NoError(t, p.app.DeleteCollection(ctx, alice, res.CollectionID))
		ua2, err := p.app.Usage(ctx, alice)
		require.NoError(t, err)
		require.Zero(t, ua2.UsedBytes, "alice's use drops")
		ub2, err := p.app.Usage(ctx, bob)
		require.NoError(t, err)
		require.Equal(t, ub.UsedBytes, ub2.UsedBytes, "bob's stays")

		p.clock.Advance(30 * day)
		n, err := p.app.PurgeCollections(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "bob still saves it")
		_, err = p.app.CollectGarbage(ctx)
		require.NoError(t, err)
		coll, err := p.app.Collection(ctx, bob, res.CollectionID)
		require.NoError(t, err)
		for _, m := range coll.Media {
			rc, _, err := p.app.OpenMedia(ctx, bob, m.SHA256, nil)
			require.NoError(t, err, "the blob stays")
			require.NoError(t, rc.Close())
		}

		// Alice saves again before a purge: the mark goes.
		require.NoError(t, p.app.DeleteCollection(ctx, bob, res.CollectionID))
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: photosPost})
		require.NoError(t, err)
		p.clock.Advance(30 * day)
		n, err = p.app.PurgeCollections(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "saved again, not purged")
	})
}

func TestGarbageCollectionAfterALostCommit(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		st := p.st
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		// A crash between upload and commit: the bytes are stored, the
		// object row is still pending, nothing is attached.
		objectID := uuid.Must(uuid.NewV7())
		key := blob.ObjectKey(alice, objectID)
		tctx := store.WithTenant(ctx, alice)
		require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
			return tx.ObjectInsertPending(tctx, store.Object{ID: objectID, TenantID: alice, Key: key})
		}))
		_, err := p.blob.Put(ctx, key, bytes.NewReader([]byte("uploaded, never committed")))
		require.NoError(t, err)

		p.clock.Advance(23 * time.Hour)
		n, err := p.app.CollectGarbage(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "never before object_gc_grace_hours (24)")
		_, err = p.blob.Stat(ctx, key)
		require.NoError(t, err)

		p.clock.Advance(2 * time.Hour)
		n, err = p.app.CollectGarbage(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		_, err = p.blob.Stat(ctx, key)
		require.ErrorIs(t, err, blob.ErrNotFound)
		counts, err := st.ObjectCounts(store.WithTenant(ctx, alice))
		require.NoError(t, err)
		require.Empty(t, counts)
	})
}
