package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// bindThroughBot binds two channels for Telegram user 7 the way the bot
// does (an update, its work item, ChannelBind) and unbinds the second one;
// it answers the tenant's name.
func bindThroughBot(t *testing.T, a *app.App) string {
	t.Helper()
	ctx := context.Background()
	h, err := a.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
	require.NoError(t, err)
	_, err = a.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: h.ChannelID, Owner: "poller"})
	require.NoError(t, err)
	_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: h.ChannelID, Owner: "poller", NextOffset: 2,
		Updates: []app.ChannelUpdate{{UpdateID: 1, Kind: app.ChannelUpdateMessage, From: app.ChannelUser{ID: 7, Username: "alice"},
			ChatID: 7, ChatType: "private", MessageID: 1, Text: "/bind @harbour_notes"}}})
	require.NoError(t, err)
	work, err := a.ChannelClaim(ctx, app.ChannelClaimRequest{ChannelID: h.ChannelID, Owner: "bot", Max: 5})
	require.NoError(t, err)
	require.Len(t, work, 1)
	tenant := work[0].Tenant.Name
	two := 2
	_, err = a.UpdateTenant(ctx, "test", tenant, app.TenantChange{ChannelLimit: &two, Status: ptr("enabled")})
	require.NoError(t, err)
	_, err = a.ChannelBind(ctx, work[0].ID, app.ChannelBindRequest{Owner: "bot", ChatID: -1001234567890, ChatType: "channel",
		Username: "harbour_notes", Title: "Harbour notes"})
	require.NoError(t, err)
	_, err = a.ChannelBind(ctx, work[0].ID, app.ChannelBindRequest{Owner: "bot", ChatID: -1009876543210, ChatType: "supergroup",
		Title: "Night shift"})
	require.NoError(t, err)
	_, err = a.ChannelUnbind(ctx, work[0].ID, "bot", "2")
	require.NoError(t, err)
	return tenant
}

func ptr[T any](v T) *T { return &v }

// The Channels page lists the bound channels, those unbound with why, and
// the cloud drives the operator gave the person; the admin console's
// tenant page shows the same and sets the channel limit.
func TestChannelsPages(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	tenant := bindThroughBot(t, l.App())
	_, err := l.App().AddDestination(ctx, "test", "drive", "local:"+t.TempDir(), []byte("[local]\ntype = local\n"))
	require.NoError(t, err)
	require.NoError(t, l.App().AllowDestination(ctx, "test", "drive", tenant, true))

	alice := l.visitor(t, tenant, false)
	p := alice.get("/channels")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, `<a href="/channels" aria-current="page">Channels</a>`)
	require.Contains(t, p.Body, "<strong>Harbour notes</strong> <span class=\"muted\">@harbour_notes · channel</span>")
	require.Contains(t, p.Body, "<code>-1001234567890</code>")
	require.Contains(t, p.Body, "<strong>Night shift</strong>")
	require.Contains(t, p.Body, "unbound by you")
	require.Contains(t, p.Body, `<strong>drive</strong> <span class="badge">default</span>`)
	require.NotContains(t, p.Body, "local:", "a tenant never sees the remote")
	alice.lang = "zh-CN"
	require.Contains(t, alice.get("/channels").Body, "已绑定的频道")

	root := l.visitor(t, "root", true)
	p = root.get("/admin/tenants/" + url.PathEscape(tenant))
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Harbour notes")
	require.Contains(t, p.Body, "unbound by you")
	require.Contains(t, p.Body, `name="channels" inputmode="numeric" value="2"`)
	require.Contains(t, p.Body, "drive <code>local:")
	p = root.post("/admin/tenants/"+url.PathEscape(tenant)+"/limits", url.Values{"interval": {"0"}, "daily": {"0"}, "concurrent": {"0"},
		"quota": {""}, "channels": {"3"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	tv, err := l.App().TenantShow(ctx, tenant)
	require.NoError(t, err)
	require.Equal(t, 3, tv.ChannelLimit)
}

// TestChannelsBrowser shows the Channels page and the admin tenant page's
// bindings in a browser, dark, on a phone: nothing wider than the screen.
func TestChannelsBrowser(t *testing.T) {
	t.Parallel()
	findChromium(t)
	l := newAdminLive(t)
	ctx := context.Background()
	tenant := bindThroughBot(t, l.App())
	_, err := l.App().AddDestination(ctx, "test", "drive", "local:"+t.TempDir(), []byte("[local]\ntype = local\n"))
	require.NoError(t, err)
	require.NoError(t, l.App().AllowDestination(ctx, "test", "drive", tenant, true))
	_, err = l.App().CreateTenant(ctx, "test", "root", nil)
	require.NoError(t, err)
	for _, name := range []string{tenant, "root"} {
		tv, err := l.App().TenantByName(ctx, name)
		require.NoError(t, err)
		require.NoError(t, l.App().SetWebPreferences(ctx, tv.ID, app.WebPreferences{Theme: "dark"}))
	}
	for _, v := range []struct {
		tenant, path, wait, shot string
		admin                    bool
	}{
		{tenant, "/channels", "ul.bindings", "channels-dark-390", false},
		{"root", "/admin/tenants/" + url.PathEscape(tenant), "table.bindings", "admin-tenant-bindings-dark-390", true},
	} {
		b := newBrowser(t, "en", 390, 844)
		link, _, err := l.App().CreateLoginLink(ctx, "test", v.tenant, v.admin, 0)
		require.NoError(t, err)
		b.do(chromedp.Navigate(l.base+link[strings.Index(link, "/login/"):]), chromedp.WaitVisible(chromedp.CSS("form.capture")))
		b.do(chromedp.Navigate(l.base+v.path), chromedp.WaitVisible(chromedp.CSS(v.wait)))
		require.Contains(t, b.text(), "Harbour notes")
		b.screenshot(v.shot)
		require.LessOrEqual(t, eval[float64](b, `document.documentElement.scrollWidth`), 390.0, "nothing wider than the phone")
	}
}

// The item page's "Upload to cloud drive" pushes the post to one of the
// tenant's drives (the default first in the list) and says so; with no
// drive there is no button.
func TestItemPushButton(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed; pushes need it")
	}
	core := testcore.New(t, testcore.Options{MasterKey: "web-push-test-master-key-0123456789"})
	s := newSite(t, core, "alice", nil)
	s.capture(photosPost)
	page, err := core.App.Collections(context.Background(), s.tenant, 10, "")
	require.NoError(t, err)
	id := page.Items[0].ID.String()
	require.NotContains(t, s.get("/c/"+id).Body, `action="/c/`+id+`/push"`)

	ctx := context.Background()
	root := t.TempDir()
	for _, name := range []string{"drive", "nas"} {
		_, err := core.App.AddDestination(ctx, "test", name, "local:"+filepath.Join(root, name), []byte("[local]\ntype = local\n"))
		require.NoError(t, err)
		require.NoError(t, core.App.AllowDestination(ctx, "test", name, "alice", name == "nas"))
	}
	body := s.get("/c/" + id).Body
	require.Contains(t, body, `<form method="post" action="/c/`+id+`/push" class="push">`)
	require.Contains(t, body, `<option value="nas" selected>nas</option>`)
	p := s.post("/c/"+id+"/push", url.Values{"destination": {"drive"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/c/"+id+"?pushed=drive", p.Location)
	require.Contains(t, s.get(p.Location).Body, "Uploading to drive")
	require.Eventually(t, func() bool {
		mds, _ := filepath.Glob(filepath.Join(root, "drive", "x", "*", "*.md"))
		return len(mds) == 1
	}, 60*time.Second, 50*time.Millisecond)
}
