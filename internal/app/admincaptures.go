package app

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// CodeCancelled is the error code of a capture an operator cancelled.
const CodeCancelled = "CANCELLED"

// Bounds of the operator's capture tools.
const (
	// MaxCaptureBatch is how many captures one retry or cancel may name.
	MaxCaptureBatch = 100
	// MaxCaptureExport is how many rows a capture export holds at most.
	MaxCaptureExport = 100_000
	// captureExportPage is how many rows the export reads at a time.
	captureExportPage = 1000
)

// AdminCaptureFilter narrows the operator's capture list; empty fields do
// not filter.
type AdminCaptureFilter struct {
	// Tenant is a tenant's name ("": every tenant).
	Tenant    string
	State     string
	ErrorCode string
	Platform  string
	Adapter   string
	// Since and Until bound the creation time: Since <= created < Until.
	Since, Until time.Time
	// Limit is how many to list, 1 to 1000.
	Limit int
}

// AdminCaptureView is one capture in the operator's list.
type AdminCaptureView struct {
	ID           uuid.UUID  `json:"id"`
	TenantID     uuid.UUID  `json:"tenant_id"`
	Tenant       string     `json:"tenant"`
	CollectionID uuid.UUID  `json:"collection_id"`
	Platform     string     `json:"platform"`
	SourceURL    string     `json:"source_url"`
	Adapter      string     `json:"adapter"`
	Provider     string     `json:"provider"`
	State        string     `json:"state"`
	Error        string     `json:"error,omitempty"`
	ErrorCode    string     `json:"error_code,omitempty"`
	Attempts     int        `json:"attempts"`
	CreatedAt    time.Time  `json:"created_at"`
	FinishedAt   *time.Time `json:"finished_at,omitempty"`
}

func adminCaptureView(r store.CaptureRow, tenant string) AdminCaptureView {
	return AdminCaptureView{ID: r.ID, TenantID: r.TenantID, Tenant: tenant, CollectionID: r.CollectionID, Platform: r.Platform,
		SourceURL: r.SourceURL, Adapter: r.AdapterID, Provider: r.Provider, State: r.State, Error: r.Error, ErrorCode: r.ErrorCode,
		Attempts: r.Attempts, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt}
}

// checkCaptureFilter refuses a filter the list cannot run.
func checkCaptureFilter(f AdminCaptureFilter) error {
	switch f.State {
	case "", StateQueued, StateDownloading, StateComplete, StatePartial, StateFailed:
	default:
		return errorf(ErrInvalid, "state %q is not one of queued, downloading, complete, partial, failed", f.State)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		return errorf(ErrInvalid, "the end date must be after the start date")
	}
	for _, s := range []string{f.ErrorCode, f.Platform, f.Adapter} {
		if len(s) > 100 {
			return errorf(ErrInvalid, "a filter value has at most 100 characters")
		}
	}
	return nil
}

// adminTenants are the tenants a filter covers.
func (a *App) adminTenants(ctx context.Context, name string) ([]store.Tenant, error) {
	if name != "" {
		t, err := a.tenantByName(ctx, name)
		if err != nil {
			return nil, err
		}
		return []store.Tenant{t}, nil
	}
	return a.store.TenantList(ctx)
}

// AdminCaptures lists captures of every tenant (or one) newest first.
func (a *App) AdminCaptures(ctx context.Context, f AdminCaptureFilter) ([]AdminCaptureView, error) {
	if f.Limit < 1 || f.Limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	if err := checkCaptureFilter(f); err != nil {
		return nil, err
	}
	ts, err := a.adminTenants(ctx, f.Tenant)
	if err != nil {
		return nil, err
	}
	var out []AdminCaptureView
	for _, t := range ts {
		rows, err := a.store.CaptureAdminList(ctx, storeFilter(f, t.ID, f.Limit))
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, adminCaptureView(r, t.Name))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID.String() > out[j].ID.String()
	})
	if len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

func storeFilter(f AdminCaptureFilter, tenantID uuid.UUID, limit int) store.CaptureFilter {
	return store.CaptureFilter{TenantID: tenantID, State: f.State, ErrorCode: f.ErrorCode, Adapter: f.Adapter, Platform: f.Platform,
		Since: f.Since, Until: f.Until, Limit: limit}
}

// ExportCaptures hands fn the captures a filter selects, tenant by tenant
// and newest first within each, at most max (1 to MaxCaptureExport) rows,
// reading a page at a time so memory stays flat. It reports whether rows
// were left out at the bound. f.Limit is ignored.
func (a *App) ExportCaptures(ctx context.Context, f AdminCaptureFilter, max int, fn func(AdminCaptureView) error) (cut bool, err error) {
	if max < 1 || max > MaxCaptureExport {
		return false, errorf(ErrInvalid, "an export has from 1 to %d rows", MaxCaptureExport)
	}
	if err := checkCaptureFilter(f); err != nil {
		return false, err
	}
	ts, err := a.adminTenants(ctx, f.Tenant)
	if err != nil {
		return false, err
	}
	n := 0
	for _, t := range ts {
		sf := storeFilter(f, t.ID, captureExportPage)
		for {
			rows, err := a.store.CaptureAdminList(ctx, sf)
			if err != nil {
				return false, err
			}
			for _, r := range rows {
				if n == max {
					return true, nil
				}
				if err := fn(adminCaptureView(r, t.Name)); err != nil {
					return false, err
				}
				n++
			}
			if len(rows) < captureExportPage {
				break
			}
			last := rows[len(rows)-1]
			sf.BeforeAt, sf.BeforeID = last.CreatedAt, last.ID
		}
	}
	return false, nil
}

// AdminAssetView is one media reference of a capture, for operators.
type AdminAssetView struct {
	Position  int    `json:"position"`
	Kind      string `json:"kind"`
	SourceURL string `json:"source_url"`
	State     string `json:"state"`
	Error     string `json:"error,omitempty"`
	Attempts  int    `json:"attempts"`
	Size      int64  `json:"size"`
}

// AdminSubmissionView is one request a capture serves, for operators.
type AdminSubmissionView struct {
	ID            uuid.UUID `json:"id"`
	InputURL      string    `json:"input_url"`
	DeliveryState string    `json:"delivery_state"`
	Automatic     bool      `json:"automatic"`
	CreatedAt     time.Time `json:"created_at"`
}

// AdminCaptureDetail is everything an operator sees of one capture.
type AdminCaptureDetail struct {
	AdminCaptureView
	StartedAt    *time.Time              `json:"started_at,omitempty"`
	Assets       []AdminAssetView        `json:"assets"`
	RawResponses []store.RawResponseSize `json:"raw_responses"`
	Submissions  []AdminSubmissionView   `json:"submissions"`
	// Retryable and Cancellable say which action the capture allows.
	Retryable, Cancellable bool
}

// AdminCapture shows one capture of a tenant with its assets, raw
// response sizes and submissions.
func (a *App) AdminCapture(ctx context.Context, tenantID, id uuid.UUID) (AdminCaptureDetail, error) {
	ctx = store.WithTenant(ctx, tenantID)
	t, err := a.store.TenantGetByID(ctx, tenantID)
	if isNotFound(err) {
		return AdminCaptureDetail{}, errorf(ErrNotFound, "no tenant with id %s", tenantID)
	}
	if err != nil {
		return AdminCaptureDetail{}, err
	}
	c, err := a.store.CaptureGet(ctx, id)
	if isNotFound(err) || (err == nil && c.TenantID != tenantID) {
		return AdminCaptureDetail{}, errorf(ErrNotFound, "tenant %s has no capture %s", t.Name, id)
	}
	if err != nil {
		return AdminCaptureDetail{}, err
	}
	rows, err := a.store.CaptureAdminList(ctx, store.CaptureFilter{TenantID: tenantID, BeforeAt: c.CreatedAt, BeforeID: uuidAfter(c.ID), Limit: 1})
	if err != nil {
		return AdminCaptureDetail{}, err
	}
	row := store.CaptureRow{Capture: c}
	if len(rows) == 1 && rows[0].ID == c.ID {
		row = rows[0]
	}
	d := AdminCaptureDetail{AdminCaptureView: adminCaptureView(row, t.Name), StartedAt: c.StartedAt,
		Retryable: c.State == store.CaptureFailed || c.State == store.CapturePartial, Cancellable: c.State == store.CaptureQueued}
	assets, err := a.store.AssetList(ctx, id)
	if err != nil {
		return AdminCaptureDetail{}, err
	}
	for _, as := range assets {
		size := as.Size
		if size == 0 {
			size = as.BlobSize
		}
		d.Assets = append(d.Assets, AdminAssetView{Position: as.Position, Kind: as.Kind, SourceURL: as.SourceURL, State: as.State,
			Error: as.Error, Attempts: as.Attempts, Size: size})
	}
	if d.RawResponses, err = a.store.CaptureRawResponseSizes(ctx, id); err != nil {
		return AdminCaptureDetail{}, err
	}
	subs, err := a.store.SubmissionsOfCapture(ctx, id)
	if err != nil {
		return AdminCaptureDetail{}, err
	}
	for _, s := range subs {
		d.Submissions = append(d.Submissions, AdminSubmissionView{ID: s.ID, InputURL: s.InputURL, DeliveryState: s.DeliveryState,
			Automatic: s.Automatic, CreatedAt: s.CreatedAt})
	}
	return d, nil
}

// uuidAfter is the smallest id above id, so that a "before" cursor of it
// includes id itself.
func uuidAfter(id uuid.UUID) uuid.UUID {
	for i := len(id) - 1; i >= 0; i-- {
		id[i]++
		if id[i] != 0 {
			break
		}
	}
	return id
}

// CaptureRef names one capture of a tenant.
type CaptureRef struct {
	TenantID  uuid.UUID
	CaptureID uuid.UUID
}

// RetryCapture captures a failed or partial capture's target again, as
// the same tenant with the same adapter, provider and page, and reports
// the new capture (or the one already in flight for it). Audited.
func (a *App) RetryCapture(ctx context.Context, actor string, ref CaptureRef) (uuid.UUID, error) {
	ctx = store.WithTenant(ctx, ref.TenantID)
	var next uuid.UUID
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		c, err := tx.CaptureGet(ctx, ref.CaptureID)
		if isNotFound(err) || (err == nil && c.TenantID != ref.TenantID) {
			return errorf(ErrNotFound, "no capture %s", ref.CaptureID)
		}
		if err != nil {
			return err
		}
		if c.State != store.CaptureFailed && c.State != store.CapturePartial {
			return errorf(ErrInvalid, "only a failed or partial capture can be retried; capture %s is %s", c.ID, c.State)
		}
		key := store.CaptureKey{CollectionID: c.CollectionID, Provider: c.Provider, PageCursor: c.PageCursor, Expand: c.Expand,
			PageSize: c.PageSize, Automatic: c.Automatic}
		running, err := tx.CaptureInFlight(ctx, key)
		switch {
		case err == nil:
			next = running.ID
		case errors.Is(err, store.ErrNotFound):
			n, err := tx.CaptureInsert(ctx, store.Capture{CollectionID: c.CollectionID, TenantID: c.TenantID, Visibility: c.Visibility,
				DataScope: c.DataScope, AccessScope: c.AccessScope, AdapterID: c.AdapterID, Provider: c.Provider, ConnectionID: c.ConnectionID,
				Automatic: c.Automatic, PageCursor: c.PageCursor, Expand: c.Expand, PageSize: c.PageSize})
			if err != nil {
				return err
			}
			if err := a.insertJob(ctx, tx, queue.CaptureArgs{CaptureID: n.ID, TenantID: n.TenantID}); err != nil {
				return err
			}
			next = n.ID
		default:
			return err
		}
		return audit(ctx, tx, actor, "capture.retry", "capture:"+c.ID.String(),
			map[string]any{"capture": c.ID, "state": c.State, "error": c.Error}, map[string]any{"capture": next, "state": store.CaptureQueued})
	})
	return next, err
}

// CancelCapture ends a queued capture as failed with CodeCancelled: its
// reservations go back and its submitters are told. Audited.
func (a *App) CancelCapture(ctx context.Context, actor string, ref CaptureRef) error {
	ctx = store.WithTenant(ctx, ref.TenantID)
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CaptureLock(ctx, ref.CaptureID); err != nil {
			return err
		}
		c, err := tx.CaptureGet(ctx, ref.CaptureID)
		if isNotFound(err) || (err == nil && c.TenantID != ref.TenantID) {
			return errorf(ErrNotFound, "no capture %s", ref.CaptureID)
		}
		if err != nil {
			return err
		}
		if c.State != store.CaptureQueued {
			return errorf(ErrInvalid, "only a queued capture can be cancelled; capture %s is %s", c.ID, c.State)
		}
		const reason = "cancelled by an operator"
		if err := tx.AssetsInterrupt(ctx, c.ID, reason); err != nil {
			return err
		}
		if err := a.finishCaptureCode(ctx, tx, c, store.CaptureFailed, nil, reason, CodeCancelled); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "capture.cancel", "capture:"+c.ID.String(),
			map[string]any{"capture": c.ID, "state": c.State}, map[string]any{"capture": c.ID, "state": store.CaptureFailed, "error_code": CodeCancelled})
	})
}

// BatchResult is what a batch action did with each capture: Done lists
// those it changed, Failed the error of each it could not.
type BatchResult struct {
	Done   []uuid.UUID
	Failed map[uuid.UUID]error
}

// RetryCaptures retries up to MaxCaptureBatch captures, each on its own.
func (a *App) RetryCaptures(ctx context.Context, actor string, refs []CaptureRef) (BatchResult, error) {
	return a.batch(refs, func(r CaptureRef) error { _, err := a.RetryCapture(ctx, actor, r); return err })
}

// CancelCaptures cancels up to MaxCaptureBatch queued captures, each on
// its own.
func (a *App) CancelCaptures(ctx context.Context, actor string, refs []CaptureRef) (BatchResult, error) {
	return a.batch(refs, func(r CaptureRef) error { return a.CancelCapture(ctx, actor, r) })
}

func (a *App) batch(refs []CaptureRef, fn func(CaptureRef) error) (BatchResult, error) {
	if len(refs) == 0 {
		return BatchResult{}, errorf(ErrInvalid, "choose at least one capture")
	}
	if len(refs) > MaxCaptureBatch {
		return BatchResult{}, errorf(ErrInvalid, "a batch has at most %d captures, not %d", MaxCaptureBatch, len(refs))
	}
	res := BatchResult{Failed: map[uuid.UUID]error{}}
	for _, r := range refs {
		if err := fn(r); err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrNotFound) {
				return res, err
			}
			res.Failed[r.CaptureID] = err
			continue
		}
		res.Done = append(res.Done, r.CaptureID)
	}
	return res, nil
}
