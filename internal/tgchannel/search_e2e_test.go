package tgchannel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
)

// saveDirectly archives n invented text posts for the person's tenant
// without the bot (as the REST API would) and waits until they are in the
// archive: the bot's own capture path is tested elsewhere, and n messages
// through it would take n seconds of Telegram's pacing. The person's
// account must allow that many submits at once (see noSubmitInterval).
func (w *world) saveDirectly(person testkit.BotUser, n int) {
	w.t.Helper()
	ctx := context.Background()
	a := w.core.App()
	tenant, err := a.TenantByName(ctx, fmt.Sprintf("tg%d", person.ID))
	require.NoError(w.t, err)
	for i := range n {
		url := w.fx.AddPost(testkit.SyntheticPost{ID: fmt.Sprintf("%d%04d", person.ID, i), NoAvatar: true})
		r, err := a.Submit(ctx, app.SubmitRequest{TenantID: tenant.ID, URL: url})
		require.NoError(w.t, err)
		w.core.WaitEnded(w.t, r.CaptureID) // one at a time: an account runs at most two
	}
}

// noSubmitInterval lets accounts made from now on submit links without a
// pause between them.
func (w *world) noSubmitInterval() {
	w.t.Helper()
	_, err := w.core.App().SetSetting(context.Background(), "test", "self_service_submit_interval_seconds", "0")
	require.NoError(w.t, err)
}

// searchAnswer waits for the bot's answer to a /search in chat: a new
// message whose text starts with prefix.
func (w *world) searchAnswer(chat int64, prefix string) testkit.BotCall {
	w.t.Helper()
	return w.waitCall("the answer "+prefix, func(c testkit.BotCall) bool {
		return c.ChatID == chat && c.Method == "sendMessage" && c.OK() && strings.HasPrefix(c.Text, prefix)
	})
}

// entityTexts are the parts of a sent text the entities of a type cover.
func entityTexts(c testkit.BotCall, typ string) []string {
	var out []string
	for _, e := range c.Entities {
		if e.Type == typ {
			out = append(out, utf16Part(c.Text, e.Offset, e.Length))
		}
	}
	return out
}

// Alice finds what she saved, highlighted, pages through her results
// with ‹ › (the message turns in place, even after the bot restarted),
// is told clearly when a query cannot be read or finds nothing, and never
// sees Bob's posts; ming gets all of it in Chinese.
func TestSearchFindsPagesAndExplains(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.noSubmitInterval()
	stop := w.start()

	// Alice archives a post through the bot; Bob saves his own.
	w.bot.PushPrivateMessage(alice, photosPost)
	w.result(alice.ID)
	w.bot.PushPrivateMessage(bob, "/start")
	w.nthMessage(bob.ID, 0, "Bob's welcome")
	w.saveDirectly(bob, 1)

	w.bot.PushPrivateMessage(alice, "/search harbour fog")
	found := w.searchAnswer(alice.ID, "🔎 Search: ")
	require.True(t, strings.HasPrefix(found.Text, "🔎 Search: harbour fog — page 1\n\n1. Archivist Demo：Two frames"), found.Text)
	require.Contains(t, found.Text, "fog over the harbour & the old crane", "the snippet, as plain text (no markup to escape)")
	require.Equal(t, []string{"harbour fog"}, entityTexts(found, "code"))
	require.Equal(t, []string{"fog"}, entityTexts(found, "bold"), "the match core marked, in bold")
	_, ok := found.Button("👁 View 1")
	require.True(t, ok, "%v", found.Buttons)
	orig, ok := found.Button("🔗 Original 1")
	require.True(t, ok)
	require.Equal(t, photosPost, orig.URL)
	_, ok = found.Button("Next")
	require.False(t, ok, "one page only")

	// Bob's post is his alone.
	w.bot.PushPrivateMessage(alice, "/search synthetic")
	none := w.searchAnswer(alice.ID, "🔎 Search: synthetic")
	require.Contains(t, none.Text, "Nothing you saved matches.")
	w.bot.PushPrivateMessage(bob, "/search synthetic")
	bobs := w.searchAnswer(bob.ID, "🔎 Search: synthetic")
	require.Contains(t, bobs.Text, "1. ")
	require.NotContains(t, bobs.Text, "Two frames")

	// Twelve results: page 1 of 10, on to page 2, back to page 1.
	w.saveDirectly(alice, 12)
	w.bot.PushPrivateMessage(alice, "/search synthetic post")
	p1 := w.searchAnswer(alice.ID, "🔎 Search: synthetic post — page 1")
	require.Contains(t, p1.Text, "\n10. ")
	require.NotContains(t, p1.Text, "\n11. ")
	require.NotContains(t, p1.Text, "Two frames")
	next, ok := p1.Button("Next ›")
	require.True(t, ok, "%v", p1.Buttons)
	require.True(t, strings.HasPrefix(next.CallbackData, "f:2:"), "the next page, after this page's last result: %s", next.CallbackData)
	_, ok = p1.Button("Previous")
	require.False(t, ok)

	msgID := p1.Result[0]
	turned := func(page int, data string) testkit.BotCall {
		t.Helper()
		_, cb := w.bot.PushCallback(alice.ID, alice, msgID, data)
		ans := w.waitCall("the press answered", func(c testkit.BotCall) bool {
			return c.Method == "answerCallbackQuery" && c.CallbackQueryID == cb
		})
		require.True(t, ans.OK())
		require.False(t, ans.ShowAlert, ans.Text)
		var edit testkit.BotCall
		for _, c := range w.calls(alice.ID, "editMessageText") {
			if c.MessageID == msgID && strings.Contains(c.Text, fmt.Sprintf("— page %d\n", page)) {
				edit = c
			}
		}
		require.NotEmpty(t, edit.Text, "page %d edited in place", page)
		return edit
	}
	p2 := turned(2, next.CallbackData)
	require.Contains(t, p2.Text, "\n11. ")
	require.Contains(t, p2.Text, "\n12. ")
	require.NotContains(t, p2.Text, "\n10. ")
	prev, ok := p2.Button("‹ Previous")
	require.True(t, ok, "%v", p2.Buttons)
	require.Equal(t, "f:1", prev.CallbackData)
	_, ok = p2.Button("Next")
	require.False(t, ok)

	// The bot restarts; the old message's button still works: the query
	// is in the message, nothing was kept in the bot.
	stop()
	w.start()
	back := turned(1, prev.CallbackData)
	require.Contains(t, back.Text, "\n1. ")
	require.Contains(t, back.Text, "\n10. ")
	require.Len(t, w.calls(alice.ID, "sendMessage"), 5, "pages turn in place, no new messages")

	// Bob may not turn Alice's pages (a group, where he can see them).
	w.bot.PushGroupMessage(group, alice, "/search@monitor_test_bot synthetic")
	g := w.searchAnswer(group, "🔎 Search: synthetic")
	gnext, ok := g.Button("Next ›")
	require.True(t, ok)
	_, cb := w.bot.PushCallback(group, bob, g.Result[0], gnext.CallbackData)
	denied := w.waitCall("Bob refused", func(c testkit.BotCall) bool { return c.Method == "answerCallbackQuery" && c.CallbackQueryID == cb })
	require.True(t, denied.ShowAlert)

	// A query that cannot be read, and /search alone.
	w.bot.PushPrivateMessage(alice, `/search tide "moon`)
	bad := w.searchAnswer(alice.ID, "⚠️ I could not read that query.")
	require.Contains(t, bad.Text, "At character 11: the phrase opened at character 6 is not closed (expected a closing quote).")
	require.Equal(t, []string{"tide \"moon\n          ^"}, entityTexts(bad, "pre"), "the caret where the quote is missing")
	w.bot.PushPrivateMessage(alice, "/search")
	usage := w.searchAnswer(alice.ID, "🔎 Usage: /search QUERY")
	require.Contains(t, usage.Text, `/search "high tide"`)

	// Once Alice deleted the post, her old results say so, without the
	// buttons of what is gone.
	view, ok := found.Button("👁 View 1")
	require.True(t, ok)
	id := strings.TrimPrefix(view.CallbackData, "v:")
	w.bot.PushPrivateMessage(alice, "/delete "+id)
	w.searchAnswer(alice.ID, "🗑 Removed "+id)
	_, cb = w.bot.PushCallback(alice.ID, alice, found.Result[0], "f:1")
	gone := w.waitCall("the emptied page", func(c testkit.BotCall) bool {
		return c.Method == "editMessageText" && c.MessageID == found.Result[0] && c.OK()
	})
	require.Equal(t, "🔎 Search: harbour fog — page 1\n\nNothing you saved matches. Try fewer or shorter words, or send /search alone to see how to write a query.", gone.Text)
	require.Empty(t, gone.Buttons, "the old page's buttons are taken away")

	// ming, whose Telegram speaks Chinese.
	w.bot.PushPrivateMessage(ming, "/search")
	zusage := w.searchAnswer(ming.ID, "🔎 用法：/search 查询")
	require.Contains(t, zusage.Text, "完整的短语")
	w.bot.PushPrivateMessage(ming, "/search 潮汐")
	znone := w.searchAnswer(ming.ID, "🔎 搜索：潮汐 — 第 1 页")
	require.Contains(t, znone.Text, "你的收藏中没有匹配的帖子。")
	w.bot.PushPrivateMessage(ming, "/search after:2026-13-01")
	zbad := w.searchAnswer(ming.ID, "⚠️ 无法理解这个查询。")
	require.Contains(t, zbad.Text, "第 7 个字符处", zbad.Text)
	require.Len(t, entityTexts(zbad, "pre"), 1)
	require.NotContains(t, zbad.Text, "expected", "core's explanation in Chinese too")
}
