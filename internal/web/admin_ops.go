package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/monitorhq/monitor/internal/app"
)

// adminListRows is how many rows the events, error log and audit pages
// show.
const adminListRows = 200

// eventsView is the events page's content.
type eventsView struct {
	Status   string
	Statuses []option
	Events   []app.EventView
}

// adminEvents serves GET /admin/events?status=open|resolved|all.
func (s *server) adminEvents(w http.ResponseWriter, r *http.Request, rq *request) {
	st := r.URL.Query().Get("status")
	if st == "" {
		st = app.EventOpen
	}
	v := &eventsView{Status: st, Statuses: []option{{app.EventOpen, s.t(rq, "admin.events.open")},
		{app.EventResolved, s.t(rq, "admin.events.resolved")}, {"all", s.t(rq, "admin.status.all")}}}
	list, err := s.d.App.Events(r.Context(), st, adminListRows)
	status, problem := http.StatusOK, ""
	if errors.Is(err, app.ErrInvalid) {
		status, problem = http.StatusBadRequest, s.t(rq, "admin.err.filter", err.Error())
		err = nil
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Events = list
	s.adminPage(w, r, rq, status, "admin_events.html", "events", "admin.events", adminView{Body: v, Error: problem})
}

// adminResolveEvent serves POST /admin/events/{key}/resolve.
func (s *server) adminResolveEvent(w http.ResponseWriter, r *http.Request, rq *request) {
	if _, err := s.d.App.ResolveEvent(r.Context(), actorOf(rq), r.PathValue("key")); err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/events", "resolved")
}

// errorsView is the error log page's content.
type errorsView struct {
	Source, Code, Severity string
	Severities             []option
	Rows                   []app.ErrorLogView
	// From, To and DelSource are the delete form's values.
	From, To, DelSource string
}

// adminErrors serves GET /admin/errors?source=&code=&severity=.
func (s *server) adminErrors(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderErrors(w, r, rq, http.StatusOK, "", "")
}

func (s *server) renderErrors(w http.ResponseWriter, r *http.Request, rq *request, status int, problem, notice string) {
	q := r.URL.Query()
	v := &errorsView{Source: strings.TrimSpace(q.Get("source")), Code: strings.TrimSpace(q.Get("code")), Severity: q.Get("severity"),
		From: r.PostFormValue("from"), To: r.PostFormValue("to"), DelSource: r.PostFormValue("source")}
	v.Severities = []option{{"", s.t(rq, "admin.status.all")}, {app.SeverityError, "error"}, {app.SeverityWarn, "warn"}, {app.SeverityInfo, "info"}}
	rows, err := s.d.App.ErrorLogSearch(r.Context(), app.ErrorLogFilter{Source: v.Source, Code: v.Code, Severity: v.Severity, Limit: adminListRows})
	if errors.Is(err, app.ErrInvalid) {
		status, problem = http.StatusBadRequest, s.t(rq, "admin.err.filter", err.Error())
		err = nil
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Rows = rows
	s.adminPage(w, r, rq, status, "admin_errors.html", "errors", "admin.errors", adminView{Body: v, Error: problem, Notice: notice})
}

// adminDeleteErrors serves POST /admin/errors/delete: the rows written
// from one day to another (both included), of one source or all.
func (s *server) adminDeleteErrors(w http.ResponseWriter, r *http.Request, rq *request) {
	from, ok1 := adminDay(r.PostFormValue("from"), false)
	to, ok2 := adminDay(r.PostFormValue("to"), true)
	if !ok1 || !ok2 {
		s.renderErrors(w, r, rq, http.StatusBadRequest, s.t(rq, "admin.err.date"), "")
		return
	}
	n, err := s.d.App.DeleteErrorLogs(r.Context(), actorOf(rq), from, to, strings.TrimSpace(r.PostFormValue("source")))
	if errors.Is(err, app.ErrInvalid) {
		s.renderErrors(w, r, rq, http.StatusBadRequest, s.t(rq, "admin.err.action", err.Error()), "")
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	s.renderErrors(w, r, rq, http.StatusOK, "", s.t(rq, "admin.errors.deleted", n))
}

// auditView is the audit page's content.
type auditView struct {
	Query, From, To string
	Entries         []auditRow
}

// auditRow is one entry with its before and after laid out to read.
type auditRow struct {
	app.AuditView
	BeforeText, AfterText string
}

// adminAudit serves GET /admin/audit?q=&from=&to=.
func (s *server) adminAudit(w http.ResponseWriter, r *http.Request, rq *request) {
	q := r.URL.Query()
	v := &auditView{Query: q.Get("q"), From: q.Get("from"), To: q.Get("to")}
	since, ok1 := adminDay(v.From, false)
	before, ok2 := adminDay(v.To, true)
	status, problem := http.StatusOK, ""
	if !ok1 || !ok2 {
		status, problem = http.StatusBadRequest, s.t(rq, "admin.err.date")
	}
	list, err := s.d.App.AuditSearch(r.Context(), app.AuditFilter{Query: v.Query, Since: since, Before: before, Limit: adminListRows})
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	for _, e := range list {
		v.Entries = append(v.Entries, auditRow{AuditView: e, BeforeText: indentJSON(e.Before), AfterText: indentJSON(e.After)})
	}
	s.adminPage(w, r, rq, status, "admin_audit.html", "audit", "admin.audit", adminView{Body: v, Error: problem})
}

// indentJSON lays a JSON value out on lines ("" for none).
func indentJSON(b json.RawMessage) string {
	if len(b) == 0 || string(b) == "null" {
		return ""
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

// settingsAdminView is the runtime settings page's content.
type settingsAdminView struct {
	Settings []settingRow
}

// settingRow is one setting with the value the form shows and its
// problem, when a change was refused.
type settingRow struct {
	app.SettingView
	Input, Error string
}

// adminSettings serves GET /admin/settings: the typed registry.
func (s *server) adminSettings(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderAdminSettings(w, r, rq, http.StatusOK, "", "", "")
}

func (s *server) renderAdminSettings(w http.ResponseWriter, r *http.Request, rq *request, status int, key, input, problem string) {
	list, err := s.d.App.SettingsList(r.Context())
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v := &settingsAdminView{}
	for _, st := range list {
		row := settingRow{SettingView: st, Input: st.Value}
		if st.Secret {
			row.Input = ""
		}
		if st.Key == key {
			row.Error = problem
			if !st.Secret { // a refused secret is not shown again
				row.Input = input
			}
		}
		v.Settings = append(v.Settings, row)
	}
	s.adminPage(w, r, rq, status, "admin_settings.html", "settings", "admin.settings", adminView{Body: v})
}

// adminSetSetting serves POST /admin/settings/{key}; value "default" (or
// the reset button) removes the stored value.
func (s *server) adminSetSetting(w http.ResponseWriter, r *http.Request, rq *request) {
	key, value := r.PathValue("key"), r.PostFormValue("value")
	if r.PostFormValue("reset") != "" {
		value = "default"
	}
	_, err := s.d.App.SetSetting(r.Context(), actorOf(rq), key, value)
	if errors.Is(err, app.ErrInvalid) {
		s.renderAdminSettings(w, r, rq, http.StatusBadRequest, key, value, s.t(rq, "admin.err.setting", err.Error()))
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/admin/settings?done=setting#"+url.PathEscape(key), http.StatusSeeOther)
}
