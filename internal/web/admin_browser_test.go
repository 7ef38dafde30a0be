package web_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
)

// TestAdminBrowser opens the console's overview, tenants and captures in
// a browser: English and Chinese, light and dark, desktop and phone, and
// approves an application with a click. The overview draws its charts
// from some hours of samples.
func TestAdminBrowser(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	root, err := l.App().CreateTenant(ctx, "test", "root", nil)
	require.NoError(t, err)
	alice, err := l.App().CreateTenant(ctx, "test", "alice", nil)
	require.NoError(t, err)
	_, err = l.App().CreateTenant(ctx, "test", "carol", nil)
	require.NoError(t, err)
	pending := store.TenantPending
	_, err = l.App().UpdateTenant(ctx, "test", "carol", app.TenantChange{Status: &pending})
	require.NoError(t, err)
	l.fx.FailNext(1, 404)
	res, err := l.App().Submit(ctx, app.SubmitRequest{TenantID: alice.ID, URL: photosPost})
	require.NoError(t, err)
	l.WaitEnded(t, res.CaptureID)
	res, err = l.App().Submit(ctx, app.SubmitRequest{TenantID: alice.ID, URL: videoPost})
	require.NoError(t, err)
	l.WaitEnded(t, res.CaptureID)

	// Some hours of system metric samples, as the core takes them, for
	// the overview's charts; and a snapshot for the backups page.
	smp := l.App().NewSampler("browser")
	for i := 0; i < 180; i++ {
		require.NoError(t, smp.Sample(ctx))
		l.Clock.Advance(2 * time.Minute)
	}
	_, err = l.App().SnapshotNow(ctx, "test")
	require.NoError(t, err)

	signIn := func(b *browser) {
		t.Helper()
		link, _, err := l.App().CreateLoginLink(ctx, "test", "root", true, 0)
		require.NoError(t, err)
		b.do(chromedp.Navigate(l.base+link[strings.Index(link, "/login/"):]), chromedp.WaitVisible(chromedp.CSS("form.capture")))
	}
	shoot := func(b *browser, suffix string) {
		t.Helper()
		for _, pg := range []struct{ name, path string }{{"overview", "/admin"}, {"tenants", "/admin/tenants"}, {"captures", "/admin/captures"},
			{"tenant", "/admin/tenants/alice"}, {"capture", "/admin/captures/" + alice.ID.String() + "/" + res.CaptureID.String()},
			{"settings", "/admin/settings"}, {"audit", "/admin/audit"}, {"backups", "/admin/backups"},
			{"notifications", "/admin/notifications"}} {
			b.do(chromedp.Navigate(l.base+pg.path), chromedp.WaitVisible(chromedp.CSS("nav.admin-menu")))
			b.screenshot("admin-" + pg.name + suffix)
		}
	}

	t.Run("en", func(t *testing.T) {
		b := newBrowser(t, "en", 1280, 900)
		signIn(b)
		shoot(b, "")
		b.do(chromedp.Navigate(l.base+"/admin"), chromedp.WaitVisible(chromedp.CSS("svg.chart")))
		require.Equal(t, 5.0, eval[float64](b, `document.querySelectorAll('.admin-charts svg.chart').length`))
		require.GreaterOrEqual(t, eval[float64](b, `document.querySelectorAll('svg.chart path.chart-line').length`), 5.0, "a line in each chart")
		require.Greater(t, eval[float64](b, `document.querySelector('svg.chart').getBoundingClientRect().height`), 100.0, "drawn at its size")
		b.do(chromedp.Navigate(l.base+"/admin/tenants"), chromedp.WaitVisible(chromedp.CSS("table.applications")))
		b.do(chromedp.Click(chromedp.CSS(`table.applications button[value=enabled]`)), chromedp.WaitVisible(chromedp.CSS(`.notice`)))
		require.Contains(t, b.text(), "Status changed.")
		require.Contains(t, b.text(), "No one is waiting for approval.")
		hook := httptest.NewServer(&webhookReceiver{})
		defer hook.Close()
		for k, v := range map[string]string{"notify_webhook_url": hook.URL, "notify_telegram_chat_id": "@monitor_ops"} {
			_, err := l.App().SetSetting(ctx, "test", k, v)
			require.NoError(t, err)
		}
		b.do(chromedp.Navigate(l.base+"/admin/notifications"), chromedp.WaitVisible(chromedp.CSS("section.notify-test")))
		b.do(chromedp.Click(chromedp.CSS(`section.notify-test button`)), chromedp.WaitVisible(chromedp.CSS(`ul.notify-results`)))
		require.Contains(t, b.text(), "sent Webhook")
		require.Contains(t, b.text(), "failed Telegram: no bot token")
		b.screenshot("admin-notifications-test")
		b.do(chromedp.Navigate(l.base+"/admin/river/jobs?state=completed"), chromedp.WaitVisible(chromedp.CSS(`#root a[href*="/admin/river/"]`)))
		b.screenshot("admin-jobs")
		tn, err := l.App().TenantShow(ctx, "carol")
		require.NoError(t, err)
		require.Equal(t, "enabled", tn.Status)
	})
	t.Run("zh", func(t *testing.T) {
		b := newBrowser(t, "zh-CN", 1280, 900)
		signIn(b)
		shoot(b, "-zh")
		require.Contains(t, b.text(), "运维控制台")
	})
	t.Run("dark-390", func(t *testing.T) {
		require.NoError(t, l.App().SetWebPreferences(ctx, root.ID, app.WebPreferences{Theme: "dark"}))
		b := newBrowser(t, "en", 390, 844)
		signIn(b)
		shoot(b, "-dark-390")
		require.Equal(t, "dark", b.attr("html", "data-theme"))
		width := eval[float64](b, `document.documentElement.scrollWidth`)
		require.LessOrEqual(t, width, 390.0, "nothing wider than the phone")
	})
}
