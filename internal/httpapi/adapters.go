package httpapi

import (
	"net/http"

	"github.com/monitorhq/monitor/internal/app"
)

// adapters lists the configured adapters: GET /v1/adapters.
func (d Deps) adapters(w http.ResponseWriter, _ *http.Request) {
	items := d.App.Adapters()
	if items == nil {
		items = []app.AdapterView{}
	}
	writeJSON(w, http.StatusOK, listBody[app.AdapterView]{Items: items})
}
