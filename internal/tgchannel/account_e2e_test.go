package tgchannel_test

import (
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// aliceX is Alice's signed-in X session on the fake X.
var aliceX = testkit.XSession{AuthToken: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", CT0: "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
	AccountID: "1800000000000000001", Handle: "alice_archivist"}

// newAccountWorld is newWorld with a master key (accounts can be kept)
// and the X adapter's x-session provider on a fake X GraphQL.
func newAccountWorld(t *testing.T) (*world, *testkit.XGraphQL) {
	t.Helper()
	fx, tme := testkit.NewFxTwitter(t), testkit.NewTme(t)
	xg := testkit.NewXGraphQL(t, fx.URL())
	xg.AddSession(aliceX)
	cfg := testcore.Config(t, map[string]string{
		"MONITOR_CHANNEL_ADDR":   "127.0.0.1:0",
		"MONITOR_CHANNEL_SECRET": secret,
		"MONITOR_FXTWITTER_URL":  fx.URL(),
		"MONITOR_X_API_URL":      xg.URL(),
		"MONITOR_TME_URL":        tme.URL(),
		"MONITOR_MASTER_KEY":     "bot-accounts-test-master-key-0123456789",
	})
	core := testcore.Run(t, cfg)
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return &world{t: t, core: core, fx: fx, tme: tme, bot: testkit.NewBotAPI(t), dbPath: cfg.Database.Path,
		api: channelapi.NewClient("http://"+core.ChannelAddr(), secret, hc)}, xg
}

// storedSecrets counts rows of the core's database whose inbox payload
// or staged work payload holds s in the clear.
func (w *world) storedSecrets(s string) int {
	w.t.Helper()
	db, err := sql.Open("sqlite", "file:"+w.dbPath+"?mode=ro&_pragma=busy_timeout(5000)")
	require.NoError(w.t, err)
	defer db.Close()
	var n int
	require.NoError(w.t, db.QueryRow(`SELECT
		(SELECT count(*) FROM inbox WHERE instr(payload_json, ?) > 0) +
		(SELECT count(*) FROM channel_work WHERE instr(CAST(payload AS TEXT), ?) > 0 OR instr(progress_json, ?) > 0)`,
		s, s, s).Scan(&n))
	return n
}

// The /account_add dialog end to end on the fake Bot API: private chat
// only; the platform chosen with a button; the dialog survives a restart
// of the channel; the next message is the secret, deleted from the chat
// and never stored in the clear; the account is checked with X and
// listed; /cancel ends a dialog; wrong cookies are refused; a button
// removes the account.
func TestAccountAddDialog(t *testing.T) {
	t.Parallel()
	w, xg := newAccountWorld(t)
	stop := w.start()
	n := 0
	next := func(what string) testkit.BotCall {
		t.Helper()
		m := w.nthMessage(alice.ID, n, what)
		n++
		return m
	}
	// find waits for a message containing text and counts on from it (a
	// restart may send an answer twice: work is done at least once).
	find := func(text string) testkit.BotCall {
		t.Helper()
		var found testkit.BotCall
		require.Eventually(t, func() bool {
			for i, c := range w.calls(alice.ID, "sendMessage") {
				if i >= n && strings.Contains(c.Text, text) {
					found, n = c, i+1
					return true
				}
			}
			return false
		}, 60*time.Second, 20*time.Millisecond, "waiting for %q", text)
		return found
	}
	say := func(text, what string) testkit.BotCall {
		t.Helper()
		w.bot.PushPrivateMessage(alice, text)
		return next(what)
	}

	require.Contains(t, say("/accounts", "no accounts").Text, "You have no connected accounts. Send /account_add")

	// In a group: refused before anyone pastes anything.
	w.bot.PushGroupMessage(group, alice, "/account_add@"+w.bot.Username())
	inGroup := w.nthMessage(group, 0, "the group refusal")
	require.Contains(t, inGroup.Text, "/account_add")
	require.Contains(t, inGroup.Text, "private")

	choose := say("/account_add", "the platforms")
	require.Contains(t, choose.Text, "Which platform is the account on?")
	btn, ok := choose.Button("X")
	require.True(t, ok, "an X button: %v", choose.Buttons)
	_, cb := w.bot.PushCallback(alice.ID, alice, choose.Result[0], btn.CallbackData)
	w.answerTo(cb)
	paste := next("the paste prompt")
	require.Contains(t, paste.Text, "Send X's credential as your next message: the auth_token and ct0 cookies")
	require.Contains(t, paste.Text, "I wait 10 minutes")

	// The channel restarts; the dialog is core's and still waits.
	stop()
	w.start()

	secretMsg := w.bot.PushPrivateMessage(alice, "Cookie: lang=en; "+aliceX.Cookie())
	w.waitCall("the secret deleted", func(c testkit.BotCall) bool {
		return c.Method == "deleteMessage" && c.OK() && c.ChatID == alice.ID && c.MessageID == secretMsg.MessageID
	})
	find("Received, and deleted from the chat")
	find("✅ X account @alice_archivist connected.")
	require.Equal(t, 1, xg.Hits("Viewer"), "checked with X once")
	require.Zero(t, w.storedSecrets(aliceX.AuthToken), "the secret is nowhere in the clear")
	require.Zero(t, w.storedSecrets(aliceX.CT0))

	list := say("/accounts", "the list")
	require.Contains(t, list.Text, "🔑 Your accounts (1):")
	require.Contains(t, list.Text, "1. X @alice_archivist")
	require.Contains(t, list.Text, "✅ active · credential revision 1")

	// /cancel ends a waiting dialog: the next message is an ordinary one.
	choose = say("/account_add", "the platforms again")
	btn, _ = choose.Button("X")
	_, cb = w.bot.PushCallback(alice.ID, alice, choose.Result[0], btn.CallbackData)
	w.answerTo(cb)
	next("the paste prompt again")
	require.Contains(t, say("/cancel", "cancelled").Text, "Cancelled: no account was added.")
	require.Contains(t, say("/cancel", "nothing to cancel").Text, "Nothing to cancel")
	plain := say("hello there", "an ordinary message")
	require.NotContains(t, plain.Text, "Received, and deleted")

	// Wrong cookies: deleted all the same, and refused with X's words.
	choose = say("/account_add", "the platforms a third time")
	btn, _ = choose.Button("X")
	_, cb = w.bot.PushCallback(alice.ID, alice, choose.Result[0], btn.CallbackData)
	w.answerTo(cb)
	next("the third paste prompt")
	wrong := w.bot.PushPrivateMessage(alice, "auth_token=ffffffffffffffffffffffffffffffffffffffff; ct0=eeee")
	w.waitCall("the wrong secret deleted", func(c testkit.BotCall) bool {
		return c.Method == "deleteMessage" && c.OK() && c.MessageID == wrong.MessageID
	})
	next("the second receipt")
	refused := next("the refusal")
	require.Contains(t, refused.Text, "⚠️ Not added:")
	require.Contains(t, refused.Text, "X no longer accepts this session")
	require.Contains(t, say("/accounts", "still one account").Text, "credential revision 1", "the existing credential untouched")

	// Remove it with its button.
	rm := say("/account_remove", "the remove list")
	rbtn, ok := rm.Button("✖ Remove X @alice_archivist")
	require.True(t, ok, "a remove button: %v", rm.Buttons)
	require.LessOrEqual(t, len(rbtn.CallbackData), 64)
	_, cb = w.bot.PushCallback(alice.ID, alice, rm.Result[0], rbtn.CallbackData)
	w.answerTo(cb)
	require.Contains(t, next("removed").Text, "🗑 Account @alice_archivist removed")
	require.Contains(t, say("/accounts", "none left").Text, "You have no connected accounts")
}

// The dialog in Chinese, for a person whose client speaks it.
func TestAccountAddDialogInChinese(t *testing.T) {
	t.Parallel()
	w, _ := newAccountWorld(t)
	w.start()
	li := testkit.BotUser{ID: 1003, FirstName: "Li", Username: "li", LanguageCode: "zh-hans"}
	w.bot.PushPrivateMessage(li, "/account_add")
	choose := w.nthMessage(li.ID, 0, "the platforms")
	require.Contains(t, choose.Text, "要连接哪个平台的账号？")
	btn, ok := choose.Button("X")
	require.True(t, ok)
	_, cb := w.bot.PushCallback(li.ID, li, choose.Result[0], btn.CallbackData)
	w.answerTo(cb)
	require.True(t, strings.Contains(w.nthMessage(li.ID, 1, "the prompt").Text, "请把 X 的凭据作为下一条消息发送"))
	w.bot.PushPrivateMessage(li, "ct0=abc")
	w.nthMessage(li.ID, 2, "the receipt")
	require.Contains(t, w.nthMessage(li.ID, 3, "the refusal").Text, "未添加：")
}
