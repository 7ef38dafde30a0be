-- Watched sources (mirrors migrations/postgres/0015_watches.sql).
--
-- A watch is a tenant's wish to keep every new post of a profile or
-- channel. Watches of one source share a watch_sources row, so the pull
-- reads the source once per run, however many tenants watch it, and fans
-- the new posts out to every active watcher. watch_sources holds only the
-- public source's identity and the pull's state, never a tenant's data.

-- id is the source's public collection id. seen is a JSON array of the
-- links of the newest posts the pull has met (newest first, bounded): a
-- run reads pages until it meets one of them. baselined: the first run,
-- which only learns what is there, has happened. watchers counts the
-- watches on the source (any state), for the watch_max_sources limit.
-- lease_owner/lease_until: the run that holds the source; no two runs of
-- one source overlap. failures counts the runs in a row that failed.
CREATE TABLE watch_sources (
    id            TEXT PRIMARY KEY,
    adapter_id    TEXT NOT NULL,
    provider_id   TEXT NOT NULL,
    platform      TEXT NOT NULL,
    entity_type   TEXT NOT NULL,
    object_scope  TEXT NOT NULL,
    external_id   TEXT NOT NULL,
    url           TEXT NOT NULL,
    seen          TEXT NOT NULL DEFAULT '[]',
    baselined     INTEGER NOT NULL DEFAULT 0,
    watchers      INTEGER NOT NULL DEFAULT 0 CHECK (watchers >= 0),
    next_run_at   DATETIME NOT NULL,
    last_run_at   DATETIME,
    failures      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    lease_owner   TEXT,
    lease_until   DATETIME,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL
);

CREATE INDEX watch_sources_due_idx ON watch_sources (next_run_at) WHERE watchers > 0;

-- A tenant's watch. state: pending (waits for an admin), active, paused
-- (by the watcher, an admin, or itself after failures: paused_reason says
-- which and why), rejected. notify: deliver, digest or none. since_at: only
-- posts after it (NULL: after the watch was made); backfill: since_at is a
-- date in the past, so the first run also takes the posts listed now.
-- started: the watch's first run has happened.
CREATE TABLE watches (
    id               TEXT PRIMARY KEY,
    tenant_id        TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    source_id        TEXT NOT NULL REFERENCES watch_sources (id),
    url              TEXT NOT NULL,
    interval_seconds INTEGER NOT NULL CHECK (interval_seconds > 0),
    notify           TEXT NOT NULL CHECK (notify IN ('deliver', 'digest', 'none')),
    since_at         DATETIME,
    backfill         INTEGER NOT NULL DEFAULT 0,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'active', 'paused', 'rejected')),
    paused_reason    TEXT NOT NULL DEFAULT '',
    started          INTEGER NOT NULL DEFAULT 0,
    new_posts        INTEGER NOT NULL DEFAULT 0,
    last_run_at      DATETIME,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL,
    UNIQUE (tenant_id, source_id)
);

CREATE INDEX watches_source_idx ON watches (source_id, state);
CREATE INDEX watches_state_idx ON watches (state, created_at);

-- One run of a watch: what the source's run found for this watcher. posts
-- is a JSON array, oldest first, of {submission_id, capture_id,
-- collection_id, url}. delivery_state: none (nothing to tell, or notify
-- none), pending (the bot has to deliver or digest posts), done.
CREATE TABLE watch_runs (
    id             TEXT PRIMARY KEY,
    watch_id       TEXT NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    tenant_id      TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    started_at     DATETIME NOT NULL,
    ended_at       DATETIME NOT NULL,
    new_posts      INTEGER NOT NULL DEFAULT 0,
    posts          TEXT NOT NULL DEFAULT '[]',
    error          TEXT NOT NULL DEFAULT '',
    notify         TEXT NOT NULL,
    delivery_state TEXT NOT NULL CHECK (delivery_state IN ('none', 'pending', 'done'))
);

CREATE INDEX watch_runs_watch_idx ON watch_runs (watch_id, started_at);
CREATE INDEX watch_runs_delivery_idx ON watch_runs (tenant_id, delivery_state) WHERE delivery_state = 'pending';
