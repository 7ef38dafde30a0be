package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// AuditEntry is one change made by an operator or by the system.
type AuditEntry struct {
	ID     uuid.UUID
	At     time.Time
	Actor  string
	Action string
	Target string
	// Before and After are JSON snapshots of business fields, never secrets.
	Before json.RawMessage
	After  json.RawMessage
}

// AuditInsert records an entry in the same transaction as the change.
func (tx *Tx) AuditInsert(ctx context.Context, e AuditEntry) error {
	if e.ID == uuid.Nil {
		e.ID = uuid.Must(uuid.NewV7())
	}
	if e.At.IsZero() {
		e.At = tx.now()
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO audit_log (id, at, actor, action, target, before_json, after_json, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $2)`,
		e.ID, e.At, e.Actor, e.Action, e.Target, nullJSON(e.Before), nullJSON(e.After))
	return wrap(tx.d, "insert audit entry", err)
}

// AuditList lists entries newest first, at most limit, before the given
// time (zero: from the newest).
func (s *Store) AuditList(ctx context.Context, before time.Time, limit int) ([]AuditEntry, error) {
	q := `SELECT id, at, actor, action, target, before_json, after_json FROM audit_log`
	args := []any{}
	if !before.IsZero() {
		q += ` WHERE at < $1`
		args = append(args, before)
	}
	q += ` ORDER BY at DESC, id DESC LIMIT ` + itoa(limit)
	var out []AuditEntry
	err := s.view(ctx, func(qr querier) error {
		rows, err := qr.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e AuditEntry
			var b, a *string
			if err := rows.Scan(&e.ID, &e.At, &e.Actor, &e.Action, &e.Target, &b, &a); err != nil {
				return err
			}
			if b != nil {
				e.Before = json.RawMessage(*b)
			}
			if a != nil {
				e.After = json.RawMessage(*a)
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list audit entries", err)
}

func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
