package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

var snapshotLink = regexp.MustCompile(`href="/admin/backups/(monitor-snapshot-[0-9TZ]+\.zip)"`)

func TestAdminBackups(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	admin := l.visitor(t, "root", true)
	alice := l.visitor(t, "alice", false)

	page := admin.get("/admin/backups")
	require.Equal(t, http.StatusOK, page.Status)
	require.Contains(t, page.Body, "No snapshots yet.")
	require.Contains(t, page.Body, "Snapshot now")
	require.Contains(t, page.Body, "No scheduled snapshots (0).")
	require.Contains(t, page.Body, "The newest 7 are kept; older ones are deleted.")
	require.Contains(t, page.Body, `href="/admin/settings#backup_interval_hours"`)

	require.Equal(t, http.StatusForbidden, admin.do("POST", "/admin/backups/snapshot", url.Values{}).Status, "no CSRF token, no snapshot")
	p := admin.post("/admin/backups/snapshot", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/admin/backups?done=snapshot", p.Location)
	page = admin.get(p.Location)
	require.Contains(t, page.Body, "Snapshot taken: it is first in the list.")
	m := snapshotLink.FindStringSubmatch(page.Body)
	require.NotNil(t, m, page.Body)
	require.Len(t, snapshotLink.FindAllString(page.Body, -1), 1, "one snapshot")
	require.Contains(t, page.Body, " UTC</time>")

	file := admin.get("/admin/backups/" + m[1])
	require.Equal(t, http.StatusOK, file.Status)
	require.Equal(t, "application/zip", file.Header.Get("Content-Type"))
	require.Equal(t, `attachment; filename="`+m[1]+`"`, file.Header.Get("Content-Disposition"))
	zr, err := zip.NewReader(bytes.NewReader([]byte(file.Body)), int64(len(file.Body)))
	require.NoError(t, err, "the download is the snapshot's zip")
	require.NotEmpty(t, zr.File)

	require.Equal(t, http.StatusNotFound, alice.get("/admin/backups/"+m[1]).Status, "only admins download snapshots")
	for _, bad := range []string{"monitor-snapshot-20200101T000000Z.zip", "notes.txt", "..%2Fmonitor.db", "monitor-snapshot-x.zip"} {
		got := admin.get("/admin/backups/" + bad)
		require.Equal(t, http.StatusNotFound, got.Status, bad)
		require.NotContains(t, got.Body, "PK", bad)
	}
	require.Contains(t, admin.get("/admin/audit").Body, "backup.snapshot", "the snapshot is audited")

	admin.lang = "zh-CN"
	zh := admin.get("/admin/backups")
	require.Contains(t, zh.Body, "立即创建快照")
	require.Contains(t, zh.Body, "保留最新的 7 个")
}

// webhookReceiver records the notifications a webhook gets.
type webhookReceiver struct {
	mu     sync.Mutex
	bodies [][]byte
	sigs   []string
}

func (h *webhookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.bodies, h.sigs = append(h.bodies, b), append(h.sigs, r.Header.Get(app.SignatureHeader))
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func TestAdminNotifications(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	admin := l.visitor(t, "root", true)
	recv := &webhookReceiver{}
	hook := httptest.NewServer(recv)
	t.Cleanup(hook.Close)

	page := admin.get("/admin/notifications")
	require.Equal(t, http.StatusOK, page.Status)
	for _, key := range []string{"notify_min_severity", "notify_recovery", "notify_language", "notify_telegram_chat_id",
		"notify_telegram_token", "notify_webhook_url", "notify_webhook_secret"} {
		require.Contains(t, page.Body, `action="/admin/notifications/`+key+`"`, key)
	}
	require.NotContains(t, page.Body, `action="/admin/notifications/timezone"`, "only notify_* settings")
	require.Contains(t, page.Body, `<option value="warn" selected>warn</option>`)
	require.Equal(t, 3, strings.Count(page.Body, ">not set</span>"), "the three secrets are not set")

	none := admin.post("/admin/notifications/test", nil)
	require.Equal(t, http.StatusBadRequest, none.Status)
	require.Contains(t, none.Body, "Not done: no notification channel is set up")

	bad := admin.post("/admin/notifications/notify_webhook_secret", url.Values{"value": {"short-sekrit"}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "Not saved: setting notify_webhook_secret")
	require.Contains(t, bad.Body, "must be 16 to 256 characters")
	require.NotContains(t, bad.Body, "short-sekrit", "a refused secret is not shown again")
	bad = admin.post("/admin/notifications/notify_min_severity", url.Values{"value": {"loud"}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "must be one of info, warn, error")
	require.Equal(t, http.StatusNotFound, admin.post("/admin/notifications/timezone", url.Values{"value": {"UTC"}}).Status,
		"other settings are changed on the settings page")

	const secret = "0123456789abcdef-webhook"
	for key, value := range map[string]string{"notify_webhook_url": hook.URL + "/hook", "notify_webhook_secret": secret,
		"notify_telegram_chat_id": "-1001234567890", "notify_min_severity": "error"} {
		p := admin.post("/admin/notifications/"+key, url.Values{"value": {value}})
		require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
		require.Equal(t, "/admin/notifications?done=setting#"+key, p.Location)
	}
	page = admin.get("/admin/notifications?done=setting")
	require.Contains(t, page.Body, "Setting saved.")
	require.Equal(t, 2, strings.Count(page.Body, `<span class="badge ok">set</span>`), "URL and secret are set")
	require.NotContains(t, page.Body, secret, "secrets are never shown")
	require.NotContains(t, page.Body, hook.URL, "the webhook address is a secret too")
	require.Contains(t, page.Body, `value="-1001234567890"`)
	require.Contains(t, page.Body, `<option value="error" selected>error</option>`)

	sent := admin.post("/admin/notifications/test", nil)
	require.Equal(t, http.StatusOK, sent.Status, sent.Body)
	require.Contains(t, sent.Body, `<span class="badge ok">sent</span>`)
	require.Contains(t, sent.Body, "<strong>Webhook</strong>")
	require.Contains(t, sent.Body, `<span class="badge bad">failed</span>`, "Telegram has a chat but no bot token")
	require.Contains(t, sent.Body, "<strong>Telegram</strong>: no bot token")
	recv.mu.Lock()
	require.Len(t, recv.bodies, 1)
	body, sig := recv.bodies[0], recv.sigs[0]
	recv.mu.Unlock()
	require.Equal(t, app.Sign(secret, body), sig)
	var got app.WebhookBody
	require.NoError(t, json.Unmarshal(body, &got))
	require.Equal(t, app.NotifyTest, got.Type)
	require.Contains(t, admin.get("/admin/audit").Body, "notify.test")

	p := admin.post("/admin/notifications/notify_webhook_secret", url.Values{"reset": {"1"}})
	require.Equal(t, http.StatusSeeOther, p.Status)
	require.Equal(t, 1, strings.Count(admin.get("/admin/notifications").Body, `<span class="badge ok">set</span>`), "the secret is removed")

	admin.lang = "zh-CN"
	zh := admin.get("/admin/notifications")
	require.Contains(t, zh.Body, "发送测试通知")
	require.Contains(t, zh.Body, "未设置")
}

// TestAdminOverviewCharts draws the last day's samples on the overview.
func TestAdminOverviewCharts(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoStart: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		now := c.Clock.Now().UTC().Truncate(app.MetricSampleInterval)
		for i := 0; i < 120; i++ {
			rss, db, q := int64(200<<20+i<<20), int64(50<<20), int64(i%7)
			cpu, down := float64(i%40), float64(i*1000)
			require.NoError(t, c.Store.MetricSampleInsert(ctx, store.MetricSample{SampledAt: now.Add(-time.Duration(i) * 5 * time.Minute),
				Instance: "a", RSSBytes: &rss, CPUPercent: &cpu, DBBytes: &db, QueueJobs: &q, DownloadBPS: &down}, now.Add(-app.MetricRetention)))
		}
		s := newSite(t, c, "root", nil)
		ov := s.get("/admin")
		require.Equal(t, http.StatusOK, ov.Status)
		require.Equal(t, 5, strings.Count(ov.Body, `<svg class="chart"`), "five charts")
		for _, title := range []string{"Resident memory", "CPU", "Download and upload", "Jobs waiting or running", "Database and media"} {
			require.Contains(t, ov.Body, `aria-label="`+title+`"`)
		}
		require.GreaterOrEqual(t, strings.Count(ov.Body, `class="chart-line"`), 5, "a line in every chart with data")
		require.Contains(t, ov.Body, "MiB", "memory in binary units")
		require.NotContains(t, ov.Body, "style=", "nothing the CSP refuses")
		require.Contains(t, s.get("/admin", "Accept-Language", "zh-CN").Body, `aria-label="等待或运行中的任务"`)
	})
}

// TestAdminBackupsOff: an instance without a backup directory (PostgreSQL
// or S3 media) says why it has no snapshots, offers none and serves none.
func TestAdminBackupsOff(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{NoStart: true})
	s := newSite(t, c, "root", nil)
	page := s.get("/admin/backups")
	require.Equal(t, http.StatusOK, page.Status)
	require.Contains(t, page.Body, "No snapshots on this instance: snapshots are for the embedded default")
	require.NotContains(t, page.Body, "Snapshot now")
	now := s.post("/admin/backups/snapshot", nil)
	require.Equal(t, http.StatusBadRequest, now.Status)
	require.Contains(t, now.Body, "Not done: snapshots are for the embedded default")
	require.Equal(t, http.StatusNotFound, s.get("/admin/backups/monitor-snapshot-20261201T130000Z.zip").Status)
}
