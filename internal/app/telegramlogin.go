package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/store"
)

// This file signs browsers in with Telegram (research/peers.md §3): the
// Login Widget's signed fields and a Mini App's initData, both checked with
// the bot's token, then tied to the identity the bot already knows
// (resolveIdentity), so a person finds on the web what they saved through
// the bot.

// ErrTelegramLoginOff: Telegram sign-in is not possible on this instance
// (no bot token, or the bot never started). It also matches ErrNotFound.
var ErrTelegramLoginOff = errors.New("Telegram sign-in is not available")

// How old signed Telegram data may be, and how far ahead of our clock.
const (
	telegramWidgetMaxAge   = 24 * time.Hour
	telegramInitDataMaxAge = time.Hour
	telegramClockSkew      = 5 * time.Minute
)

// maxTelegramLoginBytes bounds the signed data accepted.
const maxTelegramLoginBytes = 8 << 10

// botToken is the bot's token: Deps.TelegramToken, else the telegram_token
// setting ("" when neither is set).
func (a *App) botToken(ctx context.Context) (string, error) {
	if a.telegramToken != "" {
		return a.telegramToken, nil
	}
	return a.SecretSetting(ctx, "telegram_token")
}

// telegramBot is the bot's token and its registered channel, or why
// Telegram sign-in is not possible.
func (a *App) telegramBot(ctx context.Context) (string, store.Channel, error) {
	token, err := a.botToken(ctx)
	if err != nil {
		return "", store.Channel{}, err
	}
	if token == "" {
		return "", store.Channel{}, errorf(fmt.Errorf("%w: %w", ErrTelegramLoginOff, ErrNotFound),
			"Telegram sign-in needs a bot: set MONITOR_TELEGRAM_TOKEN (or the telegram_token setting) and start the bot")
	}
	botID, _, _ := strings.Cut(token, ":")
	ch, err := a.store.ChannelGetByExternal(ctx, "telegram", botID)
	if isNotFound(err) {
		return "", store.Channel{}, errorf(fmt.Errorf("%w: %w", ErrTelegramLoginOff, ErrNotFound),
			"Telegram sign-in needs the bot to have started once; start `monitor serve` (or `monitor telegram`) with the bot's token")
	}
	if err != nil {
		return "", store.Channel{}, err
	}
	return token, ch, nil
}

// TelegramLogin says whether Telegram sign-in is possible (a bot token is
// configured and the bot has registered its channel) and the bot's
// username for the widget.
func (a *App) TelegramLogin(ctx context.Context) (botUsername string, ok bool, err error) {
	_, ch, err := a.telegramBot(ctx)
	if errors.Is(err, ErrTelegramLoginOff) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return ch.Name, ch.Name != "", nil
}

// TelegramWidgetLogin signs a browser in with the fields the Telegram Login
// Widget sent (id, first_name, last_name, username, photo_url, auth_date,
// hash): their hash must be the HMAC-SHA256 of the sorted fields under
// SHA256(bot token), and auth_date at most a day old. The Telegram user's
// identity is the bot's (created with a personal tenant when new).
func (a *App) TelegramWidgetLogin(ctx context.Context, fields url.Values, c WebClient) (string, WebSession, error) {
	token, ch, err := a.telegramBot(ctx)
	if err != nil {
		return "", WebSession{}, err
	}
	secret := sha256.Sum256([]byte(token))
	if err := a.checkTelegramSigned(fields, secret[:], telegramWidgetMaxAge, "Telegram sign-in data"); err != nil {
		return "", WebSession{}, err
	}
	id, err := strconv.ParseInt(fields.Get("id"), 10, 64)
	if err != nil || id <= 0 {
		return "", WebSession{}, errorf(ErrInvalid, "the Telegram sign-in data has no valid user id")
	}
	user := ChannelUser{ID: id, Username: fields.Get("username"),
		DisplayName: strings.TrimSpace(fields.Get("first_name") + " " + fields.Get("last_name"))}
	return a.telegramSession(ctx, ch, user, LabelTelegram, c)
}

// TelegramInitDataLogin signs a browser in with a Mini App's initData (the
// raw query string of Telegram.WebApp.initData): its hash must be the
// HMAC-SHA256 of every other field, sorted, under HMAC_SHA256("WebAppData",
// bot token), and auth_date at most an hour old. The user is its `user`
// field; the identity is the bot's.
func (a *App) TelegramInitDataLogin(ctx context.Context, initData string, c WebClient) (string, WebSession, error) {
	token, ch, err := a.telegramBot(ctx)
	if err != nil {
		return "", WebSession{}, err
	}
	if len(initData) > maxTelegramLoginBytes {
		return "", WebSession{}, errorf(ErrInvalid, "the Mini App's initData is longer than %d bytes", maxTelegramLoginBytes)
	}
	fields, err := url.ParseQuery(initData)
	if err != nil {
		return "", WebSession{}, errorf(ErrInvalid, "the Mini App's initData is not a query string: %v", err)
	}
	mac := hmac.New(sha256.New, []byte("WebAppData"))
	mac.Write([]byte(token))
	if err := a.checkTelegramSigned(fields, mac.Sum(nil), telegramInitDataMaxAge, "the Mini App's initData"); err != nil {
		return "", WebSession{}, err
	}
	var u struct {
		ID        int64  `json:"id"`
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
		Username  string `json:"username"`
		Language  string `json:"language_code"`
	}
	if err := json.Unmarshal([]byte(fields.Get("user")), &u); err != nil || u.ID <= 0 {
		return "", WebSession{}, errorf(ErrInvalid, "the Mini App's initData has no valid user")
	}
	user := ChannelUser{ID: u.ID, Username: u.Username, DisplayName: strings.TrimSpace(u.FirstName + " " + u.LastName), Language: u.Language}
	return a.telegramSession(ctx, ch, user, LabelMiniApp, c)
}

// checkTelegramSigned checks Telegram's signature of fields: hash is the
// hex HMAC-SHA256 under secret of every other field as key=value, sorted by
// key and joined by newlines; auth_date is no older than maxAge and not
// ahead of our clock by more than the skew.
func (a *App) checkTelegramSigned(fields url.Values, secret []byte, maxAge time.Duration, what string) error {
	size := 0
	keys := make([]string, 0, len(fields))
	for k, vs := range fields {
		if len(vs) != 1 {
			return errorf(ErrInvalid, "%s carries %q %d times; each field must appear once", what, clip(k, 32), len(vs))
		}
		size += len(k) + len(vs[0])
		if k != "hash" {
			keys = append(keys, k)
		}
	}
	if size > maxTelegramLoginBytes {
		return errorf(ErrInvalid, "%s is longer than %d bytes", what, maxTelegramLoginBytes)
	}
	got, err := hex.DecodeString(fields.Get("hash"))
	if err != nil || len(got) != sha256.Size {
		return errorf(ErrUnauthorized, "%s has no valid hash; sign in with Telegram again", what)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "=" + fields.Get(k)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strings.Join(lines, "\n")))
	if !hmac.Equal(got, mac.Sum(nil)) {
		return errorf(ErrUnauthorized, "%s is not signed by this instance's bot; sign in with Telegram again", what)
	}
	sec, err := strconv.ParseInt(fields.Get("auth_date"), 10, 64)
	if err != nil || sec <= 0 {
		return errorf(ErrUnauthorized, "%s has no valid auth_date", what)
	}
	at, now := time.Unix(sec, 0), a.now()
	switch {
	case at.After(now.Add(telegramClockSkew)):
		return errorf(ErrUnauthorized, "%s is dated %s, ahead of this server's clock; check the server's time", what, at.UTC().Format(time.RFC3339))
	case now.Sub(at) > maxAge:
		return errorf(ErrUnauthorized, "%s is from %s, older than %s; sign in with Telegram again", what, at.UTC().Format(time.RFC3339), maxAgeText(maxAge))
	}
	return nil
}

func maxAgeText(d time.Duration) string {
	if d == 24*time.Hour {
		return "a day"
	}
	if d == time.Hour {
		return "an hour"
	}
	return d.String()
}

// telegramSession resolves the Telegram user's identity as the bot does
// and signs the browser in for its tenant, which must be enabled.
func (a *App) telegramSession(ctx context.Context, ch store.Channel, user ChannelUser, label string, c WebClient) (string, WebSession, error) {
	ident, _, err := a.resolveIdentity(ctx, ch, user, nil)
	if err != nil {
		return "", WebSession{}, err
	}
	t, err := a.store.TenantGetByID(store.WithTenant(ctx, ident.TenantID), ident.TenantID)
	if err != nil {
		return "", WebSession{}, err
	}
	return a.startWebSession(ctx, t, label, c)
}
