package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// The operator console (/admin) follows Spore's menu groups: overview,
// tenants, captures, events and audit, settings, backups, notifications. Every page and action is
// adminOnly (others get 404); writes carry the CSRF token like every form,
// and the business layer audits each change with the session as actor.

// adminService is what the operator console needs from the business layer.
type adminService interface {
	QueueCounts(ctx context.Context) ([]app.QueueCount, error)
	Adapters() []app.AdapterView
	TenantSearch(ctx context.Context, f app.TenantFilter) ([]app.TenantView, error)
	TenantShow(ctx context.Context, name string) (app.TenantView, error)
	UpdateTenant(ctx context.Context, actor, name string, ch app.TenantChange) (app.TenantView, error)
	ResetTenantDay(ctx context.Context, actor, name string) error
	Tokens(ctx context.Context, tenantName string) ([]app.TokenView, error)
	RevokeToken(ctx context.Context, actor, tenantName string, id uuid.UUID) error
	AdminCaptures(ctx context.Context, f app.AdminCaptureFilter) ([]app.AdminCaptureView, error)
	ExportCaptures(ctx context.Context, f app.AdminCaptureFilter, max int, fn func(app.AdminCaptureView) error) (bool, error)
	AdminCapture(ctx context.Context, tenantID, id uuid.UUID) (app.AdminCaptureDetail, error)
	RetryCaptures(ctx context.Context, actor string, refs []app.CaptureRef) (app.BatchResult, error)
	CancelCaptures(ctx context.Context, actor string, refs []app.CaptureRef) (app.BatchResult, error)
	Events(ctx context.Context, status string, limit int) ([]app.EventView, error)
	ResolveEvent(ctx context.Context, actor, key string) (app.EventView, error)
	ErrorLogSearch(ctx context.Context, f app.ErrorLogFilter) ([]app.ErrorLogView, error)
	DeleteErrorLogs(ctx context.Context, actor string, from, to time.Time, source string) (int64, error)
	AuditSearch(ctx context.Context, f app.AuditFilter) ([]app.AuditView, error)
	SettingsList(ctx context.Context) ([]app.SettingView, error)
	SetSetting(ctx context.Context, actor, key, value string) (app.SettingView, error)
	SystemMetrics(ctx context.Context, window, bucket time.Duration) (app.MetricSeries, error)
	Snapshots(ctx context.Context) ([]app.SnapshotFile, error)
	SnapshotPath(ctx context.Context, name string) (string, error)
	SnapshotNow(ctx context.Context, actor string) (app.SnapshotFile, error)
	PreviewSnapshot(ctx context.Context, name string) (app.SnapshotPreview, error)
	PendingRestore(ctx context.Context) (*app.StagedRestore, error)
	StageRestore(ctx context.Context, actor, name string) (app.StagedRestore, error)
	CancelRestore(ctx context.Context, actor string) error
	MediaUsage(ctx context.Context) (app.MediaUsage, error)
	SendTestNotification(ctx context.Context, actor string) ([]app.NotifyResult, error)
}

// adminRoutes is the operator console's part of the route table.
func (s *server) adminRoutes() []route {
	return []route{
		{http.MethodGet, "/admin", adminOnly, s.adminOverview},
		{http.MethodGet, "/admin/{$}", adminOnly, s.adminOverview},
		{http.MethodGet, "/admin/tenants", adminOnly, s.adminTenants},
		{http.MethodGet, "/admin/tenants.csv", adminOnly, s.adminTenantsCSV},
		{http.MethodGet, "/admin/tenants/{name}", adminOnly, s.adminTenant},
		{http.MethodPost, "/admin/tenants/{name}/status", adminOnly, s.adminTenantStatus},
		{http.MethodPost, "/admin/tenants/{name}/limits", adminOnly, s.adminTenantLimits},
		{http.MethodPost, "/admin/tenants/{name}/admin", adminOnly, s.adminTenantOperator},
		{http.MethodPost, "/admin/tenants/{name}/reset-day", adminOnly, s.adminTenantResetDay},
		{http.MethodPost, "/admin/tenants/{name}/tokens/{id}/revoke", adminOnly, s.adminTenantRevokeToken},
		{http.MethodGet, "/admin/captures", adminOnly, s.adminCaptures},
		{http.MethodGet, "/admin/captures.csv", adminOnly, s.adminCapturesCSV},
		{http.MethodPost, "/admin/captures/batch", adminOnly, s.adminCaptureBatch},
		{http.MethodGet, "/admin/captures/{tenant}/{id}", adminOnly, s.adminCapture},
		{http.MethodPost, "/admin/captures/{tenant}/{id}/{action}", adminOnly, s.adminCaptureAction},
		{http.MethodGet, "/admin/events", adminOnly, s.adminEvents},
		{http.MethodPost, "/admin/events/{key}/resolve", adminOnly, s.adminResolveEvent},
		{http.MethodGet, "/admin/errors", adminOnly, s.adminErrors},
		{http.MethodPost, "/admin/errors/delete", adminOnly, s.adminDeleteErrors},
		{http.MethodGet, "/admin/audit", adminOnly, s.adminAudit},
		{http.MethodGet, "/admin/settings", adminOnly, s.adminSettings},
		{http.MethodPost, "/admin/settings/{key}", adminOnly, s.adminSetSetting},
		{http.MethodGet, "/admin/backups", adminOnly, s.adminBackups},
		{http.MethodPost, "/admin/backups/snapshot", adminOnly, s.adminSnapshotNow},
		{http.MethodGet, "/admin/backups/{name}", adminOnly, s.adminSnapshotFile},
		{http.MethodGet, "/admin/backups/{name}/restore", adminOnly, s.adminRestorePreview},
		{http.MethodPost, "/admin/backups/{name}/restore", adminOnly, s.adminStageRestore},
		{http.MethodPost, "/admin/backups/restore/cancel", adminOnly, s.adminCancelRestore},
		{http.MethodGet, "/admin/notifications", adminOnly, s.adminNotifications},
		{http.MethodPost, "/admin/notifications/test", adminOnly, s.adminTestNotify},
		{http.MethodPost, "/admin/notifications/{key}", adminOnly, s.adminSetNotify},
		{http.MethodGet, "/admin/river", adminOnly, s.adminRiver},
		{http.MethodGet, "/admin/river/{rest...}", adminOnly, s.adminRiver},
	}
}

// adminPages are the console's page templates.
func adminPages() []string {
	return []string{"admin_overview.html", "admin_tenants.html", "admin_tenant.html", "admin_captures.html", "admin_capture.html",
		"admin_events.html", "admin_errors.html", "admin_audit.html", "admin_settings.html",
		"admin_backups.html", "admin_restore.html", "admin_notifications.html"}
}

// adminView is what every console page carries besides its own content:
// the section the menu marks, the CSRF token and a notice or problem.
type adminView struct {
	Section string
	Notice  string
	Error   string
	Body    any
}

// adminPage renders a console page; section marks the menu.
func (s *server) adminPage(w http.ResponseWriter, r *http.Request, rq *request, status int, tmpl, section, titleKey string, v adminView) {
	v.Section = section
	if v.Notice == "" {
		v.Notice = noticeText(s, rq, r.URL.Query().Get("done"))
	}
	s.page(w, r, rq, status, tmpl, &Page{Title: s.t(rq, titleKey) + " · " + s.t(rq, "admin.title"), Nav: "admin", Data: v})
}

// noticeText is the message for a finished action named by ?done= (the
// action redirects there, so a reload does not repeat it).
func noticeText(s *server, rq *request, done string) string {
	if done == "" {
		return ""
	}
	key := "admin.done." + done
	if _, ok := s.d.Renderer.cat[key]; !ok {
		return ""
	}
	return s.t(rq, key)
}

// actorOf names the session in the audit log.
func actorOf(rq *request) string {
	if rq.session == nil {
		return "web"
	}
	return "web:" + rq.session.TenantName
}

// backTo redirects to path with a ?done= notice.
func backTo(w http.ResponseWriter, r *http.Request, path, done string) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	http.Redirect(w, r, path+sep+"done="+url.QueryEscape(done), http.StatusSeeOther)
}

// adminDay reads a yyyy-mm-dd date from a form ("" is zero). end moves it
// to the next midnight, so that "to 2026-12-01" includes that day.
func adminDay(v string, end bool) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, true
	}
	d, err := time.Parse("2006-01-02", v)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		d = d.AddDate(0, 0, 1)
	}
	return d, true
}

// optionalCount reads a non-negative whole number from a form.
func optionalCount(v string) (int, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, true
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 0
}

// jobsPolicy is the content security policy of River's job UI: its
// scripts and styles are its own files, but it sets styles inline and
// ships fonts.
const jobsPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// adminRiver serves GET /admin/river/…: River's job UI, read-only (its
// writes carry no CSRF token and would not be audited, so only GET is
// routed here; retry and cancel captures on the Captures page).
func (s *server) adminRiver(w http.ResponseWriter, r *http.Request, rq *request) {
	if s.d.Jobs == nil {
		s.adminPage(w, r, rq, http.StatusNotImplemented, "admin_overview.html", "jobs", "admin.jobs", adminView{Error: s.t(rq, "admin.jobs.none")})
		return
	}
	w.Header().Set("Content-Security-Policy", jobsPolicy)
	s.d.Jobs.ServeHTTP(w, r)
}
