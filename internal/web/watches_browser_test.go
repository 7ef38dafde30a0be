package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// TestWatchesBrowser opens the Watches pages and the console's Watches
// page in a browser: English and Chinese, light and dark, desktop and
// phone; it adds a watch through the form and approves one with a click.
func TestWatchesBrowser(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	first := l.fx.AddTimeline(webWatchHandle, webWatchID, 10, 20)
	second := l.fx.AddTimeline(webWatchOther, webWatchOthID, 5, 20)
	third := l.fx.AddTimeline("webwatch_third", "4400000000000000179", 5, 20)
	root, err := l.App().CreateTenant(ctx, "test", "root", nil)
	require.NoError(t, err)
	alice, err := l.App().CreateTenant(ctx, "test", "alice", nil)
	require.NoError(t, err)
	active, err := l.App().CreateWatch(ctx, app.WatchRequest{TenantID: root.ID, URL: first.ProfileURL, Since: "2026-11-01"})
	require.NoError(t, err)
	paused, err := l.App().CreateWatch(ctx, app.WatchRequest{TenantID: root.ID, URL: second.ProfileURL, IntervalSeconds: 3600, Notify: app.NotifyNone})
	require.NoError(t, err)
	_, err = l.App().PauseWatch(ctx, root.ID, paused.ID)
	require.NoError(t, err)
	_, err = l.App().SetSetting(ctx, "test", "watch_require_approval", "true")
	require.NoError(t, err)
	_, err = l.App().CreateWatch(ctx, app.WatchRequest{TenantID: alice.ID, URL: first.ProfileURL, Notify: app.NotifyDigest})
	require.NoError(t, err)
	_, err = l.App().SetSetting(ctx, "test", "watch_require_approval", "false")
	require.NoError(t, err)

	signIn := func(b *browser) {
		t.Helper()
		link, _, err := l.App().CreateLoginLink(ctx, "test", "root", true, 0)
		require.NoError(t, err)
		b.do(chromedp.Navigate(l.base+link[strings.Index(link, "/login/"):]), chromedp.WaitVisible(chromedp.CSS("form.capture")))
	}
	shoot := func(b *browser, suffix string) {
		t.Helper()
		b.do(chromedp.Navigate(l.base+"/watches"), chromedp.WaitVisible(chromedp.CSS("form.watch-form")))
		b.screenshot("watches" + suffix)
		b.do(chromedp.Navigate(l.base+"/watches/"+active.ID.String()), chromedp.WaitVisible(chromedp.CSS(".card.watch")))
		b.screenshot("watch" + suffix)
		b.do(chromedp.Navigate(l.base+"/admin/watches"), chromedp.WaitVisible(chromedp.CSS("nav.admin-menu")))
		b.screenshot("admin-watches" + suffix)
	}

	t.Run("en", func(t *testing.T) {
		b := newBrowser(t, "en", 1280, 900)
		signIn(b)
		shoot(b, "")
		b.do(chromedp.Navigate(l.base+"/watches"), chromedp.WaitVisible(chromedp.CSS("form.watch-form")))
		b.do(chromedp.SendKeys(chromedp.CSS("#watch-url"), third.ProfileURL),
			chromedp.SetValue(chromedp.CSS("#watch-interval"), "30"),
			chromedp.Click(chromedp.CSS(`form.watch-form button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`.notice`)))
		require.Contains(t, b.text(), "Watching. The source is read for the first time now.")
		require.Contains(t, b.text(), "every 30 minutes")
		b.do(chromedp.Navigate(l.base+"/admin/watches?state=pending"), chromedp.WaitVisible(chromedp.CSS("ol.watches")))
		b.do(chromedp.Click(chromedp.CSS(`ol.watches form[action$="/approve"] button`)), chromedp.WaitVisible(chromedp.CSS(`.notice`)))
		require.Contains(t, b.text(), "Watch approved; its source is read now.")
		got, err := l.App().AdminWatches(ctx, "pending", 10)
		require.NoError(t, err)
		require.Empty(t, got)
	})
	t.Run("zh", func(t *testing.T) {
		b := newBrowser(t, "zh-CN", 1280, 900)
		signIn(b)
		shoot(b, "-zh")
		require.Contains(t, b.text(), "运维控制台")
		b.do(chromedp.Navigate(l.base+"/watches"), chromedp.WaitVisible(chromedp.CSS("form.watch-form")))
		require.Contains(t, b.text(), "关注的主页和频道")
		require.Contains(t, b.text(), "原因：你暂停了它")
	})
	t.Run("dark-390", func(t *testing.T) {
		require.NoError(t, l.App().SetWebPreferences(ctx, root.ID, app.WebPreferences{Theme: "dark"}))
		b := newBrowser(t, "en", 390, 844)
		signIn(b)
		for _, path := range []string{"/watches", "/watches/" + active.ID.String(), "/admin/watches"} {
			b.do(chromedp.Navigate(l.base+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
			width := eval[float64](b, `document.documentElement.scrollWidth`)
			if width > 390 {
				t.Log(eval[string](b, `[...document.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > 391).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join('\n')`))
			}
			require.LessOrEqual(t, width, 390.0, "nothing wider than the phone on %s", path)
		}
		shoot(b, "-dark-390")
		require.Equal(t, "dark", b.attr("html", "data-theme"))
	})
}
