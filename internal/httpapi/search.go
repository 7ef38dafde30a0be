package httpapi

import (
	"net/http"

	"github.com/monitorhq/monitor/internal/app"
)

// search finds the tenant's saved collections matching a query:
// GET /v1/search?q=&limit=&cursor=&sort=. Each item is a collection as
// GET /v1/collections lists it plus its snippet; a bad query is a 400
// problem whose detail names the character where it went wrong.
func (d Deps) search(w http.ResponseWriter, r *http.Request) {
	qs := r.URL.Query()
	limit, cursor, err := pageParams(qs)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	page, err := d.App.Search(r.Context(), principal(r).TenantID, qs.Get("q"), limit, cursor, qs.Get("sort"))
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	if page.Items == nil {
		page.Items = []app.SearchItem{}
	}
	lang := summaryLang(r)
	for i := range page.Items {
		linkCollection(&page.Items[i].CollectionView, lang)
	}
	writeJSON(w, http.StatusOK, page)
}
