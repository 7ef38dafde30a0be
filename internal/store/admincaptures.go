package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// CaptureFilter narrows the operator's list of one tenant's captures.
// Empty fields do not filter. The list runs as that tenant (on PostgreSQL
// its row-level security applies), so operators list tenant by tenant.
type CaptureFilter struct {
	TenantID  uuid.UUID
	State     string
	ErrorCode string
	Adapter   string
	Platform  string
	// Since and Until bound created_at: Since <= created_at < Until.
	Since, Until time.Time
	// BeforeAt and BeforeID continue a list: captures older than this one.
	BeforeAt time.Time
	BeforeID uuid.UUID
	Limit    int
}

// CaptureRow is a capture with what an operator's list shows of its
// collection.
type CaptureRow struct {
	Capture
	Platform  string
	SourceURL string
}

// CaptureAdminList lists one tenant's captures newest first.
func (s *Store) CaptureAdminList(ctx context.Context, f CaptureFilter) (out []CaptureRow, err error) {
	if f.Limit < 1 {
		return nil, fmt.Errorf("store: list captures: limit must be positive")
	}
	where := []string{"tenant_id = $1"}
	args := []any{f.TenantID}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
	}
	if f.State != "" {
		add("state = ?", f.State)
	}
	if f.ErrorCode != "" {
		add("error_code = ?", f.ErrorCode)
	}
	if f.Adapter != "" {
		add("adapter_id = ?", f.Adapter)
	}
	if f.Platform != "" {
		add("collection_id IN (SELECT id FROM collections WHERE platform = ?)", f.Platform)
	}
	if !f.Since.IsZero() {
		add("created_at >= ?", f.Since.UTC())
	}
	if !f.Until.IsZero() {
		add("created_at < ?", f.Until.UTC())
	}
	if !f.BeforeAt.IsZero() {
		args = append(args, f.BeforeAt.UTC(), f.BeforeID)
		n := len(args)
		where = append(where, fmt.Sprintf("(created_at < $%d OR (created_at = $%d AND id < $%d))", n-1, n-1, n))
	}
	args = append(args, f.Limit)
	q := `SELECT ` + captureColumns + `,
		(SELECT platform FROM collections co WHERE co.id = captures.collection_id),
		(SELECT source_url FROM collections co WHERE co.id = captures.collection_id)
		FROM captures WHERE ` + strings.Join(where, " AND ") + fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d`, len(args))
	err = s.view(WithTenant(ctx, f.TenantID), func(qr querier) error {
		rows, err := qr.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r CaptureRow
			var platform, source *string
			var scanErr error
			r.Capture, scanErr = scanCapture(scanWith(rows, &platform, &source))
			if scanErr != nil {
				return scanErr
			}
			if platform != nil {
				r.Platform = *platform
			}
			if source != nil {
				r.SourceURL = *source
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list captures", err)
}

// scanWith adds destinations after a scanner's own: scanCapture reads the
// capture's columns, the extra ones land in more.
func scanWith(row interface{ Scan(...any) error }, more ...any) interface{ Scan(...any) error } {
	return extraScanner{row: row, more: more}
}

type extraScanner struct {
	row  interface{ Scan(...any) error }
	more []any
}

func (e extraScanner) Scan(dest ...any) error { return e.row.Scan(append(dest, e.more...)...) }

// RawResponseSize is one raw upstream response of a capture, without its
// bytes.
type RawResponseSize struct {
	RequestURL  string
	ContentType string
	Size        int64
}

// CaptureRawResponseSizes lists the sizes of a capture's raw responses.
func (s *Store) CaptureRawResponseSizes(ctx context.Context, captureID uuid.UUID) (out []RawResponseSize, err error) {
	err = s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx,
			`SELECT request_url, content_type, size FROM source_responses WHERE capture_id = $1 ORDER BY created_at, id`, captureID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r RawResponseSize
			if err := rows.Scan(&r.RequestURL, &r.ContentType, &r.Size); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list raw response sizes", err)
}

// SubmissionsOfCapture lists the submissions a capture serves, oldest
// first.
func (s *Store) SubmissionsOfCapture(ctx context.Context, captureID uuid.UUID) (out []Submission, err error) {
	err = s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+submissionColumns+` FROM submissions WHERE capture_id = $1 ORDER BY created_at, id`, captureID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			sub, err := scanSubmission(rows)
			if err != nil {
				return err
			}
			out = append(out, sub)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list submissions of capture", err)
}
