-- Watched sources (mirrors migrations/sqlite/0014_watches.sql; the
-- comments there describe the columns).
--
-- watches and watch_runs are a tenant's and live under its row-level
-- security; watch_sources holds only a public source's identity and the
-- pull's state and is shared by the core. The pull, which runs for no
-- tenant, finds a source's watchers and operators list every watch through
-- the narrow SECURITY DEFINER functions below.

CREATE TABLE watch_sources (
    id            UUID PRIMARY KEY,
    adapter_id    TEXT NOT NULL,
    provider_id   TEXT NOT NULL,
    platform      TEXT NOT NULL,
    entity_type   TEXT NOT NULL,
    object_scope  TEXT NOT NULL,
    external_id   TEXT NOT NULL,
    url           TEXT NOT NULL,
    seen          TEXT NOT NULL DEFAULT '[]',
    baselined     BOOLEAN NOT NULL DEFAULT false,
    watchers      INTEGER NOT NULL DEFAULT 0 CHECK (watchers >= 0),
    next_run_at   TIMESTAMPTZ NOT NULL,
    last_run_at   TIMESTAMPTZ,
    failures      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    lease_owner   TEXT,
    lease_until   TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE INDEX watch_sources_due_idx ON watch_sources (next_run_at) WHERE watchers > 0;

CREATE TABLE watches (
    id               UUID PRIMARY KEY,
    tenant_id        UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    source_id        UUID NOT NULL REFERENCES watch_sources (id),
    url              TEXT NOT NULL,
    interval_seconds INTEGER NOT NULL CHECK (interval_seconds > 0),
    notify           TEXT NOT NULL CHECK (notify IN ('deliver', 'digest', 'none')),
    since_at         TIMESTAMPTZ,
    backfill         BOOLEAN NOT NULL DEFAULT false,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'active', 'paused', 'rejected')),
    paused_reason    TEXT NOT NULL DEFAULT '',
    started          BOOLEAN NOT NULL DEFAULT false,
    new_posts        INTEGER NOT NULL DEFAULT 0,
    last_run_at      TIMESTAMPTZ,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    UNIQUE (tenant_id, source_id)
);

CREATE INDEX watches_source_idx ON watches (source_id, state);
CREATE INDEX watches_state_idx ON watches (state, created_at);

CREATE TABLE watch_runs (
    id             UUID PRIMARY KEY,
    watch_id       UUID NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    tenant_id      UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    started_at     TIMESTAMPTZ NOT NULL,
    ended_at       TIMESTAMPTZ NOT NULL,
    new_posts      INTEGER NOT NULL DEFAULT 0,
    posts          TEXT NOT NULL DEFAULT '[]',
    error          TEXT NOT NULL DEFAULT '',
    notify         TEXT NOT NULL,
    delivery_state TEXT NOT NULL CHECK (delivery_state IN ('none', 'pending', 'done'))
);

CREATE INDEX watch_runs_watch_idx ON watch_runs (watch_id, started_at);
CREATE INDEX watch_runs_delivery_idx ON watch_runs (tenant_id, delivery_state) WHERE delivery_state = 'pending';


-- ===========================================================================
-- Row-level security
-- ===========================================================================

ALTER TABLE watch_sources ENABLE ROW LEVEL SECURITY;
ALTER TABLE watch_sources FORCE ROW LEVEL SECURITY;
CREATE POLICY watch_sources_shared ON watch_sources FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE watches ENABLE ROW LEVEL SECURITY;
ALTER TABLE watches FORCE ROW LEVEL SECURITY;
CREATE POLICY watches_tenant ON watches FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE watch_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE watch_runs FORCE ROW LEVEL SECURITY;
CREATE POLICY watch_runs_tenant ON watch_runs FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());


-- ===========================================================================
-- Narrow SECURITY DEFINER functions of watches
-- ===========================================================================

-- The pull: the watches of source p_source in state p_state ('' = any),
-- whoever's they are, with the columns of store.watchColumns.
CREATE FUNCTION monitor_watches_of_source(p_source uuid, p_state text)
    RETURNS TABLE (id uuid, tenant_id uuid, source_id uuid, url text, interval_seconds integer, notify text,
                   since_at timestamptz, backfill boolean, state text, paused_reason text, started boolean,
                   new_posts integer, last_run_at timestamptz, last_error text, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT w.id, w.tenant_id, w.source_id, w.url, w.interval_seconds, w.notify, w.since_at, w.backfill, w.state,
           w.paused_reason, w.started, w.new_posts, w.last_run_at, w.last_error, w.created_at, w.updated_at
      FROM watches w
     WHERE w.source_id = p_source AND (p_state = '' OR w.state = p_state)
     ORDER BY w.created_at, w.id;
END;
REVOKE EXECUTE ON FUNCTION monitor_watches_of_source(uuid, text) FROM PUBLIC;

-- Operators: every watch in state p_state ('' = any), oldest first, at
-- most p_limit (the admin surface checks the caller is an admin).
CREATE FUNCTION monitor_watch_list_all(p_state text, p_limit integer)
    RETURNS TABLE (id uuid, tenant_id uuid, source_id uuid, url text, interval_seconds integer, notify text,
                   since_at timestamptz, backfill boolean, state text, paused_reason text, started boolean,
                   new_posts integer, last_run_at timestamptz, last_error text, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT w.id, w.tenant_id, w.source_id, w.url, w.interval_seconds, w.notify, w.since_at, w.backfill, w.state,
           w.paused_reason, w.started, w.new_posts, w.last_run_at, w.last_error, w.created_at, w.updated_at
      FROM watches w
     WHERE p_state = '' OR w.state = p_state
     ORDER BY w.created_at, w.id
     LIMIT p_limit;
END;
REVOKE EXECUTE ON FUNCTION monitor_watch_list_all(text, integer) FROM PUBLIC;

-- Operators act on a watch by id: whose it is.
CREATE FUNCTION monitor_watch_tenant(p_watch uuid)
    RETURNS uuid
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT w.tenant_id FROM watches w WHERE w.id = p_watch;
END;
REVOKE EXECUTE ON FUNCTION monitor_watch_tenant(uuid) FROM PUBLIC;
