package tgchannel_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // database/sql driver "sqlite", to read the core's work

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
)

// /watch, /watches and /unwatch in English: a watch made with an
// interval, the list with its state and ✖ button, refusals worded for
// people, and the watch removed by its button and then by number.
func TestWatchCommands(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tl := w.fx.AddTimeline("tidewatch", "4242", 30, 20)
	w.start()
	n := 0
	say := func(text, what string) string {
		t.Helper()
		w.bot.PushPrivateMessage(alice, text)
		m := w.nthMessage(alice.ID, n, what)
		n++
		return m.Text
	}

	require.Contains(t, say("/watches", "the empty list"), "You watch nothing yet. Send /watch and the link")
	require.Contains(t, say("/watch "+tl.ProfileURL+" soon", "the bad interval"),
		`"soon" is not an interval: write it like 30m, 2h or 1d`)
	require.Contains(t, say("/watch "+photosPost, "the single post"), "is a single post; watch the profile or channel")
	require.Contains(t, say("/watch", "the usage"), "Usage: /watch URL [INTERVAL]")

	made := say("/watch "+tl.ProfileURL+" 30m", "the watch made")
	require.True(t, strings.HasPrefix(made, "👀 Watching "), made)
	require.Contains(t, made, "every 30 min")
	require.Contains(t, say("/watch "+tl.ProfileURL, "the second watch of one source"), "⚠️")

	w.bot.PushPrivateMessage(alice, "/watches")
	list := w.nthMessage(alice.ID, n, "the list")
	n++
	require.True(t, strings.HasPrefix(list.Text, "👀 Your watches (1):\n\n1. "), list.Text)
	require.Contains(t, list.Text, "▶️ active · every 30 min · each new post sent here")
	require.Contains(t, list.Text, "New posts archived: ")
	require.Contains(t, list.Text, "Press ✖ Stop N or send /unwatch N")
	stop, ok := list.Button("✖ Stop 1")
	require.True(t, ok, "a stop button: %v", list.Buttons)
	require.LessOrEqual(t, len(stop.CallbackData), 64)

	require.Contains(t, say("/unwatch 2", "no second watch"), "there is no watch number 2; /watches lists 1")
	require.Contains(t, say("/unwatch two", "not a number"), `"two" is not a watch number`)

	_, cb := w.bot.PushCallback(alice.ID, alice, list.Result[0], stop.CallbackData)
	w.answerTo(cb)
	done := w.nthMessage(alice.ID, n, "the watch removed")
	n++
	require.True(t, strings.HasPrefix(done.Text, "✅ Stopped watching "), done.Text)
	require.Contains(t, done.Text, "What it archived stays in your library.")

	_, cb = w.bot.PushCallback(alice.ID, alice, list.Result[0], stop.CallbackData)
	require.Contains(t, w.answerTo(cb).Text, "this watch is gone already")
	require.Contains(t, say("/unwatch 1", "nothing to remove"), "you watch nothing; start with /watch and a link")
}

// The same in Chinese, for a person whose client speaks it.
func TestWatchCommandsInChinese(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tl := w.fx.AddTimeline("tidewatch", "4242", 30, 20)
	w.start()
	n := 0
	say := func(text, what string) testkit.BotCall {
		t.Helper()
		w.bot.PushPrivateMessage(ming, text)
		m := w.nthMessage(ming.ID, n, what)
		n++
		return m
	}
	require.Contains(t, say("/watches", "the empty list").Text, "你还没有关注任何内容")
	require.Contains(t, say("/watch "+tl.ProfileURL+" 很快", "the bad interval").Text, "不是有效的间隔")
	made := say("/watch "+tl.ProfileURL+" 2h", "the watch made").Text
	require.True(t, strings.HasPrefix(made, "👀 已关注 "), made)
	require.Contains(t, made, "每 2 小时自动存档新帖子")
	list := say("/unwatch", "the list to pick from")
	require.True(t, strings.HasPrefix(list.Text, "👀 你的关注（1 个）："), list.Text)
	require.Contains(t, list.Text, "▶️ 进行中 · 每 2 小时 · 每条新帖子都发到这里")
	_, ok := list.Button("✖ 停止 1")
	require.True(t, ok, "%v", list.Buttons)
	require.Contains(t, say("/unwatch 1", "the watch removed").Text, "✅ 已停止关注")
	require.Contains(t, say("/unwatch 1", "nothing left").Text, "⚠️")
}

// settle waits until the bot holds no work item. Moving the clock on
// expires every lease still held, so an item being sent would be claimed,
// and sent, again.
func (w *world) settle() {
	w.t.Helper()
	w.untilDB("the bot's work done", func(db *sql.DB) bool {
		var n int
		require.NoError(w.t, db.QueryRow(`SELECT count(*) FROM channel_work WHERE state = 'leased'`).Scan(&n))
		return n == 0
	})
}

// untilDB waits until cond holds of the core's database, read apart from
// the core.
func (w *world) untilDB(what string, cond func(db *sql.DB) bool) {
	w.t.Helper()
	db, err := sql.Open("sqlite", "file:"+w.dbPath+"?mode=ro&_pragma=busy_timeout(5000)")
	require.NoError(w.t, err)
	defer db.Close()
	require.Eventually(w.t, func() bool { return cond(db) }, 60*time.Second, 20*time.Millisecond, what)
}

// runWatches moves the clock by d, once the bot is idle, and runs the
// watch tick, then waits until every watch has run since.
func (w *world) runWatches(d time.Duration) {
	w.t.Helper()
	ctx := context.Background()
	a := w.core.App()
	w.settle()
	w.core.Clock.Advance(d)
	before := w.core.Clock.Now()
	_, err := a.WatchTick(ctx)
	require.NoError(w.t, err)
	require.Eventually(w.t, func() bool {
		ws, err := a.AdminWatches(ctx, "", 100)
		require.NoError(w.t, err)
		for _, v := range ws {
			if v.LastRunAt == nil || v.LastRunAt.Before(before) {
				return false
			}
		}
		return len(ws) > 0
	}, 60*time.Second, 20*time.Millisecond, "the watch runs")
	// The sources' runs have ended too (their leases are free): moving
	// the clock on before then would expire a run's lease and let the
	// next tick start a second run that does not see this one's failure
	// count.
	w.untilDB("the source runs end", func(db *sql.DB) bool {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM watch_sources WHERE lease_owner IS NOT NULL`).Scan(&n)
		return err == nil && n == 0
	})
}

// A watch made in the bot brings what the profile posts next to the
// watcher's chat: in deliver mode each post like a capture's result, in
// digest mode one message per run listing the new posts.
func TestWatchedPostsReachTheChat(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tl := w.fx.AddTimeline("tidewatch", "4242", 30, 20)
	w.start()
	w.bot.PushPrivateMessage(alice, "/watch "+tl.ProfileURL)
	made := w.nthMessage(alice.ID, 0, "the watch made")
	require.True(t, strings.HasPrefix(made.Text, "👀 Watching "), made.Text)
	w.runWatches(0) // the first run only notes where the profile stands

	// deliver (the default): two new posts, two results.
	posts := w.fx.GrowTimeline("tidewatch", 2)
	w.runWatches(16 * time.Minute)
	var results []testkit.BotCall
	require.Eventually(t, func() bool {
		results = nil
		for _, c := range w.bot.Calls() {
			if c.ChatID == alice.ID && c.OK() && c.Method != "editMessageText" && strings.Contains(c.Text, "🆔 ") {
				results = append(results, c)
			}
		}
		return len(results) == 2
	}, 60*time.Second, 20*time.Millisecond, "the two posts delivered")
	ws, err := w.core.App().AdminWatches(context.Background(), "", 10)
	require.NoError(t, err)
	require.Len(t, ws, 1)
	require.Equal(t, 2, ws[0].NewPosts)

	// digest: three more posts, one message listing them oldest first.
	notify := app.NotifyDigest
	_, err = w.core.App().PatchWatch(context.Background(), *ws[0].TenantID, ws[0].ID, app.WatchPatch{Notify: &notify})
	require.NoError(t, err)
	more := w.fx.GrowTimeline("tidewatch", 3)
	w.runWatches(16 * time.Minute)
	digest := w.waitCall("the digest", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && strings.HasPrefix(c.Text, "👀 3 new posts archived from ")
	})
	for i, u := range []string{more[2], more[1], more[0]} {
		require.Contains(t, digest.Text, fmt.Sprintf("\n%d. %s", i+1, u))
	}
	require.NotContains(t, digest.Text, posts[0], "earlier posts are not listed again")

	// Nothing new: nothing sent.
	sent := len(w.calls(alice.ID, "sendMessage"))
	w.runWatches(16 * time.Minute)
	time.Sleep(300 * time.Millisecond)
	require.Len(t, w.calls(alice.ID, "sendMessage"), sent)
	runs, err := w.core.App().PendingWatchRuns(context.Background(), *ws[0].TenantID, 10)
	require.NoError(t, err)
	require.Empty(t, runs, "every run handed to the bot")
}

// A watched profile that disappears: after five failed runs the watch
// pauses itself and the watcher is told why, once.
func TestAWatchThatPausesItselfSaysWhy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tl := w.fx.AddTimeline("tidewatch", "4242", 30, 20)
	w.start()
	w.bot.PushPrivateMessage(alice, "/watch "+tl.ProfileURL)
	w.nthMessage(alice.ID, 0, "the watch made")
	w.runWatches(0)
	w.fx.RemoveTimeline("tidewatch", "4242")
	for range app.WatchFailuresToPause {
		w.runWatches(7 * time.Hour)
	}
	paused := w.waitCall("the pause message", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && strings.HasPrefix(c.Text, "⏸ Stopped watching ")
	})
	require.Contains(t, paused.Text, "paused by itself after 5 failed runs in a row")
	require.Contains(t, paused.Text, "Resume it in the web library")
	w.bot.PushPrivateMessage(alice, "/watches")
	list := w.waitCall("the list", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && strings.HasPrefix(c.Text, "👀 Your watches (1):")
	})
	require.Contains(t, list.Text, "⏸ paused: paused by itself")
	pauses := 0
	for _, c := range w.calls(alice.ID, "sendMessage") {
		if strings.HasPrefix(c.Text, "⏸ Stopped watching ") {
			pauses++
		}
	}
	require.Equal(t, 1, pauses)
}
