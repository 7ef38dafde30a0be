package httpapi

import (
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// submitBody is the body of POST /v1/captures.
type submitBody struct {
	URL *string `json:"url"`
	// Limit archives up to this many posts of a profile or channel in one
	// batch of pages; Expand "thread" archives a post's thread.
	Limit  *int   `json:"limit"`
	Expand string `json:"expand"`
	// ConnectionID captures through one of the tenant's accounts.
	ConnectionID *string `json:"connection_id"`
}

// submit archives a link: POST /v1/captures.
func (d Deps) submit(w http.ResponseWriter, r *http.Request) {
	key, err := idempotencyKey(r.Header)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	var body submitBody
	if err := decodeJSON(w, r, &body); err != nil {
		d.writeError(w, r, err)
		return
	}
	if body.URL == nil || strings.TrimSpace(*body.URL) == "" {
		d.writeError(w, r, requestErrorf(app.ErrInvalid, "url is required: send {\"url\": \"https://…\"} with the link to archive"))
		return
	}
	req := app.SubmitRequest{TenantID: principal(r).TenantID, URL: *body.URL, IdemKey: key, Expand: body.Expand}
	if body.Limit != nil {
		if *body.Limit < 1 {
			d.writeError(w, r, requestErrorf(app.ErrInvalid, "limit must be a positive number of posts, not %d", *body.Limit))
			return
		}
		req.Limit = *body.Limit
	}
	if body.ConnectionID != nil {
		id, err := uuid.Parse(*body.ConnectionID)
		if err != nil || len(*body.ConnectionID) != 36 {
			d.writeError(w, r, requestErrorf(app.ErrInvalid, "connection_id must be the id of one of your connections (GET /v1/connections), not %q", clipped(*body.ConnectionID)))
			return
		}
		req.ConnectionID = id
	}
	res, err := d.App.Submit(r.Context(), req)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeAccepted(w, res)
}

// capture shows one capture: GET /v1/captures/{id}.
func (d Deps) capture(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "capture")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.Capture(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// writeAccepted answers a submit or refresh: 202 pointing at the capture
// to poll.
func writeAccepted(w http.ResponseWriter, res app.SubmitResult) {
	w.Header().Set("Location", "/v1/captures/"+res.CaptureID.String())
	writeJSON(w, http.StatusAccepted, res)
}

// clipped shortens what a request sent for an error message.
func clipped(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
