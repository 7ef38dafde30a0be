package tgchannel_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
