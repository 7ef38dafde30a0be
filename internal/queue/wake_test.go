package queue_test

import (
	"context"
	"errors"
	"sync/atomic"
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
	completed, cancel := q.Completed()
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
			slowest = max(slowest, ev.AttemptedAt.Sub(committed))
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

// snoozeArgs is a test job that snoozes once, briefly.
type snoozeArgs struct{}

func (snoozeArgs) Kind() string                 { return "test_snooze_once" }
func (snoozeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queue.Capture} }

// snoozeOnceWorker snoozes its job's first run, or fails it with fail.
type snoozeOnceWorker struct {
	river.WorkerDefaults[snoozeArgs]
	snoozed chan time.Time
	fail    bool
	runs    atomic.Int32
}

func (w *snoozeOnceWorker) Work(context.Context, *river.Job[snoozeArgs]) error {
	if w.runs.Add(1) > 1 {
		return nil
	}
	w.snoozed <- time.Now()
	if w.fail {
		return errors.New("the upstream hiccuped")
	}
	return river.JobSnooze(100 * time.Millisecond)
}

// A job that snoozes briefly on the embedded default (a capture waiting
// for its tenant's slot) runs again soon after its snooze, though the
// queue polls only every few seconds once woken by transactions.
func TestShortSnoozeWakesItsQueue(t *testing.T) {
	testWaitWakes(t, false, 2*time.Second)
}

// A job that failed is retried when River's policy says (about a second
// for the first retry), not at the queue's next poll.
func TestRetryWakesItsQueue(t *testing.T) {
	testWaitWakes(t, true, 3*time.Second)
}

func testWaitWakes(t *testing.T, fail bool, within time.Duration) {
	ctx := context.Background()
	st := storetest.New(t, "sqlite")
	log := storetest.Logger(t)
	require.NoError(t, queue.Migrate(ctx, st, log))
	w := &snoozeOnceWorker{snoozed: make(chan time.Time, 1), fail: fail}
	q, err := queue.New(st, testQueueConfig, log, func(ws *river.Workers) { river.AddWorker(ws, w) })
	require.NoError(t, err)
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, q.Stop(ctx))
	})
	completed, cancel := q.Completed()
	defer cancel()
	time.Sleep(1500 * time.Millisecond) // past the first polls
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		_, err := q.InsertTx(ctx, tx, snoozeArgs{}, nil)
		return err
	}))
	var snoozedAt time.Time
	select {
	case snoozedAt = <-w.snoozed:
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not start")
	}
	for {
		select {
		case ev := <-completed:
			if ev.Kind != (snoozeArgs{}).Kind() {
				continue
			}
			took := ev.AttemptedAt.Sub(snoozedAt)
			t.Logf("failed %v, started again %s after", fail, took)
			require.Less(t, took, within, "the queue polls every 5 s; the end of the wait must wake it")
			return
		case <-time.After(15 * time.Second):
			t.Fatal("the snoozed job did not complete")
		}
	}
}
