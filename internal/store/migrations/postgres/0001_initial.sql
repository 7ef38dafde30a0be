-- Monitor: initial schema (PostgreSQL, scale mode).
--
-- Applied by the migrator inside one transaction. schema_migrations and River's
-- tables are created elsewhere; the role monitor_app and its grants are made by
-- the migrator after the files. Row-level security is added by 0003_security.sql.
-- This file mirrors migrations/sqlite/0001_initial.sql: the same tables, column
-- names, keys, unique constraints, indexes and checks (the Go queries are
-- shared by both databases).
--
-- Conventions (differences from SQLite):
--   * id and *_id reference columns are UUID (UUIDv7) supplied by the
--     application (no defaults). Platform ids (adapter_id, provider_id,
--     account_id, external_id, chat and message ids) stay TEXT.
--   * Times are TIMESTAMPTZ, written by the application; no SQL defaults.
--     Nullable time = "has not happened yet".
--   * *_json columns are JSONB. Raw bytes are BYTEA. Flags are BOOLEAN.
--     Byte counts and offsets are BIGINT NOT NULL DEFAULT 0, small counters
--     INTEGER.
--   * Free text that may be absent is NOT NULL DEFAULT '' ('' = none). NULL is
--     kept for references and for values where '' would be a real value.
--   * Content rows carry visibility and data_scope: public rows use the all-zero
--     UUID, private rows the owning tenant's id. Content foreign keys include
--     data_scope, so public and private content never reference each other.
--   * Foreign keys between tables that reference each other are DEFERRABLE
--     INITIALLY DEFERRED and added with ALTER TABLE once both tables exist.
--   * ON DELETE CASCADE only where the child belongs wholly to the parent.
--     Everything else must be purged explicitly, children first.


-- ===========================================================================
-- Identity and access
-- ===========================================================================

-- A tenant: the unit of ownership, quota and limits. Personal tenants are
-- created on first contact through a channel, managed ones by an operator.
CREATE TABLE tenants (
    id                      UUID PRIMARY KEY,
    name                    TEXT NOT NULL UNIQUE,
    kind                    TEXT NOT NULL CHECK (kind IN ('personal', 'managed')),
    status                  TEXT NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'enabled', 'disabled', 'archived')),
    note                    TEXT NOT NULL DEFAULT '',
    quota_bytes             BIGINT CHECK (quota_bytes IS NULL OR quota_bytes >= 0), -- NULL = unlimited
    reserved_bytes          BIGINT NOT NULL DEFAULT 0 CHECK (reserved_bytes >= 0),
    -- Submission limits (0 = no limit).
    submit_interval_seconds INTEGER NOT NULL DEFAULT 0 CHECK (submit_interval_seconds >= 0),
    daily_limit             INTEGER NOT NULL DEFAULT 0 CHECK (daily_limit >= 0),
    concurrent_limit        INTEGER NOT NULL DEFAULT 0 CHECK (concurrent_limit >= 0),
    -- Per-minute capture counter (seed 000): captures counted since rate_window_at.
    rate_window_at          TIMESTAMPTZ,
    rate_window_count       INTEGER NOT NULL DEFAULT 0 CHECK (rate_window_count >= 0),
    last_submit_at          TIMESTAMPTZ,
    last_denied_at          TIMESTAMPTZ,
    last_denied_reason      TEXT NOT NULL DEFAULT '',
    archived_at             TIMESTAMPTZ,
    created_at              TIMESTAMPTZ NOT NULL,
    updated_at              TIMESTAMPTZ NOT NULL
);

-- A channel instance (e.g. one Telegram bot) with its persisted polling offset.
-- kind is defined by the channel integration ('telegram', ...), so it is not a
-- closed list here.
CREATE TABLE channels (
    id          UUID PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind <> ''),
    external_id TEXT NOT NULL,
    name        TEXT NOT NULL DEFAULT '',
    next_offset BIGINT NOT NULL DEFAULT 0,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (kind, external_id)
);

-- A channel user bound to a tenant. A tenant may have several identities. The
-- same external user on two channel instances is two identities.
CREATE TABLE identities (
    id           UUID PRIMARY KEY,
    channel_id   UUID NOT NULL REFERENCES channels (id),
    external_id  TEXT NOT NULL,
    tenant_id    UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    username     TEXT NOT NULL DEFAULT '',
    display_name TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (channel_id, external_id)
);

CREATE INDEX identities_tenant_id_idx ON identities (tenant_id);

-- REST API tokens. Only the SHA-256 digest of the token is stored.
CREATE TABLE tokens (
    id           UUID PRIMARY KEY,
    tenant_id    UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name         TEXT NOT NULL DEFAULT '',
    digest       BYTEA NOT NULL UNIQUE CHECK (octet_length(digest) = 32),
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ
);

CREATE INDEX tokens_tenant_id_idx ON tokens (tenant_id);

-- A tenant's account on an upstream platform, used by an adapter's provider.
-- Revoked connections are kept so captures keep their audit trail.
-- credential_id points at the current encrypted credential (NULL after revoke);
-- its foreign key is added below, after account_credentials.
CREATE TABLE connections (
    id                  UUID PRIMARY KEY,
    tenant_id           UUID NOT NULL REFERENCES tenants (id),
    adapter_id          TEXT NOT NULL,
    provider_id         TEXT NOT NULL,
    account_id          TEXT NOT NULL,
    handle              TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL DEFAULT 'active'
                        CHECK (status IN ('active', 'reauth_required', 'revoked')),
    credential_id       UUID,
    credential_revision INTEGER NOT NULL DEFAULT 0 CHECK (credential_revision >= 0),
    checked_at          TIMESTAMPTZ,
    revoked_at          TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    UNIQUE (tenant_id, adapter_id, provider_id, account_id),
    -- Targets for tenant-bound foreign keys.
    UNIQUE (id, tenant_id),
    UNIQUE (id, tenant_id, adapter_id)
);

CREATE INDEX connections_credential_id_idx ON connections (credential_id)
    WHERE credential_id IS NOT NULL;

-- Encrypted account credentials (AES-GCM with AAD = tenant id + record id). The
-- master key never enters the database.
CREATE TABLE account_credentials (
    id            UUID PRIMARY KEY,
    tenant_id     UUID NOT NULL REFERENCES tenants (id),
    connection_id UUID NOT NULL,
    ciphertext    BYTEA NOT NULL,
    nonce         BYTEA NOT NULL,
    key_version   INTEGER NOT NULL CHECK (key_version >= 0),
    revision      INTEGER NOT NULL CHECK (revision >= 0),
    created_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (connection_id, revision),
    UNIQUE (id, tenant_id),
    FOREIGN KEY (connection_id, tenant_id) REFERENCES connections (id, tenant_id)
        ON DELETE CASCADE
);

CREATE INDEX account_credentials_tenant_id_idx ON account_credentials (tenant_id);

ALTER TABLE connections ADD CONSTRAINT connections_credential_id_fkey
    FOREIGN KEY (credential_id, tenant_id) REFERENCES account_credentials (id, tenant_id)
    DEFERRABLE INITIALLY DEFERRED;

-- A tenant's default connection per adapter. The foreign key includes tenant and
-- adapter, so the default must be the tenant's own connection of that adapter.
CREATE TABLE tenant_preferences (
    tenant_id             UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    adapter_id            TEXT NOT NULL,
    default_connection_id UUID NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, adapter_id),
    FOREIGN KEY (default_connection_id, tenant_id, adapter_id)
        REFERENCES connections (id, tenant_id, adapter_id)
);

CREATE INDEX tenant_preferences_default_connection_id_idx
    ON tenant_preferences (default_connection_id);


-- ===========================================================================
-- Content
-- ===========================================================================

-- A post's lasting identity ("this post") and its current revision. Shared by
-- every tenant that saves it inside its data_scope. tenant_id is the creator
-- (write permission, object lifecycle), never the basis of anyone's quota.
-- The current_revision_id foreign key is added after revisions.
CREATE TABLE collections (
    id                  UUID PRIMARY KEY,
    tenant_id           UUID NOT NULL REFERENCES tenants (id),
    visibility          TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    data_scope          UUID NOT NULL,
    access_scope        TEXT NOT NULL,
    platform            TEXT NOT NULL,
    entity_type         TEXT NOT NULL,
    object_scope        TEXT NOT NULL DEFAULT '',
    external_id         TEXT NOT NULL,
    adapter_id          TEXT NOT NULL,
    source_url          TEXT NOT NULL,
    current_revision_id UUID,
    unreferenced_at     TIMESTAMPTZ, -- set when the last tenant_collections row goes
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    CHECK ((visibility = 'public'  AND data_scope = '00000000-0000-0000-0000-000000000000')
        OR (visibility = 'private' AND data_scope = tenant_id)),
    UNIQUE (data_scope, platform, access_scope, entity_type, object_scope, external_id),
    UNIQUE (id, data_scope)
);

CREATE INDEX collections_tenant_id_idx ON collections (tenant_id);
CREATE INDEX collections_current_revision_id_idx ON collections (current_revision_id);
CREATE INDEX collections_unreferenced_at_idx ON collections (unreferenced_at)
    WHERE unreferenced_at IS NOT NULL;

-- One fetch of a collection: provider, connection, state, staged content,
-- reserved bytes, error and the revision it finally used. Submissions of the
-- same (collection, provider, connection, automatic, page) join one in-flight
-- capture. tenant_id is the executing tenant. The revision_id foreign key is
-- added after revisions.
CREATE TABLE captures (
    id                  UUID PRIMARY KEY,
    collection_id       UUID NOT NULL REFERENCES collections (id),
    tenant_id           UUID NOT NULL REFERENCES tenants (id),
    visibility          TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    data_scope          UUID NOT NULL,
    access_scope        TEXT NOT NULL,
    adapter_id          TEXT NOT NULL,
    adapter_version     TEXT NOT NULL DEFAULT '',
    provider_id         TEXT NOT NULL,
    connection_id       UUID,              -- NULL = public provider, no account
    credential_revision INTEGER,           -- credential revision actually used
    state               TEXT NOT NULL DEFAULT 'queued'
                        CHECK (state IN ('queued', 'downloading', 'complete', 'partial', 'failed')),
    staged_json         JSONB,             -- fetched content awaiting finalize (NULL = not fetched)
    page_cursor         TEXT,              -- NULL = first page
    next_page_cursor    TEXT,              -- NULL = no further page
    automatic           BOOLEAN NOT NULL DEFAULT false,
    reserved_bytes      BIGINT NOT NULL DEFAULT 0 CHECK (reserved_bytes >= 0),
    error               TEXT NOT NULL DEFAULT '',
    attempts            INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    revision_id         UUID,
    started_at          TIMESTAMPTZ,
    finished_at         TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    CHECK ((visibility = 'public'  AND data_scope = '00000000-0000-0000-0000-000000000000')
        OR (visibility = 'private' AND data_scope = tenant_id)),
    UNIQUE (id, data_scope),
    FOREIGN KEY (connection_id, tenant_id) REFERENCES connections (id, tenant_id)
);

CREATE INDEX captures_collection_id_idx ON captures (collection_id, created_at);
CREATE INDEX captures_tenant_id_idx ON captures (tenant_id, created_at);
CREATE INDEX captures_connection_id_idx ON captures (connection_id)
    WHERE connection_id IS NOT NULL;
CREATE INDEX captures_revision_id_idx ON captures (revision_id)
    WHERE revision_id IS NOT NULL;
-- At most one in-flight capture per (collection, provider, connection,
-- automatic, page cursor).
CREATE UNIQUE INDEX captures_in_flight_key ON captures (
    collection_id,
    provider_id,
    (COALESCE(connection_id::text, '')),
    automatic,
    (COALESCE(page_cursor, ''))
) WHERE state IN ('queued', 'downloading');

-- A content version of a collection. A capture whose content hash equals an
-- existing revision reuses it and only moves observed_at.
CREATE TABLE revisions (
    id            UUID PRIMARY KEY,
    collection_id UUID NOT NULL,
    data_scope    UUID NOT NULL,
    visibility    TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    capture_id    UUID NOT NULL REFERENCES captures (id),
    content_hash  TEXT NOT NULL,
    content_json  JSONB NOT NULL DEFAULT '{}'::jsonb,
    content_bytes BIGINT NOT NULL DEFAULT 0 CHECK (content_bytes >= 0),
    observed_at   TIMESTAMPTZ NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    CHECK ((visibility = 'public'  AND data_scope =  '00000000-0000-0000-0000-000000000000')
        OR (visibility = 'private' AND data_scope <> '00000000-0000-0000-0000-000000000000')),
    UNIQUE (collection_id, content_hash),
    UNIQUE (id, data_scope),
    FOREIGN KEY (collection_id, data_scope) REFERENCES collections (id, data_scope)
);

CREATE INDEX revisions_collection_id_created_at_idx ON revisions (collection_id, created_at);
CREATE INDEX revisions_capture_id_idx ON revisions (capture_id);

ALTER TABLE collections ADD CONSTRAINT collections_current_revision_id_fkey
    FOREIGN KEY (current_revision_id, data_scope) REFERENCES revisions (id, data_scope)
    DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE captures ADD CONSTRAINT captures_revision_id_fkey
    FOREIGN KEY (revision_id) REFERENCES revisions (id)
    DEFERRABLE INITIALLY DEFERRED;

-- A tenant's saved reference to a collection: what the tenant's quota counts.
-- refresh_connection_id is the tenant's own refresh choice for this collection.
CREATE TABLE tenant_collections (
    tenant_id             UUID NOT NULL REFERENCES tenants (id),
    collection_id         UUID NOT NULL REFERENCES collections (id),
    saved_at              TIMESTAMPTZ NOT NULL,
    refresh_connection_id UUID,
    created_at            TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, collection_id),
    FOREIGN KEY (refresh_connection_id, tenant_id) REFERENCES connections (id, tenant_id)
);

-- Cursor pagination, newest save first.
CREATE INDEX tenant_collections_saved_idx
    ON tenant_collections (tenant_id, saved_at DESC, collection_id DESC);
CREATE INDEX tenant_collections_collection_id_idx ON tenant_collections (collection_id);
CREATE INDEX tenant_collections_refresh_connection_id_idx
    ON tenant_collections (refresh_connection_id)
    WHERE refresh_connection_id IS NOT NULL;

-- One request by someone, and its delivery back where it came from. Several
-- submissions may share a capture. Collection (profile/timeline) submissions
-- spawn automatic child submissions (parent_submission_id) and page chains
-- (next_submission_id).
CREATE TABLE submissions (
    id                     UUID PRIMARY KEY,
    tenant_id              UUID NOT NULL REFERENCES tenants (id),
    capture_id             UUID NOT NULL REFERENCES captures (id),
    collection_id          UUID NOT NULL REFERENCES collections (id),
    identity_id            UUID REFERENCES identities (id),  -- NULL = REST / CLI / web
    channel_id             UUID REFERENCES channels (id),
    chat_id                TEXT,
    reply_to_message_id    TEXT,
    status_message_id      TEXT,
    status_text            TEXT NOT NULL DEFAULT '',
    idem_key               TEXT,                             -- NULL = no idempotency key
    input_url              TEXT NOT NULL,                    -- exactly what the user sent
    automatic              BOOLEAN NOT NULL DEFAULT false,
    parent_submission_id   UUID REFERENCES submissions (id),
    next_submission_id     UUID REFERENCES submissions (id),
    collection_stopped     BOOLEAN NOT NULL DEFAULT false,
    collection_limit       INTEGER CHECK (collection_limit IS NULL OR collection_limit >= 0),
    related_state          TEXT NOT NULL DEFAULT 'none'
                           CHECK (related_state IN ('none', 'pending', 'running', 'done', 'failed')),
    related_error          TEXT NOT NULL DEFAULT '',
    delivery_state         TEXT NOT NULL DEFAULT 'none'
                           CHECK (delivery_state IN ('none', 'pending', 'delivering', 'delivered', 'failed')),
    delivery_progress_json JSONB NOT NULL DEFAULT '{}'::jsonb,
    created_at             TIMESTAMPTZ NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL,
    UNIQUE (tenant_id, idem_key)
);

CREATE INDEX submissions_tenant_id_created_at_idx ON submissions (tenant_id, created_at);
CREATE INDEX submissions_capture_id_idx ON submissions (capture_id);
CREATE INDEX submissions_collection_id_idx ON submissions (collection_id);
CREATE INDEX submissions_identity_id_idx ON submissions (identity_id)
    WHERE identity_id IS NOT NULL;
CREATE INDEX submissions_parent_submission_id_idx ON submissions (parent_submission_id)
    WHERE parent_submission_id IS NOT NULL;
CREATE INDEX submissions_next_submission_id_idx ON submissions (next_submission_id)
    WHERE next_submission_id IS NOT NULL;

-- Lifecycle of a stored object (S3 or file). Recorded as pending before the
-- upload. Duplicates and orphans become garbage and are deleted after the grace
-- period. key is <tenant_id>/objects/<object_id>. (Created before blobs and
-- assets, which reference it; SQLite lists it after them.)
CREATE TABLE objects (
    id         UUID PRIMARY KEY,
    tenant_id  UUID NOT NULL REFERENCES tenants (id),
    key        TEXT NOT NULL UNIQUE,
    state      TEXT NOT NULL DEFAULT 'pending'
               CHECK (state IN ('pending', 'attached', 'garbage', 'deleting')),
    size       BIGINT NOT NULL DEFAULT 0 CHECK (size >= 0),
    sha256     TEXT CHECK (sha256 IS NULL OR (length(sha256) = 64 AND sha256 = lower(sha256))),
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX objects_state_updated_at_idx ON objects (state, updated_at);
CREATE INDEX objects_tenant_id_idx ON objects (tenant_id);

-- Deduplicated media content: one per (data_scope, access_scope, sha256), stored
-- as exactly one object. tenant_id is the creator.
CREATE TABLE blobs (
    id           UUID PRIMARY KEY,
    data_scope   UUID NOT NULL,
    access_scope TEXT NOT NULL,
    visibility   TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    sha256       TEXT NOT NULL CHECK (length(sha256) = 64 AND sha256 = lower(sha256)),
    size         BIGINT NOT NULL DEFAULT 0 CHECK (size >= 0),
    mime         TEXT NOT NULL DEFAULT '',
    object_id    UUID NOT NULL UNIQUE REFERENCES objects (id),
    tenant_id    UUID NOT NULL REFERENCES tenants (id),
    created_at   TIMESTAMPTZ NOT NULL,
    CHECK ((visibility = 'public'  AND data_scope = '00000000-0000-0000-0000-000000000000')
        OR (visibility = 'private' AND data_scope = tenant_id)),
    UNIQUE (data_scope, access_scope, sha256),
    UNIQUE (id, data_scope)
);

CREATE INDEX blobs_tenant_id_idx ON blobs (tenant_id);
CREATE INDEX blobs_sha256_idx ON blobs (sha256);

-- A media reference of a capture: order, source, kind, download state and the
-- blob. purpose '' = shown with the post. Other values attach the resource to
-- the graph entity entity_key (e.g. an avatar). Dimensions/duration 0 = unknown.
CREATE TABLE assets (
    id             UUID PRIMARY KEY,
    capture_id     UUID NOT NULL,
    data_scope     UUID NOT NULL,
    visibility     TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    position       INTEGER NOT NULL CHECK (position >= 0),
    purpose        TEXT NOT NULL DEFAULT '',
    entity_key     TEXT NOT NULL DEFAULT '',
    source_url     TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('image', 'video', 'gif', 'audio', 'document')),
    mime           TEXT NOT NULL DEFAULT '',
    width          INTEGER NOT NULL DEFAULT 0 CHECK (width >= 0),
    height         INTEGER NOT NULL DEFAULT 0 CHECK (height >= 0),
    duration_ms    BIGINT NOT NULL DEFAULT 0 CHECK (duration_ms >= 0),
    alt            TEXT NOT NULL DEFAULT '',
    sensitive      BOOLEAN NOT NULL DEFAULT false,
    cache_key      TEXT NOT NULL DEFAULT '',  -- '' = not cacheable by URL/media id
    state          TEXT NOT NULL DEFAULT 'pending'
                   CHECK (state IN ('pending', 'downloading', 'complete', 'failed', 'unavailable')),
    error          TEXT NOT NULL DEFAULT '',
    blob_id        UUID,
    reserved_bytes BIGINT NOT NULL DEFAULT 0 CHECK (reserved_bytes >= 0),
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    CHECK ((visibility = 'public'  AND data_scope =  '00000000-0000-0000-0000-000000000000')
        OR (visibility = 'private' AND data_scope <> '00000000-0000-0000-0000-000000000000')),
    UNIQUE (capture_id, position),
    FOREIGN KEY (capture_id, data_scope) REFERENCES captures (id, data_scope),
    FOREIGN KEY (blob_id, data_scope) REFERENCES blobs (id, data_scope)
);

CREATE INDEX assets_blob_id_idx ON assets (blob_id) WHERE blob_id IS NOT NULL;
CREATE INDEX assets_cache_key_idx ON assets (data_scope, cache_key) WHERE cache_key <> '';

-- Raw upstream response bodies of a capture (no cookies or auth headers). At
-- most 4 MiB per capture, enforced by the application. Responses fetched
-- with an account are always private. unreferenced_at starts their own
-- retention when the capturing tenant no longer saves the post.
CREATE TABLE source_responses (
    id              UUID PRIMARY KEY,
    capture_id      UUID NOT NULL REFERENCES captures (id),
    tenant_id       UUID NOT NULL REFERENCES tenants (id),
    visibility      TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    data_scope      UUID NOT NULL,
    request_url     TEXT NOT NULL,
    content_type    TEXT NOT NULL DEFAULT '',
    body            BYTEA NOT NULL,
    sha256          TEXT NOT NULL CHECK (length(sha256) = 64 AND sha256 = lower(sha256)),
    size            BIGINT NOT NULL DEFAULT 0 CHECK (size >= 0),
    unreferenced_at TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    CHECK ((visibility = 'public'  AND data_scope = '00000000-0000-0000-0000-000000000000')
        OR (visibility = 'private' AND data_scope = tenant_id))
);

CREATE INDEX source_responses_capture_id_idx ON source_responses (capture_id);
CREATE INDEX source_responses_tenant_id_idx ON source_responses (tenant_id);
CREATE INDEX source_responses_unreferenced_at_idx ON source_responses (unreferenced_at)
    WHERE unreferenced_at IS NOT NULL;

-- An adapter-defined object (e.g. x.post, x.profile) identified like a
-- collection. Public entities are shared, private ones stay in their tenant.
-- The latest_version_id foreign key is added after entity_versions.
CREATE TABLE entities (
    id                UUID PRIMARY KEY,
    data_scope        UUID NOT NULL,
    access_scope      TEXT NOT NULL,
    visibility        TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    platform          TEXT NOT NULL,
    entity_type       TEXT NOT NULL,
    external_id       TEXT NOT NULL,
    tenant_id         UUID NOT NULL REFERENCES tenants (id),
    latest_version_id UUID,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    CHECK ((visibility = 'public'  AND data_scope = '00000000-0000-0000-0000-000000000000')
        OR (visibility = 'private' AND data_scope = tenant_id)),
    UNIQUE (data_scope, platform, access_scope, entity_type, external_id),
    UNIQUE (id, data_scope)
);

CREATE INDEX entities_tenant_id_idx ON entities (tenant_id);
CREATE INDEX entities_latest_version_id_idx ON entities (latest_version_id);

-- A distinct state of an entity: its data, the JSON Schema it was validated
-- against, and a hash over both (plus the referenced media content).
CREATE TABLE entity_versions (
    id           UUID PRIMARY KEY,
    entity_id    UUID NOT NULL,
    data_scope   UUID NOT NULL,
    data_json    JSONB NOT NULL DEFAULT '{}'::jsonb,
    schema_json  JSONB NOT NULL DEFAULT '{}'::jsonb,
    content_hash TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (entity_id, content_hash),
    UNIQUE (id, data_scope),
    FOREIGN KEY (entity_id, data_scope) REFERENCES entities (id, data_scope)
);

ALTER TABLE entities ADD CONSTRAINT entities_latest_version_id_fkey
    FOREIGN KEY (latest_version_id, data_scope) REFERENCES entity_versions (id, data_scope)
    DEFERRABLE INITIALLY DEFERRED;

-- The entity graph of a revision: which entity version each graph key was,
-- and which one is the root.
CREATE TABLE revision_entities (
    revision_id       UUID NOT NULL,
    entity_version_id UUID NOT NULL,
    data_scope        UUID NOT NULL,
    graph_key         TEXT NOT NULL,
    is_root           BOOLEAN NOT NULL DEFAULT false,
    created_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (revision_id, graph_key),
    FOREIGN KEY (revision_id, data_scope) REFERENCES revisions (id, data_scope)
        ON DELETE CASCADE,
    FOREIGN KEY (entity_version_id, data_scope) REFERENCES entity_versions (id, data_scope)
);

CREATE INDEX revision_entities_entity_version_id_idx ON revision_entities (entity_version_id);
-- One root per revision.
CREATE UNIQUE INDEX revision_entities_root_key ON revision_entities (revision_id)
    WHERE is_root;

-- Relations between graph keys of a revision (adapter-defined names such as
-- authored_by). Both endpoints must be entities of the same revision.
CREATE TABLE entity_relations (
    revision_id UUID NOT NULL,
    data_scope  UUID NOT NULL,
    from_key    TEXT NOT NULL,
    relation    TEXT NOT NULL,
    to_key      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (revision_id, from_key, relation, to_key),
    FOREIGN KEY (revision_id, data_scope) REFERENCES revisions (id, data_scope)
        ON DELETE CASCADE,
    FOREIGN KEY (revision_id, from_key) REFERENCES revision_entities (revision_id, graph_key)
        ON DELETE CASCADE,
    FOREIGN KEY (revision_id, to_key) REFERENCES revision_entities (revision_id, graph_key)
        ON DELETE CASCADE
);

CREATE INDEX entity_relations_to_key_idx ON entity_relations (revision_id, to_key);


-- ===========================================================================
-- Channel plumbing
-- ===========================================================================

-- Channel updates (messages, button callbacks) persisted before the offset
-- moves on. (channel_id, update_id) makes redelivery harmless.
CREATE TABLE inbox (
    id           UUID PRIMARY KEY,
    channel_id   UUID NOT NULL REFERENCES channels (id),
    update_id    BIGINT NOT NULL,
    tenant_id    UUID REFERENCES tenants (id),
    identity_id  UUID REFERENCES identities (id),
    kind         TEXT NOT NULL CHECK (kind IN ('message', 'callback')),
    payload_json JSONB NOT NULL DEFAULT '{}'::jsonb,
    state        TEXT NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'processed', 'ignored', 'failed')),
    created_at   TIMESTAMPTZ NOT NULL,
    processed_at TIMESTAMPTZ,
    UNIQUE (channel_id, update_id)
);

CREATE INDEX inbox_tenant_id_idx ON inbox (tenant_id) WHERE tenant_id IS NOT NULL;
CREATE INDEX inbox_identity_id_idx ON inbox (identity_id) WHERE identity_id IS NOT NULL;
CREATE INDEX inbox_created_at_idx ON inbox (created_at);

-- The reply to a command: text, buttons, sent message ids and send state. At
-- most one reply per inbox row. Long replies record each sent part in
-- message_ids_json.
CREATE TABLE replies (
    id                  UUID PRIMARY KEY,
    inbox_id            UUID NOT NULL UNIQUE REFERENCES inbox (id),
    tenant_id           UUID REFERENCES tenants (id),  -- NULL = sender has no tenant
    chat_id             TEXT NOT NULL,
    reply_to_message_id TEXT,
    text                TEXT NOT NULL DEFAULT '',
    buttons_json        JSONB NOT NULL DEFAULT '[]'::jsonb,
    message_ids_json    JSONB NOT NULL DEFAULT '[]'::jsonb,
    state               TEXT NOT NULL DEFAULT 'pending'
                        CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
    attempts            INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    error               TEXT NOT NULL DEFAULT '',
    created_at          TIMESTAMPTZ NOT NULL,
    sent_at             TIMESTAMPTZ
);

CREATE INDEX replies_tenant_id_idx ON replies (tenant_id) WHERE tenant_id IS NOT NULL;
CREATE INDEX replies_state_created_at_idx ON replies (state, created_at);

-- Leased work for a channel process (handle an update, deliver a submission,
-- ...). Leases are renewed every 25 s and expire after 90 s. payload holds
-- tenant-bound ciphertext staged by the channel (e.g. a credential being added)
-- and is cleared when the work ends. kind is defined by the channel integration.
CREATE TABLE channel_work (
    id               UUID PRIMARY KEY,
    channel_id       UUID NOT NULL REFERENCES channels (id),
    kind             TEXT NOT NULL CHECK (kind <> ''),
    inbox_id         UUID REFERENCES inbox (id),
    submission_id    UUID REFERENCES submissions (id),
    tenant_id        UUID REFERENCES tenants (id),
    state            TEXT NOT NULL DEFAULT 'pending'
                     CHECK (state IN ('pending', 'leased', 'done', 'failed')),
    lease_owner      TEXT NOT NULL DEFAULT '',
    lease_expires_at TIMESTAMPTZ,
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    not_before       TIMESTAMPTZ NOT NULL,   -- earliest claim time (= created_at when immediate)
    progress_json    JSONB NOT NULL DEFAULT '{}'::jsonb,
    payload          BYTEA,
    error            TEXT NOT NULL DEFAULT '',
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);

CREATE INDEX channel_work_claim_idx ON channel_work (channel_id, state, not_before);
CREATE INDEX channel_work_lease_expires_at_idx ON channel_work (lease_expires_at)
    WHERE state = 'leased';
CREATE INDEX channel_work_inbox_id_idx ON channel_work (inbox_id)
    WHERE inbox_id IS NOT NULL;
CREATE INDEX channel_work_submission_id_idx ON channel_work (submission_id)
    WHERE submission_id IS NOT NULL;
CREATE INDEX channel_work_tenant_id_idx ON channel_work (tenant_id)
    WHERE tenant_id IS NOT NULL;

-- Remote media references of a channel (e.g. Telegram file_id per bot and
-- representation photo/video/document) for content already uploaded there.
-- Not an authorization source. Values are interpreted by the channel.
CREATE TABLE channel_media_cache (
    channel_kind   TEXT NOT NULL,
    account_id     TEXT NOT NULL,
    hash           TEXT NOT NULL,
    representation TEXT NOT NULL,
    remote_id      TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (channel_kind, account_id, hash, representation)
);


-- ===========================================================================
-- Operator
-- ===========================================================================

-- Submissions per tenant and operator day ('YYYY-MM-DD' in the operator's time
-- zone), and how often an operator reset the day's count.
CREATE TABLE usage_daily (
    tenant_id   UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    day         TEXT NOT NULL CHECK (day LIKE '____-__-__'),
    used        INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
    reset_count INTEGER NOT NULL DEFAULT 0 CHECK (reset_count >= 0),
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, day)
);

-- Changes made by operators and by the system. before/after are business
-- fields only, never secrets.
CREATE TABLE audit_log (
    id          UUID PRIMARY KEY,
    at          TIMESTAMPTZ NOT NULL,
    actor       TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL,
    target      TEXT NOT NULL DEFAULT '',
    before_json JSONB,
    after_json  JSONB,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX audit_log_at_id_idx ON audit_log (at, id);

-- System events, deduplicated by key (count, first/last time). A resolved event
-- reopens when it happens again. last_notified_at drives the notify cooldown.
CREATE TABLE events (
    id               UUID PRIMARY KEY,
    key              TEXT NOT NULL UNIQUE,
    severity         TEXT NOT NULL CHECK (severity IN ('info', 'warn', 'error')),
    message          TEXT NOT NULL,
    count            BIGINT NOT NULL DEFAULT 1 CHECK (count >= 1),
    first_at         TIMESTAMPTZ NOT NULL,
    last_at          TIMESTAMPTZ NOT NULL,
    last_notified_at TIMESTAMPTZ,
    status           TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    resolved_at      TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);

CREATE INDEX events_status_last_at_idx ON events (status, last_at);

-- One row per error in the pipeline or a channel, kept for the retention period.
-- capture_id and tenant_id are plain values, not foreign keys: logs outlive
-- purged captures. No credentials, message text or media URLs.
CREATE TABLE error_logs (
    id           UUID PRIMARY KEY,
    source       TEXT NOT NULL CHECK (source <> ''),
    code         TEXT NOT NULL DEFAULT '',
    stage        TEXT NOT NULL DEFAULT '',
    severity     TEXT NOT NULL DEFAULT 'error' CHECK (severity IN ('warn', 'error')),
    message      TEXT NOT NULL,
    detail       TEXT NOT NULL DEFAULT '',
    context_json JSONB NOT NULL DEFAULT '{}'::jsonb,
    capture_id   UUID,
    tenant_id    UUID,
    created_at   TIMESTAMPTZ NOT NULL
);

CREATE INDEX error_logs_created_at_idx ON error_logs (created_at);
CREATE INDEX error_logs_source_idx ON error_logs (source, created_at);
CREATE INDEX error_logs_code_idx ON error_logs (code, created_at);
CREATE INDEX error_logs_capture_id_idx ON error_logs (capture_id) WHERE capture_id IS NOT NULL;

-- Runtime settings (object_gc_grace_hours, collection_retention_days, ...).
-- Values of secret rows are stored encrypted and never shown.
CREATE TABLE config (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    value_type TEXT NOT NULL DEFAULT 'string'
               CHECK (value_type IN ('string', 'int', 'bool', 'duration', 'json')),
    secret     BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- Web library sessions. Only the SHA-256 digest of the session key is stored.
-- Fixed expiry.
CREATE TABLE web_sessions (
    id_digest  BYTEA PRIMARY KEY CHECK (octet_length(id_digest) = 32),
    tenant_id  UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    csrf_token TEXT NOT NULL,
    ip         TEXT NOT NULL DEFAULT '',
    user_agent TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX web_sessions_expires_at_idx ON web_sessions (expires_at);
CREATE INDEX web_sessions_tenant_id_idx ON web_sessions (tenant_id);

-- Readiness heartbeats: /readyz writes one row per process and reads it back,
-- proving the database accepts a committed write.
CREATE TABLE health_checks (
    instance   TEXT PRIMARY KEY,
    checked_at TIMESTAMPTZ NOT NULL
);
