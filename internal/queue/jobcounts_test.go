package queue_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
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
