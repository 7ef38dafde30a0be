package tgchannel_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// /account_add for Telegram by QR code, end to end on the fake Bot API
// and gotd's test server: the code comes as a photo, a scan adds the
// account; an expired code is replaced by a new photo; with two-step
// verification the password is asked in the chat, deleted and never
// stored in the clear; no scan ends with the timeout message.
func TestAccountAddByQR(t *testing.T) {
	// Not parallel: its MTProto sign-in (SRP key stretching under -race)
	// starved the large-media tests beside it past their waits in CI.
	fake := testkit.NewTelegram(t)
	keys := filepath.Join(t.TempDir(), "dc.pem")
	require.NoError(t, os.WriteFile(keys, fake.KeysPEM(), 0o600))
	fx, tme := testkit.NewFxTwitter(t), testkit.NewTme(t)
	cfg := testcore.Config(t, map[string]string{
		"MONITOR_CHANNEL_ADDR":      "127.0.0.1:0",
		"MONITOR_CHANNEL_SECRET":    secret,
		"MONITOR_FXTWITTER_URL":     fx.URL(),
		"MONITOR_TME_URL":           tme.URL(),
		"MONITOR_MASTER_KEY":        "bot-qr-test-master-key-0123456789",
		"MONITOR_TELEGRAM_APP_ID":   "1",
		"MONITOR_TELEGRAM_APP_HASH": "test-hash",
		"MONITOR_TELEGRAM_DC_ADDR":  fake.Addr(),
		"MONITOR_TELEGRAM_DC_KEYS":  keys,
	})
	core := testcore.Run(t, cfg)
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	w := &world{t: t, core: core, fx: fx, tme: tme, bot: testkit.NewBotAPI(t), dbPath: cfg.Database.Path,
		api: channelapi.NewClient("http://"+core.ChannelAddr(), secret, hc)}
	w.start()
	ctx := context.Background()

	seen := map[string]int{} // calls of each method looked at so far
	find := func(method, text string) testkit.BotCall {
		t.Helper()
		var found testkit.BotCall
		require.Eventually(t, func() bool {
			for i, c := range w.calls(alice.ID, method) {
				if i >= seen[method] && strings.Contains(c.Text, text) {
					found, seen[method] = c, i+1
					return true
				}
			}
			return false
		}, 60*time.Second, 20*time.Millisecond, "waiting for %s %q", method, text)
		return found
	}
	// photo waits for the next QR photo and checks it is the code shown.
	photo := func() string {
		t.Helper()
		p := find("sendPhoto", "Scan this QR code with Telegram")
		require.Contains(t, p.Text, "Link Desktop Device")
		url := fake.ShownQR()
		png, err := telegram.QRPNG(url)
		require.NoError(t, err)
		sum := sha256.Sum256(png)
		require.Len(t, p.Media, 1)
		require.True(t, p.Media[0].Uploaded)
		require.Equal(t, hex.EncodeToString(sum[:]), p.Media[0].SHA256, "the photo is the QR code of the token shown")
		return url
	}
	startQR := func() {
		t.Helper()
		w.bot.PushPrivateMessage(alice, "/account_add")
		choose := find("sendMessage", "Which platform is the account on?")
		btn, ok := choose.Button("Telegram")
		require.True(t, ok, "a Telegram button: %v", choose.Buttons)
		_, cb := w.bot.PushCallback(alice.ID, alice, choose.Result[0], btn.CallbackData)
		w.answerTo(cb)
		paste := find("sendMessage", "Send Telegram's credential as your next message")
		qr, ok := paste.Button("📷 Sign in with a QR code instead")
		require.True(t, ok, "a QR button: %v", paste.Buttons)
		_, cb = w.bot.PushCallback(alice.ID, alice, paste.Result[0], qr.CallbackData)
		w.answerTo(cb)
	}

	// A scan adds the account.
	fake.SetSignIn(t, "", "", "")
	fake.SetQRLogin(0)
	startQR()
	require.NoError(t, fake.ScanQR(photo()))
	find("sendMessage", "✅ Telegram account @spore_reader connected.")
	tv, err := core.App().TenantByName(ctx, "tg"+strconv.FormatInt(alice.ID, 10))
	require.NoError(t, err)
	conns, err := core.App().Connections(ctx, tv.ID)
	require.NoError(t, err)
	require.Len(t, conns, 1)
	require.Equal(t, "telegram", conns[0].Adapter)

	// A code that expires is replaced by a new photo.
	fake.SetQRLogin(2 * time.Second)
	startQR()
	first := photo()
	second := photo()
	require.NotEqual(t, first, second)
	require.NoError(t, fake.ScanQR(second))
	find("sendMessage", "was connected already: its credential is replaced (revision 2)")

	// Two-step verification: the password is asked, deleted, never kept.
	const password = "qr-correct-horse-battery"
	fake.SetSignIn(t, "", "", password)
	fake.SetQRLogin(0)
	startQR()
	require.NoError(t, fake.ScanQR(photo()))
	find("sendMessage", "two-step verification: send its password as your next message")
	pw := w.bot.PushPrivateMessage(alice, password)
	w.waitCall("the password deleted", func(c testkit.BotCall) bool {
		return c.Method == "deleteMessage" && c.OK() && c.ChatID == alice.ID && c.MessageID == pw.MessageID
	})
	find("sendMessage", "Received, and deleted from the chat")
	find("sendMessage", "its credential is replaced (revision 3)")
	require.Zero(t, w.storedSecrets(password), "the password is nowhere in the clear")

	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range w.calls(alice.ID, "sendMessage") {
				t.Log("sent:", c.Text)
			}
		}
	})
	// No scan before the wait ends.
	_, err = core.App().SetSetting(ctx, "test", app.SettingAccountQRWait, "5")
	require.NoError(t, err)
	fake.SetSignIn(t, "", "", "")
	fake.SetQRLogin(0) // a new token, not yet scanned
	startQR()
	photo()
	find("sendMessage", "No QR code was scanned in time; nothing was stored. Send /account_add again.")
}
