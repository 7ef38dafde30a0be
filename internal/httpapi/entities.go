package httpapi

import "net/http"

// entity shows the latest snapshot of an entity: GET /v1/entities/{id}.
func (d Deps) entity(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "entity")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.Entity(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}
