package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Event is a system condition operators should know about, deduplicated by
// key: a second occurrence counts up instead of adding a row, and reopens
// the event if it was resolved.
type Event struct {
	ID       uuid.UUID
	Key      string
	Severity string // info, warn, error
	Message  string
	Count    int64
	FirstAt  time.Time
	LastAt   time.Time
	// LastNotifiedAt is when operators were last told (nil: never).
	LastNotifiedAt *time.Time
	Status         string // EventOpen or EventResolved
	ResolvedAt     *time.Time
}

// Event states.
const (
	EventOpen     = "open"
	EventResolved = "resolved"
)

const eventColumns = `id, key, severity, message, count, first_at, last_at, last_notified_at, status, resolved_at`

func scanEvent(row interface{ Scan(...any) error }) (Event, error) {
	var e Event
	var notified, resolved sql.NullTime
	if err := row.Scan(&e.ID, &e.Key, &e.Severity, &e.Message, &e.Count, &e.FirstAt, &e.LastAt, &notified, &e.Status, &resolved); err != nil {
		return Event{}, err
	}
	if notified.Valid {
		t := notified.Time.UTC()
		e.LastNotifiedAt = &t
	}
	if resolved.Valid {
		t := resolved.Time.UTC()
		e.ResolvedAt = &t
	}
	e.FirstAt, e.LastAt = e.FirstAt.UTC(), e.LastAt.UTC()
	return e, nil
}

// EventRecord records one occurrence of the event key at the given time:
// a new row with count 1, or the existing one counted up with the new
// severity and message, open again if it was resolved.
func (tx *Tx) EventRecord(ctx context.Context, key, severity, message string, at time.Time) (Event, error) {
	at = at.UTC().Truncate(time.Microsecond)
	e, err := scanEvent(tx.tx.QueryRowContext(ctx,
		`INSERT INTO events (id, key, severity, message, count, first_at, last_at, status, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, 1, $5, $5, 'open', $5, $5)
		 ON CONFLICT (key) DO UPDATE SET count = events.count + 1, last_at = excluded.last_at,
			severity = excluded.severity, message = excluded.message, status = 'open', resolved_at = NULL,
			updated_at = excluded.updated_at
		 RETURNING `+eventColumns,
		uuid.Must(uuid.NewV7()), key, severity, message, at))
	return e, wrap(tx.d, "record event "+key, err)
}

// EventGet finds an event by key.
func (tx *Tx) EventGet(ctx context.Context, key string) (Event, error) {
	e, err := scanEvent(tx.tx.QueryRowContext(ctx, `SELECT `+eventColumns+` FROM events WHERE key = $1`, key))
	return e, wrap(tx.d, "get event "+key, err)
}

// EventResolve marks an open event resolved at the given time. changed is
// false when it was resolved already; ErrNotFound when no event has the key.
func (tx *Tx) EventResolve(ctx context.Context, key string, at time.Time) (e Event, changed bool, err error) {
	at = at.UTC().Truncate(time.Microsecond)
	e, err = scanEvent(tx.tx.QueryRowContext(ctx,
		`UPDATE events SET status = 'resolved', resolved_at = $2, updated_at = $2
		  WHERE key = $1 AND status = 'open'
		 RETURNING `+eventColumns, key, at))
	if err == nil {
		return e, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Event{}, false, wrap(tx.d, "resolve event "+key, err)
	}
	e, err = tx.EventGet(ctx, key)
	return e, false, err
}

// EventList lists events with the given status ("" for every status), the
// most recent occurrence first, at most limit.
func (s *Store) EventList(ctx context.Context, status string, limit int) ([]Event, error) {
	q := `SELECT ` + eventColumns + ` FROM events`
	var args []any
	if status != "" {
		q += ` WHERE status = $1`
		args = append(args, status)
	}
	q += ` ORDER BY last_at DESC, id DESC LIMIT ` + itoa(limit)
	var out []Event
	err := s.view(ctx, func(qr querier) error {
		rows, err := qr.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanEvent(rows)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list events", err)
}

// EventMarkNotified records that operators were told about the event at
// the given time, which starts its notification cooldown.
func (tx *Tx) EventMarkNotified(ctx context.Context, key string, at time.Time) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE events SET last_notified_at = $2 WHERE key = $1`, key, at.UTC().Truncate(time.Microsecond))
	return wrap(tx.d, "mark event notified "+key, err)
}
