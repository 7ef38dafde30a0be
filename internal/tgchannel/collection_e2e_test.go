package tgchannel_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/runtime"
	"github.com/monitorhq/monitor/internal/testkit"
)

// message waits until the bot's message id in chat stands as match wants
// and returns it.
func (w *world) message(chat, id int64, what string, match func(testkit.BotMessage) bool) testkit.BotMessage {
	w.t.Helper()
	var found testkit.BotMessage
	last := ""
	require.Eventually(w.t, func() bool {
		for _, m := range w.bot.ChatMessages(chat) {
			if m.ID == id {
				last = m.Text
				if match(m) {
					found = m
					return true
				}
			}
		}
		return false
	}, 90*time.Second, 20*time.Millisecond, "waiting for %s; the message reads %q", what, last)
	return found
}

// buttonOf finds a button of a message by its text.
func buttonOf(m testkit.BotMessage, text string) (testkit.BotButton, bool) {
	for _, row := range m.Buttons {
		for _, b := range row {
			if strings.Contains(b.Text, text) {
				return b, true
			}
		}
	}
	return testkit.BotButton{}, false
}

// answerTo waits for the answer to a button press.
func (w *world) answerTo(callbackID string) testkit.BotCall {
	w.t.Helper()
	return w.waitCall("the answer to the press", func(c testkit.BotCall) bool {
		return c.Method == "answerCallbackQuery" && c.CallbackQueryID == callbackID && c.OK()
	})
}

// A profile link in a group: one progress message counts the posts of
// the whole chain; "fetch more" twice is one more page; a batch stopped
// midway freezes the counts and loses its stop button; someone else's
// press is refused.
func TestAProfileLinkShowsOneProgressMessage(t *testing.T) {
	t.Parallel()
	w := newWorld(t, runtime.WithPageSize(20))
	tl := w.fx.AddTextTimeline("tidewatch", "4242", 60, 10)
	w.start()
	in := w.bot.PushGroupMessage(group, alice, "@monitor_test_bot "+tl.ProfileURL)

	status := w.nthMessage(group, 0, "the status message")
	require.Equal(t, in.MessageID, status.ReplyTo)
	id := status.Result[0]
	m := w.message(group, id, "the first page archived", func(m testkit.BotMessage) bool {
		_, ok := buttonOf(m, "Fetch more")
		return ok && strings.Contains(m.Text, "20 of 20")
	})
	require.Equal(t, "📚 Synthetic tidewatch — 20 of 20 posts archived\n✅ Done for now — there are more posts.\n"+tl.ProfileURL, m.Text)
	more, _ := buttonOf(m, "⏬ Fetch more")
	batch, ok := buttonOf(m, "⏬ Fetch 1,000 more")
	require.True(t, ok, "a batch button for the X adapter's max_batch_size: %v", m.Buttons)
	require.LessOrEqual(t, len(more.CallbackData), 64)
	require.True(t, strings.HasPrefix(more.CallbackData, "m:"), more.CallbackData)
	// One message for a page of posts, edited now and then, never once a post.
	require.Len(t, w.calls(group, "sendMessage"), 1, "only the status message was sent")
	for _, method := range []string{"sendMediaGroup", "sendPhoto", "sendDocument"} {
		require.Empty(t, w.calls(group, method), method)
	}
	require.Less(t, m.Edits, 30, "edits are coalesced")
	t.Logf("20 posts: %d edits of the progress message", m.Edits)

	// Bob may not press Alice's buttons.
	_, cb := w.bot.PushCallback(group, bob, id, more.CallbackData)
	refusal := w.answerTo(cb)
	require.True(t, refusal.ShowAlert)
	require.Contains(t, refusal.Text, "someone else's request")

	// Alice presses "fetch more" twice: one more page.
	_, cb1 := w.bot.PushCallback(group, alice, id, more.CallbackData)
	_, cb2 := w.bot.PushCallback(group, alice, id, more.CallbackData)
	require.Equal(t, "⏬ Fetching more…", w.answerTo(cb1).Text)
	w.answerTo(cb2)
	m = w.message(group, id, "the second page archived", func(m testkit.BotMessage) bool {
		_, ok := buttonOf(m, "Fetch more")
		return ok && strings.Contains(m.Text, "40 of 40")
	})
	require.True(t, strings.HasPrefix(m.Text, "📚 Synthetic tidewatch — 40 of 40 posts archived\n"), m.Text)
	batch, ok = buttonOf(m, "Fetch 1,000 more")
	require.True(t, ok)
	require.Len(t, w.calls(group, "sendMessage"), 1, "still the one message")

	// A batch, slowed down upstream, stopped while its page is read.
	w.fx.Delay(1500 * time.Millisecond)
	_, cb = w.bot.PushCallback(group, alice, id, batch.CallbackData)
	require.Equal(t, "⏬ Fetching up to 1,000 more…", w.answerTo(cb).Text)
	m = w.message(group, id, "the stop button", func(m testkit.BotMessage) bool {
		_, ok := buttonOf(m, "Stop")
		return ok
	})
	stop, _ := buttonOf(m, "⏹ Stop")
	_, cb = w.bot.PushCallback(group, bob, id, stop.CallbackData)
	require.Contains(t, w.answerTo(cb).Text, "someone else's request", "Bob may not stop it either")
	_, cb = w.bot.PushCallback(group, alice, id, stop.CallbackData)
	require.Equal(t, "⏹ Stopped.", w.answerTo(cb).Text)
	m = w.message(group, id, "stopped", func(m testkit.BotMessage) bool {
		return strings.Contains(m.Text, "⏹ Stopped") && len(m.Buttons) == 0
	})

	// The page being read when it stopped makes no posts: the chain ends
	// at 40 and the message says so, without buttons.
	ctx := context.Background()
	a := w.core.App()
	tenant, err := a.TenantByName(ctx, "tg1001")
	require.NoError(t, err)
	root, err := uuid.Parse(strings.TrimPrefix(stop.CallbackData, "x:"))
	require.NoError(t, err)
	var v app.SubmissionView
	require.Eventually(t, func() bool {
		v, err = a.Submission(ctx, tenant.ID, root)
		require.NoError(t, err)
		return v.State != app.StateQueued && v.State != app.StateDownloading
	}, 90*time.Second, 50*time.Millisecond, "the chain ends")
	require.True(t, v.Stopped)
	require.Equal(t, 40, v.Progress.Total, "nothing was made after the stop")
	w.fx.Delay(0)
	m = w.message(group, id, "the final counts", func(m testkit.BotMessage) bool {
		return strings.Contains(m.Text, "40 of 40") && strings.Contains(m.Text, "⏹ Stopped")
	})
	require.Empty(t, m.Buttons, "no stop, no fetch more once stopped")
	require.Len(t, w.calls(group, "sendMessage"), 1, "still the one message")
}

// A short profile, for a person whose Telegram speaks Chinese: the one
// progress message in Chinese, archived to its end, without buttons.
func TestAProfileLinkInChinese(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tl := w.fx.AddTimeline("chaoxi", "4343", 30, 10)
	w.start()
	w.bot.PushPrivateMessage(ming, tl.ProfileURL)

	status := w.nthMessage(ming.ID, 0, "the status message")
	require.Equal(t, "⏳ 正在存档 "+tl.ProfileURL+"…", status.Text)
	m := w.message(ming.ID, status.Result[0], "the profile archived to its end", func(m testkit.BotMessage) bool {
		return strings.Contains(m.Text, "完成")
	})
	require.Equal(t, "📚 Synthetic chaoxi — 已存档 30 条帖子，共 30 条\n✅ 完成：已存档到最后一条。\n"+tl.ProfileURL, m.Text)
	require.Empty(t, m.Buttons, "nothing more to fetch")
	for _, c := range w.calls(ming.ID, "editMessageText") {
		require.NotContains(t, c.Text, "archived", "every edit in Chinese")
	}
}

// The channel process stops while a profile is archived; core goes on,
// and the next process brings the progress message to its final counts.
func TestAProfilesProgressMessageSurvivesARestart(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tl := w.fx.AddTimeline("restarted", "4444", 40, 20)
	w.fx.Delay(300 * time.Millisecond)
	stop := w.start()
	w.bot.PushPrivateMessage(alice, tl.ProfileURL)
	status := w.nthMessage(alice.ID, 0, "the status message")
	id := status.Result[0]
	w.message(alice.ID, id, "the progress shown", func(m testkit.BotMessage) bool {
		_, ok := buttonOf(m, "Stop")
		return ok && strings.HasPrefix(m.Text, "📚 ")
	})
	stop()
	w.fx.Delay(0)

	ctx := context.Background()
	a := w.core.App()
	tenant, err := a.TenantByName(ctx, "tg1001")
	require.NoError(t, err)
	m := w.bot.ChatMessages(alice.ID)
	stopBtn, ok := buttonOf(m[len(m)-1], "Stop")
	require.True(t, ok)
	root, err := uuid.Parse(strings.TrimPrefix(stopBtn.CallbackData, "x:"))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := a.Submission(ctx, tenant.ID, root)
		require.NoError(t, err)
		return v.State == app.StateComplete
	}, 90*time.Second, 50*time.Millisecond, "core archives the profile meanwhile")
	before := w.bot.ChatMessages(alice.ID)[len(m)-1]
	require.NotContains(t, before.Text, "40 of 40", "nobody edited the message while no channel ran")

	w.start()
	final := w.message(alice.ID, id, "the final counts", func(m testkit.BotMessage) bool {
		return strings.Contains(m.Text, "40 of 40 posts archived")
	})
	require.Equal(t, "📚 Synthetic restarted — 40 of 40 posts archived\n✅ Done: archived to the end.\n"+tl.ProfileURL, final.Text)
	require.Empty(t, final.Buttons)
	require.Len(t, w.calls(alice.ID, "sendMessage"), 1, "still the one message")
}
