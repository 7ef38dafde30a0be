package telegram

import (
	"net/http"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// statusError maps an HTTP status of t.me to the protocol's error;
// notFound is the message for 404 and 410. It returns nil for 2xx.
func (a *Adapter) statusError(resp *kit.Response, notFound string) *adapterv1.Error {
	if code := resp.StatusCode; code == http.StatusNotFound || code == http.StatusGone {
		return kit.NotFound(notFound, "")
	}
	return a.tme.StatusError(resp.StatusCode, resp.Header)
}
