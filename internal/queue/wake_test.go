package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// A job inserted in a business transaction on the embedded default starts
// at once, not at the queue's next poll (a second); the queue's counts do
// not show the wake jobs that make it so.
func TestJobInsertedInATransactionStartsAtOnce(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t, "sqlite")
	q := startQueue(t, st)
	completed, cancel := q.Client().Subscribe(river.EventKindJobCompleted)
	defer cancel()
	time.Sleep(1500 * time.Millisecond) // past the first polls
	var slowest time.Duration
	for range 5 {
		var committed time.Time
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			_, err := q.InsertTx(ctx, tx, queue.NoopArgs{Note: "now"}, nil)
			tx.AfterCommit(func() { committed = time.Now() })
			return err
		}))
		select {
		case ev := <-completed:
			slowest = max(slowest, ev.Job.AttemptedAt.Sub(committed))
		case <-time.After(10 * time.Second):
			t.Fatal("the job did not complete")
		}
	}
	t.Logf("slowest of 5, commit to start: %s", slowest)
	require.Less(t, slowest, 500*time.Millisecond, "the queue polls once a second; the wake must beat it")
	counts, err := st.QueueJobCounts(ctx)
	require.NoError(t, err)
	for _, c := range counts {
		require.NotEqual(t, "scheduled", c.State, "no wake job is counted: %+v", counts)
	}
}
