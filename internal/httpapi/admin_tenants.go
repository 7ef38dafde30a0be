package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// tenantAdmin is the operator API for tenants, tokens, usage and the audit
// log.
type tenantAdmin interface {
	Tenants(ctx context.Context) ([]app.TenantView, error)
	TenantShow(ctx context.Context, name string) (app.TenantView, error)
	CreateTenant(ctx context.Context, actor, name string, quotaBytes *int64) (app.TenantView, error)
	UpdateTenant(ctx context.Context, actor, name string, ch app.TenantChange) (app.TenantView, error)
	ResetTenantDay(ctx context.Context, actor, name string) error
	Tokens(ctx context.Context, tenantName string) ([]app.TokenView, error)
	CreateToken(ctx context.Context, actor, tenantName, tokenName string, admin bool) (string, app.TokenView, error)
	RevokeToken(ctx context.Context, actor, tenantName string, id uuid.UUID) error
	UsageAll(ctx context.Context) ([]app.AdminUsage, error)
	Audit(ctx context.Context, limit int) ([]app.AuditView, error)
}

// tenantAdminRoutes are the routes of tenantAdmin.
func (d Deps) tenantAdminRoutes() []route {
	return []route{
		{http.MethodGet, "/v1/admin/tenants", admin, d.adminTenants},
		{http.MethodPost, "/v1/admin/tenants", admin, d.adminCreateTenant},
		{http.MethodGet, "/v1/admin/tenants/{name}", admin, d.adminTenant},
		{http.MethodPatch, "/v1/admin/tenants/{name}", admin, d.adminUpdateTenant},
		{http.MethodPost, "/v1/admin/tenants/{name}/reset-day", admin, d.adminResetDay},
		{http.MethodGet, "/v1/admin/tenants/{name}/tokens", admin, d.adminTokens},
		{http.MethodPost, "/v1/admin/tenants/{name}/tokens", admin, d.adminCreateToken},
		{http.MethodDelete, "/v1/admin/tenants/{name}/tokens/{id}", admin, d.adminRevokeToken},
		{http.MethodGet, "/v1/admin/usage", admin, d.adminUsage},
		{http.MethodGet, "/v1/admin/audit", admin, d.adminAudit},
	}
}

func (d Deps) adminTenants(w http.ResponseWriter, r *http.Request) {
	ts, err := d.Admin.Tenants(r.Context())
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": ts})
}

type createTenantBody struct {
	Name       string `json:"name"`
	QuotaBytes *int64 `json:"quota_bytes"`
}

func (d Deps) adminCreateTenant(w http.ResponseWriter, r *http.Request) {
	var body createTenantBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	t, err := d.Admin.CreateTenant(r.Context(), actor(r), body.Name, body.QuotaBytes)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.Admin.TenantShow(r.Context(), t.Name)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, v)
}

func (d Deps) adminTenant(w http.ResponseWriter, r *http.Request) {
	v, err := d.Admin.TenantShow(r.Context(), r.PathValue("name"))
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// updateTenantBody changes what it names: status, quota_bytes (null:
// unlimited), limits, admin (the operator mark).
type updateTenantBody struct {
	Status     *string           `json:"status"`
	QuotaBytes json.RawMessage   `json:"quota_bytes"`
	Limits     *app.TenantLimits `json:"limits"`
	Admin      *bool             `json:"admin"`
}

func (d Deps) adminUpdateTenant(w http.ResponseWriter, r *http.Request) {
	var body updateTenantBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	ch := app.TenantChange{Status: body.Status, Limits: body.Limits, Admin: body.Admin}
	if len(body.QuotaBytes) > 0 {
		ch.QuotaSet = true
		if string(body.QuotaBytes) != "null" {
			n, err := strconv.ParseInt(string(body.QuotaBytes), 10, 64)
			if err != nil {
				d.writeError(w, r, requestErrorf(app.ErrInvalid, "quota_bytes must be a whole number of bytes, or null for unlimited"))
				return
			}
			ch.QuotaBytes = &n
		}
	}
	v, err := d.Admin.UpdateTenant(r.Context(), actor(r), r.PathValue("name"), ch)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (d Deps) adminResetDay(w http.ResponseWriter, r *http.Request) {
	if err := d.Admin.ResetTenantDay(r.Context(), actor(r), r.PathValue("name")); err != nil {
		d.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (d Deps) adminTokens(w http.ResponseWriter, r *http.Request) {
	toks, err := d.Admin.Tokens(r.Context(), r.PathValue("name"))
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": toks})
}

type createTokenBody struct {
	Name  string `json:"name"`
	Admin bool   `json:"admin"`
}

func (d Deps) adminCreateToken(w http.ResponseWriter, r *http.Request) {
	var body createTokenBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	token, t, err := d.Admin.CreateToken(r.Context(), actor(r), r.PathValue("name"), body.Name, body.Admin)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"id": t.ID, "name": t.Name, "admin": t.Admin, "token": token})
}

func (d Deps) adminRevokeToken(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "token")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	if err := d.Admin.RevokeToken(r.Context(), actor(r), r.PathValue("name"), id); err != nil {
		d.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (d Deps) adminUsage(w http.ResponseWriter, r *http.Request) {
	us, err := d.Admin.UsageAll(r.Context())
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": us})
}

func (d Deps) adminAudit(w http.ResponseWriter, r *http.Request) {
	limit := 50
	if raw := r.URL.Query().Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			d.writeError(w, r, requestErrorf(app.ErrInvalid, "limit must be a whole number from 1 to 1000, not %q", raw))
			return
		}
		limit = n
	}
	entries, err := d.Admin.Audit(r.Context(), limit)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": entries})
}
