-- Web library sign-in (mirrors migrations/postgres/0010_web.sql): what a
-- session shows on the sessions page, one-use login links, and a tenant's
-- language and theme.

-- admin: the session may open /admin. label says how it signed in ("login
-- link", "Telegram", "Mini App"). last_seen_at is updated at most once a
-- minute.
ALTER TABLE web_sessions ADD COLUMN admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1));
ALTER TABLE web_sessions ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE web_sessions ADD COLUMN last_seen_at DATETIME;

-- One-use sign-in links (`monitor admin login-link`, the bot's /web). Only
-- the SHA-256 of the link's token is stored. A used link stays until it
-- would have expired, so opening it again says it was used.
CREATE TABLE web_login_links (
    digest     BLOB PRIMARY KEY CHECK (length(digest) = 32),
    tenant_id  TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    admin      INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
    created_at DATETIME NOT NULL,
    expires_at DATETIME NOT NULL,
    used_at    DATETIME
);

CREATE INDEX web_login_links_tenant_id_idx ON web_login_links (tenant_id);
CREATE INDEX web_login_links_expires_at_idx ON web_login_links (expires_at);

-- The web library's settings of a tenant; '' = automatic (Accept-Language,
-- the system's colour scheme).
CREATE TABLE web_preferences (
    tenant_id  TEXT PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    language   TEXT NOT NULL DEFAULT '' CHECK (language IN ('', 'en', 'zh-CN')),
    theme      TEXT NOT NULL DEFAULT '' CHECK (theme IN ('', 'light', 'dark', 'auto')),
    updated_at DATETIME NOT NULL
);
