package web_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// adminLive is a running core with its fake FxTwitter at hand.
type adminLive struct {
	*testcore.Running
	fx   *testkit.FxTwitter
	base string
	// dataDir is the core's data directory.
	dataDir string
}

func newAdminLive(t *testing.T) *adminLive {
	t.Helper()
	fx, tme := testkit.NewFxTwitter(t), testkit.NewTme(t)
	cfg := testcore.Config(t, map[string]string{"MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_TME_URL": tme.URL(),
		"MONITOR_MASTER_KEY": "web-admin-test-master-key-0123456789"})
	r := testcore.Run(t, cfg)
	return &adminLive{Running: r, fx: fx, base: "http://" + r.Addr(), dataDir: cfg.DataDir}
}

// browserless is one signed-in (or anonymous) visitor without a browser.
type browserless struct {
	t      *testing.T
	base   string
	client *http.Client
	csrf   string
	// lang is sent as Accept-Language ("": none).
	lang string
}

var adminCSRFField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// visitor signs tenant in (as admin or not); tenant "" stays anonymous.
func (l *adminLive) visitor(t *testing.T, tenant string, admin bool) *browserless {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &browserless{t: t, base: l.base, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if tenant == "" {
		return b
	}
	ctx := context.Background()
	if _, err := l.App().TenantByName(ctx, tenant); err != nil {
		_, err = l.App().CreateTenant(ctx, "test", tenant, nil)
		require.NoError(t, err)
	}
	link, _, err := l.App().CreateLoginLink(ctx, "test", tenant, admin, 0)
	require.NoError(t, err)
	p := b.get(link[strings.Index(link, "/login/"):])
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	m := adminCSRFField.FindStringSubmatch(b.get("/settings").Body)
	require.NotNil(t, m, "a CSRF token on the settings page")
	b.csrf = m[1]
	return b
}

func (b *browserless) do(method, path string, form url.Values) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.lang != "" {
		req.Header.Set("Accept-Language", b.lang)
	}
	resp, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return page{Status: resp.StatusCode, Body: string(raw), Location: resp.Header.Get("Location"), Header: resp.Header}
}

func (b *browserless) get(path string) page { b.t.Helper(); return b.do(http.MethodGet, path, nil) }

func (b *browserless) post(path string, form url.Values) page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", b.csrf)
	return b.do(http.MethodPost, path, form)
}

// adminPaths are the console's pages and writes.
var adminPaths = []struct{ method, path string }{
	{"GET", "/admin"}, {"GET", "/admin/"}, {"GET", "/admin/tenants"}, {"GET", "/admin/tenants.csv"}, {"GET", "/admin/tenants/alice"},
	{"GET", "/admin/captures"}, {"GET", "/admin/captures.csv"}, {"GET", "/admin/events"}, {"GET", "/admin/errors"},
	{"GET", "/admin/audit"}, {"GET", "/admin/settings"}, {"GET", "/admin/river"}, {"GET", "/admin/river/jobs"},
	{"POST", "/admin/tenants/alice/status"}, {"POST", "/admin/tenants/alice/limits"}, {"POST", "/admin/captures/batch"},
	{"POST", "/admin/events/queue.backlog/resolve"}, {"POST", "/admin/errors/delete"}, {"POST", "/admin/settings/timezone"},
	{"GET", "/admin/backups"}, {"GET", "/admin/notifications"}, {"POST", "/admin/backups/snapshot"},
	{"POST", "/admin/notifications/test"}, {"POST", "/admin/notifications/notify_recovery"},
	{"GET", "/admin/watches"}, {"POST", "/admin/watches/00000000-0000-7000-8000-000000000000/approve"},
	{"POST", "/admin/tenants/alice/admin"},
	{"POST", "/admin/backups/monitor-snapshot-20261201T130000Z.zip/restore"}, {"POST", "/admin/backups/restore/cancel"},
}

func TestAdminIsForAdminsOnly(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	anon := l.visitor(t, "", false)
	alice := l.visitor(t, "alice", false)
	admin := l.visitor(t, "root", true)
	for _, p := range adminPaths {
		var form url.Values
		if p.method == "POST" {
			form = url.Values{}
		}
		require.Equal(t, http.StatusNotFound, anon.do(p.method, p.path, form).Status, "anonymous %s %s", p.method, p.path)
		got := alice.do(p.method, p.path, url.Values{"csrf": {alice.csrf}})
		if p.method == "GET" {
			got = alice.get(p.path)
		}
		require.Equal(t, http.StatusNotFound, got.Status, "non-admin %s %s", p.method, p.path)
		require.NotContains(t, got.Body, "Operator console")
	}
	require.NotContains(t, alice.get("/").Body, `href="/admin"`, "no admin link for others")
	lib := admin.get("/")
	require.Contains(t, lib.Body, `href="/admin"`)
	for _, p := range adminPaths {
		if p.method != "GET" || strings.HasPrefix(p.path, "/admin/river") {
			continue
		}
		require.Equal(t, http.StatusOK, admin.get(p.path).Status, p.path)
	}
	require.Equal(t, http.StatusOK, admin.get("/admin/river/jobs").Status)
	jobs := admin.get("/admin/river/")
	require.Equal(t, http.StatusOK, jobs.Status)
	require.Contains(t, jobs.Body, "<title>River</title>", "River's job UI")
	api := admin.get("/admin/river/api/jobs?state=completed")
	require.Equal(t, http.StatusOK, api.Status, api.Body)
	require.Contains(t, api.Body, `"data"`)
	require.Equal(t, http.StatusNotFound, admin.post("/admin/river/api/jobs/cancel", nil).Status, "the job UI is read-only")
	require.Equal(t, http.StatusForbidden, admin.do("POST", "/admin/tenants/alice/status", url.Values{"status": {"disabled"}}).Status,
		"a write without the CSRF token is refused")
	tn, err := l.App().TenantShow(context.Background(), "alice")
	require.NoError(t, err)
	require.Equal(t, "enabled", tn.Status)

	ov := admin.get("/admin")
	require.Contains(t, ov.Body, "Operator console")
	require.Contains(t, ov.Body, "Healthy")
	require.Contains(t, ov.Body, "Resident memory")
	require.Contains(t, ov.Body, `<code>x</code>`, "the X adapter is listed")
	require.Contains(t, ov.Body, "capture.fetch/")
	admin.lang = "zh-CN"
	zh := admin.get("/admin")
	require.Contains(t, zh.Body, "运维控制台")
	require.Contains(t, zh.Body, "常驻内存")
}

func TestAdminTenantsApproveAndLimits(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	admin := l.visitor(t, "root", true)
	carol, err := l.App().CreateTenant(ctx, "test", "carol", nil)
	require.NoError(t, err)
	pending := store.TenantPending
	_, err = l.App().UpdateTenant(ctx, "test", "carol", app.TenantChange{Status: &pending})
	require.NoError(t, err)

	list := admin.get("/admin/tenants")
	require.Contains(t, list.Body, "Applications")
	require.Contains(t, list.Body, `action="/admin/tenants/carol/status"`)
	p := admin.post("/admin/tenants/carol/status", url.Values{"status": {"enabled"}, "back": {"/admin/tenants"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/admin/tenants?done=status", p.Location)
	after := admin.get(p.Location)
	require.Contains(t, after.Body, "Status changed.")
	require.Contains(t, after.Body, "No one is waiting for approval.")
	audit := admin.get("/admin/audit?q=tenant:carol")
	require.Contains(t, audit.Body, "tenant.approve")
	require.Contains(t, audit.Body, "web:root")
	require.Contains(t, audit.Body, "&#34;status&#34;: &#34;pending&#34;", "before, laid out")
	require.Contains(t, audit.Body, "&#34;status&#34;: &#34;enabled&#34;", "after, laid out")

	bad := admin.post("/admin/tenants/carol/limits", url.Values{"daily": {"-1"}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "Limits are whole numbers, 0 for no limit.")
	p = admin.post("/admin/tenants/carol/limits", url.Values{"daily": {"1"}, "interval": {"0"}, "concurrent": {"0"}, "quota": {""}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	detail := admin.get(p.Location)
	require.Contains(t, detail.Body, "Limits and quota saved.")
	require.Contains(t, detail.Body, `name="daily" inputmode="numeric" value="1"`)

	_, err = l.App().Submit(ctx, app.SubmitRequest{TenantID: carol.ID, URL: photosPost})
	require.NoError(t, err)
	_, err = l.App().Submit(ctx, app.SubmitRequest{TenantID: carol.ID, URL: videoPost})
	var le *app.LimitError
	require.True(t, errors.As(err, &le), "the second capture of the day is refused: %v", err)
	require.Contains(t, admin.get("/admin/tenants/carol").Body, "1 / 1", "today's count against the limit")
	p = admin.post("/admin/tenants/carol/reset-day", nil)
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Contains(t, admin.get(p.Location).Body, "0 / 1")

	csv := admin.get("/admin/tenants.csv?q=car")
	require.Equal(t, http.StatusOK, csv.Status)
	require.Equal(t, "text/csv; charset=utf-8", csv.Header.Get("Content-Type"))
	lines := strings.Split(strings.TrimSpace(csv.Body), "\n")
	require.Len(t, lines, 2)
	require.True(t, strings.HasPrefix(lines[0], "name,id,kind,status,quota_bytes"))
	require.True(t, strings.HasPrefix(lines[1], "carol,"+carol.ID.String()+",managed,enabled,,"), lines[1])
	require.Equal(t, http.StatusBadRequest, admin.get("/admin/tenants?status=gone").Status)
}

func TestAdminCapturesRetryAndExport(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	admin := l.visitor(t, "root", true)
	alice, err := l.App().CreateTenant(ctx, "test", "alice", nil)
	require.NoError(t, err)
	l.fx.FailNext(1, 404)
	res, err := l.App().Submit(ctx, app.SubmitRequest{TenantID: alice.ID, URL: photosPost})
	require.NoError(t, err)
	l.WaitEnded(t, res.CaptureID)

	list := admin.get("/admin/captures?state=failed")
	require.Equal(t, http.StatusOK, list.Status)
	detailPath := "/admin/captures/" + alice.ID.String() + "/" + res.CaptureID.String()
	require.Contains(t, list.Body, `href="`+detailPath+`"`)
	require.Contains(t, list.Body, `value="`+alice.ID.String()+":"+res.CaptureID.String()+`"`)
	require.Contains(t, admin.get("/admin/captures?state=complete").Body, "No captures match.")
	require.Equal(t, http.StatusBadRequest, admin.get("/admin/captures?from=yesterday").Status)
	require.Contains(t, admin.get("/admin/captures?from=yesterday").Body, "Dates are written 2026-12-01.")

	d := admin.get(detailPath)
	require.Contains(t, d.Body, "Failed")
	require.Contains(t, d.Body, photosPost)
	require.Contains(t, d.Body, `action="`+detailPath+`/retry"`)
	require.Contains(t, admin.get("/admin/errors?source=capture").Body, res.CaptureID.String(), "the failure is in the error log")

	p := admin.post(detailPath+"/retry", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Contains(t, admin.get(p.Location).Body, "Retry started")
	all, err := l.App().AdminCaptures(ctx, app.AdminCaptureFilter{Limit: 10})
	require.NoError(t, err)
	require.Len(t, all, 2)
	l.WaitEnded(t, all[0].ID)
	require.Contains(t, admin.get("/admin/captures?state=complete").Body, all[0].ID.String(), "the retried capture completed")
	again := admin.post(detailPath+"/cancel", nil)
	require.Equal(t, http.StatusConflict, again.Status, "only a queued capture is cancelled")
	require.Contains(t, again.Body, "only a queued capture can be cancelled")
	require.Contains(t, admin.get("/admin/audit").Body, "capture.retry")

	csv := admin.get("/admin/captures.csv?max=1")
	require.Equal(t, http.StatusOK, csv.Status)
	lines := strings.Split(strings.TrimSpace(csv.Body), "\n")
	require.Len(t, lines, 3, csv.Body)
	require.True(t, strings.HasPrefix(lines[0], "id,tenant,state,error_code,error"))
	require.True(t, strings.HasPrefix(lines[1], all[0].ID.String()+",alice,complete"), lines[1])
	require.Equal(t, "# truncated: the export stops at 1 rows; narrow the filter for the rest", lines[2])
	full := strings.Split(strings.TrimSpace(admin.get("/admin/captures.csv?tenant=alice").Body), "\n")
	require.Len(t, full, 3, "a header and both captures, not cut")
	require.NotContains(t, full[2], "truncated")
	require.Equal(t, http.StatusBadRequest, admin.get("/admin/captures.csv?max=100001").Status)
}

func TestAdminCancelBatch(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{NoStart: true})
	s := newSite(t, c, "root", nil)
	res, err := c.App.Submit(context.Background(), app.SubmitRequest{TenantID: s.tenant, URL: photosPost})
	require.NoError(t, err)
	ref := s.tenant.String() + ":" + res.CaptureID.String()
	p := s.post("/admin/captures/batch", url.Values{"action": {"cancel"}, "capture": {ref, s.tenant.String() + ":" + uuid.NewString()}})
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Done: 1. Not possible: 1.")
	v, err := c.App.Capture(context.Background(), s.tenant, res.CaptureID)
	require.NoError(t, err)
	require.Equal(t, app.StateFailed, v.State)
	refs := make([]string, app.MaxCaptureBatch+1)
	for i := range refs {
		refs[i] = ref
	}
	tooMany := s.post("/admin/captures/batch", url.Values{"action": {"retry"}, "capture": refs})
	require.Equal(t, http.StatusBadRequest, tooMany.Status)
	require.Contains(t, tooMany.Body, "a batch has at most 100 captures")
}

func TestAdminEventsErrorsSettings(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	admin := l.visitor(t, "root", true)
	// A key the running core does not watch itself: its own check of the
	// queue would resolve queue.backlog at start, racing the test.
	const key = "web.test.condition"
	require.NoError(t, l.App().RecordEvent(ctx, key, app.SeverityWarn, "capture jobs wait too long"))

	ev := admin.get("/admin/events")
	require.Contains(t, ev.Body, "capture jobs wait too long")
	p := admin.post("/admin/events/"+key+"/resolve", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Contains(t, admin.get(p.Location).Body, "Event resolved.")
	require.NotContains(t, admin.get("/admin/events").Body, "capture jobs wait too long")
	require.Contains(t, admin.get("/admin/events?status=resolved").Body, "capture jobs wait too long")
	require.Equal(t, http.StatusBadRequest, admin.get("/admin/events?status=closed").Status)

	bad := admin.post("/admin/settings/error_log_retention_days", url.Values{"value": {"0"}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "Not saved: setting error_log_retention_days")
	require.Contains(t, bad.Body, `aria-invalid="true"`)
	p = admin.post("/admin/settings/error_log_retention_days", url.Values{"value": {"14"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	set := admin.get("/admin/settings")
	require.Contains(t, set.Body, `name="value" value="14"`)
	require.Contains(t, set.Body, "restart needed", "settings that apply at the next start say so")
	secret := admin.post("/admin/settings/telegram_token", url.Values{"value": {"not-a-token-sekrit"}})
	require.Equal(t, http.StatusBadRequest, secret.Status)
	require.Contains(t, secret.Body, "Not saved: setting telegram_token")
	require.NotContains(t, secret.Body, "sekrit", "a refused secret is not shown again")
	p = admin.post("/admin/settings/error_log_retention_days", url.Values{"reset": {"1"}})
	require.Equal(t, http.StatusSeeOther, p.Status)

	l.App().LogError(ctx, app.ErrorRecord{Source: app.SourceDownload, Code: "timeout", Message: "media download failed"})
	require.Contains(t, admin.get("/admin/errors?code=timeout").Body, "media download failed")
	require.Contains(t, admin.get("/admin/errors?code=other").Body, "Nothing here.")
	today := time.Now().UTC().Format("2006-01-02")
	del := admin.post("/admin/errors/delete", url.Values{"from": {today}, "to": {today}, "source": {"download"}})
	require.Equal(t, http.StatusOK, del.Status, del.Body)
	require.Contains(t, del.Body, "Deleted 1 rows.")
	require.Equal(t, http.StatusBadRequest, admin.post("/admin/errors/delete", url.Values{"from": {"soon"}}).Status)

	admin.lang = "zh-CN"
	require.Contains(t, admin.get("/admin/settings").Body, "需要重启")
}
