package tgchannel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
)

// loginToken is the token of the sign-in link in a /web answer, which
// says where the link is with a url entity.
func loginToken(t *testing.T, c testkit.BotCall) (link, token string) {
	t.Helper()
	require.Len(t, c.Entities, 1, c.Text)
	require.Equal(t, "url", c.Entities[0].Type)
	link = utf16Part(c.Text, c.Entities[0].Offset, c.Entities[0].Length)
	_, token, ok := strings.Cut(link, "/login/")
	require.True(t, ok, link)
	return link, token
}

// utf16Part is the part of s an entity addresses.
func utf16Part(s string, offset, length int) string {
	var b strings.Builder
	pos := 0
	for _, r := range s {
		n := 1
		if r > 0xFFFF {
			n = 2
		}
		if pos >= offset && pos+n <= offset+length {
			b.WriteRune(r)
		}
		pos += n
	}
	return b.String()
}

// /web answers in a private chat with a sign-in link for the sender's own
// account that works once, and says so in the sender's language.
func TestWebSendsAOneUseSignInLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	ctx := context.Background()
	a := w.core.App()

	w.bot.PushPrivateMessage(alice, "/web")
	got := w.nthMessage(alice.ID, 0, "alice's sign-in link")
	require.True(t, strings.HasPrefix(got.Text, "🌐 Your sign-in link to the web library:\n\nhttp://"), got.Text)
	require.True(t, strings.HasSuffix(got.Text, "It works once, within 15 min. Keep it to yourself: whoever opens it is signed in as you."), got.Text)
	link, token := loginToken(t, got)
	require.Contains(t, got.Text, link)

	_, s, err := a.RedeemLoginLink(ctx, token, app.WebClient{IP: "127.0.0.1", UserAgent: "test"})
	require.NoError(t, err, "the link signs in")
	require.Equal(t, "tg1001", s.TenantName, "as the sender's own account")
	require.False(t, s.Admin)
	_, _, err = a.RedeemLoginLink(ctx, token, app.WebClient{})
	require.ErrorIs(t, err, app.ErrLoginLinkUsed, "once")

	w.bot.PushPrivateMessage(ming, "/web")
	zh := w.nthMessage(ming.ID, 0, "ming's sign-in link")
	require.True(t, strings.HasPrefix(zh.Text, "🌐 你的网页收藏库登录链接：\n\nhttp://"), zh.Text)
	require.Contains(t, zh.Text, "链接只能使用一次，15 分钟内有效。")
	_, mtoken := loginToken(t, zh)
	_, ms, err := a.RedeemLoginLink(ctx, mtoken, app.WebClient{})
	require.NoError(t, err)
	require.Equal(t, "tg1003", ms.TenantName)

	// The person's own setting wins over their client's language.
	require.NoError(t, a.SetWebPreferences(ctx, s.TenantID, app.WebPreferences{Language: "zh-CN"}))
	w.bot.PushPrivateMessage(alice, "/help")
	help := w.nthMessage(alice.ID, 1, "alice's /help after she chose Chinese")
	require.True(t, strings.HasPrefix(help.Text, "发给我一个帖子链接"), help.Text)

	// In a group the link would be seen by everyone.
	w.bot.PushGroupMessage(group, bob, "/web@monitor_test_bot")
	w.waitCall("the /web refusal", func(c testkit.BotCall) bool {
		return c.ChatID == group && strings.Contains(c.Text, "only in a private chat")
	})
	for _, c := range w.bot.ChatCalls(group) {
		require.NotContains(t, c.Text, "/login/")
	}
}

// The web library's sign-in page sends people to t.me/<bot>?start=web;
// Telegram turns that into "/start web", which answers like /web.
func TestStartWebAnswersWithASignInLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bot.PushPrivateMessage(alice, "/start web")
	got := w.nthMessage(alice.ID, 0, "alice's sign-in link from the deep link")
	_, token := loginToken(t, got)
	_, s, err := w.core.App().RedeemLoginLink(context.Background(), token, app.WebClient{})
	require.NoError(t, err)
	require.Equal(t, "tg1001", s.TenantName)
}
