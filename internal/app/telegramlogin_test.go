package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

const (
	loginBotToken = "123456789:AAEtestTOKENforTHEloginCHECKS_0123456"
	loginBotID    = "123456789"
)

// sign is Telegram's side of the check, written from the documentation
// (core.telegram.org/widgets/login, /bots/webapps): every field but hash,
// sorted, key=value lines, HMAC-SHA256 under the secret, hex.
func sign(fields url.Values, secret []byte) {
	fields.Del("hash")
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k + "=" + fields.Get(k))
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(b.String()))
	fields.Set("hash", hex.EncodeToString(mac.Sum(nil)))
}

func widgetSecret() []byte { s := sha256.Sum256([]byte(loginBotToken)); return s[:] }

func initDataSecret() []byte {
	mac := hmac.New(sha256.New, []byte("WebAppData"))
	mac.Write([]byte(loginBotToken))
	return mac.Sum(nil)
}

func widgetFields(userID int64, at time.Time) url.Values {
	f := url.Values{}
	f.Set("id", strconv.FormatInt(userID, 10))
	f.Set("first_name", "Ada")
	f.Set("last_name", "Lovelace")
	f.Set("username", "ada")
	f.Set("photo_url", "https://t.me/i/userpic/320/ada.jpg")
	f.Set("auth_date", strconv.FormatInt(at.Unix(), 10))
	sign(f, widgetSecret())
	return f
}

func initData(userID int64, at time.Time) url.Values {
	f := url.Values{}
	f.Set("query_id", "AAHdF6IQAAAAAN0XohDhrOrc")
	f.Set("user", `{"id":`+strconv.FormatInt(userID, 10)+`,"first_name":"Ada","last_name":"Lovelace","username":"ada","language_code":"zh-hans"}`)
	f.Set("auth_date", strconv.FormatInt(at.Unix(), 10))
	f.Set("signature", "bm90IGNoZWNrZWQgaGVyZSwgYnV0IHNpZ25lZCBieSB0aGUgaGFzaA")
	sign(f, initDataSecret())
	return f
}

// startBot registers the bot's channel as its hello does.
func startBot(t *testing.T, c *testcore.Core) app.ChannelHelloReply {
	t.Helper()
	h, err := c.App.ChannelHello(context.Background(), app.ChannelInstance{Kind: "telegram", ExternalID: loginBotID, Name: "monitor_test_bot"})
	require.NoError(t, err)
	return h
}

func TestTelegramLoginNeedsATokenAndTheBot(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		_, ok, err := c.App.TelegramLogin(ctx)
		require.NoError(t, err)
		require.False(t, ok, "no token: no Telegram sign-in")
		_, _, err = c.App.TelegramWidgetLogin(ctx, widgetFields(42, c.Clock.Now()), browser)
		require.ErrorIs(t, err, app.ErrTelegramLoginOff)
		require.Contains(t, err.Error(), "MONITOR_TELEGRAM_TOKEN")
	})
}

func TestTelegramLoginNeedsTheBotStartedOnce(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true, TelegramToken: loginBotToken}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		_, ok, err := c.App.TelegramLogin(ctx)
		require.NoError(t, err)
		require.False(t, ok, "the bot never started")
		_, _, err = c.App.TelegramWidgetLogin(ctx, widgetFields(42, c.Clock.Now()), browser)
		require.ErrorIs(t, err, app.ErrTelegramLoginOff)
		require.Contains(t, err.Error(), "Telegram sign-in needs the bot to have started once")

		startBot(t, c)
		name, ok, err := c.App.TelegramLogin(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "monitor_test_bot", name)
	})
}

func TestTelegramWidgetLogin(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true, TelegramToken: loginBotToken}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		startBot(t, c)
		now := c.Clock.Now()

		key, s, err := c.App.TelegramWidgetLogin(ctx, widgetFields(42, now.Add(-time.Hour)), browser)
		require.NoError(t, err)
		require.Equal(t, "tg42", s.TenantName, "a new Telegram user gets the personal tenant the bot would give")
		require.Equal(t, app.LabelTelegram, s.Label)
		require.False(t, s.Admin)
		got, err := c.App.WebSession(ctx, key)
		require.NoError(t, err)
		require.Equal(t, s.TenantID, got.TenantID)

		// The same person again: the same tenant.
		_, again, err := c.App.TelegramWidgetLogin(ctx, widgetFields(42, now), browser)
		require.NoError(t, err)
		require.Equal(t, s.TenantID, again.TenantID)

		tampered := widgetFields(42, now)
		tampered.Set("id", "43")
		_, _, err = c.App.TelegramWidgetLogin(ctx, tampered, browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		require.Contains(t, err.Error(), "not signed by this instance's bot")
		tampered = widgetFields(42, now)
		tampered.Set("username", "mallory")
		_, _, err = c.App.TelegramWidgetLogin(ctx, tampered, browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		added := widgetFields(42, now)
		added.Set("admin", "true")
		_, _, err = c.App.TelegramWidgetLogin(ctx, added, browser)
		require.ErrorIs(t, err, app.ErrUnauthorized, "a field added after signing breaks the hash")
		noHash := widgetFields(42, now)
		noHash.Del("hash")
		_, _, err = c.App.TelegramWidgetLogin(ctx, noHash, browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		other := widgetFields(42, now)
		mac := hmac.New(sha256.New, []byte("another bot's secret"))
		other.Set("hash", hex.EncodeToString(mac.Sum(nil)))
		_, _, err = c.App.TelegramWidgetLogin(ctx, other, browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)

		_, _, err = c.App.TelegramWidgetLogin(ctx, widgetFields(42, now.Add(-25*time.Hour)), browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		require.Contains(t, err.Error(), "older than a day")
		_, _, err = c.App.TelegramWidgetLogin(ctx, widgetFields(42, now.Add(10*time.Minute)), browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		require.Contains(t, err.Error(), "ahead of this server's clock")
		_, _, err = c.App.TelegramWidgetLogin(ctx, widgetFields(42, now.Add(2*time.Minute)), browser)
		require.NoError(t, err, "a small clock skew is allowed")

		sessions, err := c.App.WebSessions(ctx, s.TenantID)
		require.NoError(t, err)
		require.Len(t, sessions, 3, "refused sign-ins made no session")
	})
}

func TestTelegramInitDataLogin(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true, TelegramToken: loginBotToken}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		startBot(t, c)
		now := c.Clock.Now()

		_, s, err := c.App.TelegramInitDataLogin(ctx, initData(7, now.Add(-30*time.Minute)).Encode(), browser)
		require.NoError(t, err)
		require.Equal(t, "tg7", s.TenantName)
		require.Equal(t, app.LabelMiniApp, s.Label)

		tampered := initData(7, now)
		tampered.Set("user", strings.Replace(tampered.Get("user"), `"id":7`, `"id":8`, 1))
		_, _, err = c.App.TelegramInitDataLogin(ctx, tampered.Encode(), browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		sig := initData(7, now)
		sig.Set("signature", "changed")
		_, _, err = c.App.TelegramInitDataLogin(ctx, sig.Encode(), browser)
		require.ErrorIs(t, err, app.ErrUnauthorized, "signature is part of the signed string")
		widget := widgetFields(7, now) // signed for the widget, not a Mini App
		_, _, err = c.App.TelegramInitDataLogin(ctx, widget.Encode(), browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)

		_, _, err = c.App.TelegramInitDataLogin(ctx, initData(7, now.Add(-61*time.Minute)).Encode(), browser)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		require.Contains(t, err.Error(), "older than an hour")

		_, _, err = c.App.TelegramInitDataLogin(ctx, "%zz", browser)
		require.ErrorIs(t, err, app.ErrInvalid)
		noUser := url.Values{"auth_date": {strconv.FormatInt(now.Unix(), 10)}}
		sign(noUser, initDataSecret())
		_, _, err = c.App.TelegramInitDataLogin(ctx, noUser.Encode(), browser)
		require.ErrorIs(t, err, app.ErrInvalid)
		require.Contains(t, err.Error(), "no valid user")
	})
}

func TestTelegramSignInIsTheBotsIdentity(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true, TelegramToken: loginBotToken}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		h := startBot(t, c)
		lease, err := c.App.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: h.ChannelID, Owner: "bot-1"})
		require.NoError(t, err)
		require.True(t, lease.Granted)
		_, err = c.App.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: h.ChannelID, Owner: "bot-1", NextOffset: 2,
			Updates: []app.ChannelUpdate{{UpdateID: 1, Kind: app.ChannelUpdateMessage, ChatID: 500, ChatType: "private", MessageID: 1,
				From: app.ChannelUser{ID: 500, Username: "grace"}, Text: "/start"}}})
		require.NoError(t, err)
		ident, err := c.Store.IdentityLookup(ctx, h.ChannelID, "500")
		require.NoError(t, err)

		_, s, err := c.App.TelegramWidgetLogin(ctx, widgetFields(500, c.Clock.Now()), browser)
		require.NoError(t, err)
		require.Equal(t, ident.TenantID, s.TenantID, "the web signs in as the tenant the bot made")
		_, s, err = c.App.TelegramInitDataLogin(ctx, initData(500, c.Clock.Now()).Encode(), browser)
		require.NoError(t, err)
		require.Equal(t, ident.TenantID, s.TenantID)

		// And the other way round: someone who signs in on the web first is
		// the bot's user later.
		_, web, err := c.App.TelegramWidgetLogin(ctx, widgetFields(600, c.Clock.Now()), browser)
		require.NoError(t, err)
		_, err = c.App.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: h.ChannelID, Owner: "bot-1", NextOffset: 3,
			Updates: []app.ChannelUpdate{{UpdateID: 2, Kind: app.ChannelUpdateMessage, ChatID: 600, ChatType: "private", MessageID: 1,
				From: app.ChannelUser{ID: 600}, Text: "/start"}}})
		require.NoError(t, err)
		ident, err = c.Store.IdentityLookup(ctx, h.ChannelID, "600")
		require.NoError(t, err)
		require.Equal(t, web.TenantID, ident.TenantID)
	})
}

func TestTelegramSignInRespectsApproval(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true, TelegramToken: loginBotToken}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		startBot(t, c)
		_, err := c.App.SetSetting(ctx, app.ActorCLI, "approval_mode", "approval")
		require.NoError(t, err)
		_, _, err = c.App.TelegramWidgetLogin(ctx, widgetFields(77, c.Clock.Now()), browser)
		require.ErrorIs(t, err, app.ErrForbidden)
		require.ErrorIs(t, err, app.ErrTenantNotActive)
		require.Contains(t, err.Error(), "awaits an operator's approval")
		tv, err := c.App.TenantByName(ctx, "tg77")
		require.NoError(t, err, "the person is known and waits for approval")
		require.Equal(t, "pending", tv.Status)

		enabled := "enabled"
		_, err = c.App.UpdateTenant(ctx, app.ActorCLI, "tg77", app.TenantChange{Status: &enabled})
		require.NoError(t, err)
		_, s, err := c.App.TelegramWidgetLogin(ctx, widgetFields(77, c.Clock.Now()), browser)
		require.NoError(t, err)
		require.Equal(t, tv.ID, s.TenantID)
	})
}

func TestTelegramLoginReadsTheTokenSetting(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: c.Store, Log: slog.New(slog.DiscardHandler), MasterKey: "0123456789abcdef0123456789abcdef"})
		_, err := a.SetSetting(ctx, app.ActorCLI, "telegram_token", loginBotToken)
		require.NoError(t, err)
		_, err = a.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: loginBotID, Name: "monitor_test_bot"})
		require.NoError(t, err)
		name, ok, err := a.TelegramLogin(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "monitor_test_bot", name)
		_, s, err := a.TelegramWidgetLogin(ctx, widgetFields(9, c.Clock.Now()), browser)
		require.NoError(t, err)
		require.Equal(t, "tg9", s.TenantName)
	})
}
