package queue_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// tickArgs is a periodic test job; tickWorker counts its runs.
type tickArgs struct{}

func (tickArgs) Kind() string                 { return "test_tick" }
func (tickArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queue.Control} }

type tickWorker struct {
	river.WorkerDefaults[tickArgs]
	runs atomic.Int32
}

func (w *tickWorker) Work(context.Context, *river.Job[tickArgs]) error {
	w.runs.Add(1)
	return nil
}

// An idle queue on the embedded default hibernates (its River client
// stops, so the process sleeps), and wakes for a job a transaction
// inserts, for one inserted behind its back (at its next poll), for a
// scheduled job when it comes due, and for its periodic jobs.
func TestIdleQueueHibernatesAndWakes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.New(t, "sqlite")
	log := storetest.Logger(t)
	require.NoError(t, queue.Migrate(ctx, st, log))
	tick := &tickWorker{}
	q, err := queue.New(st, testQueueConfig, log, func(ws *river.Workers) { river.AddWorker(ws, tick) })
	require.NoError(t, err)
	require.NoError(t, q.AddPeriodic(queue.Periodic{ID: "tick", Interval: 10 * time.Second, Args: tickArgs{}}))
	completed, cancel := q.Completed()
	defer cancel()
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, q.Stop(ctx))
	})
	require.False(t, q.Hibernating(), "a started queue is awake")

	hibernated := func(what string) {
		t.Helper()
		require.Eventually(t, q.Hibernating, 20*time.Second, 50*time.Millisecond, "the idle queue hibernates %s", what)
	}
	waitNoop := func(note string, within time.Duration) time.Duration {
		t.Helper()
		start := time.Now()
		deadline := time.After(within)
		for {
			select {
			case job := <-completed:
				if job.Kind == (queue.NoopArgs{}).Kind() && string(job.EncodedArgs) == `{"note":"`+note+`"}` {
					return time.Since(start)
				}
			case <-deadline:
				t.Fatalf("the %s job did not complete within %s", note, within)
			}
		}
	}

	// The periodic job runs once at start and every 10 s, awake or not.
	hibernated("after start")
	runs := tick.runs.Load()
	require.GreaterOrEqual(t, runs, int32(1), "the periodic job ran at start")

	// A job a business transaction inserts wakes it at once.
	hibernated("before the insert")
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		_, err := q.InsertTx(ctx, tx, queue.NoopArgs{Note: "tx"}, nil)
		return err
	}))
	took := waitNoop("tx", 10*time.Second)
	require.Less(t, took, 2*time.Second, "a transaction's job wakes the queue")

	// One inserted behind its back is found at its next poll.
	hibernated("before the unseen insert")
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		// As another process would: no wake follows.
		_, err := q.Client().InsertTx(ctx, tx.SQL(), queue.NoopArgs{Note: "unseen"}, nil)
		return err
	}))
	took = waitNoop("unseen", 15*time.Second)
	t.Logf("an unseen insert completed after %s", took)

	// A scheduled job wakes it when due, not before and not much after.
	hibernated("before the scheduled job")
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		_, err := q.InsertTx(ctx, tx, queue.NoopArgs{Note: "later"}, &river.InsertOpts{ScheduledAt: time.Now().Add(8 * time.Second)})
		return err
	}))
	took = waitNoop("later", 30*time.Second)
	t.Logf("a job scheduled 8 s ahead completed after %s", took)
	require.GreaterOrEqual(t, took, 8*time.Second)
	require.Less(t, took, 16*time.Second)

	require.Greater(t, tick.runs.Load(), runs+1, "the periodic job went on running while the queue hibernated")
}
