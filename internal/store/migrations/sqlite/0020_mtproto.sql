-- Media that only an adapter can read (a Telegram session's files, which
-- have no URL) carry the adapter's opaque reference, which core hands back
-- to the adapter's ReadMedia with the capture's credential. It stays with
-- the asset: never shown, never exported.
ALTER TABLE assets ADD COLUMN stream_ref TEXT NOT NULL DEFAULT '';

-- What an account provider asks core to keep per connection and object
-- scope (FetchResponse.scope_cache), handed back with the next fetch of
-- that scope: for Telegram a channel's access hash, which a t.me/c/ link
-- does not carry and which otherwise means reading the account's chat
-- list. It belongs to the account: revoking the connection deletes it,
-- and capsules never export it.
CREATE TABLE connection_peers (
    tenant_id     TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    connection_id TEXT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    object_scope  TEXT NOT NULL,
    value         TEXT NOT NULL,
    updated_at    DATETIME NOT NULL,
    PRIMARY KEY (connection_id, object_scope)
);
