-- Operators among tenants (mirrors migrations/sqlite/0017_tenant_admin.sql):
-- a tenant marked admin may sign in to the operator console through the
-- bot (/admin, /web), as `monitor admin login-link --admin` lets anyone
-- with the CLI. Only an operator sets the mark (CLI, /v1/admin, /admin).
ALTER TABLE tenants ADD COLUMN admin BOOLEAN NOT NULL DEFAULT false;

-- The operator lookups return the mark too (store.tenantColumns).
DROP FUNCTION monitor_tenant_by_name(text);
CREATE FUNCTION monitor_tenant_by_name(p_name text)
    RETURNS TABLE (id uuid, name text, kind text, status text, quota_bytes bigint, reserved_bytes bigint,
                   submit_interval_seconds integer, daily_limit integer, concurrent_limit integer,
                   last_submit_at timestamptz, last_denied_at timestamptz, last_denied_reason text,
                   created_at timestamptz, updated_at timestamptz, admin boolean)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.name, t.kind, t.status, t.quota_bytes, t.reserved_bytes, t.submit_interval_seconds, t.daily_limit,
           t.concurrent_limit, t.last_submit_at, t.last_denied_at, t.last_denied_reason, t.created_at, t.updated_at,
           t.admin
      FROM tenants t
     WHERE t.name = p_name;
END;
REVOKE EXECUTE ON FUNCTION monitor_tenant_by_name(text) FROM PUBLIC;

DROP FUNCTION monitor_tenant_list();
CREATE FUNCTION monitor_tenant_list()
    RETURNS TABLE (id uuid, name text, kind text, status text, quota_bytes bigint, reserved_bytes bigint,
                   submit_interval_seconds integer, daily_limit integer, concurrent_limit integer,
                   last_submit_at timestamptz, last_denied_at timestamptz, last_denied_reason text,
                   created_at timestamptz, updated_at timestamptz, admin boolean)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.name, t.kind, t.status, t.quota_bytes, t.reserved_bytes, t.submit_interval_seconds, t.daily_limit,
           t.concurrent_limit, t.last_submit_at, t.last_denied_at, t.last_denied_reason, t.created_at, t.updated_at,
           t.admin
      FROM tenants t
     ORDER BY t.name;
END;
REVOKE EXECUTE ON FUNCTION monitor_tenant_list() FROM PUBLIC;
