package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/app"
)

// principalKey is the context key of the authenticated app.Principal.
type principalKey struct{}

// SessionCookie is the web library's session cookie. GET and HEAD requests
// under /v1 accept it in place of a bearer token, so the library's pages
// can play `<video src="/v1/media/…">` with Range and poll a capture's
// state; every other method still needs a token, so a cookie alone can
// never change anything through the REST API (no CSRF surface here).
const SessionCookie = "monitor_session"

// authenticate lets a request through only with a valid bearer token (or,
// for a read, the web session cookie) and puts the tenant it acts for in
// the request context.
func (d Deps) authenticate(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := d.principalOf(r)
		if err != nil {
			closeUnreadBody(w, r)
			d.writeError(w, r, err)
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	}
}

// principalOf authenticates a request: by its bearer token when it has an
// Authorization header, else, for GET and HEAD, by the session cookie.
// A cookie session acts for its tenant but never as an admin of the REST
// API (its audit trail names tokens).
func (d Deps) principalOf(r *http.Request) (app.Principal, error) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
			s, err := d.App.WebSession(r.Context(), c.Value)
			if err != nil {
				return app.Principal{}, err
			}
			return app.Principal{TenantID: s.TenantID, TenantName: s.TenantName}, nil
		}
	}
	token, ok := bearerToken(values)
	if !ok {
		return app.Principal{}, app.ErrUnauthorized
	}
	return d.App.Authenticate(r.Context(), token)
}

// principal is the tenant an authenticated request acts for.
func principal(r *http.Request) app.Principal {
	p, _ := r.Context().Value(principalKey{}).(app.Principal)
	return p
}

// bearerToken extracts the token of a single `Authorization: Bearer
// <token>` header (RFC 6750; the scheme is case-insensitive).
func bearerToken(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// closeUnreadBody makes an answer given without reading the request's body
// the connection's last, and sends it at once. net/http reads an unread
// body twice over: before it writes the answer (up to 256 KiB), unless the
// answer says `Connection: close`, and again when the handler returns, to
// reuse the connection, unless reading fails. A client without a token that
// trickles a body would otherwise hold the connection, and wait for its
// answer, until ReadTimeout. A read deadline in the past makes that second
// read fail at once, so the connection is closed right after the answer.
func closeUnreadBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 { // no body; -1 is a chunked one of unknown length
		return
	}
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now()) // ErrNotSupported: nothing to cut
}
