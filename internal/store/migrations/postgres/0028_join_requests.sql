-- A tenant's requests to join a chat by invite link through one of its
-- accounts (mirrors migrations/sqlite/0021_join_requests.sql). Rows are the
-- tenant's, under its row-level security; operators list and act on them
-- through the narrow SECURITY DEFINER functions below.
CREATE TABLE join_requests (
    id            UUID PRIMARY KEY,
    tenant_id     UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    connection_id UUID NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    invite        TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL CHECK (state IN ('pending', 'joined', 'requested', 'failed', 'denied')),
    reason        TEXT NOT NULL DEFAULT '',
    channel_url   TEXT NOT NULL DEFAULT '',
    asked_by      TEXT NOT NULL,
    decided_by    TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    decided_at    TIMESTAMPTZ,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE INDEX join_requests_state_idx ON join_requests (state, created_at);
CREATE INDEX join_requests_tenant_idx ON join_requests (tenant_id, created_at);
CREATE INDEX join_requests_connection_idx ON join_requests (connection_id);
-- One pending request per account and invite.
CREATE UNIQUE INDEX join_requests_pending_idx ON join_requests (connection_id, invite) WHERE state = 'pending';

ALTER TABLE join_requests ENABLE ROW LEVEL SECURITY;
ALTER TABLE join_requests FORCE ROW LEVEL SECURITY;
CREATE POLICY join_requests_tenant ON join_requests FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

-- Operators: every request in state p_state ('' = any), oldest first, at
-- most p_limit (the admin surface checks the caller is an admin).
CREATE FUNCTION monitor_join_request_list_all(p_state text, p_limit integer)
    RETURNS TABLE (id uuid, tenant_id uuid, connection_id uuid, invite text, title text, state text, reason text,
                   channel_url text, asked_by text, decided_by text, created_at timestamptz, decided_at timestamptz,
                   updated_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT j.id, j.tenant_id, j.connection_id, j.invite, j.title, j.state, j.reason, j.channel_url, j.asked_by,
           j.decided_by, j.created_at, j.decided_at, j.updated_at
      FROM join_requests j
     WHERE p_state = '' OR j.state = p_state
     ORDER BY j.created_at, j.id
     LIMIT p_limit;
END;
REVOKE EXECUTE ON FUNCTION monitor_join_request_list_all(text, integer) FROM PUBLIC;

-- Operators act on a request by id: whose it is.
CREATE FUNCTION monitor_join_request_tenant(p_request uuid)
    RETURNS uuid
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT j.tenant_id FROM join_requests j WHERE j.id = p_request;
END;
REVOKE EXECUTE ON FUNCTION monitor_join_request_tenant(uuid) FROM PUBLIC;
