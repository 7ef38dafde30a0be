package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// connectionService is the business layer of a tenant's accounts.
type connectionService interface {
	AddConnection(ctx context.Context, req app.AddConnectionRequest) (app.AddConnectionResult, error)
	Connections(ctx context.Context, tenantID uuid.UUID) ([]app.ConnectionView, error)
	CheckConnection(ctx context.Context, tenantID, id uuid.UUID) (app.CheckResult, error)
	RevokeConnection(ctx context.Context, tenantID, id uuid.UUID, actor string) (app.ConnectionView, error)
}

// connectionRoutes are the routes of a tenant's accounts.
func (d Deps) connectionRoutes() []route {
	return []route{
		{http.MethodGet, "/v1/connections", bearer, d.connections},
		{http.MethodPost, "/v1/connections", bearer, d.addConnection},
		{http.MethodDelete, "/v1/connections/{id}", bearer, d.revokeConnection},
		{http.MethodPost, "/v1/connections/{id}/check", bearer, d.checkConnection},
	}
}

// addConnectionBody is the body of POST /v1/connections. Secret is read
// by the adapter only and never answered, logged or audited.
type addConnectionBody struct {
	Adapter  string  `json:"adapter"`
	Provider string  `json:"provider"`
	Secret   *string `json:"secret"`
}

// addConnection connects an account: POST /v1/connections → 201 (new) or
// 200 (the account's credential replaced).
func (d Deps) addConnection(w http.ResponseWriter, r *http.Request) {
	var body addConnectionBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	if body.Adapter == "" {
		d.writeError(w, r, requestErrorf(app.ErrInvalid, `adapter is required: send {"adapter": "x", "secret": "…"}; GET /v1/adapters lists them`))
		return
	}
	if body.Secret == nil || *body.Secret == "" {
		d.writeError(w, r, requestErrorf(app.ErrInvalid, `secret is required: send what the platform's sign-in gave you as {"secret": "…"}`))
		return
	}
	res, err := d.App.AddConnection(r.Context(), app.AddConnectionRequest{TenantID: principal(r).TenantID, Adapter: body.Adapter,
		Provider: body.Provider, Secret: []byte(*body.Secret), Actor: actor(r)})
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	status := http.StatusCreated
	if res.Replaced {
		status = http.StatusOK
	}
	w.Header().Set("Location", "/v1/connections/"+res.Connection.ID.String())
	writeJSON(w, status, res.Connection)
}

// connections lists the tenant's accounts, revoked ones included:
// GET /v1/connections.
func (d Deps) connections(w http.ResponseWriter, r *http.Request) {
	items, err := d.App.Connections(r.Context(), principal(r).TenantID)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// revokeConnection deletes an account's credential and keeps the
// connection for the audit trail: DELETE /v1/connections/{id} → 204.
func (d Deps) revokeConnection(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "connection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	if _, err := d.App.RevokeConnection(r.Context(), principal(r).TenantID, id, actor(r)); err != nil {
		d.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// checkConnection asks the upstream whether the account's credential
// still works: POST /v1/connections/{id}/check.
func (d Deps) checkConnection(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "connection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	res, err := d.App.CheckConnection(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
