package web

import (
	"log/slog"
	"net/http"

	"github.com/google/uuid"
)

// HandlerAs is the web library's route table as one signed-in session
// sees it, without the sign-in middleware: page and action tests drive
// the handlers through it with a real core behind them. Languages come
// from Accept-Language as for anyone without a preference.
func HandlerAs(d Deps, tenantID uuid.UUID, sess *Session) (http.Handler, error) {
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
	s := &server{d: d}
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.method+" "+rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			rt.handle(w, r, &request{lang: pickLang("", r.Header.Get("Accept-Language")), session: sess, tenantID: tenantID})
		})
	}
	return secureHeaders(mux), nil
}
