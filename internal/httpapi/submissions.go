package httpapi

import (
	"net/http"
)

// submission shows a submission with the progress of its collection
// pages: GET /v1/submissions/{id}.
func (d Deps) submission(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "submission")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.Submission(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// more archives the next page of a profile or channel:
// POST /v1/submissions/{id}/more. Asking twice is one page.
func (d Deps) more(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "submission")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	res, err := d.App.More(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/submissions/"+res.SubmissionID.String())
	writeJSON(w, http.StatusAccepted, res)
}

// stop ends a collection's chain of pages: POST /v1/submissions/{id}/stop.
func (d Deps) stop(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "submission")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.Stop(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// members lists the posts of a profile or channel the tenant archived:
// GET /v1/collections/{id}/members.
func (d Deps) members(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "collection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	limit, cursor, err := pageParams(r.URL.Query())
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	page, err := d.App.Members(r.Context(), principal(r).TenantID, id, limit, cursor)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	lang := summaryLang(r)
	for i := range page.Items {
		linkCollection(&page.Items[i], lang)
	}
	writeJSON(w, http.StatusOK, page)
}
