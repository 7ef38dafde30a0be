package web

import (
	"encoding/csv"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// adminCaptureRows is how many captures the list shows.
const adminCaptureRows = 200

// capturesView is the capture list's content.
type capturesView struct {
	F        captureForm
	States   []option
	Captures []app.AdminCaptureView
	// Export is the CSV address of the same filter.
	Export string
	Max    int
}

// captureForm is the filter as the form holds it.
type captureForm struct {
	State, Code, Platform, Adapter, Tenant, From, To string
}

func (f captureForm) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"state": f.State, "code": f.Code, "platform": f.Platform, "adapter": f.Adapter,
		"tenant": f.Tenant, "from": f.From, "to": f.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// captureFilter reads the filter from a query; a bad date is a problem.
func (s *server) captureFilter(rq *request, q url.Values) (captureForm, app.AdminCaptureFilter, string) {
	f := captureForm{State: q.Get("state"), Code: strings.TrimSpace(q.Get("code")), Platform: strings.TrimSpace(q.Get("platform")),
		Adapter: strings.TrimSpace(q.Get("adapter")), Tenant: strings.TrimSpace(q.Get("tenant")), From: q.Get("from"), To: q.Get("to")}
	af := app.AdminCaptureFilter{Tenant: f.Tenant, State: f.State, ErrorCode: f.Code, Platform: f.Platform, Adapter: f.Adapter}
	var ok1, ok2 bool
	af.Since, ok1 = adminDay(f.From, false)
	af.Until, ok2 = adminDay(f.To, true)
	if !ok1 || !ok2 {
		return f, af, s.t(rq, "admin.err.date")
	}
	return f, af, ""
}

func (s *server) captureStates(rq *request) []option {
	out := []option{{"", s.t(rq, "admin.status.all")}}
	for _, st := range []string{app.StateQueued, app.StateDownloading, app.StateComplete, app.StatePartial, app.StateFailed} {
		out = append(out, option{st, s.t(rq, "admin.state."+st)})
	}
	return out
}

// adminCaptures serves GET /admin/captures with its filters.
func (s *server) adminCaptures(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderCaptures(w, r, rq, http.StatusOK, "")
}

func (s *server) renderCaptures(w http.ResponseWriter, r *http.Request, rq *request, status int, notice string) {
	form, f, problem := s.captureFilter(rq, r.URL.Query())
	v := &capturesView{F: form, States: s.captureStates(rq), Max: app.MaxCaptureBatch}
	if problem == "" {
		f.Limit = adminCaptureRows
		list, err := s.d.App.AdminCaptures(r.Context(), f)
		switch {
		case errors.Is(err, app.ErrInvalid) || errors.Is(err, app.ErrNotFound):
			status, problem = http.StatusBadRequest, s.t(rq, "admin.err.filter", err.Error())
		case err != nil:
			s.fail(w, r, rq, err)
			return
		}
		v.Captures = list
	} else {
		status = http.StatusBadRequest
	}
	v.Export = "/admin/captures.csv"
	if q := form.query().Encode(); q != "" {
		v.Export += "?" + q
	}
	s.adminPage(w, r, rq, status, "admin_captures.html", "captures", "admin.captures", adminView{Body: v, Error: problem, Notice: notice})
}

// adminCapturesCSV serves GET /admin/captures.csv: the filtered captures,
// streamed, at most app.MaxCaptureExport rows. When rows were left out the
// last line says so, and so does the X-Monitor-Truncated header of an
// answer that has not started yet (the first row waits for the header).
func (s *server) adminCapturesCSV(w http.ResponseWriter, r *http.Request, rq *request) {
	_, f, problem := s.captureFilter(rq, r.URL.Query())
	if problem != "" {
		http.Error(w, problem, http.StatusBadRequest)
		return
	}
	max := app.MaxCaptureExport
	if v := r.URL.Query().Get("max"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > app.MaxCaptureExport {
			http.Error(w, s.t(rq, "admin.err.max", app.MaxCaptureExport), http.StatusBadRequest)
			return
		}
		max = n
	}
	csvHeaders(w, "captures.csv")
	cw := csv.NewWriter(w)
	header := []string{"id", "tenant", "state", "error_code", "error", "platform", "adapter", "provider", "source_url", "attempts",
		"created_at", "finished_at", "collection_id"}
	started := false
	n := 0
	cut, err := s.d.App.ExportCaptures(r.Context(), f, max, func(c app.AdminCaptureView) error {
		if !started {
			started = true
			if err := cw.Write(header); err != nil {
				return err
			}
		}
		n++
		if err := cw.Write([]string{c.ID.String(), csvSafe(c.Tenant), c.State, c.ErrorCode, csvSafe(c.Error), c.Platform, c.Adapter,
			c.Provider, csvSafe(c.SourceURL), strconv.Itoa(c.Attempts), c.CreatedAt.UTC().Format(time.RFC3339), csvTime(c.FinishedAt),
			c.CollectionID.String()}); err != nil {
			return err
		}
		if n%1000 == 0 {
			cw.Flush()
			return cw.Error()
		}
		return nil
	})
	if err != nil && !started {
		if errors.Is(err, app.ErrInvalid) || errors.Is(err, app.ErrNotFound) {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.fail(w, r, rq, err)
		return
	}
	if !started {
		_ = cw.Write(header)
	}
	if err != nil {
		// Too late for a status: the last line says the export broke off.
		_ = cw.Write([]string{"# export failed after " + strconv.Itoa(n) + " rows"})
		s.d.Log.ErrorContext(r.Context(), "web: capture export", "err", err)
	} else if cut {
		_ = cw.Write([]string{"# truncated: the export stops at " + strconv.Itoa(max) + " rows; narrow the filter for the rest"})
	}
	cw.Flush()
}

// refsOf reads capture references "tenant-id:capture-id" from a form.
func refsOf(values []string) ([]app.CaptureRef, bool) {
	out := make([]app.CaptureRef, 0, len(values))
	for _, v := range values {
		t, c, ok := strings.Cut(v, ":")
		tid, err1 := uuid.Parse(t)
		cid, err2 := uuid.Parse(c)
		if !ok || err1 != nil || err2 != nil {
			return nil, false
		}
		out = append(out, app.CaptureRef{TenantID: tid, CaptureID: cid})
	}
	return out, true
}

// adminCaptureBatch serves POST /admin/captures/batch: retry or cancel
// the ticked captures, at most app.MaxCaptureBatch.
func (s *server) adminCaptureBatch(w http.ResponseWriter, r *http.Request, rq *request) {
	err := r.ParseForm()
	refs, ok := refsOf(r.PostForm["capture"])
	if err != nil || !ok {
		s.renderCaptures(w, r, rq, http.StatusBadRequest, s.t(rq, "admin.err.pick"))
		return
	}
	var res app.BatchResult
	switch r.PostFormValue("action") {
	case "retry":
		res, err = s.d.App.RetryCaptures(r.Context(), actorOf(rq), refs)
	case "cancel":
		res, err = s.d.App.CancelCaptures(r.Context(), actorOf(rq), refs)
	default:
		err = errors.Join(app.ErrInvalid, errors.New("choose retry or cancel"))
	}
	if errors.Is(err, app.ErrInvalid) {
		s.renderCaptures(w, r, rq, http.StatusBadRequest, s.t(rq, "admin.err.action", err.Error()))
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	s.renderCaptures(w, r, rq, http.StatusOK, s.t(rq, "admin.batch.done", len(res.Done), len(res.Failed)))
}

// adminCapture serves GET /admin/captures/{tenant}/{id}.
func (s *server) adminCapture(w http.ResponseWriter, r *http.Request, rq *request) {
	tid, err1 := uuid.Parse(r.PathValue("tenant"))
	id, err2 := uuid.Parse(r.PathValue("id"))
	if err1 != nil || err2 != nil {
		s.notFound(w, r, rq)
		return
	}
	d, err := s.d.App.AdminCapture(r.Context(), tid, id)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	s.adminPage(w, r, rq, http.StatusOK, "admin_capture.html", "captures", "admin.captures", adminView{Body: &d})
}

// adminCaptureAction serves POST /admin/captures/{tenant}/{id}/retry and
// …/cancel.
func (s *server) adminCaptureAction(w http.ResponseWriter, r *http.Request, rq *request) {
	tid, err1 := uuid.Parse(r.PathValue("tenant"))
	id, err2 := uuid.Parse(r.PathValue("id"))
	if err1 != nil || err2 != nil {
		s.notFound(w, r, rq)
		return
	}
	refs := []app.CaptureRef{{TenantID: tid, CaptureID: id}}
	var res app.BatchResult
	var err error
	switch r.PathValue("action") {
	case "retry":
		res, err = s.d.App.RetryCaptures(r.Context(), actorOf(rq), refs)
	case "cancel":
		res, err = s.d.App.CancelCaptures(r.Context(), actorOf(rq), refs)
	default:
		s.notFound(w, r, rq)
		return
	}
	if err == nil {
		err = res.Failed[id]
	}
	back := "/admin/captures/" + tid.String() + "/" + id.String()
	if errors.Is(err, app.ErrInvalid) {
		d, derr := s.d.App.AdminCapture(r.Context(), tid, id)
		if derr != nil {
			s.fail(w, r, rq, derr)
			return
		}
		s.adminPage(w, r, rq, http.StatusConflict, "admin_capture.html", "captures", "admin.captures",
			adminView{Body: &d, Error: s.t(rq, "admin.err.action", err.Error())})
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, back, r.PathValue("action"))
}
