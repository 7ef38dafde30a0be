-- A tenant's requests to join a chat by invite link through one of its
-- accounts (Spore's /join). Joining is an operator-approved action, off by
-- default (setting telegram_join_enabled): a request waits as pending
-- until an operator approves it (core then asks the adapter's Join) or
-- denies it. The invite is the adapter's stable form of the link, kept for
-- the approval; it is not a secret but is shown only to the tenant and to
-- operators.
CREATE TABLE join_requests (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    connection_id TEXT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    invite        TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL CHECK (state IN ('pending', 'joined', 'requested', 'failed', 'denied')),
    reason        TEXT NOT NULL DEFAULT '',
    channel_url   TEXT NOT NULL DEFAULT '',
    asked_by      TEXT NOT NULL,
    decided_by    TEXT NOT NULL DEFAULT '',
    created_at    DATETIME NOT NULL,
    decided_at    DATETIME,
    updated_at    DATETIME NOT NULL
);

CREATE INDEX join_requests_state_idx ON join_requests (state, created_at);
CREATE INDEX join_requests_tenant_idx ON join_requests (tenant_id, created_at);
-- One pending request per account and invite.
CREATE UNIQUE INDEX join_requests_pending_idx ON join_requests (connection_id, invite) WHERE state = 'pending';
