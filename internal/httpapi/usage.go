package httpapi

import "net/http"

// usage shows the tenant's storage accounting: GET /v1/usage.
func (d Deps) usage(w http.ResponseWriter, r *http.Request) {
	u, err := d.App.Usage(r.Context(), principal(r).TenantID)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}
