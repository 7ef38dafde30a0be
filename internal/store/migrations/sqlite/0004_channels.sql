-- Channel plumbing for the internal channel API (mirrors
-- migrations/postgres/0005_channels.sql).

-- Bot messages that carry buttons, and whose request they answered: a
-- button press on one of them acts only for that identity ("save too"
-- excepted). chat_id and message_id are the platform's ids as text, like
-- submissions.chat_id.
CREATE TABLE channel_messages (
    channel_id  TEXT NOT NULL REFERENCES channels (id),
    chat_id     TEXT NOT NULL,
    message_id  TEXT NOT NULL,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    identity_id TEXT NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (channel_id, chat_id, message_id)
);

CREATE INDEX channel_messages_tenant_id_idx ON channel_messages (tenant_id);
CREATE INDEX channel_messages_identity_id_idx ON channel_messages (identity_id);

-- Whether storing this update created its sender's personal tenant (the
-- channel greets new people differently).
ALTER TABLE inbox ADD COLUMN tenant_created INTEGER NOT NULL DEFAULT 0 CHECK (tenant_created IN (0, 1));

-- One deliver item per submission, whatever retries happen.
CREATE UNIQUE INDEX channel_work_deliver_key ON channel_work (submission_id) WHERE kind = 'deliver';
