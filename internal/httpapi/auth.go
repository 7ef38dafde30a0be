package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/monitorhq/monitor/internal/app"
)

// principalKey is the context key of the authenticated app.Principal.
type principalKey struct{}

// authenticate lets a request through only with a valid bearer token and
// puts the tenant it acts for in the request context.
func (d Deps) authenticate(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r.Header.Values("Authorization"))
		if !ok {
			writeProblem(w, unauthorized())
			return
		}
		p, err := d.App.Authenticate(r.Context(), token)
		if err != nil {
			d.writeError(w, r, err)
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	}
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
