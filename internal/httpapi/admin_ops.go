package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/monitorhq/monitor/internal/app"
)

// opsAdmin is the operator API for settings, events and the error log.
type opsAdmin interface {
	SettingsList(ctx context.Context) ([]app.SettingView, error)
	SetSetting(ctx context.Context, actor, key, value string) (app.SettingView, error)
	Events(ctx context.Context, status string, limit int) ([]app.EventView, error)
	ResolveEvent(ctx context.Context, actor, key string) (app.EventView, error)
	ErrorLogs(ctx context.Context, source string, limit int) ([]app.ErrorLogView, error)
}

// opsAdminRoutes are the routes of opsAdmin.
func (d Deps) opsAdminRoutes() []route {
	return []route{
		{http.MethodGet, "/v1/admin/config", admin, d.adminConfig},
		{http.MethodPut, "/v1/admin/config/{key}", admin, d.adminSetConfig},
		{http.MethodGet, "/v1/admin/events", admin, d.adminEvents},
		{http.MethodPost, "/v1/admin/events/{key}/resolve", admin, d.adminResolveEvent},
		{http.MethodGet, "/v1/admin/errors", admin, d.adminErrors},
	}
}

// adminConfig lists every runtime setting: GET /v1/admin/config.
func (d Deps) adminConfig(w http.ResponseWriter, r *http.Request) {
	views, err := d.Admin.SettingsList(r.Context())
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": views})
}

// setConfigBody is the body of PUT /v1/admin/config/{key}.
type setConfigBody struct {
	Value *string `json:"value"`
}

// adminSetConfig changes a setting: PUT /v1/admin/config/{key}.
func (d Deps) adminSetConfig(w http.ResponseWriter, r *http.Request) {
	var body setConfigBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	if body.Value == nil {
		d.writeError(w, r, requestErrorf(app.ErrInvalid, `send {"value": "..."}; the value "default" resets the setting`))
		return
	}
	v, err := d.Admin.SetSetting(r.Context(), actor(r), r.PathValue("key"), *body.Value)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// adminEvents lists events: GET /v1/admin/events?status=open|resolved|all&limit=.
func (d Deps) adminEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := adminLimit(q.Get("limit"), 100)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	status := q.Get("status")
	if status == "" {
		status = app.EventOpen
	}
	events, err := d.Admin.Events(r.Context(), status, limit)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": events})
}

// adminResolveEvent resolves an event: POST /v1/admin/events/{key}/resolve.
func (d Deps) adminResolveEvent(w http.ResponseWriter, r *http.Request) {
	e, err := d.Admin.ResolveEvent(r.Context(), actor(r), r.PathValue("key"))
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, e)
}

// adminErrors lists the error log: GET /v1/admin/errors?limit=&source=.
func (d Deps) adminErrors(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := adminLimit(q.Get("limit"), 50)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	logs, err := d.Admin.ErrorLogs(r.Context(), q.Get("source"), limit)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": logs})
}

// adminLimit reads an operator listing's limit: 1 to 1000, def when absent.
func adminLimit(raw string, def int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > 1000 {
		return 0, requestErrorf(app.ErrInvalid, "limit must be a whole number from 1 to 1000, not %q", raw)
	}
	return n, nil
}
