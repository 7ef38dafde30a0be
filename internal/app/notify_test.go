package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

const webhookSecret = "hook-secret-7f3a9c1e5b2d"

// receiver is an operator's webhook endpoint: it checks each body's
// signature itself and hands on what arrived.
type receiver struct {
	srv    *httptest.Server
	bodies chan app.WebhookBody
	bad    chan string
}

func newReceiver(t *testing.T, secret string) *receiver {
	t.Helper()
	r := &receiver{bodies: make(chan app.WebhookBody, 16), bad: make(chan string, 16)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(raw)
		want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
		if !hmac.Equal([]byte(req.Header.Get("X-Monitor-Signature")), []byte(want)) || req.Header.Get("Content-Type") != "application/json" {
			r.bad <- req.Header.Get("X-Monitor-Signature")
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var b app.WebhookBody
		if err := json.Unmarshal(raw, &b); err != nil {
			r.bad <- "not JSON: " + string(raw)
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		r.bodies <- b
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) next(t *testing.T) app.WebhookBody {
	t.Helper()
	select {
	case b := <-r.bodies:
		return b
	case s := <-r.bad:
		t.Fatalf("the webhook got a body it refused: %s", s)
	case <-time.After(testcore.WaitTimeout):
		t.Fatal("the webhook got nothing")
	}
	return app.WebhookBody{}
}

// notifyJobs counts the notification jobs inserted so far.
func notifyJobs(t *testing.T, q *queue.Queue) int {
	t.Helper()
	res, err := q.Client().JobList(context.Background(), river.NewJobListParams().Kinds(queue.NotifyArgs{}.Kind()).First(100))
	require.NoError(t, err)
	return len(res.Jobs)
}

func TestWebhookSignedCooldownSeverityAndRecovery(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := newOpsCore(t, st, app.Deps{}, true)
		hook := newReceiver(t, webhookSecret)
		c.set(t, "notify_webhook_url", hook.srv.URL+"/alerts?token=abc")
		c.set(t, "notify_webhook_secret", webhookSecret)
		c.set(t, "system_name", "Archive Ops")

		// The database check fails: the webhook hears of it, signed.
		require.NoError(t, c.app.RecordEvent(ctx, app.EventReadinessDatabase, app.SeverityError, "the database failed the readiness check: disk full"))
		b := hook.next(t)
		require.Equal(t, app.NotifyEvent, b.Type)
		require.Equal(t, app.EventReadinessDatabase, b.Key)
		require.Equal(t, app.SeverityError, b.Severity)
		require.Equal(t, "the database failed the readiness check: disk full", b.Message)
		require.Equal(t, "Archive Ops", b.System)
		require.Equal(t, 1, notifyJobs(t, c.q))

		// Again within the cooldown: counted, not announced.
		c.clock.Advance(10 * time.Minute)
		require.NoError(t, c.app.RecordEvent(ctx, app.EventReadinessDatabase, app.SeverityError, "still failing"))
		require.Equal(t, 1, notifyJobs(t, c.q), "one announcement per key within 30 minutes")

		// Below the minimum severity (warn by default): never announced.
		require.NoError(t, c.app.RecordEvent(ctx, "adapter.slow", app.SeverityInfo, "slow answers"))
		require.Equal(t, 1, notifyJobs(t, c.q))

		// It recovers: the recovery is announced.
		_, err := c.app.ResolveEvent(ctx, app.ActorSystem, app.EventReadinessDatabase)
		require.NoError(t, err)
		b = hook.next(t)
		require.Equal(t, app.NotifyRecovery, b.Type)
		require.Equal(t, app.EventReadinessDatabase, b.Key)

		// A resolved event nobody was told about is not announced either.
		_, err = c.app.ResolveEvent(ctx, app.ActorSystem, "adapter.slow")
		require.NoError(t, err)
		require.Equal(t, 2, notifyJobs(t, c.q))

		// After the cooldown it is announced again.
		c.clock.Advance(app.NotifyCooldown)
		require.NoError(t, c.app.RecordEvent(ctx, app.EventReadinessDatabase, app.SeverityError, "failing again"))
		b = hook.next(t)
		require.Equal(t, "failing again", b.Message)
		require.Equal(t, int64(3), b.Count)

		// Raising the minimum to error silences warnings.
		c.set(t, "notify_min_severity", "error")
		require.NoError(t, c.app.RecordEvent(ctx, app.EventQueueBacklog, app.SeverityWarn, "the oldest capture job has waited 6m"))
		require.Equal(t, 3, notifyJobs(t, c.q))
		c.set(t, "notify_min_severity", "info")
		c.set(t, "notify_recovery", "false")
		_, err = c.app.ResolveEvent(ctx, app.ActorSystem, app.EventReadinessDatabase)
		require.NoError(t, err)
		require.Equal(t, 3, notifyJobs(t, c.q), "recovery messages switched off")
	})
}

func TestWebhookSecretsAreNeverShown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newOpsCore(t, storetest.New(t, "sqlite"), app.Deps{}, false)
	url := "https://hooks.example.org/T000/B000/abcdefghijkl"
	c.set(t, "notify_webhook_url", url)
	c.set(t, "notify_webhook_secret", webhookSecret)
	c.set(t, "notify_telegram_token", "123456789:AAHfake-notify-token-0123456789abcdef")

	views, err := c.app.SettingsList(ctx)
	require.NoError(t, err)
	seen := 0
	for _, v := range views {
		if strings.HasPrefix(v.Key, "notify_webhook_") || v.Key == "notify_telegram_token" {
			seen++
			require.True(t, v.Secret, v.Key)
			require.Equal(t, "<redacted>", v.Value, v.Key)
		}
	}
	require.Equal(t, 3, seen)
	entries, err := c.app.Audit(ctx, 100)
	require.NoError(t, err)
	raw, _ := json.Marshal(entries)
	for _, secret := range []string{url, webhookSecret, "AAHfake-notify-token"} {
		require.NotContains(t, string(raw), secret, "the audit log never holds a secret")
	}
	stored, err := c.st.SettingList(ctx)
	require.NoError(t, err)
	for _, s := range stored {
		require.NotContains(t, s.Value, webhookSecret, "stored sealed")
		require.NotContains(t, s.Value, "hooks.example.org", "stored sealed")
	}

	// A wrong secret is refused without being repeated.
	_, err = c.app.SetSetting(ctx, "admin", "notify_webhook_secret", "short-one")
	require.ErrorIs(t, err, app.ErrInvalid)
	require.ErrorContains(t, err, "16 to 256 characters")
	require.NotContains(t, err.Error(), "short-one")
	_, err = c.app.SetSetting(ctx, "admin", "notify_webhook_url", "ftp://x")
	require.ErrorContains(t, err, "http:// or https://")
	_, err = c.app.SetSetting(ctx, "admin", "notify_telegram_chat_id", "my chat")
	require.ErrorContains(t, err, "chat id such as -1001234567890")
	_, err = c.app.SetSetting(ctx, "admin", "notify_min_severity", "fatal")
	require.ErrorContains(t, err, "one of info, warn, error")

	// Without a master key secrets cannot be stored at all.
	bare := app.New(app.Deps{Store: storetest.New(t, "sqlite"), Log: storetest.Logger(t)})
	_, err = bare.SetSetting(ctx, "admin", "notify_webhook_secret", webhookSecret)
	require.ErrorContains(t, err, "set MONITOR_MASTER_KEY")
}

func TestTelegramNotificationThroughTheBotAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bot := testkit.NewBotAPI(t)
	c := newOpsCore(t, storetest.New(t, "sqlite"), app.Deps{TelegramAPIURL: bot.URL(), TelegramToken: bot.Token()}, false)
	done := testcore.JobDone(t, c.q, queue.NotifyArgs{}.Kind())
	require.NoError(t, c.q.Start(ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.q.Stop(ctx)
	})

	_, err := c.app.SendTestNotification(ctx, "admin")
	require.ErrorIs(t, err, app.ErrInvalid, "nothing set up yet")
	require.ErrorContains(t, err, "set notify_telegram_chat_id or notify_webhook_url first")

	// The operators' group, where the bot is a member.
	bot.PushGroupMessage(-1001234567890, testkit.BotUser{ID: 42, FirstName: "Ops"}, "hello")
	c.set(t, "notify_telegram_chat_id", "-1001234567890")
	// No notify_telegram_token: the bot's own token sends.
	c.set(t, "notify_language", "zh-CN")
	res, err := c.app.SendTestNotification(ctx, "admin-alice")
	require.NoError(t, err)
	require.Equal(t, []app.NotifyResult{{Channel: app.ChannelTelegram, OK: true}}, res)
	calls := bot.CallsOf("sendMessage")
	require.Len(t, calls, 1)
	require.Equal(t, int64(-1001234567890), calls[0].ChatID)
	require.Contains(t, calls[0].Text, "测试通知")

	require.NoError(t, c.app.RecordEvent(ctx, app.EventAdapterUnreachable, app.SeverityError, "configured adapters have never answered: x"))
	done()
	calls = bot.CallsOf("sendMessage")
	require.Len(t, calls, 2)
	require.Contains(t, calls[1].Text, "🛑 错误")
	require.Contains(t, calls[1].Text, app.EventAdapterUnreachable)
	require.Contains(t, calls[1].Text, "configured adapters have never answered: x")

	// A refused token is reported, without the token.
	c.set(t, "notify_telegram_token", "123456789:AAHwrong-token-000000000000000000")
	res, err = c.app.SendTestNotification(ctx, "admin-alice")
	require.NoError(t, err)
	require.False(t, res[0].OK)
	require.Contains(t, res[0].Error, "the Bot API answered 401")
	require.NotContains(t, res[0].Error, "AAHwrong")
}
