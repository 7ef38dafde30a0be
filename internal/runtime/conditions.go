package runtime

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/queue"
)

// How system conditions become events.
const (
	// conditionInterval is how often readiness and the queue backlog are
	// checked (adapters follow adapterHealthInterval).
	conditionInterval = time.Minute
	// backlogAge is how long a capture or download job may wait for a
	// worker before the queue counts as backed up.
	backlogAge = 5 * time.Minute
	// conditionRetry is how long a condition whose event could not be
	// written waits before the next try (the database may be what failed).
	conditionRetry = 30 * time.Second
	// conditionWrite bounds one event write.
	conditionWrite = 5 * time.Second
	// maxConditionMessage bounds an event message.
	maxConditionMessage = 500
)

// eventSink is where conditions go: the business layer's events.
type eventSink interface {
	RecordEvent(ctx context.Context, key, severity, message string) error
	ResolveEvent(ctx context.Context, actor, key string) (app.EventView, error)
}

// conditions turns what this process observes into events. An event is
// recorded when a condition turns bad and resolved (by the system) when it
// turns good again, so its count is how often it happened, not how often
// it was checked. Until a write lands it is retried every conditionRetry.
type conditions struct {
	sink eventSink
	// now is the engine's clock.
	now func() time.Time
	log *slog.Logger

	mu    sync.Mutex
	state map[string]*condition
}

// condition is what is known of one event key.
type condition struct {
	// landed is the state the events table holds after this process's
	// last successful write (nil: not known yet, e.g. after a restart).
	landed *bool
	// tried is when a write for triedBad started.
	tried    time.Time
	triedBad bool
}

func newConditions(sink eventSink, now func() time.Time, log *slog.Logger) *conditions {
	return &conditions{sink: sink, now: now, log: log, state: map[string]*condition{}}
}

// observe reports whether the condition named key is bad now; message
// describes a bad one for operators.
func (cs *conditions) observe(ctx context.Context, key, severity string, bad bool, message string) {
	now := cs.now()
	cs.mu.Lock()
	c := cs.state[key]
	if c == nil {
		c = &condition{}
		cs.state[key] = c
	}
	if (c.landed != nil && *c.landed == bad) || (!c.tried.IsZero() && c.triedBad == bad && now.Sub(c.tried) < conditionRetry) {
		cs.mu.Unlock()
		return
	}
	c.tried, c.triedBad = now, bad
	cs.mu.Unlock()

	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), conditionWrite)
	defer cancel()
	var err error
	if bad {
		if len(message) > maxConditionMessage {
			message = message[:maxConditionMessage] + "…"
		}
		err = cs.sink.RecordEvent(wctx, key, severity, message)
	} else if _, err = cs.sink.ResolveEvent(wctx, app.ActorSystem, key); errors.Is(err, app.ErrNotFound) {
		err = nil // it never happened
	}

	cs.mu.Lock()
	defer cs.mu.Unlock()
	if err != nil {
		cs.log.WarnContext(ctx, "cannot record system event", slog.String("event", key), slog.Bool("bad", bad), slog.Any("err", err))
		return
	}
	if c.triedBad == bad { // no later observation changed it meanwhile
		c.landed = &bad
		c.tried = time.Time{}
	}
}

// watchConditions checks adapters, readiness and the queue backlog until
// ctx ends.
func (c *Core) watchConditions(ctx context.Context) {
	adapters := time.NewTicker(adapterHealthInterval)
	defer adapters.Stop()
	minute := time.NewTicker(conditionInterval)
	defer minute.Stop()
	c.checkAdapters(ctx)
	c.checkBacklog(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-adapters.C:
			c.checkAdapters(ctx)
		case <-minute.C:
			rctx, cancel := context.WithTimeout(ctx, conditionWrite)
			_ = c.ready(rctx) // records readiness.* itself
			cancel()
			c.checkBacklog(ctx)
		}
	}
}

// checkAdapters turns the health loop's view of the adapters into events.
func (c *Core) checkAdapters(ctx context.Context) {
	for _, a := range c.adapters.Adapters() {
		c.conditions.observe(ctx, app.EventAdapterOfflinePrefix+a.ID(), app.SeverityError, !a.Online(),
			fmt.Sprintf("adapter %s does not answer its health check; links it handles cannot be captured until it is back", a.ID()))
	}
	pending := c.adapters.Pending()
	c.conditions.observe(ctx, app.EventAdapterUnreachable, app.SeverityError, len(pending) > 0,
		fmt.Sprintf("configured adapters have never answered: %s; check that they run and MONITOR_ADAPTERS names them", strings.Join(pending, ", ")))
}

// checkBacklog records queue.backlog while capture or download jobs wait
// for a worker longer than backlogAge.
func (c *Core) checkBacklog(ctx context.Context) {
	msg, bad, err := backlog(ctx, c.queue.Client(), c.now())
	if err != nil {
		if ctx.Err() == nil {
			c.log.WarnContext(ctx, "cannot check the queue backlog", slog.Any("err", err))
		}
		return
	}
	c.conditions.observe(ctx, app.EventQueueBacklog, app.SeverityWarn, bad, msg)
}

// backlog reports whether the capture or download queue has a job that
// has been due for longer than backlogAge, and describes it. Due jobs are
// available ones and scheduled ones (snoozed or retried) whose time has
// passed, which the leader's scheduler has not made available yet.
func backlog(ctx context.Context, client *river.Client[*sql.Tx], now time.Time) (msg string, bad bool, err error) {
	var parts []string
	for _, q := range []string{queue.Capture, queue.Download} {
		res, err := client.JobList(ctx, river.NewJobListParams().Queues(q).
			States(rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable).
			OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(1))
		if err != nil {
			return "", false, fmt.Errorf("queue: list %s jobs: %w", q, err)
		}
		if len(res.Jobs) == 0 {
			continue
		}
		if waited := now.Sub(res.Jobs[0].ScheduledAt); waited > backlogAge {
			parts = append(parts, fmt.Sprintf("the oldest %s job has waited %s", q, waited.Round(time.Second)))
		}
	}
	if len(parts) == 0 {
		return "", false, nil
	}
	return strings.Join(parts, "; ") + "; the workers cannot keep up or are stuck (see monitor admin errors, or raise the worker counts)", true, nil
}
