package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The watched profiles of these tests.
const (
	webWatchHandle = "webwatch_demo"
	webWatchID     = "4400000000000000177"
	webWatchOther  = "webwatch_other"
	webWatchOthID  = "4400000000000000178"
)

// watchIDFrom finds the id of the watch of source on the Watches page.
func watchIDFrom(t *testing.T, body, source string) string {
	t.Helper()
	i := strings.Index(body, `">`+source+`</a>`)
	require.GreaterOrEqual(t, i, 0, "the watch of %s is listed", source)
	j := strings.LastIndex(body[:i], `href="/watches/`)
	require.GreaterOrEqual(t, j, 0)
	return body[j+len(`href="/watches/`) : i]
}

func TestWatchesAddPauseResumeDelete(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	tl := l.fx.AddTimeline(webWatchHandle, webWatchID, 10, 20)
	other := l.fx.AddTimeline(webWatchOther, webWatchOthID, 5, 20)
	alice := l.visitor(t, "alice", false)
	bob := l.visitor(t, "bob", false)

	empty := alice.get("/watches")
	require.Equal(t, http.StatusOK, empty.Status)
	require.Contains(t, empty.Body, "You watch nothing yet.")
	require.Contains(t, empty.Body, "You have 0 of 3 watches.")
	require.Contains(t, empty.Body, `<option value="15" selected>every 15 minutes</option>`, "the default interval is chosen")
	require.NotContains(t, empty.Body, `<option value="1"`, "nothing under the 5-minute floor is offered")
	require.Contains(t, empty.Body, `href="/watches" aria-current="page"`, "the menu marks the page")

	// A write without the CSRF token is refused and makes nothing.
	refused := alice.do(http.MethodPost, "/watches", url.Values{"url": {tl.ProfileURL}})
	require.Equal(t, http.StatusForbidden, refused.Status)
	list, err := l.App().Watches(ctx, mustTenant(t, l, "alice"))
	require.NoError(t, err)
	require.Empty(t, list)

	// A post is refused with what to do instead, in both languages.
	post := alice.post("/watches", url.Values{"url": {photosPost}, "interval": {"15"}, "notify": {"deliver"}})
	require.Equal(t, http.StatusBadRequest, post.Status, post.Body)
	require.Contains(t, post.Body, "This link is a single post. Watch the profile or channel it belongs to instead")
	require.Contains(t, post.Body, `value="`+photosPost+`"`, "the form keeps the link")
	alice.lang = "zh-CN"
	post = alice.post("/watches", url.Values{"url": {photosPost}})
	require.Contains(t, post.Body, "这个链接是单条帖子。请改为关注它所属的主页或频道")
	bad := alice.post("/watches", url.Values{"url": {tl.ProfileURL}, "since": {"yesterday"}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "起始日期必须是 2026-12-01 这样的日期")
	tooOften := alice.post("/watches", url.Values{"url": {tl.ProfileURL}, "interval": {"1"}})
	require.Equal(t, http.StatusBadRequest, tooOften.Status)
	require.Contains(t, tooOften.Body, "不允许此频率：最快每 5 分钟")
	alice.lang = ""
	loud := alice.post("/watches", url.Values{"url": {tl.ProfileURL}, "notify": {"loud"}})
	require.Equal(t, http.StatusBadRequest, loud.Status)
	require.Contains(t, loud.Body, "Choose how to be told: each post, one message per run, or nothing.")
	blank := alice.post("/watches", url.Values{"url": {""}})
	require.Equal(t, http.StatusBadRequest, blank.Status)
	require.Contains(t, blank.Body, "Enter the link to an X profile or a Telegram channel.")
	words := alice.post("/watches", url.Values{"url": {"not a link"}})
	require.Equal(t, http.StatusBadRequest, words.Status)
	require.Contains(t, words.Body, "This link cannot be watched:")

	// Added: listed with its schedule and state.
	p := alice.post("/watches", url.Values{"url": {tl.ProfileURL}, "interval": {"60"}, "notify": {"digest"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/watches?done=created-active", p.Location)
	page := alice.get(p.Location)
	require.Contains(t, page.Body, "Watching. The source is read for the first time now.")
	require.Contains(t, page.Body, ">active</span> every hour · one message per run, in the bot")
	require.Contains(t, page.Body, "You have 1 of 3 watches.")
	require.Contains(t, page.Body, "Next run: <strong>")
	id := watchIDFrom(t, page.Body, "https://x.com/"+webWatchHandle)

	again := alice.post("/watches", url.Values{"url": {tl.ProfileURL}})
	require.Equal(t, http.StatusConflict, again.Status)
	require.Contains(t, again.Body, "You watch this source already")

	// Pause and resume, from the list and from the watch's page.
	p = alice.post("/watches/"+id+"/pause", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	page = alice.get(p.Location)
	require.Contains(t, page.Body, "Watch paused.")
	require.Contains(t, page.Body, "Why: paused by you")
	require.Contains(t, page.Body, `action="/watches/`+id+`/resume"`)
	require.NotContains(t, page.Body, "Next run:", "a paused watch has no next run")
	p = alice.post("/watches/"+id+"/pause", nil)
	require.Equal(t, http.StatusConflict, p.Status, "pausing twice says why")
	require.Contains(t, p.Body, "This watch changed in the meantime")
	p = alice.post("/watches/"+id+"/resume", url.Values{"back": {"watch"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/watches/"+id+"?done=resume", p.Location)
	one := alice.get(p.Location)
	require.Contains(t, one.Body, "Watch resumed; the source is read again now.")
	require.Contains(t, one.Body, ">active</span>")

	require.Contains(t, one.Body, `<option value="60" selected>every hour</option>`, "the change form shows the interval")
	p = alice.post("/watches/"+id+"/change", url.Values{"interval": {"30"}, "notify": {"none"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	one = alice.get(p.Location)
	require.Contains(t, one.Body, "Watch changed.")
	require.Contains(t, one.Body, "<dd>every 30 minutes</dd>")
	require.Contains(t, one.Body, "<dd>nothing (archive quietly)</dd>")
	p = alice.post("/watches/"+id+"/change", url.Values{"interval": {"2"}})
	require.Equal(t, http.StatusBadRequest, p.Status)
	require.Contains(t, p.Body, "This interval is not allowed: a watch may run at most every 5 minutes")

	// Another tenant sees none of it and cannot touch it.
	require.Equal(t, http.StatusNotFound, bob.get("/watches/"+id).Status)
	for _, action := range []string{"pause", "resume", "delete", "change"} {
		require.Equal(t, http.StatusNotFound, bob.post("/watches/"+id+"/"+action, nil).Status, action)
	}
	require.NotContains(t, bob.get("/watches").Body, webWatchHandle)
	require.Equal(t, http.StatusNotFound, alice.get("/watches/not-an-id").Status)
	require.Equal(t, http.StatusNotFound, alice.post("/watches/"+id+"/explode", nil).Status)

	// Limits are refused with their reasons.
	_, err = l.App().SetSetting(ctx, "test", "watch_per_user_limit", "1")
	require.NoError(t, err)
	limited := alice.post("/watches", url.Values{"url": {other.ProfileURL}})
	require.Equal(t, http.StatusForbidden, limited.Status)
	require.Contains(t, limited.Body, "Not watched: you have 1 watches, the most one account may have (1).")
	alice.lang = "zh-CN"
	limited = alice.post("/watches", url.Values{"url": {other.ProfileURL}})
	require.Contains(t, limited.Body, "未关注：你已有 1 个关注，已达到每个账户的上限（1 个）。")
	alice.lang = ""
	_, err = l.App().SetSetting(ctx, "test", "watch_max_sources", "1")
	require.NoError(t, err)
	full := bob.post("/watches", url.Values{"url": {other.ProfileURL}})
	require.Equal(t, http.StatusForbidden, full.Status)
	require.Contains(t, full.Body, "this instance already watches 1 profiles and channels, the most it allows")
	_, err = l.App().SetSetting(ctx, "test", "watch_apply_enabled", "false")
	require.NoError(t, err)
	off := bob.post("/watches", url.Values{"url": {other.ProfileURL}})
	require.Equal(t, http.StatusForbidden, off.Status)
	require.Contains(t, off.Body, "watching profiles and channels is turned off on this instance")

	// Deleted: gone from the list; the archive keeps what it saved.
	p = alice.post("/watches/"+id+"/delete", url.Values{"back": {"watch"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/watches?done=delete", p.Location)
	page = alice.get(p.Location)
	require.Contains(t, page.Body, "Watch deleted. What it archived stays in your library.")
	require.Contains(t, page.Body, "You watch nothing yet.")
	require.Equal(t, http.StatusNotFound, alice.get("/watches/"+id).Status)
}

func mustTenant(t *testing.T, l *adminLive, name string) uuid.UUID {
	t.Helper()
	tn, err := l.App().TenantByName(context.Background(), name)
	require.NoError(t, err)
	return tn.ID
}

func TestWatchPageShowsRuns(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		tl := c.FX.AddTimeline(webWatchHandle, webWatchID, 10, 20)
		s := newSite(t, c, "alice", nil)
		w, err := c.App.CreateWatch(ctx, app.WatchRequest{TenantID: s.tenant, URL: tl.ProfileURL})
		require.NoError(t, err)
		tick := func() {
			t.Helper()
			done := testcore.JobDone(t, c.Queue, queue.WatchSourceArgs{}.Kind())
			n, err := c.App.WatchTick(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, n)
			done()
		}

		one := s.get("/watches/" + w.ID.String())
		require.Equal(t, http.StatusOK, one.Status)
		require.Contains(t, one.Body, "No runs yet")
		tick()
		fresh := c.FX.GrowTimeline(webWatchHandle, 2)
		c.Clock.Advance(15 * time.Minute)
		tick()
		runs, err := c.App.WatchRuns(ctx, s.tenant, w.ID, 10)
		require.NoError(t, err)
		for _, post := range runs[0].Posts {
			c.WaitCapture(t, s.tenant, post.CaptureID)
		}

		one = s.get("/watches/" + w.ID.String())
		require.Equal(t, http.StatusOK, one.Status)
		require.Contains(t, one.Body, "nothing new", "the first run only learns what is there")
		for _, link := range fresh {
			require.Contains(t, one.Body, ">"+link+"</a>", "each new post is listed")
		}
		require.Contains(t, one.Body, `href="/c/`+runs[0].Posts[0].CollectionID.String()+`"`, "a post leads to its archived page")
		require.Contains(t, one.Body, "Bot: <strong>waiting to send</strong>")
		list := s.get("/watches")
		require.Contains(t, list.Body, "New posts: <strong>2</strong>")
		require.NotContains(t, list.Body, "Last run: <strong>not yet")

		// Another tenant's watch is not found.
		bob := newSite(t, c, "bob", nil)
		require.Equal(t, http.StatusNotFound, bob.get("/watches/"+w.ID.String()).Status)
	})
}

func TestAdminWatchesApprove(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	tl := l.fx.AddTimeline(webWatchHandle, webWatchID, 10, 20)
	other := l.fx.AddTimeline(webWatchOther, webWatchOthID, 5, 20)
	_, err := l.App().SetSetting(ctx, "test", "watch_require_approval", "true")
	require.NoError(t, err)
	alice := l.visitor(t, "alice", false)
	admin := l.visitor(t, "root", true)

	for _, path := range []string{"/admin/watches", "/admin/watches?state=pending"} {
		require.Equal(t, http.StatusNotFound, alice.get(path).Status, path)
	}
	require.Equal(t, http.StatusNotFound, alice.post("/admin/watches/00000000-0000-0000-0000-000000000001/approve", nil).Status)

	p := alice.post("/watches", url.Values{"url": {tl.ProfileURL}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	page := alice.get(p.Location)
	require.Contains(t, page.Body, "Asked. The watch starts once an administrator approves it.")
	require.Contains(t, page.Body, "waiting for approval")
	require.Contains(t, page.Body, "New watches wait for an administrator&#39;s approval")
	id := watchIDFrom(t, page.Body, "https://x.com/"+webWatchHandle)
	require.NotContains(t, page.Body, `/watches/`+id+`/pause"`, "a pending watch cannot be paused")
	require.Equal(t, http.StatusSeeOther, alice.post("/watches", url.Values{"url": {other.ProfileURL}}).Status)
	otherID := watchIDFrom(t, alice.get("/watches").Body, "https://x.com/"+webWatchOther)

	pending := admin.get("/admin/watches?state=pending")
	require.Equal(t, http.StatusOK, pending.Status)
	require.Contains(t, pending.Body, `href="/admin/watches" aria-current="page"`, "the console's menu marks Watches")
	require.Contains(t, pending.Body, `<a href="/admin/tenants/alice">alice</a>`)
	require.Contains(t, pending.Body, `action="/admin/watches/`+id+`/approve"`)
	require.Contains(t, pending.Body, `action="/admin/watches/`+otherID+`/reject"`)
	require.Equal(t, http.StatusForbidden, admin.do(http.MethodPost, "/admin/watches/"+id+"/approve", url.Values{}).Status,
		"an approval without the CSRF token is refused")

	p = admin.post("/admin/watches/"+id+"/approve", url.Values{"state": {"pending"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/admin/watches?state=pending&done=approve", p.Location)
	after := admin.get(p.Location)
	require.Contains(t, after.Body, "Watch approved; its source is read now.")
	require.NotContains(t, after.Body, `/admin/watches/`+id+`/approve"`, "no longer pending")
	p = admin.post("/admin/watches/"+otherID+"/reject", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	p = admin.post("/admin/watches/"+otherID+"/approve", nil)
	require.Equal(t, http.StatusConflict, p.Status, "a rejected watch cannot be approved")
	require.Contains(t, p.Body, "This watch changed in the meantime")

	mine := alice.get("/watches")
	require.Contains(t, mine.Body, ">active</span>")
	require.Contains(t, mine.Body, ">rejected</span>")
	require.Contains(t, mine.Body, "Why: rejected by an admin")

	p = admin.post("/admin/watches/"+id+"/pause", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Contains(t, alice.get("/watches/"+id).Body, "Why: paused by an admin")
	admin.lang = "zh-CN"
	zh := admin.get("/admin/watches")
	require.Contains(t, zh.Body, "已暂停")
	require.Contains(t, zh.Body, "恢复")
	audit := admin.get("/admin/audit?q=watch.approve")
	require.Contains(t, audit.Body, "web:root")
	require.Equal(t, http.StatusBadRequest, admin.get("/admin/watches?state=sleeping").Status)
}
