package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/store"
)

// lifecycleBatch bounds the collections or objects one run handles, so a
// run stays short; the next run takes the rest.
const lifecycleBatch = 200

// PurgeCollections deletes the content of collections nobody has saved for
// longer than the retention setting, with no capture in flight and nothing
// left to deliver: revisions, assets, entity links, raw responses. Blobs
// nothing shows any more become garbage for CollectGarbage. It reports how
// many collections it purged.
func (a *App) PurgeCollections(ctx context.Context) (int, error) {
	s, err := a.Settings(ctx)
	if err != nil {
		return 0, err
	}
	cutoff := a.now().Add(-s.CollectionRetention)
	cands, err := a.store.PurgeCandidates(ctx, cutoff, lifecycleBatch)
	if err != nil {
		return 0, err
	}
	purged := 0
	for _, c := range cands {
		cctx := ctx
		if c.DataScope != store.PublicScope {
			cctx = store.WithTenant(ctx, c.DataScope) // private content purges as its tenant
		}
		var done bool
		err := a.store.InTx(cctx, func(tx *store.Tx) error {
			var err error
			done, err = tx.CollectionPurge(cctx, c.CollectionID, cutoff)
			return err
		})
		if err != nil {
			return purged, err
		}
		if done {
			purged++
			a.log.InfoContext(ctx, "purged collection", slog.String("collection", c.CollectionID.String()))
		}
	}
	return purged, nil
}

// CollectGarbage deletes garbage objects, and pending ones older than the
// grace period (uploads whose commit was lost), from the blob store and
// then their rows. An attached object is never touched. It reports how many
// objects it deleted.
func (a *App) CollectGarbage(ctx context.Context) (int, error) {
	s, err := a.Settings(ctx)
	if err != nil {
		return 0, err
	}
	cutoff := a.now().Add(-s.ObjectGCGrace)
	objs, err := a.store.GCObjects(ctx, cutoff, lifecycleBatch)
	if err != nil {
		return 0, err
	}
	deleted := 0
	for _, o := range objs {
		octx := store.WithTenant(ctx, o.TenantID)
		var claimed bool
		if err := a.store.InTx(octx, func(tx *store.Tx) error {
			var err error
			claimed, err = tx.ObjectClaimForDelete(octx, o.ID, cutoff)
			return err
		}); err != nil {
			return deleted, err
		}
		if !claimed {
			continue
		}
		// The bytes go first, outside any transaction; a failure leaves the
		// row in deleting for the next run.
		if err := a.blob.Delete(ctx, o.Key); err != nil {
			a.log.WarnContext(ctx, "could not delete an object", slog.String("object", o.ID.String()), slog.Any("err", err))
			continue
		}
		if err := a.store.InTx(octx, func(tx *store.Tx) error { return tx.ObjectDelete(octx, o.ID) }); err != nil {
			return deleted, err
		}
		deleted++
	}
	if deleted > 0 {
		a.log.InfoContext(ctx, "collected garbage objects", slog.Int("objects", deleted))
	}
	return deleted, nil
}

// lifecycleWorker runs one of the periodic maintenance passes.
type lifecycleWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	run func(ctx context.Context) (int, error)
}

// Timeout bounds one pass; the next takes what is left.
func (w *lifecycleWorker[T]) Timeout(*river.Job[T]) time.Duration { return 10 * time.Minute }

func (w *lifecycleWorker[T]) Work(ctx context.Context, _ *river.Job[T]) error {
	_, err := w.run(ctx)
	return err
}
