package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// joinService is the business layer of a tenant's requests to join
// channels by invite link.
type joinService interface {
	AskJoin(ctx context.Context, req app.AskJoinRequest) (app.JoinRequestView, error)
	JoinRequests(ctx context.Context, tenantID uuid.UUID) ([]app.JoinRequestView, error)
	JoinRequest(ctx context.Context, tenantID, id uuid.UUID) (app.JoinRequestView, error)
}

// joinAdmin is the operator API of join requests.
type joinAdmin interface {
	AdminJoinRequests(ctx context.Context, state string, limit int) ([]app.JoinRequestView, error)
	AdminDecideJoin(ctx context.Context, d app.DecideJoin) (app.JoinRequestView, error)
}

// joinRoutes are the routes of join requests.
func (d Deps) joinRoutes() []route {
	return []route{
		{http.MethodPost, "/v1/connections/{id}/join", bearer, d.askJoin},
		{http.MethodGet, "/v1/joins", bearer, d.joins},
		{http.MethodGet, "/v1/joins/{id}", bearer, d.join},
		{http.MethodGet, "/v1/admin/joins", admin, d.adminJoins},
		{http.MethodPost, "/v1/admin/joins/{id}/approve", admin, d.adminDecideJoin(true)},
		{http.MethodPost, "/v1/admin/joins/{id}/deny", admin, d.adminDecideJoin(false)},
	}
}

// askJoinBody is the body of POST /v1/connections/{id}/join.
type askJoinBody struct {
	Invite string `json:"invite"`
}

// askJoin asks that the connection's account join a channel by invite
// link: POST /v1/connections/{id}/join → 201, pending (or joined when the
// account is a member already).
func (d Deps) askJoin(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "connection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	var body askJoinBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.AskJoin(r.Context(), app.AskJoinRequest{TenantID: principal(r).TenantID, ConnectionID: id, Invite: body.Invite, Actor: actor(r)})
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/joins/"+v.ID.String())
	writeJSON(w, http.StatusCreated, v)
}

// joins lists the tenant's join requests: GET /v1/joins.
func (d Deps) joins(w http.ResponseWriter, r *http.Request) {
	items, err := d.App.JoinRequests(r.Context(), principal(r).TenantID)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// join is one of the tenant's join requests: GET /v1/joins/{id}.
func (d Deps) join(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "join request")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.JoinRequest(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// adminJoins lists every tenant's join requests: GET /v1/admin/joins?state=&limit=.
func (d Deps) adminJoins(w http.ResponseWriter, r *http.Request) {
	limit, err := limitParam(r, 100, 1000)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	items, err := d.Admin.AdminJoinRequests(r.Context(), r.URL.Query().Get("state"), limit)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// denyJoinBody is the optional body of POST /v1/admin/joins/{id}/deny.
type denyJoinBody struct {
	Reason string `json:"reason"`
}

// adminDecideJoin approves or denies a pending join request:
// POST /v1/admin/joins/{id}/approve|deny.
func (d Deps) adminDecideJoin(approve bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "join request")
		if err != nil {
			d.writeError(w, r, err)
			return
		}
		var body denyJoinBody
		if !approve && r.ContentLength != 0 {
			if err := decodeJSON(w, r, &body); err != nil {
				d.writeError(w, r, err)
				return
			}
		}
		v, err := d.Admin.AdminDecideJoin(r.Context(), app.DecideJoin{ID: id, Approve: approve, Reason: body.Reason, Actor: actor(r)})
		if err != nil {
			d.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}
