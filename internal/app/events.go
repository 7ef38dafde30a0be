package app

import (
	"context"
	"time"

	"github.com/monitorhq/monitor/internal/store"
)

// Event severities.
const (
	SeverityInfo  = "info"
	SeverityWarn  = "warn"
	SeverityError = "error"
)

// Keys of the system conditions core records as events. Keys are stable:
// operators and notification rules refer to them.
const (
	// EventReadinessDatabase: the database failed the readiness check.
	EventReadinessDatabase = "readiness.database"
	// EventReadinessBlob: the blob store failed the readiness check.
	EventReadinessBlob = "readiness.blob"
	// EventQueueBacklog: capture or download jobs wait longer than they should.
	EventQueueBacklog = "queue.backlog"
	// EventAdapterOfflinePrefix + adapter id: the adapter does not answer
	// its health check.
	EventAdapterOfflinePrefix = "adapter.offline."
	// EventAdapterUnreachable: configured adapters never answered Describe.
	EventAdapterUnreachable = "adapter.unreachable"
)

// Event statuses, for Events' filter ("all" lists both).
const (
	EventOpen     = store.EventOpen
	EventResolved = store.EventResolved
)

// maxEventKey bounds an event key.
const maxEventKey = 200

// EventView is a system event as operators see it.
type EventView struct {
	Key        string     `json:"key"`
	Severity   string     `json:"severity"`
	Message    string     `json:"message"`
	Count      int64      `json:"count"`
	FirstAt    time.Time  `json:"first_at"`
	LastAt     time.Time  `json:"last_at"`
	Status     string     `json:"status"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
}

func eventView(e store.Event) EventView {
	return EventView{Key: e.Key, Severity: e.Severity, Message: e.Message, Count: e.Count, FirstAt: e.FirstAt,
		LastAt: e.LastAt, Status: e.Status, ResolvedAt: e.ResolvedAt}
}

// RecordEvent records that a system condition happened (again): events
// are deduplicated by key, counting occurrences; one that was resolved
// opens again. The message is for operators, in English, without secrets.
func (a *App) RecordEvent(ctx context.Context, key, severity, message string) error {
	if key == "" || len(key) > maxEventKey {
		return errorf(ErrInvalid, "event key must be 1 to %d characters", maxEventKey)
	}
	switch severity {
	case SeverityInfo, SeverityWarn, SeverityError:
	default:
		return errorf(ErrInvalid, "event severity must be info, warn or error, not %q", severity)
	}
	if message == "" {
		return errorf(ErrInvalid, "event %s needs a message", key)
	}
	plan := a.planNotify(ctx) // read before the transaction (notify.go)
	now := a.now()
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		e, err := tx.EventRecord(ctx, key, severity, message, now)
		if err != nil {
			return err
		}
		return a.announce(ctx, tx, plan, e, now)
	})
}

// ResolveEvent marks an open event resolved, with an audit entry by actor.
// Resolving one that is resolved already changes nothing.
func (a *App) ResolveEvent(ctx context.Context, actor, key string) (EventView, error) {
	var e store.Event
	plan := a.planNotify(ctx)
	now := a.now()
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var changed bool
		var err error
		if e, changed, err = tx.EventResolve(ctx, key, now); err != nil {
			if isNotFound(err) {
				return errorf(ErrNotFound, "no event with key %q", key)
			}
			return err
		}
		if !changed {
			return nil
		}
		if err := a.announceRecovery(ctx, tx, plan, e, now); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "event.resolve", key,
			map[string]any{"status": EventOpen, "count": e.Count}, map[string]any{"status": EventResolved, "count": e.Count})
	})
	if err != nil {
		return EventView{}, err
	}
	return eventView(e), nil
}

// Events lists events by status (open, resolved, or all), the most recent
// first, at most limit (1 to 1000).
func (a *App) Events(ctx context.Context, status string, limit int) ([]EventView, error) {
	if limit < 1 || limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	filter := status
	switch status {
	case EventOpen, EventResolved:
	case "all":
		filter = ""
	default:
		return nil, errorf(ErrInvalid, "event status must be open, resolved or all, not %q", status)
	}
	events, err := a.store.EventList(ctx, filter, limit)
	if err != nil {
		return nil, err
	}
	out := make([]EventView, 0, len(events))
	for _, e := range events {
		out = append(out, eventView(e))
	}
	return out, nil
}
