package queue

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/monitorhq/monitor/internal/store"
)

// On SQLite River's driver stands in for LISTEN/NOTIFY with a table it
// polls every 50 ms, which keeps an idle server awake 20 times a second.
// Monitor runs its SQLite queue without it (pollOnly): River then polls
// each queue for jobs once a second and fetches at once after an insert
// made outside a transaction. Jobs inserted in a business transaction
// are the rest: once such a transaction commits, the waker inserts a wake
// job in each of their queues, which makes River fetch now. The wake job
// is unique per queue and never due, so after the first one each wake is
// River's duplicate check and writes no row, and it is never worked. The
// counts of the queue leave it out (store.QueueWakeKind).
//
// Woken so, a queue polls every idlePollInterval instead of every second:
// an idle server then sleeps. A job that snoozes briefly (a capture
// waiting for its tenant's slot, a download for its host) is available
// again after its snooze but no insert tells River so; snoozeWaker wakes
// its queue then, and retryWaker when a retry within 5 s is due. Longer
// waits are River's scheduler's, and the next poll's.

// idlePollInterval is how often a woken queue polls for jobs anyway.
const idlePollInterval = 5 * time.Second

// snoozeWakeLongest is the longest snooze that wakes its queue when it
// ends: River makes a job snoozed for at most its scheduler's interval
// (5 s) available at once, and longer ones are the scheduler's.
const snoozeWakeLongest = 5 * time.Second

// snoozeSettle is how long after a snooze ends its queue is woken, and
// woken again: River records a snooze in batches (at least every 50 ms), so the
// first wake may come before the job is available again.
var snoozeSettle = [2]time.Duration{100 * time.Millisecond, 400 * time.Millisecond}

// retryWaker is River's retry policy, waking a job's queue when a retry
// that comes within snoozeWakeLongest is due.
type retryWaker struct {
	w      *waker
	policy river.ClientRetryPolicy
}

func (r retryWaker) NextRetry(job *rivertype.JobRow) time.Time {
	at := r.policy.NextRetry(job)
	if d := time.Until(at); d <= snoozeWakeLongest {
		r.w.wakeAfter(job.Queue, max(d, 0))
	}
	return at
}

// snoozeWaker is a worker middleware that wakes a job's queue when its
// short snooze ends.
type snoozeWaker struct{ w *waker }

func (snoozeWaker) IsMiddleware() bool { return true }

func (s snoozeWaker) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(ctx)
	var se *river.JobSnoozeError
	if errors.As(err, &se) && se.Duration <= snoozeWakeLongest {
		s.w.wakeAfter(job.Queue, se.Duration)
	}
	return err
}

// wakeAfter wakes queue when a job that River records as waiting d is
// available again.
func (w *waker) wakeAfter(queue string, d time.Duration) {
	for _, settle := range snoozeSettle {
		time.AfterFunc(d+settle, func() { w.wake(queue) })
	}
}

// pollOnly is River's SQLite driver without its polling listener.
type pollOnly struct{ *riversqlite.Driver }

// SupportsListener says no, so that River polls for jobs instead.
func (pollOnly) SupportsListener() bool { return false }

// SupportsListenNotify says no: nothing listens.
func (pollOnly) SupportsListenNotify() bool { return false }

// wakeArgs is the wake job of a queue.
type wakeArgs struct{}

// Kind is the job kind stored in River.
func (wakeArgs) Kind() string { return store.QueueWakeKind }

// wakeDue is when a wake job is due: never, in practice.
var wakeDue = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)

type wakeWorker struct {
	river.WorkerDefaults[wakeArgs]
}

// Work is never called: the job is not due until wakeDue.
func (*wakeWorker) Work(context.Context, *river.Job[wakeArgs]) error { return nil }

// wakeStates are the states in which a queue's wake job is one: all of
// them, so that it is never inserted twice.
var wakeStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStateCancelled, rivertype.JobStateCompleted,
	rivertype.JobStateDiscarded, rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateRunning,
	rivertype.JobStateScheduled}

// waker coalesces wakes: while one is being inserted, further requests
// for a queue make one more wake, not one each.
type waker struct {
	client *river.Client[*sql.Tx]
	log    *slog.Logger
	mu     sync.Mutex
	// pending names the queues to wake; running is whether the loop
	// runs; stopped ends waking (the queue stopped).
	pending map[string]bool
	running bool
	stopped bool
	done    sync.WaitGroup
	// sleep is the queue's hibernator, woken with each wake.
	sleep *hibernator
}

func newWaker(log *slog.Logger) *waker {
	return &waker{log: log, pending: map[string]bool{}, stopped: true}
}

// setClient gives the waker the client it wakes, before the queue starts.
func (w *waker) setClient(client *river.Client[*sql.Tx]) {
	if w != nil {
		w.client = client
	}
}

// afterCommit wakes queue once tx has committed.
func (w *waker) afterCommit(tx *store.Tx, queue string) {
	if w != nil {
		tx.AfterCommit(func() { w.wake(queue) })
	}
}

// wake asks River to fetch queue's jobs now, without waiting for it.
func (w *waker) wake(queue string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.pending[queue] = true
	w.sleep.wake()
	if !w.running {
		w.running = true
		w.done.Add(1)
		go w.loop()
	}
}

// start lets wakes through (the queue started).
func (w *waker) start() {
	if w != nil {
		w.mu.Lock()
		w.stopped = false
		w.mu.Unlock()
	}
}

// stop ends waking and waits for a wake under way.
func (w *waker) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	clear(w.pending)
	w.mu.Unlock()
	w.done.Wait()
}

func (w *waker) loop() {
	defer w.done.Done()
	for {
		w.mu.Lock()
		var queue string
		for q := range w.pending {
			queue = q
			break
		}
		if queue == "" {
			w.running = false
			w.mu.Unlock()
			return
		}
		delete(w.pending, queue)
		w.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		release := w.sleep.hold()
		_, err := w.client.Insert(ctx, wakeArgs{}, &river.InsertOpts{Queue: queue, ScheduledAt: wakeDue,
			UniqueOpts: river.UniqueOpts{ByQueue: true, ByState: wakeStates}})
		release()
		cancel()
		if err != nil {
			// The queue's next poll, within a second, fetches the jobs.
			w.log.Warn("could not wake a queue; its next poll fetches the new jobs", slog.String("queue", queue), slog.Any("err", err))
		}
	}
}
