-- Media that only an adapter can read (a Telegram session's files, which
-- have no URL) carry the adapter's opaque reference, which core hands back
-- to the adapter's ReadMedia with the capture's credential. It stays with
-- the asset (whose row security already covers it): never shown, never
-- exported.
ALTER TABLE assets ADD COLUMN stream_ref TEXT NOT NULL DEFAULT '';

-- What an account provider asks core to keep per connection and object
-- scope (FetchResponse.scope_cache), handed back with the next fetch of
-- that scope: for Telegram a channel's access hash, which a t.me/c/ link
-- does not carry and which otherwise means reading the account's chat
-- list. It belongs to the account: revoking the connection deletes it,
-- and capsules never export it.
CREATE TABLE connection_peers (
    tenant_id     UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    connection_id UUID NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    object_scope  TEXT NOT NULL,
    value         TEXT NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (connection_id, object_scope)
);

CREATE INDEX connection_peers_tenant_id_idx ON connection_peers (tenant_id);

ALTER TABLE connection_peers ENABLE ROW LEVEL SECURITY;
ALTER TABLE connection_peers FORCE ROW LEVEL SECURITY;
CREATE POLICY connection_peers_tenant ON connection_peers FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());
