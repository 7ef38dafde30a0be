-- Delivery extras (mirrors migrations/postgres/0026_delivery.sql): the
-- channels a tenant binds so that each archived post is copied there too.

-- How many channels a tenant may bind (an operator changes it).
ALTER TABLE tenants ADD COLUMN channel_limit INTEGER NOT NULL DEFAULT 1 CHECK (channel_limit >= 0);

-- A channel or supergroup bound through a channel instance (the bot,
-- channel_id). chat_id is the platform's id of the bound chat (Telegram's
-- -100… id); owner_chat_id the private chat of the person who bound it,
-- who is told when it goes away. An unbound binding stays as history
-- (state unbound, unbind_reason manual or channel_gone); a chat is bound
-- to at most one tenant at a time (the partial unique index).
CREATE TABLE channel_bindings (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    channel_id    TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    identity_id   TEXT REFERENCES identities (id) ON DELETE SET NULL,
    chat_id       TEXT NOT NULL CHECK (chat_id <> ''),
    chat_type     TEXT NOT NULL CHECK (chat_type IN ('channel', 'supergroup')),
    username      TEXT NOT NULL DEFAULT '',
    title         TEXT NOT NULL DEFAULT '',
    owner_chat_id TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('active', 'unbound')),
    unbind_reason TEXT NOT NULL DEFAULT '' CHECK (unbind_reason IN ('', 'manual', 'channel_gone')),
    unbound_at    DATETIME,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL
);

CREATE UNIQUE INDEX channel_bindings_active_key ON channel_bindings (channel_id, chat_id) WHERE state = 'active';
CREATE INDEX channel_bindings_tenant_idx ON channel_bindings (tenant_id, state, created_at);

-- A copy of a submission's result to a bound chat: the "copy" work item
-- work_id sends it, with its progress in that item as a delivery's.
CREATE TABLE channel_copies (
    work_id       TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    binding_id    TEXT NOT NULL REFERENCES channel_bindings (id) ON DELETE CASCADE,
    submission_id TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    created_at    DATETIME NOT NULL,
    UNIQUE (binding_id, submission_id)
);

CREATE INDEX channel_copies_submission_idx ON channel_copies (submission_id);

-- The bot's messages about a submission, so that a reply to one of them
-- (/cancel, /pin) finds the submission: kind status (the progress
-- message), result (the result's messages in the person's chat) or
-- channel_copy (the first message of a copy in a bound chat; binding_id
-- names it). Only coordinates, never text.
CREATE TABLE sent_messages (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    channel_id    TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    chat_id       TEXT NOT NULL,
    message_id    TEXT NOT NULL,
    submission_id TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('status', 'result', 'channel_copy')),
    binding_id    TEXT REFERENCES channel_bindings (id) ON DELETE CASCADE,
    created_at    DATETIME NOT NULL,
    UNIQUE (channel_id, chat_id, message_id)
);

CREATE INDEX sent_messages_submission_idx ON sent_messages (submission_id, kind);

-- A submission its person cancelled (/cancel): it delivers nothing more;
-- the capture goes on for everyone else who asked for it.
CREATE TABLE submission_cancels (
    submission_id TEXT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    cancelled_at  DATETIME NOT NULL
);

-- Cloud destinations an operator defines (monitor admin destination add):
-- an rclone remote and path, with the rclone config sealed with the master
-- key (never stored or shown in the clear). tenant_destinations says which
-- tenants may push to one, and each tenant's default.
CREATE TABLE cloud_destinations (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE CHECK (name <> ''),
    remote        TEXT NOT NULL CHECK (remote <> ''),
    config_sealed TEXT NOT NULL,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL
);

CREATE TABLE tenant_destinations (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    destination_id TEXT NOT NULL REFERENCES cloud_destinations (id) ON DELETE CASCADE,
    is_default     INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    created_at     DATETIME NOT NULL,
    PRIMARY KEY (tenant_id, destination_id)
);

CREATE UNIQUE INDEX tenant_destinations_default_key ON tenant_destinations (tenant_id) WHERE is_default = 1;

-- A push of a collection's current revision to a destination (a River
-- job does it, with retries), and each file it uploads: its remote path,
-- bytes, state (uploading, succeeded, failed) and error. A push the bot's
-- /download made waits for its submission's capture (submission_id) and
-- tells the person in notify_chat_id of channel_id how it ended.
CREATE TABLE cloud_pushes (
    id             TEXT PRIMARY KEY,
    tenant_id      TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    collection_id  TEXT NOT NULL,
    destination_id TEXT NOT NULL REFERENCES cloud_destinations (id) ON DELETE CASCADE,
    submission_id  TEXT REFERENCES submissions (id) ON DELETE CASCADE,
    channel_id     TEXT REFERENCES channels (id) ON DELETE CASCADE,
    notify_chat_id TEXT NOT NULL DEFAULT '',
    remote_dir     TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
    attempts       INTEGER NOT NULL DEFAULT 0,
    error          TEXT NOT NULL DEFAULT '',
    created_at     DATETIME NOT NULL,
    finished_at    DATETIME
);

CREATE INDEX cloud_pushes_tenant_idx ON cloud_pushes (tenant_id, created_at);
CREATE UNIQUE INDEX cloud_pushes_submission_key ON cloud_pushes (submission_id, destination_id) WHERE submission_id IS NOT NULL;

CREATE TABLE cloud_uploads (
    id          TEXT PRIMARY KEY,
    push_id     TEXT NOT NULL REFERENCES cloud_pushes (id) ON DELETE CASCADE,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    file_name   TEXT NOT NULL,
    remote_path TEXT NOT NULL,
    bytes       INTEGER NOT NULL DEFAULT 0,
    state       TEXT NOT NULL CHECK (state IN ('uploading', 'succeeded', 'failed')),
    error       TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL,
    finished_at DATETIME,
    UNIQUE (push_id, file_name)
);
