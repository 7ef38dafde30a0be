// Package httpapi serves Monitor's HTTP surface: the health probes and the
// REST API under /v1. Routes are registered in one table below; handlers
// decode, validate, call the business layer and render. Every error answer
// is an RFC 9457 problem document (problem.go); openapi.json describes it all.
package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
)

// Service is what the REST API needs from the business layer; *app.App
// implements it.
//
// Errors follow the app package's sentinels (app.ErrNotFound, app.ErrInvalid,
// …), *app.QuotaError and *adapterapi.Error; problemFor maps them to answers.
type Service interface {
	// Authenticate finds the tenant of a REST token; a token that is not
	// valid is an error wrapping app.ErrUnauthorized.
	Authenticate(ctx context.Context, token string) (app.Principal, error)
	// WebSession finds the web library session of a cookie's key; one
	// that is not valid is an error wrapping app.ErrUnauthorized.
	WebSession(ctx context.Context, key string) (app.WebSession, error)
	Submit(ctx context.Context, req app.SubmitRequest) (app.SubmitResult, error)
	Refresh(ctx context.Context, tenantID, collectionID uuid.UUID, idemKey string) (app.SubmitResult, error)
	// PushCollection queues an upload to a cloud destination ("" = the
	// tenant's default); Push shows one.
	PushCollection(ctx context.Context, tenantID, collectionID uuid.UUID, destination string) (app.PushView, error)
	Push(ctx context.Context, tenantID, id uuid.UUID) (app.PushView, error)
	Capture(ctx context.Context, tenantID, captureID uuid.UUID) (app.CaptureView, error)
	// Submission, More and Stop: a submission's progress and a
	// collection's pages.
	Submission(ctx context.Context, tenantID, id uuid.UUID) (app.SubmissionView, error)
	More(ctx context.Context, tenantID, id uuid.UUID) (app.SubmitResult, error)
	Stop(ctx context.Context, tenantID, id uuid.UUID) (app.SubmissionView, error)
	// Members lists a profile's or channel's archived posts.
	Members(ctx context.Context, tenantID, collectionID uuid.UUID, limit int, cursor string) (app.CollectionPage, error)
	Collections(ctx context.Context, tenantID uuid.UUID, limit int, cursor string) (app.CollectionPage, error)
	// KeptAnswer gives what build made earlier for the principal's
	// tenant's key when nothing its library shows changed since, else
	// build's answer.
	KeptAnswer(ctx context.Context, p app.Principal, key string, build func(context.Context) ([]byte, error)) ([]byte, error)
	// Search finds the tenant's saved collections matching a query (app.ParseQuery).
	Search(ctx context.Context, tenantID uuid.UUID, q string, limit int, cursor string, sort string) (app.SearchPage, error)
	Collection(ctx context.Context, tenantID, id uuid.UUID) (app.CollectionView, error)
	Revisions(ctx context.Context, tenantID, collectionID uuid.UUID) ([]app.RevisionView, error)
	Revision(ctx context.Context, tenantID, revisionID uuid.UUID) (app.RevisionView, error)
	DeleteCollection(ctx context.Context, tenantID, id uuid.UUID) error
	Entity(ctx context.Context, tenantID, id uuid.UUID) (app.EntityView, error)
	// OpenMedia opens media the tenant saved (else app.ErrNotFound). A nil
	// rng reads it whole; MediaFile.Size is always the whole size, and a
	// range that does not fit is an error wrapping blob.ErrInvalidRange.
	OpenMedia(ctx context.Context, tenantID uuid.UUID, sha256 string, rng *blob.Range) (io.ReadCloser, app.MediaFile, error)
	Usage(ctx context.Context, tenantID uuid.UUID) (app.Usage, error)
	Adapters() []app.AdapterView
	// Instance and Proof: the signing key, and a collection's hash chain
	// signed (docs/verify.md).
	Instance() app.InstanceView
	Proof(ctx context.Context, tenantID, collectionID uuid.UUID) (app.Proof, error)
	// Watched sources (watches.go).
	watchService
	// A tenant's accounts (connections.go).
	connectionService
	// Joining channels by invite link through them (joins.go).
	joinService
}

// Deps is what the HTTP surface needs from the rest of core.
type Deps struct {
	// Ready checks that the process can do its work: a database write and
	// read, a blob put and delete. Nil error means ready.
	Ready func(ctx context.Context) error
	// App is the business layer behind /v1. Nil serves only the routes that
	// need no token: the probes and the OpenAPI document.
	App Service
	// Admin is the operator API behind /v1/admin (nil: not served).
	Admin AdminService
	// Metrics serves the Prometheus metrics (nil: an empty exposition).
	Metrics http.Handler
	// Log receives server faults and readiness failures; nil discards them.
	Log *slog.Logger
	// StreamWindow is how long one chunk of a media download may take to
	// be written: the handler moves the connection's write deadline this
	// far ahead before each chunk, so a large file outlasts the server's
	// WriteTimeout while a client that stops reading is still cut off.
	// Zero leaves the server's deadline alone.
	StreamWindow time.Duration
}

// readyTimeout bounds one readiness check, so a stuck disk answers 503
// instead of hanging the prober.
const readyTimeout = 5 * time.Second

// access says whether a route needs a bearer token.
type access int

const (
	public access = iota
	bearer        // the principal is in the request context
	admin         // bearer, and the token must be an admin's
)

// route is one entry of the route table: a Go 1.22 ServeMux pattern and its
// handler. The table is data so the OpenAPI test can check it against
// openapi.json.
type route struct {
	method  string
	pattern string
	access  access
	handle  http.HandlerFunc
}

// routes is the route table. GET routes also answer HEAD.
func (d Deps) routes() []route {
	return append([]route{
		{http.MethodGet, "/healthz", public, healthz},
		{http.MethodGet, "/metrics", public, d.metrics},
		{http.MethodGet, "/readyz", public, d.readyz},
		{http.MethodGet, "/v1/openapi.json", public, openAPI},

		{http.MethodPost, "/v1/captures", bearer, d.submit},
		{http.MethodGet, "/v1/captures/{id}", bearer, d.capture},
		{http.MethodGet, "/v1/submissions/{id}", bearer, d.submission},
		{http.MethodPost, "/v1/submissions/{id}/more", bearer, d.more},
		{http.MethodPost, "/v1/submissions/{id}/stop", bearer, d.stop},
		{http.MethodGet, "/v1/search", bearer, d.search},
		{http.MethodGet, "/v1/collections", bearer, d.collections},
		{http.MethodGet, "/v1/collections/{id}", bearer, d.collection},
		{http.MethodDelete, "/v1/collections/{id}", bearer, d.deleteCollection},
		{http.MethodGet, "/v1/collections/{id}/revisions", bearer, d.revisions},
		{http.MethodGet, "/v1/collections/{id}/proof", bearer, d.proof},
		{http.MethodGet, "/v1/collections/{id}/members", bearer, d.members},
		{http.MethodPost, "/v1/collections/{id}/refresh", bearer, d.refresh},
		{http.MethodPost, "/v1/collections/{id}/push", bearer, d.push},
		{http.MethodGet, "/v1/pushes/{id}", bearer, d.getPush},
		{http.MethodGet, "/v1/revisions/{id}", bearer, d.revision},
		{http.MethodGet, "/v1/entities/{id}", bearer, d.entity},
		{http.MethodGet, "/v1/media/{sha256}", bearer, d.media},
		{http.MethodGet, "/v1/usage", bearer, d.usage},
		{http.MethodGet, "/v1/adapters", bearer, d.adapters},
		{http.MethodGet, "/v1/instance", public, d.instance},
	}, append(append(append(d.watchRoutes(), d.connectionRoutes()...), d.joinRoutes()...), d.adminRoutes()...)...)
}

// NewHandler returns the HTTP handler with every route registered. Without
// d.App only the routes that need no business layer are served.
func NewHandler(d Deps) http.Handler {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	for _, rt := range d.routes() {
		h := rt.handle
		switch rt.access {
		case bearer:
			if d.App == nil {
				continue
			}
			h = d.authenticate(h)
		case admin:
			if d.App == nil || d.Admin == nil {
				continue
			}
			h = d.authenticate(d.requireAdmin(h))
		}
		mux.Handle(rt.method+" "+rt.pattern, h)
	}
	return problemFallback(mux)
}

// problemFallback serves mux, but answers the requests no route matches
// with problem documents instead of the mux's plain-text 404 and 405.
func problemFallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r) // ServeHTTP, not h, so the path values are set
			return
		}
		// The mux's own answer tells 404 from 405 and lists the allowed
		// methods; keep those, drop its body.
		probe := &headerProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		closeUnreadBody(w, r)
		if probe.status == http.StatusMethodNotAllowed {
			allow := probe.header.Get("Allow")
			w.Header().Set("Allow", allow)
			writeProblem(w, Problem{Type: ProblemMethodNotAllowed, Title: "Method not allowed", Status: http.StatusMethodNotAllowed,
				Detail: r.Method + " is not allowed on " + r.URL.Path + "; allowed: " + allow})
			return
		}
		writeProblem(w, notFoundProblem("no route for "+r.Method+" "+r.URL.Path))
	})
}

// headerProbe is a ResponseWriter that keeps the status and headers and
// discards the body.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(status int)      { p.status = status }

// metrics serves the Prometheus exposition of the process.
func (d Deps) metrics(w http.ResponseWriter, r *http.Request) {
	if d.Metrics == nil {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		return
	}
	d.Metrics.ServeHTTP(w, r)
}

// healthz answers as long as the process serves HTTP.
func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only when the database and blob store work.
func (d Deps) readyz(w http.ResponseWriter, r *http.Request) {
	if d.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := d.Ready(ctx); err != nil {
			d.Log.WarnContext(ctx, "not ready", slog.Any("err", err))
			writeProblem(w, Problem{Type: ProblemNotReady, Title: "Not ready", Status: http.StatusServiceUnavailable, Detail: err.Error()})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
