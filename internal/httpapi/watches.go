package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// watchService is the business layer of watched sources.
type watchService interface {
	CreateWatch(ctx context.Context, req app.WatchRequest) (app.WatchView, error)
	Watches(ctx context.Context, tenantID uuid.UUID) ([]app.WatchView, error)
	Watch(ctx context.Context, tenantID, id uuid.UUID) (app.WatchView, error)
	PatchWatch(ctx context.Context, tenantID, id uuid.UUID, p app.WatchPatch) (app.WatchView, error)
	DeleteWatch(ctx context.Context, tenantID, id uuid.UUID) error
	PauseWatch(ctx context.Context, tenantID, id uuid.UUID) (app.WatchView, error)
	ResumeWatch(ctx context.Context, tenantID, id uuid.UUID) (app.WatchView, error)
	WatchRuns(ctx context.Context, tenantID, id uuid.UUID, limit int) ([]app.WatchRunView, error)
}

// watchAdmin is the operator API of watches.
type watchAdmin interface {
	AdminWatches(ctx context.Context, state string, limit int) ([]app.WatchView, error)
	AdminWatchAction(ctx context.Context, actor string, id uuid.UUID, action string) (app.WatchView, error)
}

// watchRoutes are the routes of watched sources.
func (d Deps) watchRoutes() []route {
	return []route{
		{http.MethodPost, "/v1/watches", bearer, d.createWatch},
		{http.MethodGet, "/v1/watches", bearer, d.watches},
		{http.MethodGet, "/v1/watches/{id}", bearer, d.watch},
		{http.MethodPatch, "/v1/watches/{id}", bearer, d.patchWatch},
		{http.MethodDelete, "/v1/watches/{id}", bearer, d.deleteWatch},
		{http.MethodPost, "/v1/watches/{id}/pause", bearer, d.pauseWatch},
		{http.MethodPost, "/v1/watches/{id}/resume", bearer, d.resumeWatch},
		{http.MethodGet, "/v1/watches/{id}/runs", bearer, d.watchRuns},

		{http.MethodGet, "/v1/admin/watches", admin, d.adminWatches},
		{http.MethodPost, "/v1/admin/watches/{id}/approve", admin, d.adminWatchAction("approve")},
		{http.MethodPost, "/v1/admin/watches/{id}/reject", admin, d.adminWatchAction("reject")},
		{http.MethodPost, "/v1/admin/watches/{id}/pause", admin, d.adminWatchAction("pause")},
		{http.MethodPost, "/v1/admin/watches/{id}/resume", admin, d.adminWatchAction("resume")},
	}
}

// createWatchBody is the body of POST /v1/watches.
type createWatchBody struct {
	URL             *string `json:"url"`
	IntervalSeconds *int    `json:"interval_seconds"`
	Notify          string  `json:"notify"`
	Since           string  `json:"since"`
}

// createWatch watches a profile or channel: POST /v1/watches → 201.
func (d Deps) createWatch(w http.ResponseWriter, r *http.Request) {
	var body createWatchBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	if body.URL == nil {
		d.writeError(w, r, requestErrorf(app.ErrInvalid, `url is required: send {"url": "https://x.com/<name>"} with a profile or channel link`))
		return
	}
	req := app.WatchRequest{TenantID: principal(r).TenantID, URL: *body.URL, Notify: body.Notify, Since: body.Since}
	if body.IntervalSeconds != nil {
		if *body.IntervalSeconds < 1 {
			d.writeError(w, r, requestErrorf(app.ErrInvalid, "interval_seconds must be a positive number of seconds, not %d", *body.IntervalSeconds))
			return
		}
		req.IntervalSeconds = *body.IntervalSeconds
	}
	v, err := d.App.CreateWatch(r.Context(), req)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/watches/"+v.ID.String())
	writeJSON(w, http.StatusCreated, v)
}

// watches lists the tenant's watches: GET /v1/watches.
func (d Deps) watches(w http.ResponseWriter, r *http.Request) {
	items, err := d.App.Watches(r.Context(), principal(r).TenantID)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// watchCall runs fn on the watch named by the path and answers its view.
func (d Deps) watchCall(w http.ResponseWriter, r *http.Request, fn func(tenantID, id uuid.UUID) (app.WatchView, error)) {
	id, err := pathID(r, "watch")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := fn(principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// watch shows one watch with its last and next run: GET /v1/watches/{id}.
func (d Deps) watch(w http.ResponseWriter, r *http.Request) {
	d.watchCall(w, r, func(tenantID, id uuid.UUID) (app.WatchView, error) { return d.App.Watch(r.Context(), tenantID, id) })
}

// patchWatch changes a watch's interval or notify mode: PATCH /v1/watches/{id}.
func (d Deps) patchWatch(w http.ResponseWriter, r *http.Request) {
	var body app.WatchPatch
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	d.watchCall(w, r, func(tenantID, id uuid.UUID) (app.WatchView, error) {
		return d.App.PatchWatch(r.Context(), tenantID, id, body)
	})
}

// deleteWatch stops watching: DELETE /v1/watches/{id} → 204. What the
// watch archived stays.
func (d Deps) deleteWatch(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "watch")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	if err := d.App.DeleteWatch(r.Context(), principal(r).TenantID, id); err != nil {
		d.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// pauseWatch: POST /v1/watches/{id}/pause.
func (d Deps) pauseWatch(w http.ResponseWriter, r *http.Request) {
	d.watchCall(w, r, func(tenantID, id uuid.UUID) (app.WatchView, error) {
		return d.App.PauseWatch(r.Context(), tenantID, id)
	})
}

// resumeWatch: POST /v1/watches/{id}/resume.
func (d Deps) resumeWatch(w http.ResponseWriter, r *http.Request) {
	d.watchCall(w, r, func(tenantID, id uuid.UUID) (app.WatchView, error) {
		return d.App.ResumeWatch(r.Context(), tenantID, id)
	})
}

// watchRuns lists a watch's runs, newest first: GET /v1/watches/{id}/runs?limit=.
func (d Deps) watchRuns(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "watch")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	limit, err := limitParam(r, 20, 100)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	runs, err := d.App.WatchRuns(r.Context(), principal(r).TenantID, id, limit)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": runs})
}

// limitParam reads ?limit= (def when absent, 1 to most).
func limitParam(r *http.Request, def, most int) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		return 0, requestErrorf(app.ErrInvalid, "limit must be a whole number from 1 to %d, not %q", most, v)
	}
	return n, nil
}

// adminWatches lists every tenant's watches: GET /v1/admin/watches?state=&limit=.
func (d Deps) adminWatches(w http.ResponseWriter, r *http.Request) {
	limit, err := limitParam(r, 100, 1000)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	items, err := d.Admin.AdminWatches(r.Context(), r.URL.Query().Get("state"), limit)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// adminWatchAction approves, rejects, pauses or resumes any watch:
// POST /v1/admin/watches/{id}/approve|reject|pause|resume.
func (d Deps) adminWatchAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "watch")
		if err != nil {
			d.writeError(w, r, err)
			return
		}
		v, err := d.Admin.AdminWatchAction(r.Context(), actor(r), id, action)
		if err != nil {
			d.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}
