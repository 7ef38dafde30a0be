package httpapi

import "net/http"

// instance shows this instance's public signing key: GET /v1/instance. It
// needs no token: the key is what anyone checks exports and proofs with.
func (d Deps) instance(w http.ResponseWriter, r *http.Request) {
	if d.App == nil {
		writeProblem(w, notFoundProblem("this server has no archive"))
		return
	}
	writeJSON(w, http.StatusOK, d.App.Instance())
}

// proof shows a collection's hash chain and the signature over its head:
// GET /v1/collections/{id}/proof.
func (d Deps) proof(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "collection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	p, err := d.App.Proof(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Disposition", `inline; filename="proof-`+id.String()+`.json"`)
	writeJSON(w, http.StatusOK, p)
}
