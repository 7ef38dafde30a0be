package web

import (
	"net/http"

	"github.com/google/uuid"
)

// SignedInHandler serves the route table with each request's session
// filled by who, as the session middleware fills it, for the external
// tests (which cannot sit in this package: testcore imports runtime,
// which imports web). who answers ok=false for nobody signed in.
func SignedInHandler(d Deps, who func(r *http.Request) (tenantID uuid.UUID, s *Session, ok bool)) http.Handler {
	s := &server{d: d}
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.method+" "+rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			rq := &request{lang: pickLang("", r.Header.Get("Accept-Language"))}
			if id, sess, ok := who(r); ok {
				rq.tenantID, rq.session = id, sess
			}
			if rt.access != anyone && rq.session == nil {
				s.notFound(w, r, rq)
				return
			}
			rt.handle(w, r, rq)
		})
	}
	return secureHeaders(mux)
}
