-- The operator side: admin tokens, error codes on captures, error logs per
-- submission.

-- An admin token may call /v1/admin/... besides acting for its tenant.
ALTER TABLE tokens ADD COLUMN admin BOOLEAN NOT NULL DEFAULT false;

-- A machine-readable reason next to the human one, e.g. INTERRUPTED.
ALTER TABLE captures ADD COLUMN error_code TEXT NOT NULL DEFAULT '';

ALTER TABLE error_logs ADD COLUMN submission_id UUID;

CREATE INDEX objects_gc_idx ON objects (state, created_at);

-- Token authentication now also says whether the token is an admin's.
DROP FUNCTION monitor_token_lookup(bytea);
CREATE FUNCTION monitor_token_lookup(p_digest bytea)
    RETURNS TABLE (token_id uuid, tenant_id uuid, name text, created_at timestamptz, revoked_at timestamptz, admin boolean)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.tenant_id, t.name, t.created_at, t.revoked_at, t.admin
      FROM tokens t
     WHERE t.digest = p_digest;
END;
REVOKE EXECUTE ON FUNCTION monitor_token_lookup(bytea) FROM PUBLIC;

-- Operator lookup by name now returns the tenant's limits too.
DROP FUNCTION monitor_tenant_by_name(text);
CREATE FUNCTION monitor_tenant_by_name(p_name text)
    RETURNS TABLE (id uuid, name text, kind text, status text, quota_bytes bigint, reserved_bytes bigint,
                   submit_interval_seconds integer, daily_limit integer, concurrent_limit integer,
                   last_submit_at timestamptz, last_denied_at timestamptz, last_denied_reason text,
                   created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.name, t.kind, t.status, t.quota_bytes, t.reserved_bytes, t.submit_interval_seconds, t.daily_limit,
           t.concurrent_limit, t.last_submit_at, t.last_denied_at, t.last_denied_reason, t.created_at, t.updated_at
      FROM tenants t
     WHERE t.name = p_name;
END;
REVOKE EXECUTE ON FUNCTION monitor_tenant_by_name(text) FROM PUBLIC;

-- Operators list every tenant (the admin surface checks the caller is an
-- admin before it asks).
CREATE FUNCTION monitor_tenant_list()
    RETURNS TABLE (id uuid, name text, kind text, status text, quota_bytes bigint, reserved_bytes bigint,
                   submit_interval_seconds integer, daily_limit integer, concurrent_limit integer,
                   last_submit_at timestamptz, last_denied_at timestamptz, last_denied_reason text,
                   created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.name, t.kind, t.status, t.quota_bytes, t.reserved_bytes, t.submit_interval_seconds, t.daily_limit,
           t.concurrent_limit, t.last_submit_at, t.last_denied_at, t.last_denied_reason, t.created_at, t.updated_at
      FROM tenants t
     ORDER BY t.name;
END;
REVOKE EXECUTE ON FUNCTION monitor_tenant_list() FROM PUBLIC;

-- Retention: collections nobody has saved since before p_cutoff, with no
-- capture in flight and nothing left to deliver, in every data scope. The
-- purge itself runs as the collection's data scope.
CREATE FUNCTION monitor_purge_candidates(p_cutoff timestamptz, p_limit integer)
    RETURNS TABLE (collection_id uuid, data_scope uuid)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT c.id, c.data_scope
      FROM collections c
     WHERE c.unreferenced_at IS NOT NULL AND c.unreferenced_at < p_cutoff
       AND NOT EXISTS (SELECT 1 FROM tenant_collections tc WHERE tc.collection_id = c.id)
       AND NOT EXISTS (SELECT 1 FROM captures p WHERE p.collection_id = c.id AND p.state IN ('queued', 'downloading'))
       AND NOT EXISTS (SELECT 1 FROM submissions s WHERE s.collection_id = c.id AND s.delivery_state IN ('pending', 'delivering'))
     ORDER BY c.unreferenced_at
     LIMIT p_limit;
END;
REVOKE EXECUTE ON FUNCTION monitor_purge_candidates(timestamptz, integer) FROM PUBLIC;

-- Object GC: garbage objects, and pending ones older than p_pending_cutoff
-- (uploads whose commit was lost), of every tenant. Deletion runs as the
-- object's tenant.
CREATE FUNCTION monitor_gc_objects(p_pending_cutoff timestamptz, p_limit integer)
    RETURNS TABLE (id uuid, tenant_id uuid, key text, state text)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT o.id, o.tenant_id, o.key, o.state
      FROM objects o
     WHERE o.state IN ('garbage', 'deleting')
        OR (o.state = 'pending' AND o.created_at < p_pending_cutoff)
     ORDER BY o.created_at
     LIMIT p_limit;
END;
REVOKE EXECUTE ON FUNCTION monitor_gc_objects(timestamptz, integer) FROM PUBLIC;

-- Retention hands the object of a blob nobody shows any more to the
-- garbage collector, whichever tenant uploaded it. Only an object no blob
-- holds can be marked.
CREATE FUNCTION monitor_object_mark_garbage(p_object uuid)
    RETURNS void
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    UPDATE objects SET state = 'garbage', updated_at = now()
     WHERE id = p_object AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.object_id = p_object);
END;
REVOKE EXECUTE ON FUNCTION monitor_object_mark_garbage(uuid) FROM PUBLIC;

-- Interrupted work: captures still in flight with no progress on them or
-- their assets since p_cutoff, in every data scope. Ending them runs as the
-- capture's tenant.
CREATE FUNCTION monitor_stale_captures(p_cutoff timestamptz, p_limit integer)
    RETURNS TABLE (id uuid, tenant_id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT c.id, c.tenant_id
      FROM captures c
     WHERE c.state IN ('queued', 'downloading') AND c.updated_at < p_cutoff
       AND NOT EXISTS (SELECT 1 FROM assets a WHERE a.capture_id = c.id AND a.updated_at >= p_cutoff)
     ORDER BY c.updated_at
     LIMIT p_limit;
END;
REVOKE EXECUTE ON FUNCTION monitor_stale_captures(timestamptz, integer) FROM PUBLIC;
