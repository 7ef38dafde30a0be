package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// This file holds the web library's sign-in: sessions, one-use login links
// and a tenant's web preferences. A browser's cookie and a login link name
// no tenant, so finding one by its digest, redeeming a link and the
// periodic purge cross tenants: on PostgreSQL they are SECURITY DEFINER
// functions of migrations/postgres/0010_web.sql, on SQLite the plain
// statements below.

// webDialect is the part of dialect that web sign-in needs.
type webDialect interface {
	// webSessionByDigestQuery finds the session with key digest $1 across
	// tenants, with webSessionColumns.
	webSessionByDigestQuery() string
	// loginLinkByDigestQuery finds the login link with token digest $1
	// across tenants, with loginLinkColumns.
	loginLinkByDigestQuery() string
	// loginLinkRedeemQuery marks link $1 used at $2 when it is unused and
	// unexpired, across tenants, returning loginLinkColumns (no row: not
	// redeemed).
	loginLinkRedeemQuery() string
}

const webSessionColumns = `id_digest, tenant_id, csrf_token, admin, label, ip, user_agent, created_at, expires_at, last_seen_at`

const loginLinkColumns = `digest, tenant_id, admin, created_at, expires_at, used_at`

func (sqliteDialect) webSessionByDigestQuery() string {
	return `SELECT ` + webSessionColumns + ` FROM web_sessions WHERE id_digest = $1`
}

func (sqliteDialect) loginLinkByDigestQuery() string {
	return `SELECT ` + loginLinkColumns + ` FROM web_login_links WHERE digest = $1`
}

func (sqliteDialect) loginLinkRedeemQuery() string {
	return `UPDATE web_login_links SET used_at = $2 WHERE digest = $1 AND used_at IS NULL AND expires_at > $2 RETURNING ` + loginLinkColumns
}

func (postgresDialect) webSessionByDigestQuery() string {
	return `SELECT ` + webSessionColumns + ` FROM monitor_web_session_lookup($1)`
}

func (postgresDialect) loginLinkByDigestQuery() string {
	return `SELECT ` + loginLinkColumns + ` FROM monitor_web_login_link_lookup($1)`
}

func (postgresDialect) loginLinkRedeemQuery() string {
	return `SELECT ` + loginLinkColumns + ` FROM monitor_web_login_link_redeem($1, $2)`
}

// WebSession is a signed-in browser. Only the SHA-256 digest of its key is
// stored; the key lives in the browser's cookie.
type WebSession struct {
	Digest   []byte
	TenantID uuid.UUID
	// CSRF is the token every write of the session must carry.
	CSRF string
	// Admin sessions may open the operator console.
	Admin bool
	// Label says how the session signed in ("login link", "Telegram", ...).
	Label     string
	IP        string
	UserAgent string
	CreatedAt time.Time
	// ExpiresAt is fixed when the session is created.
	ExpiresAt time.Time
	// LastSeenAt is when the session was last used (nil: never since it
	// signed in).
	LastSeenAt *time.Time
}

func scanWebSession(row interface{ Scan(...any) error }) (WebSession, error) {
	var s WebSession
	var seen sql.NullTime
	err := row.Scan(&s.Digest, &s.TenantID, &s.CSRF, &s.Admin, &s.Label, &s.IP, &s.UserAgent, &s.CreatedAt, &s.ExpiresAt, &seen)
	if seen.Valid {
		s.LastSeenAt = &seen.Time
	}
	return s, err
}

// WebSessionInsert stores a new session of ws.TenantID (the transaction's
// tenant); a zero CreatedAt is the store's now.
func (tx *Tx) WebSessionInsert(ctx context.Context, ws WebSession) (WebSession, error) {
	if ws.CreatedAt.IsZero() {
		ws.CreatedAt = tx.now()
	}
	ws.CreatedAt, ws.ExpiresAt = utc(ws.CreatedAt), utc(ws.ExpiresAt)
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO web_sessions (id_digest, tenant_id, csrf_token, admin, label, ip, user_agent, created_at, expires_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		ws.Digest, ws.TenantID, ws.CSRF, ws.Admin, ws.Label, ws.IP, ws.UserAgent, ws.CreatedAt, ws.ExpiresAt)
	return ws, wrap(tx.d, "insert web session", err)
}

// WebSessionGetByDigest finds a session by the digest of its key, whichever
// tenant it belongs to, expired or not (the caller checks ExpiresAt).
func (s *Store) WebSessionGetByDigest(ctx context.Context, digest []byte) (ws WebSession, err error) {
	err = s.view(ctx, func(q querier) error {
		ws, err = scanWebSession(q.QueryRowContext(ctx, s.d.webSessionByDigestQuery(), digest))
		return err
	})
	return ws, wrap(s.d, "get web session", err)
}

// WebSessionTouch records that the session was used at `at`, unless it was
// recorded after `since` already: a session read on every request is
// written at most once per interval. Run it as the session's tenant.
func (s *Store) WebSessionTouch(ctx context.Context, digest []byte, at, since time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx,
			`UPDATE web_sessions SET last_seen_at = $2 WHERE id_digest = $1 AND (last_seen_at IS NULL OR last_seen_at < $3)`,
			digest, utc(at), utc(since))
		return wrap(tx.d, "touch web session", err)
	})
}

// WebSessionList lists a tenant's sessions that expire after now, newest
// first.
func (s *Store) WebSessionList(ctx context.Context, tenantID uuid.UUID, now time.Time) ([]WebSession, error) {
	var out []WebSession
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+webSessionColumns+` FROM web_sessions
			WHERE tenant_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id_digest`, tenantID, utc(now))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			ws, err := scanWebSession(rows)
			if err != nil {
				return err
			}
			out = append(out, ws)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list web sessions", err)
}

// WebSessionDelete ends a tenant's session; one that does not exist (or
// is another tenant's) is ErrNotFound.
func (tx *Tx) WebSessionDelete(ctx context.Context, tenantID uuid.UUID, digest []byte) error {
	res, err := tx.tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE id_digest = $1 AND tenant_id = $2`, digest, tenantID)
	if err != nil {
		return wrap(tx.d, "delete web session", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return wrap(tx.d, "delete web session", sql.ErrNoRows)
	}
	return nil
}

// LoginLink is a one-use sign-in link. Only the SHA-256 digest of its token
// is stored.
type LoginLink struct {
	Digest    []byte
	TenantID  uuid.UUID
	Admin     bool
	CreatedAt time.Time
	ExpiresAt time.Time
	// UsedAt is when the link was redeemed (nil: not yet).
	UsedAt *time.Time
}

func scanLoginLink(row interface{ Scan(...any) error }) (LoginLink, error) {
	var l LoginLink
	var used sql.NullTime
	err := row.Scan(&l.Digest, &l.TenantID, &l.Admin, &l.CreatedAt, &l.ExpiresAt, &used)
	if used.Valid {
		l.UsedAt = &used.Time
	}
	return l, err
}

// LoginLinkInsert stores a new login link of l.TenantID (the transaction's
// tenant); a zero CreatedAt is the store's now.
func (tx *Tx) LoginLinkInsert(ctx context.Context, l LoginLink) (LoginLink, error) {
	if l.CreatedAt.IsZero() {
		l.CreatedAt = tx.now()
	}
	l.CreatedAt, l.ExpiresAt = utc(l.CreatedAt), utc(l.ExpiresAt)
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO web_login_links (digest, tenant_id, admin, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		l.Digest, l.TenantID, l.Admin, l.CreatedAt, l.ExpiresAt)
	return l, wrap(tx.d, "insert login link", err)
}

// LoginLinkGetByDigest finds a login link by its token's digest, whichever
// tenant it belongs to, used or expired or not.
func (s *Store) LoginLinkGetByDigest(ctx context.Context, digest []byte) (l LoginLink, err error) {
	err = s.view(ctx, func(q querier) error {
		l, err = scanLoginLink(q.QueryRowContext(ctx, s.d.loginLinkByDigestQuery(), digest))
		return err
	})
	return l, wrap(s.d, "get login link", err)
}

// LoginLinkRedeem redeems the link with this digest at now and signs in
// session ws for the link's tenant, in one transaction: the link is
// marked used only if it is unused and unexpired, so of two browsers
// opening it at once exactly one gets a session. ws's TenantID and Admin
// come from the link. A link that cannot be redeemed (unknown, used or
// expired) is ErrNotFound; LoginLinkGetByDigest tells which.
func (s *Store) LoginLinkRedeem(ctx context.Context, digest []byte, now time.Time, ws WebSession) (LoginLink, WebSession, error) {
	var l LoginLink
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		if l, err = scanLoginLink(tx.tx.QueryRowContext(ctx, s.d.loginLinkRedeemQuery(), digest, utc(now))); err != nil {
			return wrap(tx.d, "redeem login link", err)
		}
		// The rest acts as the link's tenant.
		if q := s.d.tenantSQL(); q != "" {
			if _, err := tx.tx.ExecContext(ctx, q, l.TenantID.String()); err != nil {
				return wrap(tx.d, "redeem login link: set tenant", err)
			}
		}
		ws.TenantID, ws.Admin = l.TenantID, l.Admin
		ws, err = tx.WebSessionInsert(ctx, ws)
		return err
	})
	return l, ws, err
}

// The periodic purge of web sign-in, across tenants (see channelPurgeStep):
// sessions past their expiry, and login links past theirs, used or not. A
// used link stays until then so that opening it again says it was used.
var (
	purgeWebSessions = channelPurgeStep{what: "purge expired web sessions", function: "monitor_web_sessions_purge",
		sqlite: `DELETE FROM web_sessions WHERE id_digest IN (
			SELECT id_digest FROM web_sessions WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)`}
	purgeLoginLinks = channelPurgeStep{what: "purge expired login links", function: "monitor_web_login_links_purge",
		sqlite: `DELETE FROM web_login_links WHERE digest IN (
			SELECT digest FROM web_login_links WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)`}
)

// WebSessionDeleteExpired deletes up to limit sessions that expired before
// cutoff, across tenants, and reports how many it deleted.
func (tx *Tx) WebSessionDeleteExpired(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	return purgeWebSessions.run(ctx, tx, cutoff, limit)
}

// LoginLinkDeleteExpired deletes up to limit login links that expired
// before cutoff, used or not, across tenants, and reports how many it
// deleted.
func (tx *Tx) LoginLinkDeleteExpired(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	return purgeLoginLinks.run(ctx, tx, cutoff, limit)
}

// WebPreferences are a tenant's web library settings; "" = automatic.
type WebPreferences struct {
	TenantID  uuid.UUID
	Language  string
	Theme     string
	UpdatedAt time.Time
}

// WebPreferencesGet reads a tenant's web preferences; a tenant that never
// set any is ErrNotFound.
func (s *Store) WebPreferencesGet(ctx context.Context, tenantID uuid.UUID) (p WebPreferences, err error) {
	err = s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT tenant_id, language, theme, updated_at FROM web_preferences WHERE tenant_id = $1`, tenantID).
			Scan(&p.TenantID, &p.Language, &p.Theme, &p.UpdatedAt)
	})
	return p, wrap(s.d, "get web preferences", err)
}

// WebPreferencesPut stores a tenant's web preferences.
func (tx *Tx) WebPreferencesPut(ctx context.Context, p WebPreferences) error {
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO web_preferences (tenant_id, language, theme, updated_at) VALUES ($1, $2, $3, $4)
		 ON CONFLICT (tenant_id) DO UPDATE SET language = excluded.language, theme = excluded.theme, updated_at = excluded.updated_at`,
		p.TenantID, p.Language, p.Theme, tx.now())
	return wrap(tx.d, "put web preferences", err)
}

// ChannelGetByExternal finds a channel instance by kind and external id
// (a Telegram bot by its user id).
func (s *Store) ChannelGetByExternal(ctx context.Context, kind, externalID string) (c Channel, err error) {
	err = s.view(ctx, func(q querier) error {
		c, err = scanChannel(q.QueryRowContext(ctx, `SELECT `+channelColumns+` FROM channels WHERE kind = $1 AND external_id = $2`, kind, externalID))
		return err
	})
	return c, wrap(s.d, "get channel", err)
}
