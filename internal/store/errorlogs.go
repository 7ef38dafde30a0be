package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// ErrorLog is one failure in the pipeline or a channel, kept for the
// retention period. It holds no credentials, message text or media URLs.
type ErrorLog struct {
	ID       uuid.UUID
	Source   string // capture, download, finalize, adapter, blob, ...
	Code     string // machine-readable reason ("" when unclassified)
	Stage    string // the step that failed: fetch, download, ...
	Severity string // warn or error
	Message  string // what happened, for operators
	Detail   string // the underlying error, cut short
	// Context is a JSON object of ids and names only.
	Context      json.RawMessage
	CaptureID    *uuid.UUID
	SubmissionID *uuid.UUID
	TenantID     *uuid.UUID
	CreatedAt    time.Time
}

// ErrorLogFilter selects error log rows for ErrorLogList.
type ErrorLogFilter struct {
	// Source keeps only rows of one source ("" for all).
	Source string
	// Before keeps only rows written before it (zero: from the newest).
	Before time.Time
	// Limit is the most rows returned.
	Limit int
}

const errorLogColumns = `id, source, code, stage, severity, message, detail, context_json, capture_id, submission_id, tenant_id, created_at`

// ErrorLogInsert writes one error log row; an empty Context is stored as {}.
func (tx *Tx) ErrorLogInsert(ctx context.Context, e ErrorLog) (ErrorLog, error) {
	if e.ID == uuid.Nil {
		e.ID = uuid.Must(uuid.NewV7())
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = tx.now()
	}
	e.CreatedAt = e.CreatedAt.UTC().Truncate(time.Microsecond)
	if len(e.Context) == 0 {
		e.Context = json.RawMessage(`{}`)
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO error_logs (`+errorLogColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		e.ID, e.Source, e.Code, e.Stage, e.Severity, e.Message, e.Detail, string(e.Context),
		nullUUID(e.CaptureID), nullUUID(e.SubmissionID), nullUUID(e.TenantID), e.CreatedAt)
	return e, wrap(tx.d, "insert error log", err)
}

// ErrorLogList lists error log rows newest first.
func (s *Store) ErrorLogList(ctx context.Context, f ErrorLogFilter) ([]ErrorLog, error) {
	q := `SELECT ` + errorLogColumns + ` FROM error_logs WHERE 1 = 1`
	var args []any
	if f.Source != "" {
		args = append(args, f.Source)
		q += ` AND source = $` + itoa(len(args))
	}
	if !f.Before.IsZero() {
		args = append(args, f.Before.UTC())
		q += ` AND created_at < $` + itoa(len(args))
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ` + itoa(f.Limit)
	var out []ErrorLog
	err := s.view(ctx, func(qr querier) error {
		rows, err := qr.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e ErrorLog
			var ctxJSON string
			var capture, submission, tenant uuid.NullUUID
			if err := rows.Scan(&e.ID, &e.Source, &e.Code, &e.Stage, &e.Severity, &e.Message, &e.Detail, &ctxJSON,
				&capture, &submission, &tenant, &e.CreatedAt); err != nil {
				return err
			}
			e.Context = json.RawMessage(ctxJSON)
			e.CaptureID, e.SubmissionID, e.TenantID = nullableID(capture), nullableID(submission), nullableID(tenant)
			e.CreatedAt = e.CreatedAt.UTC()
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list error logs", err)
}

// ErrorLogDeleteBefore deletes up to limit of the oldest rows written
// before cutoff and reports how many it deleted; callers repeat until it
// deletes fewer than limit, so no transaction holds the write lock long.
func (tx *Tx) ErrorLogDeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	res, err := tx.tx.ExecContext(ctx,
		`DELETE FROM error_logs WHERE id IN (
			SELECT id FROM error_logs WHERE created_at < $1 ORDER BY created_at LIMIT `+itoa(limit)+`)`,
		cutoff.UTC().Truncate(time.Microsecond))
	if err != nil {
		return 0, wrap(tx.d, "delete old error logs", err)
	}
	n, err := res.RowsAffected()
	return n, wrap(tx.d, "delete old error logs", err)
}

func nullableID(n uuid.NullUUID) *uuid.UUID {
	if !n.Valid {
		return nil
	}
	return &n.UUID
}
