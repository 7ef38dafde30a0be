package app

import (
	"context"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/store"
)

// QueueCount is how many jobs of one queue are in one state.
type QueueCount struct {
	Queue string `json:"queue"`
	State string `json:"state"`
	Count int64  `json:"count"`
}

// QueueCounts counts the queue's jobs by queue and state, for the
// operator's overview.
func (a *App) QueueCounts(ctx context.Context) ([]QueueCount, error) {
	cs, err := a.store.QueueCounts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]QueueCount, 0, len(cs))
	for _, c := range cs {
		out = append(out, QueueCount{Queue: c.Queue, State: c.State, Count: c.Count})
	}
	return out, nil
}

// TenantFilter narrows the operator's tenant list: Query matches part of
// the name (any case), Status one status ("" for all).
type TenantFilter struct {
	Query  string
	Status string
}

// TenantSearch lists the tenants a filter selects, by name.
func (a *App) TenantSearch(ctx context.Context, f TenantFilter) ([]TenantView, error) {
	switch f.Status {
	case "", store.TenantPending, store.TenantEnabled, store.TenantDisabled, store.TenantArchived:
	default:
		return nil, errorf(ErrInvalid, "status %q is not one of pending, enabled, disabled, archived", f.Status)
	}
	all, err := a.Tenants(ctx)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(f.Query))
	out := all[:0]
	for _, t := range all {
		if (f.Status == "" || t.Status == f.Status) && (q == "" || strings.Contains(strings.ToLower(t.Name), q)) {
			out = append(out, t)
		}
	}
	return out, nil
}

// ErrorLogFilter narrows the operator's error log; empty fields do not
// filter.
type ErrorLogFilter struct {
	Source   string
	Code     string
	Severity string
	// Before lists rows written before it (zero: from the newest).
	Before time.Time
	Limit  int
}

// ErrorLogSearch lists error log rows newest first by a filter, at most
// Limit (1 to 1000).
func (a *App) ErrorLogSearch(ctx context.Context, f ErrorLogFilter) ([]ErrorLogView, error) {
	if f.Limit < 1 || f.Limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	if len(f.Source) > maxErrorSource {
		return nil, errorf(ErrInvalid, "source must be at most %d characters, such as capture or download", maxErrorSource)
	}
	var out []ErrorLogView
	before := f.Before
	// Code and severity filter the pages the store gives; read on until
	// enough match or the log ends.
	for range 20 {
		rows, err := a.store.ErrorLogList(ctx, store.ErrorLogFilter{Source: f.Source, Before: before, Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if (f.Code == "" || r.Code == f.Code) && (f.Severity == "" || r.Severity == f.Severity) {
				out = append(out, ErrorLogView{ID: r.ID, At: r.CreatedAt, Source: r.Source, Code: r.Code, Stage: r.Stage,
					Severity: r.Severity, Message: r.Message, Detail: r.Detail, Context: r.Context,
					CaptureID: r.CaptureID, SubmissionID: r.SubmissionID, TenantID: r.TenantID})
				if len(out) == f.Limit {
					return out, nil
				}
			}
		}
		if len(rows) < 1000 {
			break
		}
		before = rows[len(rows)-1].CreatedAt
	}
	return out, nil
}

// DeleteErrorLogs deletes the error log rows written from from up to to,
// of one source ("" for all), with an audit entry by actor, and reports
// how many it deleted.
func (a *App) DeleteErrorLogs(ctx context.Context, actor string, from, to time.Time, source string) (int64, error) {
	if from.IsZero() || to.IsZero() || !to.After(from) {
		return 0, errorf(ErrInvalid, "give a start and an end date, the end after the start")
	}
	if len(source) > maxErrorSource {
		return 0, errorf(ErrInvalid, "source must be at most %d characters, such as capture or download", maxErrorSource)
	}
	var total int64
	for {
		var n int64
		err := a.store.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if n, err = tx.ErrorLogDeleteRange(ctx, from, to, source, purgeBatch); err != nil {
				return err
			}
			if n < purgeBatch {
				return audit(ctx, tx, actor, "error_log.delete", "error_logs",
					map[string]any{"from": from.UTC(), "to": to.UTC(), "source": source}, map[string]any{"deleted": total + n})
			}
			return nil
		})
		total += n
		if err != nil || n < purgeBatch {
			return total, err
		}
	}
}

// AuditFilter narrows the audit list: Query matches part of the actor,
// action or target (any case); Since and Before bound the time.
type AuditFilter struct {
	Query         string
	Since, Before time.Time
	Limit         int
}

// AuditSearch lists audit entries newest first by a filter, at most Limit
// (1 to 1000).
func (a *App) AuditSearch(ctx context.Context, f AuditFilter) ([]AuditView, error) {
	if f.Limit < 1 || f.Limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	q := strings.ToLower(strings.TrimSpace(f.Query))
	var out []AuditView
	before := f.Before
	for range 20 {
		entries, err := a.store.AuditList(ctx, before, 1000)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !f.Since.IsZero() && e.At.Before(f.Since) {
				return out, nil
			}
			hay := strings.ToLower(e.Actor + "\n" + e.Action + "\n" + e.Target)
			if q == "" || strings.Contains(hay, q) {
				out = append(out, AuditView{At: e.At, Actor: e.Actor, Action: e.Action, Target: e.Target, Before: e.Before, After: e.After})
				if len(out) == f.Limit {
					return out, nil
				}
			}
		}
		if len(entries) < 1000 {
			break
		}
		before = entries[len(entries)-1].At
	}
	return out, nil
}
