package queue_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// TestQueueJobCounts: the store counts River's jobs by queue and state
// (what /metrics reports as monitor_queue_jobs), completed ones aside.
func TestQueueJobCounts(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		require.NoError(t, queue.Migrate(ctx, st, storetest.Logger(t)))
		counts, err := st.QueueJobCounts(ctx)
		require.NoError(t, err)
		require.Empty(t, counts)

		q, err := queue.New(st, testQueueConfig, storetest.Logger(t)) // not started: the jobs wait
		require.NoError(t, err)
		id := uuid.Must(uuid.NewV7())
		tctx := store.WithTenant(ctx, id)
		require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
			for _, note := range []string{"one", "two"} {
				if _, err := q.InsertTx(tctx, tx, queue.NoopArgs{Note: note}, nil); err != nil {
					return err
				}
			}
			return nil
		}))
		counts, err = st.QueueJobCounts(ctx)
		require.NoError(t, err)
		require.Equal(t, []store.QueueJobCount{{Queue: queue.Control, State: "available", Jobs: 2}}, counts)
	})
}

// BenchmarkQueueJobCounts is what one /metrics scrape spends counting the
// queue, with 20,000 jobs waiting, on each database.
func BenchmarkQueueJobCounts(b *testing.B) {
	for _, d := range storetest.Drivers() {
		b.Run(d, func(b *testing.B) {
			ctx := context.Background()
			st := storetest.New(b, d)
			if err := queue.Migrate(ctx, st, storetest.Logger(b)); err != nil {
				b.Fatal(err)
			}
			q, err := queue.New(st, testQueueConfig, storetest.Logger(b))
			if err != nil {
				b.Fatal(err)
			}
			params := make([]river.InsertManyParams, 1000)
			for i := range params {
				params[i] = river.InsertManyParams{Args: queue.NoopArgs{Note: "bench"}}
			}
			for range 20 {
				if err := st.InTx(ctx, func(tx *store.Tx) error {
					_, err := q.Client().InsertManyFastTx(ctx, tx.SQL(), params)
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, err := st.QueueJobCounts(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
