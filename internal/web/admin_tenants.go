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

// tenantsView is the tenant list's content: the applications waiting
// for approval first, then every tenant the filter selects.
type tenantsView struct {
	Query, Status string
	Statuses      []option
	Applications  []app.TenantView
	Tenants       []app.TenantView
}

// tenantStatuses are the statuses an operator filters by and sets.
var tenantStatuses = []string{"pending", "enabled", "disabled", "archived"}

func (s *server) statusOptions(rq *request, withAll bool) []option {
	var out []option
	if withAll {
		out = append(out, option{"", s.t(rq, "admin.status.all")})
	}
	for _, st := range tenantStatuses {
		out = append(out, option{st, s.t(rq, "admin.status."+st)})
	}
	return out
}

// adminTenants serves GET /admin/tenants?q=&status=.
func (s *server) adminTenants(w http.ResponseWriter, r *http.Request, rq *request) {
	q := r.URL.Query()
	v := &tenantsView{Query: q.Get("q"), Status: q.Get("status"), Statuses: s.statusOptions(rq, true)}
	status := http.StatusOK
	list, err := s.d.App.TenantSearch(r.Context(), app.TenantFilter{Query: v.Query, Status: v.Status})
	var problem string
	if errors.Is(err, app.ErrInvalid) {
		status, problem = http.StatusBadRequest, s.t(rq, "admin.err.filter", err.Error())
		list, err = s.d.App.TenantSearch(r.Context(), app.TenantFilter{})
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	pending, err := s.d.App.TenantSearch(r.Context(), app.TenantFilter{Status: "pending"})
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Tenants, v.Applications = list, pending
	s.adminPage(w, r, rq, status, "admin_tenants.html", "tenants", "admin.tenants", adminView{Body: v, Error: problem})
}

// adminTenantsCSV serves GET /admin/tenants.csv: the filtered list.
func (s *server) adminTenantsCSV(w http.ResponseWriter, r *http.Request, rq *request) {
	q := r.URL.Query()
	list, err := s.d.App.TenantSearch(r.Context(), app.TenantFilter{Query: q.Get("q"), Status: q.Get("status")})
	if errors.Is(err, app.ErrInvalid) {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	csvHeaders(w, "tenants.csv")
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"name", "id", "kind", "status", "quota_bytes", "reserved_bytes", "submit_interval_seconds", "daily_limit",
		"concurrent_limit", "last_submit_at", "created_at"})
	for _, t := range list {
		quota := ""
		if t.QuotaBytes != nil {
			quota = strconv.FormatInt(*t.QuotaBytes, 10)
		}
		_ = cw.Write([]string{csvSafe(t.Name), t.ID.String(), t.Kind, t.Status, quota, strconv.FormatInt(t.ReservedBytes, 10),
			strconv.Itoa(t.Limits.IntervalSeconds), strconv.Itoa(t.Limits.Daily), strconv.Itoa(t.Limits.Concurrent),
			csvTime(t.LastSubmitAt), t.CreatedAt.UTC().Format(time.RFC3339)})
	}
	cw.Flush()
}

// csvHeaders starts a CSV download.
func csvHeaders(w http.ResponseWriter, name string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func csvTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// tenantView is one tenant's page: accounting, limits, tokens, sessions.
type tenantDetailView struct {
	T         app.TenantView
	Used      string
	Reserved  string
	Quota     string
	QuotaIn   string
	Tokens    []app.TokenView
	Sessions  []app.WebSession
	Statuses  []option
	Limits    app.TenantLimits
	LimitsErr string
	// ChannelLimit is the form's channel limit; Channels the tenant's
	// bound channels and cloud destinations.
	ChannelLimit int
	Channels     *channelsView
}

// adminTenant serves GET /admin/tenants/{name}.
func (s *server) adminTenant(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderTenant(w, r, rq, http.StatusOK, r.PathValue("name"), nil, "")
}

func (s *server) renderTenant(w http.ResponseWriter, r *http.Request, rq *request, status int, name string, form *tenantDetailView, problem string) {
	ctx := r.Context()
	t, err := s.d.App.TenantShow(ctx, name)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	toks, err := s.d.App.Tokens(ctx, name)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	sess, err := s.d.App.WebSessions(ctx, t.ID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v := &tenantDetailView{T: t, Reserved: formatBytes(t.ReservedBytes), Tokens: toks, Sessions: sess, Statuses: s.statusOptions(rq, false),
		Limits: t.Limits, Quota: "—", ChannelLimit: t.ChannelLimit}
	if v.Channels, err = bindingsOf(ctx, s.d.App, t.ID); err != nil {
		s.fail(w, r, rq, err)
		return
	}
	if t.UsedBytes != nil {
		v.Used = formatBytes(*t.UsedBytes)
	}
	if t.QuotaBytes != nil {
		v.Quota, v.QuotaIn = formatBytes(*t.QuotaBytes), strconv.FormatInt(*t.QuotaBytes, 10)
	}
	if form != nil {
		v.Limits, v.QuotaIn, v.LimitsErr, v.ChannelLimit = form.Limits, form.QuotaIn, form.LimitsErr, form.ChannelLimit
	}
	s.adminPage(w, r, rq, status, "admin_tenant.html", "tenants", "admin.tenants", adminView{Body: v, Error: problem})
}

// adminTenantStatus serves POST /admin/tenants/{name}/status: approve
// (enabled), reject (disabled) and every other status change.
func (s *server) adminTenantStatus(w http.ResponseWriter, r *http.Request, rq *request) {
	name, st := r.PathValue("name"), r.PostFormValue("status")
	_, err := s.d.App.UpdateTenant(r.Context(), actorOf(rq), name, app.TenantChange{Status: &st})
	if errors.Is(err, app.ErrInvalid) {
		s.renderTenant(w, r, rq, http.StatusBadRequest, name, nil, s.t(rq, "admin.err.action", err.Error()))
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	back := r.PostFormValue("back")
	if back != "/admin/tenants" {
		back = "/admin/tenants/" + url.PathEscape(name)
	}
	backTo(w, r, back, "status")
}

// adminTenantOperator serves POST /admin/tenants/{name}/admin: marks the
// tenant as an operator (admin=true) or not (admin=false).
func (s *server) adminTenantOperator(w http.ResponseWriter, r *http.Request, rq *request) {
	name := r.PathValue("name")
	on, err := strconv.ParseBool(r.PostFormValue("admin"))
	if err != nil {
		s.renderTenant(w, r, rq, http.StatusBadRequest, name, nil, s.t(rq, "admin.err.operator"))
		return
	}
	_, err = s.d.App.UpdateTenant(r.Context(), actorOf(rq), name, app.TenantChange{Admin: &on})
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/tenants/"+url.PathEscape(name), "operator")
}

// adminTenantLimits serves POST /admin/tenants/{name}/limits: the submit
// interval, daily and concurrent limits and the quota ("" = none).
func (s *server) adminTenantLimits(w http.ResponseWriter, r *http.Request, rq *request) {
	name := r.PathValue("name")
	var l app.TenantLimits
	var ok1, ok2, ok3, ok4 bool
	l.IntervalSeconds, ok1 = optionalCount(r.PostFormValue("interval"))
	l.Daily, ok2 = optionalCount(r.PostFormValue("daily"))
	l.Concurrent, ok3 = optionalCount(r.PostFormValue("concurrent"))
	channels, ok4 := 0, true
	channelsIn := strings.TrimSpace(r.PostFormValue("channels"))
	if channelsIn != "" {
		channels, ok4 = optionalCount(channelsIn)
	}
	quotaIn := strings.TrimSpace(r.PostFormValue("quota"))
	form := &tenantDetailView{Limits: l, QuotaIn: quotaIn, ChannelLimit: channels}
	if !ok1 || !ok2 || !ok3 || !ok4 {
		form.LimitsErr = s.t(rq, "admin.err.limits")
		s.renderTenant(w, r, rq, http.StatusBadRequest, name, form, "")
		return
	}
	ch := app.TenantChange{Limits: &l, QuotaSet: true}
	if channelsIn != "" {
		ch.ChannelLimit = &channels
	}
	if quotaIn != "" {
		q, err := strconv.ParseInt(quotaIn, 10, 64)
		if err != nil || q < 0 {
			form.LimitsErr = s.t(rq, "admin.err.quota")
			s.renderTenant(w, r, rq, http.StatusBadRequest, name, form, "")
			return
		}
		ch.QuotaBytes = &q
	}
	_, err := s.d.App.UpdateTenant(r.Context(), actorOf(rq), name, ch)
	if errors.Is(err, app.ErrInvalid) {
		form.LimitsErr = s.t(rq, "admin.err.action", err.Error())
		s.renderTenant(w, r, rq, http.StatusBadRequest, name, form, "")
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/tenants/"+url.PathEscape(name), "limits")
}

// adminTenantResetDay serves POST /admin/tenants/{name}/reset-day.
func (s *server) adminTenantResetDay(w http.ResponseWriter, r *http.Request, rq *request) {
	name := r.PathValue("name")
	if err := s.d.App.ResetTenantDay(r.Context(), actorOf(rq), name); err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/tenants/"+url.PathEscape(name), "reset")
}

// adminTenantRevokeToken serves POST /admin/tenants/{name}/tokens/{id}/revoke.
func (s *server) adminTenantRevokeToken(w http.ResponseWriter, r *http.Request, rq *request) {
	name := r.PathValue("name")
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	if err := s.d.App.RevokeToken(r.Context(), actorOf(rq), name, id); err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/tenants/"+url.PathEscape(name), "revoked")
}
