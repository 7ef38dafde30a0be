package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// Service is what the live web library needs from the business layer;
// *app.App implements it. Pages add the methods they call.
type Service interface {
	sessions
	libraryService
	captureService
	submissionService
	actionService
	usageService
	tokenService
	sessionService
	settingsService
	searchService
	adminService
	watchService
	accountService
	channelService
	Collection(ctx context.Context, tenantID, id uuid.UUID) (app.CollectionView, error)
	Revisions(ctx context.Context, tenantID, collectionID uuid.UUID) ([]app.RevisionView, error)
	// CollectionChainSummary is the item page's "verified chain" line.
	CollectionChainSummary(ctx context.Context, tenantID, collectionID uuid.UUID) (app.ChainSummary, error)
	Members(ctx context.Context, tenantID, collectionID uuid.UUID, limit int, cursor string) (app.CollectionPage, error)
}

// Deps is what the live web library runs on.
type Deps struct {
	App      Service
	Renderer *Renderer
	Log      *slog.Logger
	// Ready checks the database and media store for the operator's
	// overview (nil: not checked); DataDir is the data directory whose
	// file system the overview reports ("": none).
	Ready   func(ctx context.Context) error
	DataDir string
	// Bucket names the S3 bucket that holds the media, for the overview
	// ("": media files in the data directory).
	Bucket string
	// Jobs is River's job UI, served read-only under /admin/river to
	// admin sessions (nil: not available).
	Jobs http.Handler
}

// access says who may open a route.
type access int

const (
	anyone    access = iota // no session needed (sign-in pages, assets)
	signedIn                // a session; others are sent to the sign-in page
	adminOnly               // an admin session; everyone else gets 404
)

// route is one entry of the route table: a Go 1.22 ServeMux pattern, who
// may open it and its handler. Writes (every method but GET and HEAD)
// check the CSRF token and the Origin before the handler runs.
type route struct {
	method  string
	pattern string
	access  access
	handle  func(w http.ResponseWriter, r *http.Request, rq *request)
}

// request is what the middleware learned about a request.
type request struct {
	lang string
	// theme is "light", "dark" or "" (the system's).
	theme string
	// session is nil when nobody is signed in.
	session *Session
	// tenantID is the signed-in tenant.
	tenantID uuid.UUID
}

// server serves the live pages.
type server struct {
	d Deps
	// started is when the handler was made, for the overview's uptime.
	started time.Time
}

// routes is the route table of the live web library.
func (s *server) routes() []route {
	return append([]route{
		{http.MethodGet, "/assets/{name}", anyone, s.asset},
		{http.MethodGet, "/{$}", signedIn, s.library},
		{http.MethodGet, "/search", signedIn, s.search},
		{http.MethodPost, "/searches", signedIn, s.saveSearch},
		{http.MethodPost, "/searches/{id}/rename", signedIn, s.renameSavedSearch},
		{http.MethodPost, "/searches/{id}/delete", signedIn, s.deleteSavedSearch},
		{http.MethodPost, "/captures", signedIn, s.submitCapture},
		{http.MethodGet, "/captures/{id}", signedIn, s.capturePage},
		{http.MethodGet, "/submissions/{id}", signedIn, s.submissionPage},
		{http.MethodPost, "/submissions/{id}/more", signedIn, s.moreSubmission},
		{http.MethodPost, "/submissions/{id}/stop", signedIn, s.stopSubmission},
		{http.MethodPost, "/c/{id}/refresh", signedIn, s.refresh},
		{http.MethodPost, "/c/{id}/push", signedIn, s.push},
		{http.MethodPost, "/c/{id}/delete", signedIn, s.delete},
		{http.MethodPost, "/c/{id}/restore", signedIn, s.restore},
		{http.MethodGet, "/usage", signedIn, s.usage},
		{http.MethodGet, "/tokens", signedIn, s.tokens},
		{http.MethodPost, "/tokens", signedIn, s.createToken},
		{http.MethodPost, "/tokens/{id}/revoke", signedIn, s.revokeToken},
		{http.MethodGet, "/sessions", signedIn, s.sessions},
		{http.MethodPost, "/sessions/{id}/revoke", signedIn, s.revokeSession},
		{http.MethodGet, "/settings", signedIn, s.settings},
		{http.MethodPost, "/settings", signedIn, s.saveSettings},
		{http.MethodGet, "/c/{id}", signedIn, s.item},
		{http.MethodGet, "/c/{id}/diff", signedIn, s.itemDiff},
	}, append(append(append(s.signinRoutes(), s.adminRoutes()...), s.watchRoutes()...), append(s.accountRoutes(), s.channelRoutes()...)...)...)
}

// NewHandler returns the web library's handler. Mount it at / on the same
// server as /v1: the route patterns are absolute.
func NewHandler(d Deps) (http.Handler, error) {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Renderer == nil {
		r, err := New()
		if err != nil {
			return nil, err
		}
		d.Renderer = r
	}
	s := &server{d: d, started: time.Now()}
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.method+" "+rt.pattern, s.wrap(rt))
	}
	return secureHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			// No route: the not-found page, in the reader's language.
			s.notFound(w, r, &request{lang: pickLang("", r.Header.Get("Accept-Language"))})
			return
		}
		mux.ServeHTTP(w, r)
	})), nil
}

// contentSecurityPolicy lets a page load only its own scripts, styles and
// media: nothing from another host, no inline script.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// secureHeaders sets the headers every answer carries.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		// same-origin, not no-referrer: under no-referrer browsers send
		// "Origin: null" with a form's POST, and the write check could
		// not tell our own forms from anyone's. Other sites still learn
		// nothing.
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// wrap runs a route's checks, then its handler.
func (s *server) wrap(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rq := &request{lang: pickLang("", r.Header.Get("Accept-Language"))}
		if rt.pattern != "/assets/{name}" {
			if err := s.loadSession(r, rq); err != nil {
				s.fail(w, r, rq, err)
				return
			}
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if !writeAllowed(r, rq) {
				s.page(w, r, rq, http.StatusForbidden, "error.html", &Page{Title: s.t(rq, "write.refused"),
					Data: errorView{Title: s.t(rq, "write.refused"), Text: s.t(rq, "write.refused.text")}})
				return
			}
		}
		switch {
		case rt.access == signedIn && rq.session == nil:
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
				return
			}
			s.page(w, r, rq, http.StatusForbidden, "error.html", &Page{Title: s.t(rq, "write.refused"),
				Data: errorView{Title: s.t(rq, "write.refused"), Text: s.t(rq, "write.refused.text")}})
			return
		case rt.access == adminOnly && (rq.session == nil || !rq.session.Admin):
			s.notFound(w, r, rq)
			return
		}
		rt.handle(w, r, rq)
	}
}

// maxFormBytes bounds a form's body.
const maxFormBytes = 64 << 10

// errorView is the error page's content.
type errorView struct{ Title, Text string }

// page renders a live page with the frame's fields filled in.
func (s *server) page(w http.ResponseWriter, r *http.Request, rq *request, status int, tmpl string, pg *Page) {
	pg.Root = "/"
	pg.Lang = rq.lang
	pg.Session = rq.session
	pg.Theme = rq.theme
	if rq.session != nil && pg.SavedSearches == nil {
		s.savedSearchNav(r, rq, pg)
	}
	if pg.Site.Title == "" {
		pg.Site.Title = "Monitor"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := s.d.Renderer.Render(w, tmpl, pg); err != nil {
		s.d.Log.ErrorContext(r.Context(), "web: render", slog.String("page", tmpl), slog.Any("err", err))
	}
}

// notFound answers 404 with the not-found page.
func (s *server) notFound(w http.ResponseWriter, r *http.Request, rq *request) {
	s.page(w, r, rq, http.StatusNotFound, "error.html", &Page{Title: s.t(rq, "error.notfound"),
		Data: errorView{Title: s.t(rq, "error.notfound"), Text: s.t(rq, "error.notfound.text")}})
}

// fail answers an error from the business layer: not found as 404, the
// rest as 500 after logging it.
func (s *server) fail(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	if errors.Is(err, app.ErrNotFound) {
		s.notFound(w, r, rq)
		return
	}
	s.d.Log.ErrorContext(r.Context(), "web: request failed", slog.String("path", r.URL.Path), slog.Any("err", err))
	s.page(w, r, rq, http.StatusInternalServerError, "error.html", &Page{Title: s.t(rq, "error.server"),
		Data: errorView{Title: s.t(rq, "error.server"), Text: s.t(rq, "error.server.text")}})
}

// asset serves an embedded static file by its content-hashed name, cached
// for a year: a changed file has a new name.
func (s *server) asset(w http.ResponseWriter, r *http.Request, rq *request) {
	a, ok := s.d.Renderer.Asset(r.PathValue("name"))
	if !ok {
		s.notFound(w, r, rq)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	http.ServeContent(w, r, a.Name, time.Time{}, bytes.NewReader(a.Data))
}
