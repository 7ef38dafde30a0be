package queue

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// A River client that runs wakes its process about 130 times a second with
// nothing to do: its completer's 50 ms ticker, each queue's polls for
// settings and cancellations, its leader's maintenance. On the embedded
// default (SQLite, one process per data dir) an idle queue therefore
// hibernates: once it has had no job available, running or due for
// hibernateAfter, the hibernator stops the River client, and starts it
// again when
//   - a business transaction inserts a job (the waker pokes it),
//   - a scheduled job or a retry comes due,
//   - a periodic job comes due (on SQLite the schedule is the hibernator's,
//     not River's leader's, since River would run every RunOnStart job
//     again at each start), or
//   - its poll, every idlePollInterval, finds a job it was not told of (one
//     another process inserted, or River UI retried).
// On PostgreSQL River listens for inserts and keeps its own schedule; the
// queue never hibernates there.

// hibernateAfter is how long a queue has nothing to do before it
// hibernates. It is also the horizon: a job due sooner keeps it awake.
const hibernateAfter = 5 * time.Second

// hibernateCheck is how often an awake queue looks whether it is idle.
const hibernateCheck = time.Second

// hibernateStopWait is how long a stop of an idle client is waited for
// before the wait is logged: a job fetched just before the stop (one that
// came due as the queue looked) runs to its end first, and jobs that come
// meanwhile wait for it.
const hibernateStopWait = 2 * time.Second

// hibernator owns the River client's starts and stops between Queue.Start
// and Queue.Stop on SQLite.
type hibernator struct {
	client   *river.Client[*sql.Tx]
	log      *slog.Logger
	subs     *completions
	periodic []Periodic
	// next is when each periodic job is next due (zero: at start).
	next []time.Time
	poke chan struct{}
	// runCtx is the context Queue.Start was given, for River's restarts.
	runCtx context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	awake bool
	// gate keeps inserts made outside a transaction (hold) off River's
	// Start, which sets up the fetch they notify without a lock.
	gate sync.RWMutex
}

// hold keeps the client from starting or stopping until release; nil-safe.
func (h *hibernator) hold() (release func()) {
	if h == nil {
		return func() {}
	}
	h.gate.RLock()
	return h.gate.RUnlock
}

func newHibernator(client *river.Client[*sql.Tx], log *slog.Logger, subs *completions) *hibernator {
	return &hibernator{client: client, log: log, subs: subs, poke: make(chan struct{}, 1)}
}

// wake tells a hibernating queue that work came; it never blocks.
func (h *hibernator) wake() {
	if h == nil {
		return
	}
	select {
	case h.poke <- struct{}{}:
	default:
	}
}

// started reports whether the loop runs (between Queue.Start and Stop).
func (h *hibernator) started() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.done != nil
}

// isAwake reports whether the River client runs.
func (h *hibernator) isAwake() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.awake
}

// begin runs the loop; the client has just been started with ctx.
func (h *hibernator) begin(ctx context.Context, periodic []Periodic) {
	h.periodic = periodic
	h.next = make([]time.Time, len(periodic))
	h.runCtx = ctx
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancel = cancel
	h.mu.Lock()
	h.awake = true
	h.done = make(chan struct{})
	h.mu.Unlock()
	go h.loop(loopCtx)
}

// halt ends the loop and reports whether the client is left running.
func (h *hibernator) halt() (awake bool) {
	if !h.started() {
		return true // never started: the client's Stop is a no-op
	}
	h.cancel()
	<-h.done
	return h.isAwake()
}

func (h *hibernator) loop(ctx context.Context) {
	defer close(h.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	idleSince := time.Now()
	for {
		if h.insertDue(ctx, time.Now()) {
			idleSince = time.Now()
			if !h.isAwake() {
				h.start()
			}
		}
		var wait time.Duration
		if h.isAwake() {
			wait = hibernateCheck
		} else {
			wait = time.Until(h.wakeAt(ctx))
		}
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return
		case <-h.poke:
			idleSince = time.Now()
			if !h.isAwake() {
				h.start()
			}
			continue
		case <-timer.C:
		}
		now := time.Now()
		if !h.isAwake() {
			if h.busy(ctx, now) {
				idleSince = now
				h.start()
			}
			continue
		}
		if now.Sub(idleSince) < hibernateAfter {
			continue
		}
		if h.busy(ctx, now.Add(hibernateAfter)) {
			idleSince = now
			continue
		}
		h.stop(ctx)
		if ctx.Err() != nil {
			return
		}
		// A job inserted while the client stopped is not lost: its poke
		// waits in the channel, and this look finds one inserted unseen.
		if h.busy(ctx, time.Now()) {
			h.start()
			idleSince = time.Now()
		}
	}
}

// insertDue inserts the periodic jobs that are due, in one transaction,
// and says whether it inserted any.
func (h *hibernator) insertDue(ctx context.Context, now time.Time) bool {
	var due []river.InsertManyParams
	for i, p := range h.periodic {
		if !now.Before(h.next[i]) {
			h.next[i] = now.Add(p.Interval)
			due = append(due, river.InsertManyParams{Args: p.Args})
		}
	}
	if len(due) == 0 {
		return false
	}
	release := h.hold()
	defer release()
	if _, err := h.client.InsertMany(ctx, due); err != nil {
		h.log.Warn("could not insert periodic jobs; each is inserted again at its next time", slog.Any("err", err))
		return false
	}
	return true
}

// wakeAt is when a hibernating queue next looks for work: its next poll,
// or sooner when a periodic or scheduled job is due.
func (h *hibernator) wakeAt(ctx context.Context) time.Time {
	at := time.Now().Add(idlePollInterval)
	for _, n := range h.next {
		if n.Before(at) {
			at = n
		}
	}
	if due, ok := h.nextScheduled(ctx); ok && due.Before(at) {
		at = due
	}
	return at
}

// busy reports whether a job is available or running, or a scheduled one
// or a retry is due before horizon. A failed look counts as busy.
func (h *hibernator) busy(ctx context.Context, horizon time.Time) bool {
	res, err := h.client.JobList(ctx, river.NewJobListParams().
		States(rivertype.JobStateAvailable, rivertype.JobStateRunning).First(1))
	if err != nil {
		h.log.Warn("could not look for jobs; the queue stays awake", slog.Any("err", err))
		return true
	}
	if len(res.Jobs) > 0 {
		return true
	}
	due, ok := h.nextScheduled(ctx)
	return ok && due.Before(horizon)
}

// nextScheduled is when the first scheduled job or retry is due. A queue's
// wake job is never due (wakeDue), so it is a time far ahead.
func (h *hibernator) nextScheduled(ctx context.Context) (time.Time, bool) {
	res, err := h.client.JobList(ctx, river.NewJobListParams().
		States(rivertype.JobStateScheduled, rivertype.JobStateRetryable).
		OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(1))
	if err != nil {
		h.log.Warn("could not look for scheduled jobs", slog.Any("err", err))
		return time.Now(), true
	}
	if len(res.Jobs) == 0 {
		return time.Time{}, false
	}
	return res.Jobs[0].ScheduledAt, true
}

// start starts the client again; a failure is retried at the next poll.
func (h *hibernator) start() {
	h.gate.Lock()
	defer h.gate.Unlock()
	detach := h.subs.attach(h.client)
	if err := h.client.Start(h.runCtx); err != nil {
		detach()
		h.log.Warn("could not wake the queue; retrying at its next poll", slog.Any("err", err))
		return
	}
	h.mu.Lock()
	h.awake = true
	h.mu.Unlock()
	h.log.Debug("queue awake")
}

// stop stops the idle client. It returns early, the client left running
// or stopping, when the queue itself stops (ctx): Queue.Stop then stops it.
func (h *hibernator) stop(ctx context.Context) {
	for logged := false; ; {
		sctx, cancel := context.WithTimeout(ctx, hibernateStopWait)
		h.gate.Lock()
		err := h.client.Stop(sctx)
		h.gate.Unlock()
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		if !logged {
			logged = true
			h.log.Info("a job started as the queue was about to hibernate; the queue hibernates once it ends", slog.Any("err", err))
		}
	}
	h.mu.Lock()
	h.awake = false
	h.mu.Unlock()
	h.log.Debug("queue hibernating")
}

// completions hands out River's job-completed events across the client's
// starts and stops: River closes its subscriptions at each stop.
type completions struct {
	mu   sync.Mutex
	subs map[chan *rivertype.JobRow]bool
}

func newCompletions() *completions {
	return &completions{subs: map[chan *rivertype.JobRow]bool{}}
}

// subscribe returns a channel of completed jobs, closed by close.
func (c *completions) subscribe() (<-chan *rivertype.JobRow, func()) {
	ch := make(chan *rivertype.JobRow, 1000)
	c.mu.Lock()
	c.subs[ch] = true
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.subs[ch] {
			delete(c.subs, ch)
			close(ch)
		}
	}
}

// attach forwards the client's completions from its next start until it
// stops; detach ends that when the start failed.
func (c *completions) attach(client *river.Client[*sql.Tx]) (detach func()) {
	events, cancel := client.Subscribe(river.EventKindJobCompleted)
	go func() {
		for ev := range events {
			c.mu.Lock()
			for ch := range c.subs {
				select {
				case ch <- ev.Job:
				default: // a subscriber that does not read misses events
				}
			}
			c.mu.Unlock()
		}
	}()
	return cancel
}

// closeAll ends every subscription (the queue stopped for good).
func (c *completions) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.subs {
		delete(c.subs, ch)
		close(ch)
	}
}
