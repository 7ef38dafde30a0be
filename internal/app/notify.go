package app

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// Notifications tell operators about events (seed 003's notification
// settings) through a Telegram chat and a webhook.
//
// The settings live in the typed registry (settings.go), not a table of
// their own: the registry already validates, audits every change, seals
// secret values with the master key and never shows them again, and the
// console's settings page edits them with everything else.
//
// An event is announced when it is recorded with at least
// notify_min_severity and its key was not announced in the last
// NotifyCooldown; its resolution is announced (notify_recovery) when it
// had been. The decision and one job per channel commit in the event's
// transaction; the job sends, outside any transaction, and River retries
// a channel that fails.

// NotifyCooldown is the least time between two announcements of one key.
const NotifyCooldown = 30 * time.Minute

// Notification channels.
const (
	ChannelTelegram = "telegram"
	ChannelWebhook  = "webhook"
)

// Kinds of notification.
const (
	NotifyEvent    = "event"
	NotifyRecovery = "recovery"
	NotifyTest     = "test"
)

// SignatureHeader carries the webhook body's signature:
// "sha256=" + hex(HMAC-SHA256(body, notify_webhook_secret)).
const SignatureHeader = "X-Monitor-Signature"

// notifyTimeout bounds one delivery.
const notifyTimeout = 15 * time.Second

// NotifySettings are the notification settings that are not secret.
type NotifySettings struct {
	MinSeverity  string
	Recovery     bool
	Language     string
	TelegramChat string
}

// WebhookBody is the JSON a webhook receives.
type WebhookBody struct {
	// Type is event, recovery or test.
	Type     string    `json:"type"`
	Key      string    `json:"key"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	Count    int64     `json:"count"`
	At       time.Time `json:"at"`
	// System is the system_name setting.
	System string `json:"system"`
}

// notifier delivers notifications; its HTTP client reaches operators'
// own addresses (a webhook in the LAN is normal), so it is not the
// guarded client media fetches use.
type notifier struct {
	http   *http.Client
	botAPI string
}

func newNotifier(botAPI string) notifier {
	if botAPI == "" {
		botAPI = "https://api.telegram.org"
	}
	return notifier{http: &http.Client{Timeout: notifyTimeout}, botAPI: strings.TrimRight(botAPI, "/")}
}

// severityRank orders severities.
func severityRank(s string) int {
	switch s {
	case SeverityInfo:
		return 1
	case SeverityWarn:
		return 2
	case SeverityError:
		return 3
	}
	return 0
}

// notifyChannels lists the configured channels. Secrets are only checked
// for being set; they are opened when sending.
func (a *App) notifyChannels(ctx context.Context, ns NotifySettings) ([]string, error) {
	var out []string
	if ns.TelegramChat != "" {
		out = append(out, ChannelTelegram)
	}
	url, err := a.SecretSetting(ctx, "notify_webhook_url")
	if err != nil {
		return nil, err
	}
	if url != "" {
		out = append(out, ChannelWebhook)
	}
	return out, nil
}

// notifyPlan is what an event's transaction needs to decide on announcing
// it, read before the transaction opens.
type notifyPlan struct {
	settings NotifySettings
	channels []string
}

// planNotify reads the notification settings, or returns nil when nothing
// can be sent (no queue, no channel, unreadable settings).
func (a *App) planNotify(ctx context.Context) *notifyPlan {
	if a.queue == nil {
		return nil
	}
	s, err := a.Settings(ctx)
	if err != nil {
		a.log.WarnContext(ctx, "notifications: cannot read settings", "err", err)
		return nil
	}
	chans, err := a.notifyChannels(ctx, s.Notify)
	if err != nil {
		a.log.WarnContext(ctx, "notifications: cannot read settings", "err", err)
		return nil
	}
	if len(chans) == 0 {
		return nil
	}
	return &notifyPlan{settings: s.Notify, channels: chans}
}

// announce decides, in the event's transaction, whether e is told about,
// and if so marks it notified and inserts one job per channel.
func (a *App) announce(ctx context.Context, tx *store.Tx, p *notifyPlan, e store.Event, now time.Time) error {
	if p == nil || severityRank(e.Severity) < severityRank(p.settings.MinSeverity) {
		return nil
	}
	if e.LastNotifiedAt != nil && now.Sub(*e.LastNotifiedAt) < NotifyCooldown {
		return nil
	}
	if err := tx.EventMarkNotified(ctx, e.Key, now); err != nil {
		return err
	}
	return a.insertNotify(ctx, tx, p, NotifyEvent, e, now)
}

// announceRecovery decides, in the resolving transaction, whether the
// resolution of e is told about: only for an event that was.
func (a *App) announceRecovery(ctx context.Context, tx *store.Tx, p *notifyPlan, e store.Event, now time.Time) error {
	if p == nil || !p.settings.Recovery || e.LastNotifiedAt == nil {
		return nil
	}
	return a.insertNotify(ctx, tx, p, NotifyRecovery, e, now)
}

func (a *App) insertNotify(ctx context.Context, tx *store.Tx, p *notifyPlan, kind string, e store.Event, now time.Time) error {
	for _, ch := range p.channels {
		if err := a.insertJob(ctx, tx, queue.NotifyArgs{Channel: ch, Type: kind, Key: e.Key, Severity: e.Severity,
			Message: e.Message, Count: e.Count, At: now.UTC()}); err != nil {
			return err
		}
	}
	return nil
}

// notifyWorker sends one notification through one channel.
type notifyWorker struct {
	river.WorkerDefaults[queue.NotifyArgs]
	app *App
}

// Timeout bounds one delivery.
func (w *notifyWorker) Timeout(*river.Job[queue.NotifyArgs]) time.Duration { return 2 * notifyTimeout }

func (w *notifyWorker) Work(ctx context.Context, job *river.Job[queue.NotifyArgs]) error {
	a := w.app
	s, err := a.Settings(ctx)
	if err != nil {
		return err
	}
	n := job.Args
	body := WebhookBody{Type: n.Type, Key: n.Key, Severity: n.Severity, Message: n.Message, Count: n.Count, At: n.At, System: s.SystemName}
	err = a.deliver(ctx, s, n.Channel, body)
	if errors.Is(err, errChannelOff) {
		return nil // switched off since: nothing to send
	}
	if err != nil {
		a.log.WarnContext(ctx, "notification not delivered", "channel", n.Channel, "event", n.Key, "err", err)
	}
	return err
}

// errChannelOff: the channel is not configured.
var errChannelOff = errors.New("notification channel not configured")

// deliver sends one notification through one channel.
func (a *App) deliver(ctx context.Context, s Settings, channel string, body WebhookBody) error {
	switch channel {
	case ChannelTelegram:
		if s.Notify.TelegramChat == "" {
			return errChannelOff
		}
		token, err := a.SecretSetting(ctx, "notify_telegram_token")
		if err != nil {
			return err
		}
		if token == "" {
			token = a.telegramToken
		}
		if token == "" {
			if token, err = a.SecretSetting(ctx, "telegram_token"); err != nil {
				return err
			}
		}
		if token == "" {
			return errors.New("no bot token: set notify_telegram_token (or MONITOR_TELEGRAM_TOKEN)")
		}
		return a.notify.telegram(ctx, token, s.Notify.TelegramChat, notifyText(s.Notify.Language, body))
	case ChannelWebhook:
		u, err := a.SecretSetting(ctx, "notify_webhook_url")
		if err != nil {
			return err
		}
		if u == "" {
			return errChannelOff
		}
		secret, err := a.SecretSetting(ctx, "notify_webhook_secret")
		if err != nil {
			return err
		}
		return a.notify.webhook(ctx, u, secret, body)
	}
	return fmt.Errorf("unknown notification channel %q", channel)
}

// telegram sends text to chat with the Bot API's sendMessage.
func (n notifier) telegram(ctx context.Context, token, chat, text string) error {
	payload, _ := json.Marshal(map[string]any{"chat_id": chat, "text": text, "link_preview_options": map[string]bool{"is_disabled": true}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.botAPI+"/bot"+token+"/sendMessage", bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("telegram: %w", errors.New("the Bot API address is not usable"))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.http.Do(req)
	if err != nil {
		// The URL holds the token: never let it into an error.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("telegram: cannot reach the Bot API: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		OK          bool   `json:"ok"`
		Description string `json:"description"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&out)
	if resp.StatusCode != http.StatusOK || !out.OK {
		return fmt.Errorf("telegram: the Bot API answered %d: %s", resp.StatusCode, clip(out.Description, 200))
	}
	return nil
}

// Sign is the X-Monitor-Signature value of body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// webhook POSTs the body as JSON, signed when a secret is set.
func (n notifier) webhook(ctx context.Context, u, secret string, body WebhookBody) error {
	payload, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(payload))
	if err != nil {
		return errors.New("webhook: the address is not usable")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Monitor-Notifications/1")
	if secret != "" {
		req.Header.Set(SignatureHeader, Sign(secret, payload))
	}
	resp, err := n.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the address may carry a token
		}
		return fmt.Errorf("webhook: cannot reach it: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook: it answered %d", resp.StatusCode)
	}
	return nil
}

// notifyText is a notification as a Telegram message.
func notifyText(lang string, b WebhookBody) string {
	zh := lang == "zh-CN"
	var head string
	switch b.Type {
	case NotifyRecovery:
		head = "✅ Resolved"
		if zh {
			head = "✅ 已恢复"
		}
	case NotifyTest:
		head = "🔔 Test notification"
		if zh {
			head = "🔔 测试通知"
		}
	default:
		head = map[string]string{SeverityInfo: "ℹ️ Info", SeverityWarn: "⚠️ Warning", SeverityError: "🛑 Error"}[b.Severity]
		if zh {
			head = map[string]string{SeverityInfo: "ℹ️ 提示", SeverityWarn: "⚠️ 警告", SeverityError: "🛑 错误"}[b.Severity]
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s · %s\n", head, b.System)
	if b.Type == NotifyTest {
		if zh {
			sb.WriteString("通知设置可用。")
		} else {
			sb.WriteString("Notifications work.")
		}
		return sb.String()
	}
	fmt.Fprintf(&sb, "%s\n%s", b.Key, b.Message)
	if b.Type == NotifyEvent && b.Count > 1 {
		if zh {
			fmt.Fprintf(&sb, "\n(第 %d 次)", b.Count)
		} else {
			fmt.Fprintf(&sb, "\n(%d times)", b.Count)
		}
	}
	return sb.String()
}

// NotifyResult is what sending a test notification through one channel
// did.
type NotifyResult struct {
	Channel string `json:"channel"`
	OK      bool   `json:"ok"`
	// Error says why it failed, without secrets.
	Error string `json:"error,omitempty"`
}

// SendTestNotification sends a test notification through every
// configured channel now and reports each, with an audit entry by actor.
// No channel configured is ErrInvalid.
func (a *App) SendTestNotification(ctx context.Context, actor string) ([]NotifyResult, error) {
	s, err := a.Settings(ctx)
	if err != nil {
		return nil, err
	}
	chans, err := a.notifyChannels(ctx, s.Notify)
	if err != nil {
		return nil, err
	}
	if len(chans) == 0 {
		return nil, errorf(ErrInvalid, "no notification channel is set up: set notify_telegram_chat_id or notify_webhook_url first")
	}
	body := WebhookBody{Type: NotifyTest, Key: "notify.test", Severity: SeverityInfo, Message: "test notification", Count: 1,
		At: a.now().UTC(), System: s.SystemName}
	out := make([]NotifyResult, 0, len(chans))
	for _, ch := range chans {
		r := NotifyResult{Channel: ch, OK: true}
		if err := a.deliver(ctx, s, ch, body); err != nil {
			r.OK, r.Error = false, err.Error()
		}
		out = append(out, r)
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		return audit(ctx, tx, actor, "notify.test", strings.Join(chans, ","), nil, out)
	})
	return out, err
}

// oneOf validates a value from a fixed list.
func oneOf(values ...string) func(string) error {
	return func(v string) error {
		for _, ok := range values {
			if v == ok {
				return nil
			}
		}
		return fmt.Errorf("must be one of %s", strings.Join(values, ", "))
	}
}

// telegramChatID checks a chat id (a whole number) or a @channel name.
func telegramChatID(v string) error {
	if v == "" {
		return nil
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return nil
	}
	if name, ok := strings.CutPrefix(v, "@"); ok && len(name) >= 4 && len(name) <= 32 {
		valid := true
		for _, r := range name {
			valid = valid && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
		}
		if valid {
			return nil
		}
	}
	return fmt.Errorf("must be a chat id such as -1001234567890 or a public @channel name")
}

// webhookURL checks a webhook address.
func webhookURL(v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http:// or https:// address")
	}
	return nil
}

// webhookSecret checks a signing secret.
func webhookSecret(v string) error {
	if len(v) < 16 || len(v) > 256 {
		return fmt.Errorf("must be 16 to 256 characters; e.g. from `openssl rand -hex 32`")
	}
	return nil
}
