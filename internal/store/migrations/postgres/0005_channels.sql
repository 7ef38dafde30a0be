-- Channel plumbing for the internal channel API (mirrors
-- migrations/sqlite/0004_channels.sql), and the tenant rules of the channel
-- tables that 0003_security.sql left open.

-- Bot messages that carry buttons, and whose request they answered: a
-- button press on one of them acts only for that identity ("save too"
-- excepted). chat_id and message_id are the platform's ids as text, like
-- submissions.chat_id.
CREATE TABLE channel_messages (
    channel_id  UUID NOT NULL REFERENCES channels (id),
    chat_id     TEXT NOT NULL,
    message_id  TEXT NOT NULL,
    tenant_id   UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    identity_id UUID NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (channel_id, chat_id, message_id)
);

CREATE INDEX channel_messages_tenant_id_idx ON channel_messages (tenant_id);
CREATE INDEX channel_messages_identity_id_idx ON channel_messages (identity_id);

-- Whether storing this update created its sender's personal tenant (the
-- channel greets new people differently).
ALTER TABLE inbox ADD COLUMN tenant_created BOOLEAN NOT NULL DEFAULT false;

-- One deliver item per submission, whatever retries happen.
CREATE UNIQUE INDEX channel_work_deliver_key ON channel_work (submission_id) WHERE kind = 'deliver';


-- ===========================================================================
-- Row-level security
-- ===========================================================================

-- channels and channel_media_cache stay shared (their policies of 0003):
-- channels is global instance configuration (a bot, its polling offset) that
-- belongs to no tenant, and channel_media_cache is a transport cache of
-- remote file references keyed by content hash, never a basis of
-- authorization: before anything is sent, core checks that the person may
-- see the media.

-- Updates, replies and work belong to the tenant of the person they act for.
-- Foreign keys are checked past row-level security, so the write checks also
-- require the referenced identity, inbox row or submission to be one the
-- tenant can see.
DROP POLICY inbox_shared ON inbox;
CREATE POLICY inbox_tenant ON inbox FOR ALL
    USING (tenant_id = monitor_tenant())
    WITH CHECK (tenant_id = monitor_tenant()
        AND (identity_id IS NULL OR EXISTS (SELECT 1 FROM identities i WHERE i.id = identity_id)));

DROP POLICY replies_shared ON replies;
CREATE POLICY replies_tenant ON replies FOR ALL
    USING (tenant_id = monitor_tenant())
    WITH CHECK (tenant_id = monitor_tenant()
        AND EXISTS (SELECT 1 FROM inbox b WHERE b.id = inbox_id));

DROP POLICY channel_work_shared ON channel_work;
CREATE POLICY channel_work_tenant ON channel_work FOR ALL
    USING (tenant_id = monitor_tenant())
    WITH CHECK (tenant_id = monitor_tenant()
        AND (inbox_id IS NULL OR EXISTS (SELECT 1 FROM inbox b WHERE b.id = inbox_id))
        AND (submission_id IS NULL OR EXISTS (SELECT 1 FROM submissions s WHERE s.id = submission_id)));

ALTER TABLE channel_messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE channel_messages FORCE ROW LEVEL SECURITY;
CREATE POLICY channel_messages_tenant ON channel_messages FOR ALL
    USING (tenant_id = monitor_tenant())
    WITH CHECK (tenant_id = monitor_tenant()
        AND EXISTS (SELECT 1 FROM identities i WHERE i.id = identity_id));


-- ===========================================================================
-- Narrow SECURITY DEFINER functions of the channel API
-- ===========================================================================

-- Identity resolution, before the tenant is known: the identity of an
-- external user on a channel instance. Creating a missing one (with its
-- personal tenant) runs as the new tenant.
CREATE FUNCTION monitor_identity_lookup(p_channel uuid, p_external text)
    RETURNS TABLE (id uuid, channel_id uuid, external_id text, tenant_id uuid, username text, display_name text,
                   created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT i.id, i.channel_id, i.external_id, i.tenant_id, i.username, i.display_name, i.created_at, i.updated_at
      FROM identities i
     WHERE i.channel_id = p_channel AND i.external_id = p_external;
END;
REVOKE EXECUTE ON FUNCTION monitor_identity_lookup(uuid, text) FROM PUBLIC;

-- A channel process leases up to p_max items of its channel that are ready
-- at p_now, until p_expires: pending ones whose time has come, and leased
-- ones whose lease ran out. Rows another claimer holds are skipped, so concurrent claimers
-- never get the same item. Everything after the claim runs as the item's
-- tenant.
CREATE FUNCTION monitor_channel_work_claim(p_channel uuid, p_owner text, p_max integer, p_now timestamptz, p_expires timestamptz)
    RETURNS TABLE (id uuid, channel_id uuid, kind text, inbox_id uuid, submission_id uuid, tenant_id uuid, state text,
                   lease_owner text, lease_expires_at timestamptz, attempts integer, not_before timestamptz,
                   progress_json jsonb, error text, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    WITH ready AS (
        SELECT r.id
          FROM channel_work r
         WHERE r.channel_id = p_channel
           AND ((r.state = 'pending' AND r.not_before <= p_now)
             OR (r.state = 'leased' AND r.lease_expires_at < p_now))
         ORDER BY r.not_before, r.id
         LIMIT p_max
           FOR UPDATE SKIP LOCKED
    )
    UPDATE channel_work w
       SET state = 'leased', lease_owner = p_owner,
           lease_expires_at = p_expires,
           attempts = w.attempts + 1, updated_at = p_now
      FROM ready
     WHERE w.id = ready.id
    RETURNING w.id, w.channel_id, w.kind, w.inbox_id, w.submission_id, w.tenant_id, w.state, w.lease_owner,
              w.lease_expires_at, w.attempts, w.not_before, w.progress_json, w.error, w.created_at, w.updated_at;
END;
REVOKE EXECUTE ON FUNCTION monitor_channel_work_claim(uuid, text, integer, timestamptz, timestamptz) FROM PUBLIC;

-- The tenant a work item acts for, so that a call naming the item can run
-- as that tenant.
CREATE FUNCTION monitor_channel_work_tenant(p_work uuid)
    RETURNS TABLE (tenant_id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT w.tenant_id FROM channel_work w WHERE w.id = p_work;
END;
REVOKE EXECUTE ON FUNCTION monitor_channel_work_tenant(uuid) FROM PUBLIC;

-- Marking a finished capture's channel submissions deliverable now also
-- wakes their deliver items, which may be waiting for a later retry.
CREATE OR REPLACE FUNCTION monitor_capture_mark_deliverable(p_capture uuid)
    RETURNS void
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    UPDATE submissions
       SET delivery_state = 'pending', updated_at = now()
     WHERE capture_id = p_capture
       AND channel_id IS NOT NULL
       AND delivery_state = 'none';
    UPDATE channel_work
       SET not_before = now(), updated_at = now()
     WHERE kind = 'deliver'
       AND state = 'pending'
       AND not_before > now()
       AND submission_id IN (SELECT s.id FROM submissions s WHERE s.capture_id = p_capture);
END;
REVOKE EXECUTE ON FUNCTION monitor_capture_mark_deliverable(uuid) FROM PUBLIC;
