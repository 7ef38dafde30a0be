-- Web library sign-in (mirrors migrations/sqlite/0009_web.sql): what a
-- session shows on the sessions page, one-use login links, and a tenant's
-- language and theme.

-- admin: the session may open /admin. label says how it signed in ("login
-- link", "Telegram", "Mini App"). last_seen_at is updated at most once a
-- minute.
ALTER TABLE web_sessions ADD COLUMN admin BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE web_sessions ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE web_sessions ADD COLUMN last_seen_at TIMESTAMPTZ;

-- One-use sign-in links (`monitor admin login-link`, the bot's /web). Only
-- the SHA-256 of the link's token is stored. A used link stays until it
-- would have expired, so opening it again says it was used.
CREATE TABLE web_login_links (
    digest     BYTEA PRIMARY KEY CHECK (octet_length(digest) = 32),
    tenant_id  UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    admin      BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);

CREATE INDEX web_login_links_tenant_id_idx ON web_login_links (tenant_id);
CREATE INDEX web_login_links_expires_at_idx ON web_login_links (expires_at);

-- The web library's settings of a tenant; '' = automatic (Accept-Language,
-- the system's colour scheme).
CREATE TABLE web_preferences (
    tenant_id  UUID PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    language   TEXT NOT NULL DEFAULT '' CHECK (language IN ('', 'en', 'zh-CN')),
    theme      TEXT NOT NULL DEFAULT '' CHECK (theme IN ('', 'light', 'dark', 'auto')),
    updated_at TIMESTAMPTZ NOT NULL
);


-- ===========================================================================
-- Row-level security
-- ===========================================================================

-- web_sessions has its tenant policy since 0003_security.sql.

ALTER TABLE web_login_links ENABLE ROW LEVEL SECURITY;
ALTER TABLE web_login_links FORCE ROW LEVEL SECURITY;
CREATE POLICY web_login_links_tenant ON web_login_links FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE web_preferences ENABLE ROW LEVEL SECURITY;
ALTER TABLE web_preferences FORCE ROW LEVEL SECURITY;
CREATE POLICY web_preferences_tenant ON web_preferences FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());


-- ===========================================================================
-- Narrow SECURITY DEFINER functions of web sign-in
-- ===========================================================================

-- A browser's cookie names no tenant: the session with this key digest,
-- expired or not (the caller checks expires_at), tells which one it is.
CREATE FUNCTION monitor_web_session_lookup(p_digest bytea)
    RETURNS TABLE (id_digest bytea, tenant_id uuid, csrf_token text, admin boolean, label text, ip text, user_agent text,
                   created_at timestamptz, expires_at timestamptz, last_seen_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
BEGIN ATOMIC
    SELECT s.id_digest, s.tenant_id, s.csrf_token, s.admin, s.label, s.ip, s.user_agent, s.created_at, s.expires_at, s.last_seen_at
      FROM web_sessions s
     WHERE s.id_digest = p_digest;
END;
REVOKE EXECUTE ON FUNCTION monitor_web_session_lookup(bytea) FROM PUBLIC;

-- A login link names no tenant either: the link with this token digest,
-- used or not, so a refusal can say why.
CREATE FUNCTION monitor_web_login_link_lookup(p_digest bytea)
    RETURNS TABLE (digest bytea, tenant_id uuid, admin boolean, created_at timestamptz, expires_at timestamptz, used_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
BEGIN ATOMIC
    SELECT l.digest, l.tenant_id, l.admin, l.created_at, l.expires_at, l.used_at
      FROM web_login_links l
     WHERE l.digest = p_digest;
END;
REVOKE EXECUTE ON FUNCTION monitor_web_login_link_lookup(bytea) FROM PUBLIC;

-- Redeeming a link marks it used at p_now only if it is unused and not
-- expired, in one statement: of two browsers opening it at once, the
-- second waits for the first's row lock, then finds it used. No row back
-- means nothing was redeemed.
CREATE FUNCTION monitor_web_login_link_redeem(p_digest bytea, p_now timestamptz)
    RETURNS TABLE (digest bytea, tenant_id uuid, admin boolean, created_at timestamptz, expires_at timestamptz, used_at timestamptz)
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
BEGIN ATOMIC
    UPDATE web_login_links l
       SET used_at = p_now
     WHERE l.digest = p_digest AND l.used_at IS NULL AND l.expires_at > p_now
    RETURNING l.digest, l.tenant_id, l.admin, l.created_at, l.expires_at, l.used_at;
END;
REVOKE EXECUTE ON FUNCTION monitor_web_login_link_redeem(bytea, timestamptz) FROM PUBLIC;

-- The periodic purge, across tenants: up to p_limit sessions that expired
-- before p_cutoff, oldest first.
CREATE FUNCTION monitor_web_sessions_purge(p_cutoff timestamptz, p_limit integer)
    RETURNS bigint
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
BEGIN ATOMIC
    WITH old AS (
        SELECT s.id_digest
          FROM web_sessions s
         WHERE s.expires_at < p_cutoff
         ORDER BY s.expires_at
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM web_sessions s USING old WHERE s.id_digest = old.id_digest
        RETURNING 1
    )
    SELECT count(*) FROM gone;
END;
REVOKE EXECUTE ON FUNCTION monitor_web_sessions_purge(timestamptz, integer) FROM PUBLIC;

-- Up to p_limit login links that expired before p_cutoff, used or not.
CREATE FUNCTION monitor_web_login_links_purge(p_cutoff timestamptz, p_limit integer)
    RETURNS bigint
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
BEGIN ATOMIC
    WITH old AS (
        SELECT l.digest
          FROM web_login_links l
         WHERE l.expires_at < p_cutoff
         ORDER BY l.expires_at
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM web_login_links l USING old WHERE l.digest = old.digest
        RETURNING 1
    )
    SELECT count(*) FROM gone;
END;
REVOKE EXECUTE ON FUNCTION monitor_web_login_links_purge(timestamptz, integer) FROM PUBLIC;
