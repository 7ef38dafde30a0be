package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// This file holds the web library's sessions and one-use login links
// (seed 000 "Web 收藏库"): a random key in the browser's cookie, only its
// SHA-256 stored, a fixed expiry, and a CSRF token per session.

// WebSessionTTL is a session's fixed lifetime.
const WebSessionTTL = 30 * 24 * time.Hour

// DefaultLoginLinkTTL is how long a login link works when no --ttl is given.
const DefaultLoginLinkTTL = 15 * time.Minute

// The range of a login link's lifetime.
const (
	MinLoginLinkTTL = time.Minute
	MaxLoginLinkTTL = 7 * 24 * time.Hour
)

// webTouchInterval is how often a session in use records that it was seen.
const webTouchInterval = time.Minute

// Labels of sessions: how they signed in.
const (
	LabelLoginLink = "login link"
	LabelTelegram  = "Telegram"
	LabelMiniApp   = "Mini App"
)

// WebClient describes the browser signing in (shown on the sessions page).
type WebClient struct{ IP, UserAgent string }

// WebSession is a signed-in browser.
type WebSession struct {
	// ID is the public handle for the sessions page: hex of the digest's
	// first 8 bytes.
	ID         string
	TenantID   uuid.UUID
	TenantName string
	Admin      bool
	// CSRF is the session's CSRF token (random, 32 bytes base64url).
	CSRF          string
	Label         string
	IP, UserAgent string
	CreatedAt     time.Time
	ExpiresAt     time.Time
	LastSeenAt    *time.Time
}

// Why a login link is refused. Both also match ErrInvalid.
var (
	ErrLoginLinkExpired = errors.New("this sign-in link has expired")
	ErrLoginLinkUsed    = errors.New("this sign-in link was already used")
)

// newSecret is 32 random bytes, base64url without padding (43 characters).
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// isSecret reports whether s has the shape newSecret gives, so anything
// else is refused before it reaches the database.
func isSecret(s string) bool {
	if len(s) != 43 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}

func webSessionID(digest []byte) string {
	if len(digest) < 8 {
		return hex.EncodeToString(digest)
	}
	return hex.EncodeToString(digest[:8])
}

func webSessionView(s store.WebSession, tenantName string) WebSession {
	return WebSession{ID: webSessionID(s.Digest), TenantID: s.TenantID, TenantName: tenantName, Admin: s.Admin, CSRF: s.CSRF,
		Label: s.Label, IP: s.IP, UserAgent: s.UserAgent, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt, LastSeenAt: s.LastSeenAt}
}

// checkLoginLinkTTL accepts 1 minute to 7 days.
func checkLoginLinkTTL(ttl time.Duration) error {
	if ttl < MinLoginLinkTTL || ttl > MaxLoginLinkTTL {
		return errorf(ErrInvalid, "a sign-in link works from 1 minute to 7 days (168h), not %s; use e.g. --ttl 15m, 2h or 72h", ttl)
	}
	return nil
}

// CreateLoginLink makes a one-use sign-in link for the named tenant that
// works for ttl (0: DefaultLoginLinkTTL), and returns its URL and expiry.
// Only the digest of the link's token is kept; the creation is audited
// without it.
func (a *App) CreateLoginLink(ctx context.Context, actor, tenantName string, admin bool, ttl time.Duration) (string, time.Time, error) {
	t, err := a.tenantByName(ctx, tenantName)
	if isNotFound(err) {
		return "", time.Time{}, errorf(ErrNotFound, "%v", err)
	}
	if err != nil {
		return "", time.Time{}, err
	}
	return a.createLoginLink(ctx, actor, t, admin, ttl)
}

// LoginLinkURL makes a one-use sign-in link, never an admin's, for a
// tenant known by id: what the bot's /web command and `serve --demo` hand
// out.
func (a *App) LoginLinkURL(ctx context.Context, tenantID uuid.UUID, ttl time.Duration) (string, time.Time, error) {
	t, err := a.store.TenantGetByID(store.WithTenant(ctx, tenantID), tenantID)
	if isNotFound(err) {
		return "", time.Time{}, errorf(ErrNotFound, "no tenant %s", tenantID)
	}
	if err != nil {
		return "", time.Time{}, err
	}
	return a.createLoginLink(ctx, ActorSystem, t, false, ttl)
}

func (a *App) createLoginLink(ctx context.Context, actor string, t store.Tenant, admin bool, ttl time.Duration) (string, time.Time, error) {
	if ttl == 0 {
		ttl = DefaultLoginLinkTTL
	}
	if err := checkLoginLinkTTL(ttl); err != nil {
		return "", time.Time{}, err
	}
	if err := webTenantActive(t); err != nil {
		return "", time.Time{}, err
	}
	base, err := a.webBaseURL(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	token := newSecret()
	now := a.now().UTC()
	ctx = store.WithTenant(ctx, t.ID)
	var l store.LoginLink
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		l, err = tx.LoginLinkInsert(ctx, store.LoginLink{Digest: TokenDigest(token), TenantID: t.ID, Admin: admin, CreatedAt: now, ExpiresAt: now.Add(ttl)})
		if err != nil {
			return err
		}
		return audit(ctx, tx, actor, "web.login_link.create", "tenant:"+t.Name, nil,
			map[string]any{"admin": admin, "expires_at": l.ExpiresAt})
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return base + "/login/" + token, l.ExpiresAt, nil
}

// SetHTTPAddr replaces Deps.HTTPAddr with the address the HTTP server
// actually bound (a configured port 0 is a free one). Call it before the
// business layer serves anything.
func (a *App) SetHTTPAddr(addr string) { a.httpAddr = addr }

// webBaseURL is the web_base_url setting, else http:// and the HTTP listen
// address (an unspecified host, such as 0.0.0.0, as localhost).
func (a *App) webBaseURL(ctx context.Context) (string, error) {
	s, err := a.Settings(ctx)
	if err != nil {
		return "", err
	}
	if s.WebBaseURL != "" {
		return s.WebBaseURL, nil
	}
	host, port, err := net.SplitHostPort(a.httpAddr)
	if a.httpAddr == "" || err != nil {
		return "", errorf(ErrInvalid, "cannot tell the web library's address: set it with `monitor admin config set web_base_url https://HOST`")
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// checkWebBaseURL accepts an absolute http(s) URL with a host and at most a
// path prefix.
func checkWebBaseURL(v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("must be an absolute http or https URL such as https://monitor.example.org")
	case u.User != nil:
		return fmt.Errorf("must not carry a user name or password")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(v, "#"):
		return fmt.Errorf("must not have a query or fragment; only a path prefix such as https://example.org/monitor")
	}
	return nil
}

// webTenantActive refuses a tenant that may not sign in: one awaiting
// approval, disabled or archived.
func webTenantActive(t store.Tenant) error {
	if t.Status == store.TenantEnabled {
		return nil
	}
	why := "is " + t.Status
	if t.Status == store.TenantPending {
		why = "awaits an operator's approval"
	}
	return errorf(fmt.Errorf("%w: %w", ErrForbidden, ErrTenantNotActive), "the account %s %s, so it cannot sign in to the web library yet", t.Name, why)
}

// clientFields bounds what a browser says about itself.
func clientFields(c WebClient) (ip, userAgent string) { return clip(c.IP, 64), clip(c.UserAgent, 256) }

// RedeemLoginLink signs a browser in with a login link's token and returns
// the new session's key (for the cookie) and the session. A token that is
// not a link is ErrNotFound; an expired link ErrLoginLinkExpired, a used
// one ErrLoginLinkUsed (both also ErrInvalid). Of two browsers opening one
// link at once, exactly one is signed in.
func (a *App) RedeemLoginLink(ctx context.Context, token string, c WebClient) (string, WebSession, error) {
	notFound := errorf(ErrNotFound, "this sign-in link is not valid; ask for a new one")
	if !isSecret(token) {
		return "", WebSession{}, notFound
	}
	digest := TokenDigest(token)
	now := a.now().UTC()
	l, err := a.store.LoginLinkGetByDigest(ctx, digest)
	if isNotFound(err) {
		return "", WebSession{}, notFound
	}
	if err != nil {
		return "", WebSession{}, err
	}
	if err := loginLinkRefusal(l, now); err != nil {
		return "", WebSession{}, err
	}
	t, err := a.store.TenantGetByID(store.WithTenant(ctx, l.TenantID), l.TenantID)
	if err != nil {
		return "", WebSession{}, err
	}
	if err := webTenantActive(t); err != nil {
		return "", WebSession{}, err
	}
	key, ws := newWebSession(now, LabelLoginLink, c)
	_, ws, err = a.store.LoginLinkRedeem(ctx, digest, now, ws)
	if isNotFound(err) {
		// Another browser redeemed it (or it expired) since the look-up.
		if l, err := a.store.LoginLinkGetByDigest(ctx, digest); err == nil {
			if err := loginLinkRefusal(l, now); err != nil {
				return "", WebSession{}, err
			}
		}
		return "", WebSession{}, errorf(fmt.Errorf("%w: %w", ErrInvalid, ErrLoginLinkUsed), "%s; ask for a new one", ErrLoginLinkUsed)
	}
	if err != nil {
		return "", WebSession{}, err
	}
	return key, webSessionView(ws, t.Name), nil
}

// loginLinkRefusal says why a link no longer works (nil: it does).
func loginLinkRefusal(l store.LoginLink, now time.Time) error {
	switch {
	case l.UsedAt != nil:
		return errorf(fmt.Errorf("%w: %w", ErrInvalid, ErrLoginLinkUsed), "%s; each link signs in once, so ask for a new one", ErrLoginLinkUsed)
	case !now.Before(l.ExpiresAt):
		return errorf(fmt.Errorf("%w: %w", ErrInvalid, ErrLoginLinkExpired), "%s (it worked until %s); ask for a new one", ErrLoginLinkExpired, l.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// newWebSession is a fresh session's key and row (tenant not set yet).
func newWebSession(now time.Time, label string, c WebClient) (string, store.WebSession) {
	key := newSecret()
	ip, ua := clientFields(c)
	return key, store.WebSession{Digest: TokenDigest(key), CSRF: newSecret(), Label: label, IP: ip, UserAgent: ua,
		CreatedAt: now, ExpiresAt: now.Add(WebSessionTTL)}
}

// startWebSession signs a browser in for an enabled tenant.
func (a *App) startWebSession(ctx context.Context, t store.Tenant, label string, c WebClient) (string, WebSession, error) {
	if err := webTenantActive(t); err != nil {
		return "", WebSession{}, err
	}
	key, ws := newWebSession(a.now().UTC(), label, c)
	ws.TenantID = t.ID
	ctx = store.WithTenant(ctx, t.ID)
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		ws, err = tx.WebSessionInsert(ctx, ws)
		return err
	})
	if err != nil {
		return "", WebSession{}, err
	}
	return key, webSessionView(ws, t.Name), nil
}

// WebSession finds the session of a cookie's key. An unknown or expired
// key, or one whose tenant is no longer enabled, wraps ErrUnauthorized.
// Using a session records when it was last seen, at most once a minute.
func (a *App) WebSession(ctx context.Context, key string) (WebSession, error) {
	ended := errorf(ErrUnauthorized, "your session has ended; sign in again")
	if !isSecret(key) {
		return WebSession{}, ended
	}
	digest := TokenDigest(key)
	s, err := a.store.WebSessionGetByDigest(ctx, digest)
	if isNotFound(err) {
		return WebSession{}, ended
	}
	if err != nil {
		return WebSession{}, err
	}
	now := a.now().UTC()
	if !now.Before(s.ExpiresAt) {
		return WebSession{}, ended
	}
	tctx := store.WithTenant(ctx, s.TenantID)
	t, err := a.store.TenantGetByID(tctx, s.TenantID)
	if isNotFound(err) {
		return WebSession{}, ended
	}
	if err != nil {
		return WebSession{}, err
	}
	if t.Status != store.TenantEnabled {
		return WebSession{}, errorf(ErrUnauthorized, "the account %s is %s; sign in again once it is enabled", t.Name, t.Status)
	}
	if s.LastSeenAt == nil || now.Sub(*s.LastSeenAt) >= webTouchInterval {
		if err := a.store.WebSessionTouch(tctx, digest, now, now.Add(-webTouchInterval)); err != nil {
			return WebSession{}, err
		}
		s.LastSeenAt = &now
	}
	return webSessionView(s, t.Name), nil
}

// WebSessions lists a tenant's unexpired sessions, newest first.
func (a *App) WebSessions(ctx context.Context, tenantID uuid.UUID) ([]WebSession, error) {
	ctx = store.WithTenant(ctx, tenantID)
	t, err := a.store.TenantGetByID(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	rows, err := a.store.WebSessionList(ctx, tenantID, a.now())
	if err != nil {
		return nil, err
	}
	out := make([]WebSession, 0, len(rows))
	for _, r := range rows {
		out = append(out, webSessionView(r, t.Name))
	}
	return out, nil
}

// RevokeWebSession signs out one of the tenant's sessions by its ID; an ID
// that is not one of the tenant's unexpired sessions is ErrNotFound.
func (a *App) RevokeWebSession(ctx context.Context, tenantID uuid.UUID, id string) error {
	ctx = store.WithTenant(ctx, tenantID)
	rows, err := a.store.WebSessionList(ctx, tenantID, a.now())
	if err != nil {
		return err
	}
	for _, r := range rows {
		if webSessionID(r.Digest) != id {
			continue
		}
		err := a.store.InTx(ctx, func(tx *store.Tx) error { return tx.WebSessionDelete(ctx, tenantID, r.Digest) })
		if isNotFound(err) {
			break
		}
		return err
	}
	return errorf(ErrNotFound, "no session %q; it may have ended already", clip(id, 32))
}

// EndWebSession signs the session of a cookie's key out (logout); an
// unknown key is not an error.
func (a *App) EndWebSession(ctx context.Context, key string) error {
	if !isSecret(key) {
		return nil
	}
	digest := TokenDigest(key)
	s, err := a.store.WebSessionGetByDigest(ctx, digest)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx = store.WithTenant(ctx, s.TenantID)
	err = a.store.InTx(ctx, func(tx *store.Tx) error { return tx.WebSessionDelete(ctx, s.TenantID, digest) })
	if isNotFound(err) {
		return nil
	}
	return err
}

// PurgeWebSessions deletes expired sessions and expired login links (used
// or not), across tenants, and reports how many of each it deleted.
func (a *App) PurgeWebSessions(ctx context.Context) (sessions, links int64, err error) {
	now := a.now()
	for _, step := range []struct {
		n   *int64
		del func(*store.Tx, context.Context, time.Time, int) (int64, error)
	}{
		{&sessions, (*store.Tx).WebSessionDeleteExpired},
		{&links, (*store.Tx).LoginLinkDeleteExpired},
	} {
		for {
			var n int64
			err := a.store.InTx(ctx, func(tx *store.Tx) error {
				var err error
				n, err = step.del(tx, ctx, now, purgeBatch)
				return err
			})
			*step.n += n
			if err != nil {
				return sessions, links, err
			}
			if n < purgeBatch {
				break
			}
		}
	}
	return sessions, links, nil
}

// WebPreferences are a tenant's web library settings; "" = automatic
// (the browser's language, the system's colour scheme).
type WebPreferences struct{ Language, Theme string }

// WebPreferences reads a tenant's web preferences (all automatic when
// never set).
func (a *App) WebPreferences(ctx context.Context, tenantID uuid.UUID) (WebPreferences, error) {
	p, err := a.store.WebPreferencesGet(store.WithTenant(ctx, tenantID), tenantID)
	if isNotFound(err) {
		return WebPreferences{}, nil
	}
	if err != nil {
		return WebPreferences{}, err
	}
	return WebPreferences{Language: p.Language, Theme: p.Theme}, nil
}

// SetWebPreferences stores a tenant's web preferences; a language or theme
// the library does not know is ErrInvalid.
func (a *App) SetWebPreferences(ctx context.Context, tenantID uuid.UUID, p WebPreferences) error {
	switch p.Language {
	case "", "en", "zh-CN":
	default:
		return errorf(ErrInvalid, "language %q is not offered; choose en (English), zh-CN (简体中文) or automatic", clip(p.Language, 32))
	}
	switch p.Theme {
	case "", "light", "dark", "auto":
	default:
		return errorf(ErrInvalid, "theme %q is not offered; choose light, dark or auto", clip(p.Theme, 32))
	}
	ctx = store.WithTenant(ctx, tenantID)
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.WebPreferencesPut(ctx, store.WebPreferences{TenantID: tenantID, Language: p.Language, Theme: p.Theme})
	})
}

// purgeWebSessionsWorker runs PurgeWebSessions for the periodic job
// (queue.Schedule: hourly and at start).
type purgeWebSessionsWorker struct {
	river.WorkerDefaults[queue.PurgeWebSessionsArgs]
	app *App
}

func (w *purgeWebSessionsWorker) Work(ctx context.Context, _ *river.Job[queue.PurgeWebSessionsArgs]) error {
	sessions, links, err := w.app.PurgeWebSessions(ctx)
	if sessions+links > 0 {
		w.app.log.InfoContext(ctx, "purged expired web sessions and login links", slog.Int64("sessions", sessions), slog.Int64("links", links))
	}
	return err
}
