package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// Jobs a killed process left running are worked as soon as the queue
// starts again, not after River's hour; one that used its attempts is
// discarded.
func TestRescueOrphansHandsJobsBack(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t, "sqlite")
	require.NoError(t, queue.Migrate(ctx, st, storetest.Logger(t)))
	q, err := queue.New(st, testQueueConfig, storetest.Logger(t))
	require.NoError(t, err)
	var ids []int64
	for range 3 {
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			j, err := q.InsertTx(ctx, tx, queue.NoopArgs{Note: "orphan"}, nil)
			if err == nil {
				ids = append(ids, j.ID)
			}
			return err
		}))
	}
	// What a process killed mid-job leaves: running, attempted, never
	// finalized; the last one on its final attempt.
	_, err = st.WriteDB().ExecContext(ctx, `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = datetime('now', '-5 seconds') WHERE id IN (?, ?)`, ids[0], ids[1])
	require.NoError(t, err)
	_, err = st.WriteDB().ExecContext(ctx, `UPDATE river_job SET state = 'running', attempt = max_attempts,
		attempted_at = datetime('now', '-5 seconds') WHERE id = ?`, ids[2])
	require.NoError(t, err)

	n, err := queue.RescueOrphans(ctx, st)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	again, err := queue.RescueOrphans(ctx, st)
	require.NoError(t, err)
	require.Zero(t, again, "nothing is left running")

	completed, cancel := q.Completed()
	defer cancel()
	start := time.Now()
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() {
		sctx, c := context.WithTimeout(ctx, 10*time.Second)
		defer c()
		_ = q.Stop(sctx)
	})
	done := map[int64]bool{}
	for len(done) < 2 {
		select {
		case ev := <-completed:
			done[ev.ID] = true
		case <-time.After(30 * time.Second):
			t.Fatalf("the orphans were not worked: %v", done)
		}
	}
	t.Logf("orphans worked %s after the start", time.Since(start).Round(time.Millisecond))
	require.True(t, done[ids[0]] && done[ids[1]])
	last, err := q.Client().JobGet(ctx, ids[2])
	require.NoError(t, err)
	require.Equal(t, "discarded", string(last.State), "its attempts were used")
	require.NotEmpty(t, last.Errors)
	require.Contains(t, last.Errors[len(last.Errors)-1].Error, "stopped without finishing it")
}
