// Package httpapi serves Monitor's HTTP surface: health probes now, the REST
// API under /v1 as it grows. Routes are registered in one table below;
// handlers decode, validate, call the business layer and render.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Deps is what the HTTP surface needs from the rest of core.
type Deps struct {
	// Ready checks that the process can do its work: a database write and
	// read, a blob put and delete. Nil error means ready.
	Ready func(ctx context.Context) error
	Log   *slog.Logger
}

// readyTimeout bounds one readiness check, so a stuck disk answers 503
// instead of hanging the prober.
const readyTimeout = 5 * time.Second

// NewHandler returns the HTTP handler with every route registered.
func NewHandler(d Deps) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", d.readyz)
	mux.HandleFunc("/", notFound)
	return mux
}

// healthz answers as long as the process serves HTTP.
func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only when the database and blob store work.
func (d Deps) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := d.Ready(ctx); err != nil {
		d.Log.WarnContext(ctx, "not ready", slog.Any("err", err))
		writeProblem(w, Problem{Title: "Not ready", Status: http.StatusServiceUnavailable, Detail: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, Problem{Title: "Not found", Status: http.StatusNotFound, Detail: "no route for " + r.Method + " " + r.URL.Path})
}
