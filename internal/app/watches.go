package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/store"
)

// Watches: a tenant watches a public X profile or Telegram channel, and
// the pull (watchpull.go) archives its new posts by itself. Every watch of
// one source shares a store.WatchSource, so a run reads the source once
// and fans the new posts out to every active watcher as automatic
// captures in the watcher's tenant.
//
// For the bot (not built here): each run leaves a store.WatchRun per
// watcher with the posts it got, oldest first; PendingWatchRuns lists the
// runs whose posts wait to be delivered (notify deliver: each post like a
// capture) or digested (notify digest: one message per run), and
// WatchRunDelivered marks one done. A watch that paused itself after
// failures leaves a pending run whose Error says why, to tell the watcher.

// Notify modes of a watch.
const (
	NotifyDeliver = "deliver"
	NotifyDigest  = "digest"
	NotifyNone    = "none"
)

// Watch bounds.
const (
	// DefaultWatchInterval is how often a watch reads its source unless
	// it asks otherwise.
	DefaultWatchInterval = 15 * time.Minute
	// MaxWatchInterval is the longest interval a watch may ask for.
	MaxWatchInterval = 7 * 24 * time.Hour
	// WatchFailuresToPause is how many runs in a row may fail before the
	// source's watches pause themselves.
	WatchFailuresToPause = 5
	// MaxWatchBackoff is the longest wait after failed runs.
	MaxWatchBackoff = 6 * time.Hour
)

// WatchRequest asks for a new watch.
type WatchRequest struct {
	TenantID uuid.UUID
	URL      string
	// IntervalSeconds is 0 for DefaultWatchInterval.
	IntervalSeconds int
	// Notify is deliver (default), digest or none.
	Notify string
	// Since is "" or "now" (only posts that appear after the watch is
	// made), or a date (RFC 3339 or YYYY-MM-DD): a later date starts the
	// watch then; an earlier one also archives the posts the source's
	// newest page lists at the first run.
	Since string
	// Admin: an operator adds the watch, so the approval and apply
	// settings do not apply (the limits still do).
	Admin bool
}

// WatchPatch changes a watch; nil fields stay.
type WatchPatch struct {
	IntervalSeconds *int    `json:"interval_seconds,omitempty"`
	Notify          *string `json:"notify,omitempty"`
}

// WatchView is a watch as its watcher (and operators) see it.
type WatchView struct {
	ID uuid.UUID `json:"id"`
	// TenantID is shown to operators only.
	TenantID        *uuid.UUID `json:"tenant_id,omitempty"`
	URL             string     `json:"url"`
	SourceURL       string     `json:"source_url"`
	SourceID        uuid.UUID  `json:"source_id"`
	State           string     `json:"state"`
	PausedReason    string     `json:"paused_reason,omitempty"`
	IntervalSeconds int        `json:"interval_seconds"`
	Notify          string     `json:"notify"`
	Since           *time.Time `json:"since,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
	LastRunAt       *time.Time `json:"last_run_at,omitempty"`
	// NextRunAt is when the source is read next (nil unless active).
	NextRunAt *time.Time `json:"next_run_at,omitempty"`
	NewPosts  int        `json:"new_posts"`
	LastError string     `json:"last_error,omitempty"`
}

// WatchRunView is one run of a watch.
type WatchRunView struct {
	ID        uuid.UUID            `json:"id"`
	WatchID   uuid.UUID            `json:"watch_id"`
	StartedAt time.Time            `json:"started_at"`
	EndedAt   time.Time            `json:"ended_at"`
	NewPosts  int                  `json:"new_posts"`
	Posts     []store.WatchRunPost `json:"posts"`
	Error     string               `json:"error,omitempty"`
	Notify    string               `json:"notify"`
	// DeliveryState is none, pending (the bot has not told the watcher
	// yet) or done.
	DeliveryState string `json:"delivery_state"`
}

func watchRunView(r store.WatchRun) WatchRunView {
	posts := r.Posts
	if posts == nil {
		posts = []store.WatchRunPost{}
	}
	return WatchRunView{ID: r.ID, WatchID: r.WatchID, StartedAt: r.StartedAt, EndedAt: r.EndedAt, NewPosts: r.NewPosts, Posts: posts,
		Error: r.Error, Notify: r.Notify, DeliveryState: r.DeliveryState}
}

// checkNotify checks a notify mode ("" is deliver).
func checkNotify(v string) (string, error) {
	switch v {
	case "":
		return NotifyDeliver, nil
	case NotifyDeliver, NotifyDigest, NotifyNone:
		return v, nil
	}
	return "", errorf(ErrInvalid, "notify must be deliver (each new post), digest (one message per run) or none, not %q", clip(v, 32))
}

// checkInterval checks an interval in seconds (0 is the default) against
// the floor of the watch_min_interval_seconds setting.
func checkInterval(seconds int, floor time.Duration) (int, error) {
	if seconds == 0 {
		return int(max(DefaultWatchInterval, floor) / time.Second), nil
	}
	if seconds < 0 || time.Duration(seconds)*time.Second < floor {
		return 0, errorf(ErrInvalid, "interval_seconds must be at least %d (the watch_min_interval_seconds setting), not %d",
			int(floor/time.Second), seconds)
	}
	if time.Duration(seconds)*time.Second > MaxWatchInterval {
		return 0, errorf(ErrInvalid, "interval_seconds must be at most %d (a week), not %d", int(MaxWatchInterval/time.Second), seconds)
	}
	return seconds, nil
}

// parseSince reads a since value: nil for "" or "now", else the date.
func parseSince(v string) (*time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "now" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, errorf(ErrInvalid, "since must be \"now\" or a date such as 2026-12-01 or 2026-12-01T08:00:00Z, not %q", clip(v, 40))
}

// checkWatchURL refuses what cannot be a link before an adapter sees it.
func checkWatchURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errorf(ErrInvalid, "url is required: send the link to an X profile or a Telegram channel")
	}
	if len(raw) > maxInputURL {
		return "", errorf(ErrInvalid, "url is longer than %d characters", maxInputURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", errorf(ErrInvalid, "url %q is not a link; send one such as https://x.com/<name> or https://t.me/<channel>", clip(raw, 120))
	}
	return raw, nil
}

// resolveWatch resolves a watch's link through its adapter: it must be a
// profile or channel.
func (a *App) resolveWatch(ctx context.Context, raw string) (adapterapi.Resolved, error) {
	r, err := a.adapters.Resolve(ctx, raw)
	var ae *adapterapi.Error
	if errors.As(err, &ae) && AdapterFaultOf(ae) == FaultLink {
		return adapterapi.Resolved{}, errorf(ErrInvalid, "cannot watch %s: %s", clip(raw, 120), ae.Error())
	}
	if err != nil {
		return adapterapi.Resolved{}, err
	}
	if !r.Collection {
		return adapterapi.Resolved{}, errorf(ErrInvalid, "%s is a single post; watch the profile or channel it belongs to", clip(raw, 120))
	}
	return r, nil
}

// CreateWatch makes a watch of a profile or channel for the tenant. It is
// active at once and first read right away, or pending when the
// watch_require_approval setting asks an admin first. Refused: watching
// turned off (watch_apply_enabled), more watches than
// watch_per_user_limit, more distinct sources than watch_max_sources, a
// source the tenant watches already.
func (a *App) CreateWatch(ctx context.Context, req WatchRequest) (WatchView, error) {
	ctx = store.WithTenant(ctx, req.TenantID)
	raw, err := checkWatchURL(req.URL)
	if err != nil {
		return WatchView{}, err
	}
	settings, err := a.Settings(ctx)
	if err != nil {
		return WatchView{}, err
	}
	ws := settings.Watches
	interval, err := checkInterval(req.IntervalSeconds, ws.MinInterval)
	if err != nil {
		return WatchView{}, err
	}
	notify, err := checkNotify(req.Notify)
	if err != nil {
		return WatchView{}, err
	}
	since, err := parseSince(req.Since)
	if err != nil {
		return WatchView{}, err
	}
	if !req.Admin && !ws.ApplyEnabled {
		return WatchView{}, errorf(ErrForbidden, "watching profiles and channels is turned off on this instance; ask the operator")
	}
	// The adapter call happens before, never inside, the transaction.
	r, err := a.resolveWatch(ctx, raw)
	if err != nil {
		return WatchView{}, err
	}
	t := r.Target
	now := a.now().UTC()
	state := store.WatchActive
	if ws.RequireApproval && !req.Admin {
		state = store.WatchPending
	}
	w := store.Watch{TenantID: req.TenantID, URL: raw, IntervalSeconds: interval, Notify: notify, State: state, SinceAt: since}
	if since != nil && since.Before(now) {
		w.Backfill = true
	}
	firstRun := now
	if since != nil && since.After(now) {
		firstRun = *since
	}
	var src store.WatchSource
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.TenantLock(ctx, req.TenantID); err != nil {
			return err
		}
		if _, err := tx.TenantGetByID(ctx, req.TenantID); err != nil {
			return err
		}
		n, err := tx.WatchCount(ctx, req.TenantID)
		if err != nil {
			return err
		}
		if n >= ws.PerTenant {
			return errorf(ErrForbidden, "you have %d watches, the most one account may have (watch_per_user_limit %d); delete one to watch another",
				n, ws.PerTenant)
		}
		// Distinct sources are counted over every tenant: take turns.
		if err := tx.WatchSourcesLock(ctx); err != nil {
			return err
		}
		id := PublicCollectionID(t.GetPlatform(), t.GetEntityType(), t.GetObjectScope(), t.GetExternalId())
		if known, err := tx.WatchSourceExists(ctx, id); err != nil {
			return err
		} else if !known {
			sources, err := tx.WatchSourceCount(ctx)
			if err != nil {
				return err
			}
			if sources >= ws.MaxSources {
				return errorf(ErrForbidden, "%d profiles and channels are watched already, the most this instance allows (watch_max_sources %d); ask the operator",
					sources, ws.MaxSources)
			}
		}
		src, err = tx.WatchSourceAdd(ctx, store.WatchSource{ID: id, AdapterID: r.Adapter, Provider: r.Provider, Platform: t.GetPlatform(),
			EntityType: t.GetEntityType(), ObjectScope: t.GetObjectScope(), ExternalID: t.GetExternalId(), URL: t.GetCanonicalUrl()}, firstRun)
		if err != nil {
			return err
		}
		w.SourceID = src.ID
		if w, err = tx.WatchInsert(ctx, w); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return errorf(ErrConflict, "you watch %s already; change or resume that watch instead", clip(t.GetCanonicalUrl(), 120))
			}
			return err
		}
		return audit(ctx, tx, watchActor(req), "watch.create", w.ID.String(), nil, map[string]any{"url": raw, "state": state})
	})
	if err != nil {
		return WatchView{}, err
	}
	return a.watchView(ctx, w, false)
}

func watchActor(req WatchRequest) string {
	if req.Admin {
		return "admin"
	}
	return "tenant:" + req.TenantID.String()
}

// watchView is a watch with its source's state.
func (a *App) watchView(ctx context.Context, w store.Watch, admin bool) (WatchView, error) {
	src, err := a.store.WatchSourceGet(ctx, w.SourceID)
	if err != nil {
		return WatchView{}, err
	}
	v := WatchView{ID: w.ID, URL: w.URL, SourceURL: src.URL, SourceID: src.ID, State: w.State, PausedReason: w.PausedReason,
		IntervalSeconds: w.IntervalSeconds, Notify: w.Notify, Since: w.SinceAt, CreatedAt: w.CreatedAt, LastRunAt: w.LastRunAt,
		NewPosts: w.NewPosts, LastError: w.LastError}
	if w.State == store.WatchActive {
		next := src.NextRunAt
		if now := a.now(); src.LeaseUntil != nil && src.LeaseUntil.After(now) && next.After(now) {
			next = now // being read now: its next run is its lease's end until the run ends
		}
		v.NextRunAt = &next
	}
	if admin {
		id := w.TenantID
		v.TenantID = &id
	}
	return v, nil
}

// Watches lists the tenant's watches, oldest first.
func (a *App) Watches(ctx context.Context, tenantID uuid.UUID) ([]WatchView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	rows, err := a.store.WatchList(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	out := make([]WatchView, 0, len(rows))
	for _, w := range rows {
		v, err := a.watchView(ctx, w, false)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// getWatch reads the tenant's watch (ErrNotFound for another's).
func getWatch(ctx context.Context, tx *store.Tx, tenantID, id uuid.UUID) (store.Watch, error) {
	w, err := tx.WatchGet(ctx, tenantID, id)
	if isNotFound(err) {
		return store.Watch{}, errorf(ErrNotFound, "no watch with id %s", id)
	}
	return w, err
}

// Watch reads one of the tenant's watches.
func (a *App) Watch(ctx context.Context, tenantID, id uuid.UUID) (WatchView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	var w store.Watch
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		w, err = getWatch(ctx, tx, tenantID, id)
		return err
	})
	if err != nil {
		return WatchView{}, err
	}
	return a.watchView(ctx, w, false)
}

// PatchWatch changes a watch's interval or notify mode.
func (a *App) PatchWatch(ctx context.Context, tenantID, id uuid.UUID, p WatchPatch) (WatchView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	if p.IntervalSeconds == nil && p.Notify == nil {
		return WatchView{}, errorf(ErrInvalid, "nothing to change: send interval_seconds or notify")
	}
	settings, err := a.Settings(ctx)
	if err != nil {
		return WatchView{}, err
	}
	var w store.Watch
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if w, err = getWatch(ctx, tx, tenantID, id); err != nil {
			return err
		}
		before := map[string]any{"interval_seconds": w.IntervalSeconds, "notify": w.Notify}
		if p.IntervalSeconds != nil {
			if *p.IntervalSeconds == 0 {
				return errorf(ErrInvalid, "interval_seconds must be at least %d (the watch_min_interval_seconds setting), not 0",
					int(settings.Watches.MinInterval/time.Second))
			}
			if w.IntervalSeconds, err = checkInterval(*p.IntervalSeconds, settings.Watches.MinInterval); err != nil {
				return err
			}
		}
		if p.Notify != nil {
			if *p.Notify == "" {
				return errorf(ErrInvalid, "notify must be deliver, digest or none")
			}
			if w.Notify, err = checkNotify(*p.Notify); err != nil {
				return err
			}
		}
		if w, err = tx.WatchUpdate(ctx, w); err != nil {
			return err
		}
		return audit(ctx, tx, "tenant:"+tenantID.String(), "watch.update", id.String(), before,
			map[string]any{"interval_seconds": w.IntervalSeconds, "notify": w.Notify})
	})
	if err != nil {
		return WatchView{}, err
	}
	return a.watchView(ctx, w, false)
}

// DeleteWatch removes a watch and its runs; what it archived stays in the
// library.
func (a *App) DeleteWatch(ctx context.Context, tenantID, id uuid.UUID) error {
	ctx = store.WithTenant(ctx, tenantID)
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		w, err := getWatch(ctx, tx, tenantID, id)
		if err != nil {
			return err
		}
		// The delete counts one watcher less on the source (a trigger, so
		// a tenant's delete does too).
		if _, err := tx.WatchDelete(ctx, tenantID, id); err != nil {
			return err
		}
		return audit(ctx, tx, "tenant:"+tenantID.String(), "watch.delete", id.String(), map[string]any{"url": w.URL}, nil)
	})
}

// PauseWatch stops a watch until it is resumed.
func (a *App) PauseWatch(ctx context.Context, tenantID, id uuid.UUID) (WatchView, error) {
	return a.setWatchState(ctx, "tenant:"+tenantID.String(), false, tenantID, id, "pause", "paused by you")
}

// ResumeWatch starts a paused watch again; its source is read at once.
func (a *App) ResumeWatch(ctx context.Context, tenantID, id uuid.UUID) (WatchView, error) {
	return a.setWatchState(ctx, "tenant:"+tenantID.String(), false, tenantID, id, "resume", "")
}

// setWatchState runs one transition of a watch: pause, resume, approve or
// reject. actor is who asks, for the audit log.
func (a *App) setWatchState(ctx context.Context, actor string, admin bool, tenantID, id uuid.UUID, action, reason string) (WatchView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	var w store.Watch
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if w, err = getWatch(ctx, tx, tenantID, id); err != nil {
			return err
		}
		before := w.State
		switch action {
		case "pause":
			if w.State != store.WatchActive {
				return errorf(ErrConflict, "this watch is %s, not active, so it cannot be paused", w.State)
			}
			w.State, w.PausedReason = store.WatchPaused, reason
		case "resume":
			if w.State == store.WatchActive {
				return nil
			}
			if w.State != store.WatchPaused {
				return errorf(ErrConflict, "this watch is %s; only a paused watch can be resumed", w.State)
			}
			w.State, w.PausedReason = store.WatchActive, ""
			// Read again at once, with a fresh count of failures.
			if err := tx.WatchSourceResume(ctx, w.SourceID, a.now()); err != nil {
				return err
			}
		case "approve":
			if w.State != store.WatchPending {
				return errorf(ErrConflict, "this watch is %s; only a pending watch can be approved", w.State)
			}
			w.State = store.WatchActive
			if err := tx.WatchSourceWake(ctx, w.SourceID, a.now()); err != nil {
				return err
			}
		case "reject":
			if w.State != store.WatchPending {
				return errorf(ErrConflict, "this watch is %s; only a pending watch can be rejected", w.State)
			}
			w.State, w.PausedReason = store.WatchRejected, reason
			if err := tx.WatchSourceRelease(ctx, w.SourceID); err != nil {
				return err
			}
		default:
			return fmt.Errorf("app: unknown watch action %q", action)
		}
		if w, err = tx.WatchUpdate(ctx, w); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "watch."+action, id.String(), map[string]any{"state": before}, map[string]any{"state": w.State})
	})
	if err != nil {
		return WatchView{}, err
	}
	return a.watchView(ctx, w, admin)
}

// WatchRuns lists the runs of the tenant's watch, newest first, at most
// limit (1 to 100).
func (a *App) WatchRuns(ctx context.Context, tenantID, id uuid.UUID, limit int) ([]WatchRunView, error) {
	if limit < 1 || limit > 100 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 100")
	}
	if _, err := a.Watch(ctx, tenantID, id); err != nil {
		return nil, err
	}
	rows, err := a.store.WatchRunList(store.WithTenant(ctx, tenantID), tenantID, id, limit)
	if err != nil {
		return nil, err
	}
	out := make([]WatchRunView, 0, len(rows))
	for _, r := range rows {
		out = append(out, watchRunView(r))
	}
	return out, nil
}

// PendingWatchRuns lists the tenant's runs whose news the watcher has not
// been told yet, oldest first, at most limit (1 to 100): for the bot,
// which delivers each post (notify deliver), one digest per run (digest),
// or says why a watch paused itself (a run with an Error and no posts).
func (a *App) PendingWatchRuns(ctx context.Context, tenantID uuid.UUID, limit int) ([]WatchRunView, error) {
	if limit < 1 || limit > 100 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 100")
	}
	rows, err := a.store.WatchRunsPending(store.WithTenant(ctx, tenantID), tenantID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]WatchRunView, 0, len(rows))
	for _, r := range rows {
		out = append(out, watchRunView(r))
	}
	return out, nil
}

// WatchRunDelivered records that the watcher was told of a run.
func (a *App) WatchRunDelivered(ctx context.Context, tenantID, runID uuid.UUID) error {
	ctx = store.WithTenant(ctx, tenantID)
	err := a.store.InTx(ctx, func(tx *store.Tx) error { return tx.WatchRunDelivered(ctx, tenantID, runID) })
	if isNotFound(err) {
		return errorf(ErrNotFound, "no watch run %s waits to be delivered", runID)
	}
	return err
}

// AdminWatches lists every tenant's watches in a state (pending, active,
// paused, rejected, or "" for all), oldest first, at most limit (1 to
// 1000).
func (a *App) AdminWatches(ctx context.Context, state string, limit int) ([]WatchView, error) {
	switch state {
	case "", store.WatchPending, store.WatchActive, store.WatchPaused, store.WatchRejected:
	default:
		return nil, errorf(ErrInvalid, "state must be pending, active, paused or rejected, not %q", clip(state, 32))
	}
	if limit < 1 || limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	rows, err := a.store.WatchListAll(ctx, state, limit)
	if err != nil {
		return nil, err
	}
	out := make([]WatchView, 0, len(rows))
	for _, w := range rows {
		v, err := a.watchView(store.WithTenant(ctx, w.TenantID), w, true)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// AdminWatchAction approves, rejects, pauses or resumes any tenant's
// watch (action approve|reject|pause|resume), as actor.
func (a *App) AdminWatchAction(ctx context.Context, actor string, id uuid.UUID, action string) (WatchView, error) {
	reason := ""
	switch action {
	case "approve", "resume":
	case "reject":
		reason = "rejected by an admin"
	case "pause":
		reason = "paused by an admin"
	default:
		return WatchView{}, errorf(ErrInvalid, "action must be approve, reject, pause or resume, not %q", clip(action, 32))
	}
	tenantID, err := a.store.WatchTenant(ctx, id)
	if isNotFound(err) {
		return WatchView{}, errorf(ErrNotFound, "no watch with id %s", id)
	}
	if err != nil {
		return WatchView{}, err
	}
	if actor == "" {
		actor = "admin"
	}
	return a.setWatchState(ctx, actor, true, tenantID, id, action, reason)
}
