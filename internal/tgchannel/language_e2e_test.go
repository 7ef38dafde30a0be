package tgchannel_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// ming's Telegram is set to Simplified Chinese.
var ming = testkit.BotUser{ID: 1003, FirstName: "小明", Username: "ming", LanguageCode: "zh-hans"}

// A person whose client speaks Chinese gets the bot in Chinese — /help,
// the status message, the result's buttons, /list with its media markers,
// refusals — and one whose client speaks English gets it in English, from
// the same bot at the same time.
func TestTheBotSpeaksEachPersonsLanguage(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()

	w.bot.PushPrivateMessage(ming, "/help")
	help := w.nthMessage(ming.ID, 0, "the Chinese /help")
	require.True(t, strings.HasPrefix(help.Text, "发给我一个帖子链接"), help.Text)
	require.Contains(t, help.Text, "/get ID — 查看一条收藏")
	require.Contains(t, help.Text, "/web — 网页收藏库的一次性登录链接（仅限私聊）")
	require.Contains(t, help.Text, "在群组里，请连同链接提到我（@monitor_test_bot）")

	w.bot.PushPrivateMessage(alice, "/help")
	ahelp := w.nthMessage(alice.ID, 0, "the English /help")
	require.True(t, strings.HasPrefix(ahelp.Text, "Send me a link to a post"), ahelp.Text)
	require.Contains(t, ahelp.Text, "/get ID — show a saved item")

	w.bot.PushPrivateMessage(ming, photosPost)
	status := w.nthMessage(ming.ID, 1, "the Chinese status message")
	require.Equal(t, "⏳ 正在存档 "+photosPost+"…", status.Text)
	res := w.result(ming.ID)
	_, ok := res.Button("🔗 原帖")
	require.True(t, ok, "the result's button in Chinese: %v", res.Buttons)
	for _, c := range w.calls(ming.ID, "editMessageText") {
		if c.MessageID == status.Result[0] {
			require.NotContains(t, c.Text, "Archiving", "progress in Chinese too")
			require.Contains(t, c.Text, "正在")
		}
	}

	w.bot.PushPrivateMessage(alice, photosPost)
	astatus := w.nthMessage(alice.ID, 1, "the English status message")
	require.Equal(t, "⏳ Archiving "+photosPost+"…", astatus.Text)
	ares := w.result(alice.ID)
	_, ok = ares.Button("🔗 Original")
	require.True(t, ok, "the result's button in English: %v", ares.Buttons)

	w.bot.PushPrivateMessage(ming, "/list")
	list := w.waitCall("ming's list", func(c testkit.BotCall) bool {
		return c.ChatID == ming.ID && strings.HasPrefix(c.Text, "📚")
	})
	require.True(t, strings.HasPrefix(list.Text, "📚 你的收藏 — 第 1 页\n\n1. Archivist Demo：Two frames"), list.Text)
	require.True(t, strings.HasSuffix(list.Text, " [图片][图片]"), "media markers in Chinese: %s", list.Text)
	_, ok = list.Button("👁 查看 1")
	require.True(t, ok, "%v", list.Buttons)

	w.bot.PushPrivateMessage(alice, "/list")
	alist := w.waitCall("alice's list", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && strings.HasPrefix(c.Text, "📚")
	})
	require.True(t, strings.HasPrefix(alist.Text, "📚 Your archive — page 1\n\n1. Archivist Demo：Two frames"), alist.Text)
	require.True(t, strings.HasSuffix(alist.Text, " [photo][photo]"), "media markers in English: %s", alist.Text)

	w.bot.PushPrivateMessage(ming, "/get 0123")
	bad := w.waitCall("ming's usage problem", func(c testkit.BotCall) bool {
		return c.ChatID == ming.ID && strings.Contains(c.Text, "用法：/get ID — 查看一条收藏。")
	})
	require.Contains(t, bad.Text, `"0123" 不是条目 ID`)

	w.bot.PushPrivateMessage(ming, "/get 01234567")
	missing := w.waitCall("ming's not-found answer", func(c testkit.BotCall) bool {
		return c.ChatID == ming.ID && strings.HasPrefix(c.Text, "⚠️ 没有找到。")
	})
	require.Contains(t, missing.Text, "01234567")

	w.bot.PushGroupMessage(group, ming, "/web@monitor_test_bot")
	w.waitCall("the Chinese /web refusal in a group", func(c testkit.BotCall) bool {
		return c.ChatID == group && c.Text == "🔒 /web 只能在与我（@monitor_test_bot）的私聊中使用：它显示的内容必须保密。"
	})
	w.bot.PushGroupMessage(group, alice, "/web@monitor_test_bot")
	w.waitCall("the English /web refusal in a group", func(c testkit.BotCall) bool {
		return c.ChatID == group && c.Text == "🔒 /web works only in a private chat with me (@monitor_test_bot): what it shows must stay secret."
	})
}
