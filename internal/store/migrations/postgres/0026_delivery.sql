-- Delivery extras (mirrors migrations/sqlite/0019_delivery.sql): the
-- channels a tenant binds so that each archived post is copied there too.

-- How many channels a tenant may bind (an operator changes it).
ALTER TABLE tenants ADD COLUMN channel_limit INTEGER NOT NULL DEFAULT 1 CHECK (channel_limit >= 0);

-- A channel or supergroup bound through a channel instance (the bot,
-- channel_id). chat_id is the platform's id of the bound chat (Telegram's
-- -100… id); owner_chat_id the private chat of the person who bound it,
-- who is told when it goes away. An unbound binding stays as history
-- (state unbound, unbind_reason manual or channel_gone); a chat is bound
-- to at most one tenant at a time (the partial unique index, which holds
-- across tenants although each sees only its own rows).
CREATE TABLE channel_bindings (
    id            UUID PRIMARY KEY,
    tenant_id     UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    channel_id    UUID NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    identity_id   UUID REFERENCES identities (id) ON DELETE SET NULL,
    chat_id       TEXT NOT NULL CHECK (chat_id <> ''),
    chat_type     TEXT NOT NULL CHECK (chat_type IN ('channel', 'supergroup')),
    username      TEXT NOT NULL DEFAULT '',
    title         TEXT NOT NULL DEFAULT '',
    owner_chat_id TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('active', 'unbound')),
    unbind_reason TEXT NOT NULL DEFAULT '' CHECK (unbind_reason IN ('', 'manual', 'channel_gone')),
    unbound_at    TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE UNIQUE INDEX channel_bindings_active_key ON channel_bindings (channel_id, chat_id) WHERE state = 'active';
CREATE INDEX channel_bindings_tenant_idx ON channel_bindings (tenant_id, state, created_at);

-- A copy of a submission's result to a bound chat: the "copy" work item
-- work_id sends it, with its progress in that item as a delivery's.
CREATE TABLE channel_copies (
    work_id       UUID PRIMARY KEY,
    tenant_id     UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    binding_id    UUID NOT NULL REFERENCES channel_bindings (id) ON DELETE CASCADE,
    submission_id UUID NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    created_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (binding_id, submission_id)
);

CREATE INDEX channel_copies_submission_idx ON channel_copies (submission_id);

ALTER TABLE channel_bindings ENABLE ROW LEVEL SECURITY;
ALTER TABLE channel_bindings FORCE ROW LEVEL SECURITY;
CREATE POLICY channel_bindings_tenant ON channel_bindings FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE channel_copies ENABLE ROW LEVEL SECURITY;
ALTER TABLE channel_copies FORCE ROW LEVEL SECURITY;
CREATE POLICY channel_copies_tenant ON channel_copies FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

-- The bot's messages about a submission, so that a reply to one of them
-- (/cancel, /pin) finds the submission: kind status (the progress
-- message), result (the result's messages in the person's chat) or
-- channel_copy (the first message of a copy in a bound chat; binding_id
-- names it). Only coordinates, never text.
CREATE TABLE sent_messages (
    id            UUID PRIMARY KEY,
    tenant_id     UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    channel_id    UUID NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    chat_id       TEXT NOT NULL,
    message_id    TEXT NOT NULL,
    submission_id UUID NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('status', 'result', 'channel_copy')),
    binding_id    UUID REFERENCES channel_bindings (id) ON DELETE CASCADE,
    created_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (channel_id, chat_id, message_id)
);

CREATE INDEX sent_messages_submission_idx ON sent_messages (submission_id, kind);

-- A submission its person cancelled (/cancel): it delivers nothing more;
-- the capture goes on for everyone else who asked for it.
CREATE TABLE submission_cancels (
    submission_id UUID PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    tenant_id     UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    cancelled_at  TIMESTAMPTZ NOT NULL
);

ALTER TABLE sent_messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE sent_messages FORCE ROW LEVEL SECURITY;
CREATE POLICY sent_messages_tenant ON sent_messages FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE submission_cancels ENABLE ROW LEVEL SECURITY;
ALTER TABLE submission_cancels FORCE ROW LEVEL SECURITY;
CREATE POLICY submission_cancels_tenant ON submission_cancels FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

-- Cloud destinations an operator defines (monitor admin destination add):
-- an rclone remote and path, with the rclone config sealed with the master
-- key (never stored or shown in the clear). tenant_destinations says which
-- tenants may push to one, and each tenant's default.
CREATE TABLE cloud_destinations (
    id            UUID PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE CHECK (name <> ''),
    remote        TEXT NOT NULL CHECK (remote <> ''),
    config_sealed TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE tenant_destinations (
    tenant_id      UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    destination_id UUID NOT NULL REFERENCES cloud_destinations (id) ON DELETE CASCADE,
    is_default     BOOLEAN NOT NULL DEFAULT false,
    created_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, destination_id)
);

CREATE UNIQUE INDEX tenant_destinations_default_key ON tenant_destinations (tenant_id) WHERE is_default;

-- A push of a collection's current revision to a destination (a River
-- job does it, with retries), and each file it uploads: its remote path,
-- bytes, state (uploading, succeeded, failed) and error. A push the bot's
-- /download made waits for its submission's capture (submission_id) and
-- tells the person in notify_chat_id of channel_id how it ended.
CREATE TABLE cloud_pushes (
    id             UUID PRIMARY KEY,
    tenant_id      UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    collection_id  UUID NOT NULL,
    destination_id UUID NOT NULL REFERENCES cloud_destinations (id) ON DELETE CASCADE,
    submission_id  UUID REFERENCES submissions (id) ON DELETE CASCADE,
    channel_id     UUID REFERENCES channels (id) ON DELETE CASCADE,
    notify_chat_id TEXT NOT NULL DEFAULT '',
    remote_dir     TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
    attempts       INTEGER NOT NULL DEFAULT 0,
    error          TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL,
    finished_at    TIMESTAMPTZ
);

CREATE INDEX cloud_pushes_tenant_idx ON cloud_pushes (tenant_id, created_at);
CREATE UNIQUE INDEX cloud_pushes_submission_key ON cloud_pushes (submission_id, destination_id) WHERE submission_id IS NOT NULL;

CREATE TABLE cloud_uploads (
    id          UUID PRIMARY KEY,
    push_id     UUID NOT NULL REFERENCES cloud_pushes (id) ON DELETE CASCADE,
    tenant_id   UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    file_name   TEXT NOT NULL,
    remote_path TEXT NOT NULL,
    bytes       BIGINT NOT NULL DEFAULT 0,
    state       TEXT NOT NULL CHECK (state IN ('uploading', 'succeeded', 'failed')),
    error       TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    UNIQUE (push_id, file_name)
);

-- Destinations are the operator's (read by every tenant's push, sealed);
-- the rest is the tenant's.
ALTER TABLE cloud_destinations ENABLE ROW LEVEL SECURITY;
ALTER TABLE cloud_destinations FORCE ROW LEVEL SECURITY;
CREATE POLICY cloud_destinations_shared ON cloud_destinations FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE tenant_destinations ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_destinations FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_destinations_tenant ON tenant_destinations FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE cloud_pushes ENABLE ROW LEVEL SECURITY;
ALTER TABLE cloud_pushes FORCE ROW LEVEL SECURITY;
CREATE POLICY cloud_pushes_tenant ON cloud_pushes FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE cloud_uploads ENABLE ROW LEVEL SECURITY;
ALTER TABLE cloud_uploads FORCE ROW LEVEL SECURITY;
CREATE POLICY cloud_uploads_tenant ON cloud_uploads FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

-- The operator lookups return the limit too (store.tenantColumns).
DROP FUNCTION monitor_tenant_by_name(text);
CREATE FUNCTION monitor_tenant_by_name(p_name text)
    RETURNS TABLE (id uuid, name text, kind text, status text, quota_bytes bigint, reserved_bytes bigint,
                   submit_interval_seconds integer, daily_limit integer, concurrent_limit integer,
                   last_submit_at timestamptz, last_denied_at timestamptz, last_denied_reason text,
                   created_at timestamptz, updated_at timestamptz, admin boolean, channel_limit integer)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.name, t.kind, t.status, t.quota_bytes, t.reserved_bytes, t.submit_interval_seconds, t.daily_limit,
           t.concurrent_limit, t.last_submit_at, t.last_denied_at, t.last_denied_reason, t.created_at, t.updated_at,
           t.admin, t.channel_limit
      FROM tenants t
     WHERE t.name = p_name;
END;
REVOKE EXECUTE ON FUNCTION monitor_tenant_by_name(text) FROM PUBLIC;

DROP FUNCTION monitor_tenant_list();
CREATE FUNCTION monitor_tenant_list()
    RETURNS TABLE (id uuid, name text, kind text, status text, quota_bytes bigint, reserved_bytes bigint,
                   submit_interval_seconds integer, daily_limit integer, concurrent_limit integer,
                   last_submit_at timestamptz, last_denied_at timestamptz, last_denied_reason text,
                   created_at timestamptz, updated_at timestamptz, admin boolean, channel_limit integer)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.name, t.kind, t.status, t.quota_bytes, t.reserved_bytes, t.submit_interval_seconds, t.daily_limit,
           t.concurrent_limit, t.last_submit_at, t.last_denied_at, t.last_denied_reason, t.created_at, t.updated_at,
           t.admin, t.channel_limit
      FROM tenants t
     ORDER BY t.name;
END;
REVOKE EXECUTE ON FUNCTION monitor_tenant_list() FROM PUBLIC;
