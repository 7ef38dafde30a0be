package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// actionService is what the item actions need.
type actionService interface {
	Refresh(ctx context.Context, tenantID, collectionID uuid.UUID, idemKey string) (app.SubmitResult, error)
	RemoveFromLibrary(ctx context.Context, tenantID, id uuid.UUID) (time.Time, error)
	RestoreCollection(ctx context.Context, tenantID, id uuid.UUID, savedAt time.Time) error
	PushCollection(ctx context.Context, tenantID, collectionID uuid.UUID, destination string) (app.PushView, error)
}

// collectionID reads the {id} of an item action; a malformed one is 404.
func (s *server) collectionID(w http.ResponseWriter, r *http.Request, rq *request) (uuid.UUID, bool) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return uuid.Nil, false
	}
	return id, true
}

// refused answers a refused action: the library with the reason on top.
func (s *server) refused(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	status, msg, ok := s.actionError(rq, err)
	if !ok {
		s.fail(w, r, rq, err)
		return
	}
	if status == http.StatusNotFound {
		s.notFound(w, r, rq)
		return
	}
	s.renderLibrary(w, r, rq, status, func(v *libraryView) { v.Error = msg })
}

// refresh serves POST /c/{id}/refresh: capture the item again, then show
// the capture's page.
func (s *server) refresh(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := s.collectionID(w, r, rq)
	if !ok {
		return
	}
	res, err := s.d.App.Refresh(r.Context(), rq.tenantID, id, idemKey(r))
	if err != nil {
		s.refused(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/captures/"+res.CaptureID.String(), http.StatusSeeOther)
}

// push serves POST /c/{id}/push: upload the item to one of the tenant's
// cloud drives (destination), then show the item saying so.
func (s *server) push(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := s.collectionID(w, r, rq)
	if !ok {
		return
	}
	v, err := s.d.App.PushCollection(r.Context(), rq.tenantID, id, r.PostFormValue("destination"))
	if err != nil {
		s.refused(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/c/"+id.String()+"?"+url.Values{"pushed": {v.Destination}}.Encode(), http.StatusSeeOther)
}

// delete serves POST /c/{id}/delete: remove the item from the library and
// go back to it, with an Undo for a few seconds.
func (s *server) delete(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := s.collectionID(w, r, rq)
	if !ok {
		return
	}
	saved, err := s.d.App.RemoveFromLibrary(r.Context(), rq.tenantID, id)
	if err != nil {
		s.refused(w, r, rq, err)
		return
	}
	q := url.Values{"deleted": {id.String()}, "saved": {strconv.FormatInt(saved.UnixNano(), 10)}}
	http.Redirect(w, r, "/?"+q.Encode(), http.StatusSeeOther)
}

// restore serves POST /c/{id}/restore: the Undo of a delete puts the item
// back where it was, while its content is still in the archive.
func (s *server) restore(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := s.collectionID(w, r, rq)
	if !ok {
		return
	}
	var saved time.Time
	if ns, err := strconv.ParseInt(r.PostFormValue("saved"), 10, 64); err == nil && ns > 0 {
		saved = time.Unix(0, ns).UTC()
	}
	if err := s.d.App.RestoreCollection(r.Context(), rq.tenantID, id, saved); err != nil {
		s.refused(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/?restored=1", http.StatusSeeOther)
}
