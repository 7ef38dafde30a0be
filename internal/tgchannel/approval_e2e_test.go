package tgchannel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
)

// sentTexts are the texts of the successful sendMessage calls to chat.
func (w *world) sentTexts(chat int64) []string {
	var out []string
	for _, c := range w.calls(chat, "sendMessage") {
		out = append(out, c.Text)
	}
	return out
}

// countPrefix counts the texts that start with prefix.
func countPrefix(texts []string, prefix string) int {
	n := 0
	for _, s := range texts {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// An operator's approval or rejection of an account that applied through
// the bot reaches its person in their private chat, in their language,
// once; other changes of an account tell nobody anything.
func TestApprovalAndRejectionReachTheApplicantOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	a := w.core.App()
	_, err := a.SetSetting(ctx, "test", "approval_mode", "approval")
	require.NoError(t, err)
	w.start()

	w.bot.PushPrivateMessage(alice, "/start")
	require.Contains(t, w.nthMessage(alice.ID, 0, "alice's welcome").Text, "awaits approval")
	w.bot.PushPrivateMessage(ming, "/start")
	require.Contains(t, w.nthMessage(ming.ID, 0, "ming's welcome").Text, "等待")

	enabled, disabled := "enabled", "disabled"
	_, err = a.UpdateTenant(ctx, "test", "tg1001", app.TenantChange{Status: &enabled})
	require.NoError(t, err)
	approved := w.nthMessage(alice.ID, 1, "alice's approval")
	require.Equal(t, "✅ Your account is approved: you can archive now. Send me a link to a post — an X post or profile, a public Telegram channel post.", approved.Text)

	_, err = a.UpdateTenant(ctx, "test", "tg1003", app.TenantChange{Status: &disabled})
	require.NoError(t, err)
	rejected := w.nthMessage(ming.ID, 1, "ming's rejection")
	require.True(t, strings.HasPrefix(rejected.Text, "⛔ 这个 Monitor 的管理员没有批准你的账户"), rejected.Text)

	// Not pending any more: disabling and enabling alice again, or new
	// limits, are no approvals.
	_, err = a.UpdateTenant(ctx, "test", "tg1001", app.TenantChange{Limits: &app.TenantLimits{Daily: 5}})
	require.NoError(t, err)
	_, err = a.UpdateTenant(ctx, "test", "tg1001", app.TenantChange{Status: &disabled})
	require.NoError(t, err)
	_, err = a.UpdateTenant(ctx, "test", "tg1001", app.TenantChange{Status: &enabled})
	require.NoError(t, err)
	// The bot answers in order; once /help is answered, anything queued
	// before it would have gone out too.
	w.bot.PushPrivateMessage(alice, "/help")
	w.nthMessage(alice.ID, 2, "alice's /help")
	w.bot.PushPrivateMessage(ming, "/help")
	w.nthMessage(ming.ID, 2, "ming's /help")
	require.Equal(t, 1, countPrefix(w.sentTexts(alice.ID), "✅"), "alice is told once: %q", w.sentTexts(alice.ID))
	require.Len(t, w.sentTexts(alice.ID), 3, "%q", w.sentTexts(alice.ID))
	require.Equal(t, 1, countPrefix(w.sentTexts(ming.ID), "⛔"), "ming is told once: %q", w.sentTexts(ming.ID))

	// Approved, alice archives.
	w.noSubmitInterval()
	_, err = a.UpdateTenant(ctx, "test", "tg1001", app.TenantChange{Limits: &app.TenantLimits{}})
	require.NoError(t, err)
	w.bot.PushPrivateMessage(alice, photosPost)
	require.Contains(t, w.result(alice.ID).Text, "🆔 ")
}

// /admin gives an operator a sign-in link with admin rights, as /web does
// for them; anyone else's /admin is refused in their language, with no
// link.
func TestAdminSignInThroughTheBotIsForOperatorsOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	ctx := context.Background()
	a := w.core.App()

	w.bot.PushPrivateMessage(alice, "/admin")
	refused := w.nthMessage(alice.ID, 0, "alice's refusal")
	require.Equal(t, "⛔ /admin is for the operators of this Monitor, and your account is not one. For your own archive, send /web.", refused.Text)
	w.bot.PushPrivateMessage(ming, "/admin")
	zh := w.nthMessage(ming.ID, 0, "ming's refusal")
	require.Equal(t, "⛔ /admin 仅供这个 Monitor 的管理员使用，你的账户不是管理员。要打开你自己的收藏库，请发送 /web。", zh.Text)

	yes := true
	v, err := a.UpdateTenant(ctx, "test", "tg1001", app.TenantChange{Admin: &yes})
	require.NoError(t, err)
	require.True(t, v.Admin)

	w.bot.PushPrivateMessage(alice, "/admin")
	got := w.nthMessage(alice.ID, 1, "alice's console link")
	require.True(t, strings.HasPrefix(got.Text, "🛠 Your sign-in link, with operator rights"), got.Text)
	_, token := loginToken(t, got)
	_, s, err := a.RedeemLoginLink(ctx, token, app.WebClient{})
	require.NoError(t, err)
	require.Equal(t, "tg1001", s.TenantName)
	require.True(t, s.Admin, "the session may open /admin")

	w.bot.PushPrivateMessage(alice, "/web")
	webLink := w.nthMessage(alice.ID, 2, "alice's /web link")
	_, token = loginToken(t, webLink)
	_, s, err = a.RedeemLoginLink(ctx, token, app.WebClient{})
	require.NoError(t, err)
	require.True(t, s.Admin, "an operator's /web is an admin session too")

	// In a group a link would be seen by everyone.
	w.bot.PushGroupMessage(group, alice, "/admin@monitor_test_bot")
	w.waitCall("the group refusal", func(c testkit.BotCall) bool {
		return c.ChatID == group && strings.Contains(c.Text, "private chat")
	})
	for _, c := range w.bot.ChatCalls(group) {
		require.NotContains(t, c.Text, "/login/")
	}
	// /admin stays out of the menu.
	for _, c := range w.bot.Calls() {
		for _, cmd := range c.Commands {
			require.NotEqual(t, "admin", cmd.Command)
		}
	}
}
