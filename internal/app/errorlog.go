package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// Sources of error log rows: the part of Monitor that failed.
const (
	SourceCapture  = "capture"
	SourceDownload = "download"
	SourceFinalize = "finalize"
	SourceAdapter  = "adapter"
	SourceBlob     = "blob"
	SourceChannel  = "channel"
)

// Limits of an error log row: the detail is cut (seed 003: 300 characters
// and an ellipsis), context values are ids and names, never text.
const (
	maxErrorDetail   = 300
	maxContextValue  = 100
	maxErrorSource   = 32
	errorLogWriteMax = 5 * time.Second
	// purgeBatch is how many rows one purge transaction deletes.
	purgeBatch = 1000
)

// ErrorRecord is one failure for the error log. It must hold no
// credentials, message text or media URLs: Context takes ids and names
// only, and URLs in Detail are replaced by <url>.
type ErrorRecord struct {
	// Source is the part that failed: SourceCapture, SourceDownload, ...
	Source string
	// Code is the machine-readable reason, e.g. an adapter's error code.
	Code string
	// Stage is the step that failed: fetch, download, upload, ...
	Stage string
	// Severity is error (work failed) or warn (a best-effort step failed).
	Severity string
	// Message says what happened, for operators.
	Message string
	// Detail is the underlying error; it is cut at 300 characters.
	Detail string
	// Context holds ids and names only (asset_id, adapter, ...).
	Context map[string]string
	// CaptureID, SubmissionID and TenantID link the row (uuid.Nil: none).
	CaptureID, SubmissionID, TenantID uuid.UUID
}

// LogError writes a failure to the error log. It is best effort: a failure
// to write is logged and never reaches the caller, whose work goes on.
func (a *App) LogError(ctx context.Context, e ErrorRecord) {
	row := store.ErrorLog{
		Source: e.Source, Code: e.Code, Stage: e.Stage, Severity: e.Severity, Message: e.Message,
		Detail:    cutDetail(scrubURLs(e.Detail)),
		CaptureID: optionalID(e.CaptureID), SubmissionID: optionalID(e.SubmissionID), TenantID: optionalID(e.TenantID),
		CreatedAt: a.now(),
	}
	if row.Source == "" {
		row.Source = "core"
	}
	if row.Severity != SeverityWarn {
		row.Severity = SeverityError
	}
	if row.Message == "" {
		row.Message = row.Source + " failed"
	}
	ids := map[string]string{}
	for k, v := range e.Context {
		if v != "" && len(v) <= maxContextValue && !strings.Contains(v, "://") {
			ids[k] = v
		}
	}
	row.Context, _ = json.Marshal(ids) // a map of strings always encodes
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), errorLogWriteMax)
	defer cancel()
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ErrorLogInsert(ctx, row)
		return err
	})
	if err != nil {
		a.log.WarnContext(ctx, "cannot write the error log", slog.String("source", row.Source),
			slog.String("code", row.Code), slog.Any("err", err))
	}
}

func optionalID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

// cutDetail keeps the first 300 characters of s and marks the cut with "…".
func cutDetail(s string) string {
	if utf8.RuneCountInString(s) <= maxErrorDetail {
		return s
	}
	i, n := 0, 0
	for i = range s {
		if n == maxErrorDetail {
			break
		}
		n++
	}
	return s[:i] + "…"
}

// scrubURLs replaces every http(s) URL in s with <url>: media addresses
// carry signatures and say what someone saved.
func scrubURLs(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "http://")
		if j := strings.Index(s, "https://"); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString("<url>")
		end := strings.IndexAny(s[i:], " \t\n\"'<>")
		if end < 0 {
			return b.String()
		}
		s = s[i+end:]
	}
}

// ErrorLogView is one error log row as operators see it.
type ErrorLogView struct {
	ID           uuid.UUID       `json:"id"`
	At           time.Time       `json:"at"`
	Source       string          `json:"source"`
	Code         string          `json:"code"`
	Stage        string          `json:"stage"`
	Severity     string          `json:"severity"`
	Message      string          `json:"message"`
	Detail       string          `json:"detail"`
	Context      json.RawMessage `json:"context"`
	CaptureID    *uuid.UUID      `json:"capture_id,omitempty"`
	SubmissionID *uuid.UUID      `json:"submission_id,omitempty"`
	TenantID     *uuid.UUID      `json:"tenant_id,omitempty"`
}

// ErrorLogs lists error log rows newest first, at most limit (1 to 1000),
// of one source or of all ("").
func (a *App) ErrorLogs(ctx context.Context, source string, limit int) ([]ErrorLogView, error) {
	if limit < 1 || limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	if len(source) > maxErrorSource {
		return nil, errorf(ErrInvalid, "source must be at most %d characters, such as capture or download", maxErrorSource)
	}
	rows, err := a.store.ErrorLogList(ctx, store.ErrorLogFilter{Source: source, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]ErrorLogView, 0, len(rows))
	for _, r := range rows {
		out = append(out, ErrorLogView{ID: r.ID, At: r.CreatedAt, Source: r.Source, Code: r.Code, Stage: r.Stage,
			Severity: r.Severity, Message: r.Message, Detail: r.Detail, Context: r.Context,
			CaptureID: r.CaptureID, SubmissionID: r.SubmissionID, TenantID: r.TenantID})
	}
	return out, nil
}

// PurgeErrorLogs deletes the error log rows older than the
// error_log_retention_days setting and reports how many it deleted.
func (a *App) PurgeErrorLogs(ctx context.Context) (int64, error) {
	s, err := a.Settings(ctx)
	if err != nil {
		return 0, err
	}
	cutoff := a.now().Add(-s.ErrorLogRetention)
	var total int64
	for {
		var n int64
		err := a.store.InTx(ctx, func(tx *store.Tx) error {
			var err error
			n, err = tx.ErrorLogDeleteBefore(ctx, cutoff, purgeBatch)
			return err
		})
		total += n
		if err != nil || n < purgeBatch {
			return total, err
		}
	}
}

// purgeErrorLogsWorker runs PurgeErrorLogs for the periodic job
// (queue.Schedule: hourly and at start).
type purgeErrorLogsWorker struct {
	river.WorkerDefaults[queue.PurgeErrorLogsArgs]
	app *App
}

func (w *purgeErrorLogsWorker) Work(ctx context.Context, _ *river.Job[queue.PurgeErrorLogsArgs]) error {
	n, err := w.app.PurgeErrorLogs(ctx)
	if n > 0 {
		w.app.log.InfoContext(ctx, "purged old error log rows", slog.Int64("rows", n))
	}
	return err
}

// adapterCode is an adapter error's code in lowercase without its
// ERROR_CODE_ prefix, e.g. "not_found" ("" for other errors).
func adapterCode(err error) string {
	var ae *adapterapi.Error
	if !errors.As(err, &ae) {
		return ""
	}
	return strings.ToLower(strings.TrimPrefix(ae.Code.String(), "ERROR_CODE_"))
}
