package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/monitorhq/monitor/internal/metrics"
)

// BenchmarkInstrument is what counting costs a request: the same mux with
// and without Instrument around it.
func BenchmarkInstrument(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/collections/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	req := httptest.NewRequest(http.MethodGet, "/v1/collections/0192f0c1-0000-7000-8000-000000000000", nil)
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{{"bare", mux}, {"counted", metrics.New().Instrument(mux)}} {
		b.Run(tc.name, func(b *testing.B) {
			w := httptest.NewRecorder()
			for b.Loop() {
				tc.h.ServeHTTP(w, req)
			}
		})
	}
}
