package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/tgchannel"
	"github.com/monitorhq/monitor/internal/web"
)

// TestAdminApprovalReachesTheApplicantThroughTheBot: a person applies by
// writing to the bot (a real channel process on the fake Bot API, against
// a real core); an operator clicks Approve on /admin/tenants in a
// browser, and the fake Bot API receives the approval in the person's
// private chat. A Chinese applicant rejected the same way is told in
// Chinese.
func TestAdminApprovalReachesTheApplicantThroughTheBot(t *testing.T) {
	t.Parallel()
	const secret = "web-approval-channel-secret"
	fx, tme := testkit.NewFxTwitter(t), testkit.NewTme(t)
	cfg := testcore.Config(t, map[string]string{"MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_TME_URL": tme.URL(),
		"MONITOR_CHANNEL_ADDR": "127.0.0.1:0", "MONITOR_CHANNEL_SECRET": secret})
	l := &adminLive{Running: testcore.Run(t, cfg), fx: fx, dataDir: cfg.DataDir}
	l.base = "http://" + l.Addr()
	ctx := context.Background()
	a := l.App()
	_, err := a.SetSetting(ctx, "test", "approval_mode", "approval")
	require.NoError(t, err)
	_, err = a.CreateTenant(ctx, "test", "root", nil)
	require.NoError(t, err)

	bot := testkit.NewBotAPI(t)
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- tgchannel.Run(runCtx, tgchannel.Config{Token: bot.Token(), APIURL: bot.URL(), HTTPClient: hc, Owner: "web-approval",
			Core: channelapi.NewClient("http://"+l.ChannelAddr(), secret, hc)})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("the channel did not stop")
		}
	})
	waitSent := func(chat int64, what string, match func(string) bool) string {
		t.Helper()
		var text string
		require.Eventually(t, func() bool {
			for _, c := range bot.ChatCalls(chat) {
				if c.Method == "sendMessage" && c.OK() && match(c.Text) {
					text = c.Text
					return true
				}
			}
			return false
		}, 60*time.Second, 20*time.Millisecond, "waiting for %s", what)
		return text
	}
	dana := testkit.BotUser{ID: 2001, FirstName: "Dana", Username: "dana", LanguageCode: "en"}
	lei := testkit.BotUser{ID: 2002, FirstName: "雷", Username: "lei", LanguageCode: "zh-hans"}
	bot.PushPrivateMessage(dana, "/start")
	waitSent(dana.ID, "dana's welcome", func(s string) bool { return strings.Contains(s, "awaits approval") })
	bot.PushPrivateMessage(lei, "/start")
	waitSent(lei.ID, "lei's welcome", func(s string) bool { return strings.Contains(s, "等待") })

	b := newBrowser(t, "en", 1280, 900)
	link, _, err := a.CreateLoginLink(ctx, "test", "root", true, 0)
	require.NoError(t, err)
	b.do(chromedp.Navigate(l.base+link[strings.Index(link, "/login/"):]), chromedp.WaitVisible(chromedp.CSS("form.capture")))
	b.do(chromedp.Navigate(l.base+"/admin/tenants"), chromedp.WaitVisible(chromedp.CSS("table.applications")))
	require.Contains(t, b.text(), "Applicants who came through the bot are told of your decision there")
	b.screenshot("admin-applications")
	b.do(chromedp.Click(chromedp.CSS(`table.applications form[action="/admin/tenants/tg2001/status"] button[value=enabled]`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)))
	require.Contains(t, b.text(), "Status changed.")
	got := waitSent(dana.ID, "dana's approval", func(s string) bool { return strings.HasPrefix(s, "✅") })
	require.Equal(t, "✅ Your account is approved: you can archive now. Send me a link to a post — an X post or profile, a public Telegram channel post.", got)

	b.do(chromedp.Click(chromedp.CSS(`table.applications form[action="/admin/tenants/tg2002/status"] button[value=disabled]`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)))
	got = waitSent(lei.ID, "lei's rejection", func(s string) bool { return strings.HasPrefix(s, "⛔") })
	require.True(t, strings.HasPrefix(got, "⛔ 这个 Monitor 的管理员没有批准你的账户"), got)
	require.Contains(t, b.text(), "No one is waiting for approval.")

	for _, name := range []string{"tg2001", "tg2002"} {
		tn, err := a.TenantShow(ctx, name)
		require.NoError(t, err)
		require.Equal(t, map[string]string{"tg2001": "enabled", "tg2002": "disabled"}[name], tn.Status)
	}
	entries, err := a.Audit(ctx, 50)
	require.NoError(t, err)
	var actions []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "tenant.") {
			actions = append(actions, e.Action+" "+e.Actor)
		}
	}
	require.Contains(t, actions, "tenant.approve web:root")
	require.Contains(t, actions, "tenant.reject web:root")
}

// TestAdminRestoreBrowser shows the restore pages in a browser: the
// confirmation, then Backups with the staged restore, in English and
// Chinese, light and dark, desktop and phone.
func TestAdminRestoreBrowser(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	root, err := l.App().CreateTenant(ctx, "test", "root", nil)
	require.NoError(t, err)
	s, err := l.App().SnapshotNow(ctx, "test")
	require.NoError(t, err)
	signIn := func(b *browser) {
		t.Helper()
		link, _, err := l.App().CreateLoginLink(ctx, "test", "root", true, 0)
		require.NoError(t, err)
		b.do(chromedp.Navigate(l.base+link[strings.Index(link, "/login/"):]), chromedp.WaitVisible(chromedp.CSS("form.capture")))
	}
	shoot := func(b *browser, suffix string) {
		t.Helper()
		b.do(chromedp.Navigate(l.base+"/admin/backups/"+s.Name+"/restore"), chromedp.WaitVisible(chromedp.CSS("nav.admin-menu")))
		b.screenshot("admin-restore" + suffix)
		b.do(chromedp.Navigate(l.base+"/admin/backups"), chromedp.WaitVisible(chromedp.CSS("nav.admin-menu")))
		b.screenshot("admin-backups-staged" + suffix)
	}

	b := newBrowser(t, "en", 1280, 900)
	signIn(b)
	b.do(chromedp.Navigate(l.base+"/admin/backups"), chromedp.WaitVisible(chromedp.CSS("table.snapshots a.restore")))
	b.do(chromedp.Click(chromedp.CSS("table.snapshots a.restore")), chromedp.WaitVisible(chromedp.CSS("div.restore-confirm")))
	require.Contains(t, b.text(), "restart needed")
	b.screenshot("admin-restore-confirm")
	b.do(chromedp.Click(chromedp.CSS("div.restore-confirm button[type=submit]")), chromedp.WaitVisible(chromedp.CSS("section.restore-pending")))
	require.Contains(t, b.text(), "Restore staged: restart Monitor to apply it.")
	require.Contains(t, b.text(), "A restore is staged: "+s.Name)
	shoot(b, "")

	zh := newBrowser(t, "zh-CN", 1280, 900)
	signIn(zh)
	shoot(zh, "-zh")
	require.Contains(t, zh.text(), "需要重启")

	require.NoError(t, l.App().SetWebPreferences(ctx, root.ID, app.WebPreferences{Theme: "dark"}))
	dark := newBrowser(t, "en", 390, 844)
	signIn(dark)
	shoot(dark, "-dark-390")
	require.LessOrEqual(t, eval[float64](dark, `document.documentElement.scrollWidth`), 390.0, "nothing wider than the phone")
}

// TestAdminOverviewS3Browser shows the overview of an instance whose media
// are in an S3 bucket: the object store's usage from the database. (The
// test handler has no theme preference; TestAdminBrowser shows dark.)
func TestAdminOverviewS3Browser(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{})
	tenant := c.Tenant(t, "root", nil)
	c.Capture(t, tenant, photosPost)
	h, err := web.HandlerAs(web.Deps{App: c.App, Bucket: "s3://monitor-media"}, tenant, &web.Session{TenantName: "root", Admin: true, CSRF: "x"})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, v := range []struct {
		lang, suffix string
		w, h         int
	}{{"en", "", 1280, 900}, {"zh-CN", "-zh", 1280, 900}, {"en", "-390", 390, 844}} {
		b := newBrowser(t, v.lang, v.w, v.h)
		b.do(chromedp.Navigate(srv.URL+"/admin"), chromedp.WaitVisible(chromedp.CSS(".media-usage")))
		require.Contains(t, b.text(), "s3://monitor-media")
		b.screenshot("admin-overview-s3" + v.suffix)
	}
}
