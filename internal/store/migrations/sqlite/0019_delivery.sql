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
