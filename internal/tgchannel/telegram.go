package tgchannel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// Timeouts of Bot API calls.
const (
	pollTimeout   = 30 * time.Second // getUpdates long poll, as asked of Telegram
	callTimeout   = 30 * time.Second // a call without uploads
	uploadTimeout = 10 * time.Minute // a call that uploads media
	// maxInlineWait is the longest 429 retry_after a call sleeps through;
	// a longer one defers the work item instead.
	maxInlineWait = 60 * time.Second
)

// Sending rates Telegram tolerates: about one message a second per chat
// and thirty a second in all.
const (
	perChatInterval = time.Second
	globalInterval  = time.Second / 30
)

// telegram calls the Bot API: every method through go-telegram/bot except
// getUpdates, which the channel confirms only after core has stored the
// updates. It honours 429 retry_after and paces sends.
type telegram struct {
	bot   *bot.Bot
	http  *http.Client
	base  string // <api>/bot<token>/
	token string
	log   *slog.Logger
	pace  *limiter
}

func newTelegram(apiURL, token string, hc *http.Client, log *slog.Logger) (*telegram, error) {
	apiURL = strings.TrimRight(apiURL, "/")
	b, err := bot.New(token,
		bot.WithServerURL(apiURL),
		bot.WithHTTPClient(pollTimeout, hc),
		bot.WithSkipGetMe(),
		bot.WithErrorsHandler(func(err error) { log.Debug("telegram client", "error", redact(err, token)) }),
		bot.WithDebugHandler(func(string, ...any) {}),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram: %w", err)
	}
	return &telegram{bot: b, http: hc, base: apiURL + "/bot" + token + "/", token: token, log: log,
		pace: newLimiter(perChatInterval, globalInterval)}, nil
}

// apiError is a Bot API error answer to our own getUpdates.
type apiError struct {
	Code        int
	Description string
	RetryAfter  int
}

func (e *apiError) Error() string {
	return fmt.Sprintf("telegram: %d %s", e.Code, e.Description)
}

// getUpdates long-polls for updates from offset. It never confirms
// anything beyond offset.
func (t *telegram) getUpdates(ctx context.Context, offset int64, timeout time.Duration) ([]models.Update, error) {
	body, err := json.Marshal(map[string]any{
		"offset":  offset,
		"timeout": int(timeout / time.Second),
		// channel_post: the posts of channels the bot is an admin of, for
		// their watchers (supergroup messages come as "message").
		"allowed_updates": []string{"message", "callback_query", "channel_post"},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+"getUpdates", bytes.NewReader(body))
	if err != nil {
		return nil, redact(err, t.token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("telegram getUpdates: %w", redact(err, t.token))
	}
	defer resp.Body.Close()
	var env struct {
		OK          bool            `json:"ok"`
		Result      []models.Update `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("telegram getUpdates: %w", redact(err, t.token))
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("telegram getUpdates: answer %d is not the Bot API's: %.100q", resp.StatusCode, data)
	}
	if !env.OK {
		code := env.ErrorCode
		if code == 0 {
			code = resp.StatusCode
		}
		return nil, &apiError{Code: code, Description: env.Description, RetryAfter: env.Parameters.RetryAfter}
	}
	return env.Result, nil
}

// redact removes the token from an error (URLs in net errors carry it).
func redact(err error, token string) error {
	if err == nil || token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: strings.ReplaceAll(ue.URL, token, "<token>"), Err: ue.Err}
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "<token>"))
}

// retryLater asks for the work item to be deferred: Telegram wants a
// longer pause than a call should sleep through.
type retryLater struct {
	after time.Duration
	err   error
}

func (e *retryLater) Error() string {
	return fmt.Sprintf("%v (retry in %s)", e.err, e.after)
}

func (e *retryLater) Unwrap() error { return e.err }

// call runs one Bot API call for a chat (0: none) within the pace, with
// timeout. fn must build its parameters afresh on every run, because a 429
// answer is retried after retry_after with the same call and uploads
// cannot be replayed.
func (t *telegram) call(ctx context.Context, chatID int64, paced bool, timeout time.Duration, fn func(ctx context.Context) error) error {
	for {
		if err := t.pace.wait(ctx, chatID, paced); err != nil {
			return err
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		err := fn(cctx)
		cancel()
		var tm *bot.TooManyRequestsError
		if !errors.As(err, &tm) {
			return redact(err, t.token)
		}
		wait := time.Duration(max(tm.RetryAfter, 1)) * time.Second
		t.pace.hold(chatID, wait)
		if wait > maxInlineWait {
			return &retryLater{after: wait, err: err}
		}
		t.log.Info("telegram asked to slow down", "chat", chatID, "retry_after", tm.RetryAfter)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// Classifying Bot API errors.

// isBadRequest reports a 400 answer whose description contains any of the
// fragments (none: any 400).
func isBadRequest(err error, fragments ...string) bool {
	if !errors.Is(err, bot.ErrorBadRequest) {
		return false
	}
	if len(fragments) == 0 {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, f := range fragments {
		if strings.Contains(msg, strings.ToLower(f)) {
			return true
		}
	}
	return false
}

// isInvalidFile reports Telegram refusing a file id it no longer knows.
func isInvalidFile(err error) bool {
	return isBadRequest(err, "wrong file identifier", "file_id", "file reference", "wrong remote file", "FILE_ID_INVALID", "type of file mismatch")
}

// isTooLarge reports a file Telegram will not take at its size.
func isTooLarge(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "entity too large") || strings.Contains(msg, "file is too big")
}

// isPermanent reports errors retrying cannot fix: the bot was blocked or
// removed, the chat is gone.
func isPermanent(err error) bool {
	return errors.Is(err, bot.ErrorForbidden) || isBadRequest(err, "chat not found", "bot was kicked", "have no rights", "not enough rights")
}

// limiter paces calls: at most one per perChat per chat and one per
// global overall. Reservations are made in order, so waiting callers keep
// their turn.
type limiter struct {
	perChat time.Duration
	global  time.Duration

	mu         sync.Mutex
	nextGlobal time.Time
	nextChat   map[int64]time.Time
}

func newLimiter(perChat, global time.Duration) *limiter {
	return &limiter{perChat: perChat, global: global, nextChat: map[int64]time.Time{}}
}

// wait sleeps until a call may go: paced calls take a turn in their chat
// and overall, the others only overall.
func (l *limiter) wait(ctx context.Context, chatID int64, paced bool) error {
	l.mu.Lock()
	now := time.Now()
	at := now
	if l.nextGlobal.After(at) {
		at = l.nextGlobal
	}
	if paced && chatID != 0 {
		if next := l.nextChat[chatID]; next.After(at) {
			at = next
		}
		l.nextChat[chatID] = at.Add(l.perChat)
	}
	l.nextGlobal = at.Add(l.global)
	if len(l.nextChat) > 4096 {
		for id, next := range l.nextChat {
			if next.Before(now) {
				delete(l.nextChat, id)
			}
		}
	}
	l.mu.Unlock()
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// hold keeps a chat quiet for d after a 429, so that other work for it
// waits too.
func (l *limiter) hold(chatID int64, d time.Duration) {
	if chatID == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	until := time.Now().Add(d)
	if until.After(l.nextChat[chatID]) {
		l.nextChat[chatID] = until
	}
}
