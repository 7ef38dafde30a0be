package httpapi

import "net/http"

// pushBody is the body of POST /v1/collections/{id}/push (optional).
type pushBody struct {
	Destination string `json:"destination"`
}

// push uploads a saved collection to a cloud destination:
// POST /v1/collections/{id}/push.
func (d Deps) push(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "collection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	var body pushBody
	if r.ContentLength != 0 {
		if err := decodeJSON(w, r, &body); err != nil {
			d.writeError(w, r, err)
			return
		}
	}
	v, err := d.App.PushCollection(r.Context(), principal(r).TenantID, id, body.Destination)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/pushes/"+v.ID.String())
	writeJSON(w, http.StatusAccepted, v)
}

// getPush shows a push and its files: GET /v1/pushes/{id}.
func (d Deps) getPush(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "push")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.Push(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}
