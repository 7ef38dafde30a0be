-- Monitor: row-level security (PostgreSQL, scale mode).
--
-- The core connects as monitor_app (not owner, no BYPASSRLS) and starts every
-- business transaction with set_config('app.tenant_id', '<uuid>', true);
-- monitor_tenant() reads it back (NULL when unset, so nothing tenant-owned is
-- visible). Every table is RLS-enabled and FORCEd. Content rows are visible and
-- writable in the public scope (all-zero UUID) or the tenant's own data_scope;
-- tenant-owned rows only for their tenant_id. The few reads and writes that
-- must cross tenants (token auth, admin lookup by name, scheduling deliveries
-- for every submitter of a capture) go through the narrow SECURITY DEFINER
-- functions at the end; the migrator grants monitor_app EXECUTE on them.

-- The SECURITY DEFINER functions run as the migrating role. FORCE ROW LEVEL
-- SECURITY applies to table owners too, so only a superuser or BYPASSRLS role
-- can own them and still see other tenants' rows: refuse anything else
-- instead of shipping token authentication that silently finds nothing.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles
                   WHERE rolname = current_user AND (rolsuper OR rolbypassrls)) THEN
        RAISE EXCEPTION 'monitor: run migrations as a superuser or a role with BYPASSRLS (role % has neither): the SECURITY DEFINER functions of 0003_security.sql run as the migrating role', current_user;
    END IF;
END
$$;

-- The tenant of the current transaction, from app.tenant_id; NULL when unset
-- (or set to ''). A plain STABLE SQL function, so the planner inlines it into
-- the policies. EXECUTE stays granted to PUBLIC: policies are evaluated with
-- the privileges of the querying role.
CREATE FUNCTION monitor_tenant() RETURNS uuid
    LANGUAGE sql STABLE
    RETURN NULLIF(current_setting('app.tenant_id', true), '')::uuid;


-- ===========================================================================
-- Content: the public scope, or the tenant's own private scope.
-- ===========================================================================

ALTER TABLE collections ENABLE ROW LEVEL SECURITY;
ALTER TABLE collections FORCE ROW LEVEL SECURITY;
CREATE POLICY collections_scope ON collections FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE captures ENABLE ROW LEVEL SECURITY;
ALTER TABLE captures FORCE ROW LEVEL SECURITY;
CREATE POLICY captures_scope ON captures FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE revisions ENABLE ROW LEVEL SECURITY;
ALTER TABLE revisions FORCE ROW LEVEL SECURITY;
CREATE POLICY revisions_scope ON revisions FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE assets ENABLE ROW LEVEL SECURITY;
ALTER TABLE assets FORCE ROW LEVEL SECURITY;
CREATE POLICY assets_scope ON assets FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE blobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE blobs FORCE ROW LEVEL SECURITY;
CREATE POLICY blobs_scope ON blobs FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE source_responses ENABLE ROW LEVEL SECURITY;
ALTER TABLE source_responses FORCE ROW LEVEL SECURITY;
CREATE POLICY source_responses_scope ON source_responses FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE entities ENABLE ROW LEVEL SECURITY;
ALTER TABLE entities FORCE ROW LEVEL SECURITY;
CREATE POLICY entities_scope ON entities FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE entity_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE entity_versions FORCE ROW LEVEL SECURITY;
CREATE POLICY entity_versions_scope ON entity_versions FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE revision_entities ENABLE ROW LEVEL SECURITY;
ALTER TABLE revision_entities FORCE ROW LEVEL SECURITY;
CREATE POLICY revision_entities_scope ON revision_entities FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

ALTER TABLE entity_relations ENABLE ROW LEVEL SECURITY;
ALTER TABLE entity_relations FORCE ROW LEVEL SECURITY;
CREATE POLICY entity_relations_scope ON entity_relations FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());


-- ===========================================================================
-- Tenant-owned rows: only the tenant of the transaction.
-- ===========================================================================

ALTER TABLE tenant_collections ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_collections FORCE ROW LEVEL SECURITY;
-- Foreign keys are checked past row-level security, so the policy itself
-- requires the saved collection to be one the tenant can see: nobody saves
-- a reference to another tenant's private collection (or learns it exists).
CREATE POLICY tenant_collections_tenant ON tenant_collections FOR ALL
    USING (tenant_id = monitor_tenant())
    WITH CHECK (tenant_id = monitor_tenant()
        AND EXISTS (SELECT 1 FROM collections c WHERE c.id = collection_id));

ALTER TABLE submissions ENABLE ROW LEVEL SECURITY;
ALTER TABLE submissions FORCE ROW LEVEL SECURITY;
CREATE POLICY submissions_tenant ON submissions FOR ALL
    USING (tenant_id = monitor_tenant())
    WITH CHECK (tenant_id = monitor_tenant()
        AND EXISTS (SELECT 1 FROM collections c WHERE c.id = collection_id)
        AND EXISTS (SELECT 1 FROM captures p WHERE p.id = capture_id));

ALTER TABLE tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE tokens FORCE ROW LEVEL SECURITY;
CREATE POLICY tokens_tenant ON tokens FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE identities ENABLE ROW LEVEL SECURITY;
ALTER TABLE identities FORCE ROW LEVEL SECURITY;
CREATE POLICY identities_tenant ON identities FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE connections ENABLE ROW LEVEL SECURITY;
ALTER TABLE connections FORCE ROW LEVEL SECURITY;
CREATE POLICY connections_tenant ON connections FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE account_credentials ENABLE ROW LEVEL SECURITY;
ALTER TABLE account_credentials FORCE ROW LEVEL SECURITY;
CREATE POLICY account_credentials_tenant ON account_credentials FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE tenant_preferences ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_preferences FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_preferences_tenant ON tenant_preferences FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE usage_daily ENABLE ROW LEVEL SECURITY;
ALTER TABLE usage_daily FORCE ROW LEVEL SECURITY;
CREATE POLICY usage_daily_tenant ON usage_daily FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE web_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE web_sessions FORCE ROW LEVEL SECURITY;
CREATE POLICY web_sessions_tenant ON web_sessions FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

ALTER TABLE objects ENABLE ROW LEVEL SECURITY;
ALTER TABLE objects FORCE ROW LEVEL SECURITY;
CREATE POLICY objects_tenant ON objects FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

-- Anyone who can see a blob may read the record of the object holding its
-- bytes (a public blob is stored once, under the uploader's tenant).
CREATE POLICY objects_attached ON objects FOR SELECT
    USING (EXISTS (SELECT 1 FROM blobs b WHERE b.object_id = objects.id));

-- A tenant sees and writes only its own row. Creating a tenant is a
-- transaction that first sets app.tenant_id to the new id.
ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenants_tenant ON tenants FOR ALL
    USING (id = monitor_tenant()) WITH CHECK (id = monitor_tenant());


-- ===========================================================================
-- Global, channel plumbing and operator tables: shared by the core.
-- ===========================================================================

-- RLS stays enabled and forced so that a later migration only has to replace
-- these policies. The channel tables (channels, inbox, replies, channel_work,
-- channel_media_cache) get tenant rules with the channel issue; until then
-- they, like the operator tables, are open to the core's role.

ALTER TABLE channels ENABLE ROW LEVEL SECURITY;
ALTER TABLE channels FORCE ROW LEVEL SECURITY;
CREATE POLICY channels_shared ON channels FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE inbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE inbox FORCE ROW LEVEL SECURITY;
CREATE POLICY inbox_shared ON inbox FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE replies ENABLE ROW LEVEL SECURITY;
ALTER TABLE replies FORCE ROW LEVEL SECURITY;
CREATE POLICY replies_shared ON replies FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE channel_work ENABLE ROW LEVEL SECURITY;
ALTER TABLE channel_work FORCE ROW LEVEL SECURITY;
CREATE POLICY channel_work_shared ON channel_work FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE channel_media_cache ENABLE ROW LEVEL SECURITY;
ALTER TABLE channel_media_cache FORCE ROW LEVEL SECURITY;
CREATE POLICY channel_media_cache_shared ON channel_media_cache FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_log FORCE ROW LEVEL SECURITY;
CREATE POLICY audit_log_shared ON audit_log FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE events ENABLE ROW LEVEL SECURITY;
ALTER TABLE events FORCE ROW LEVEL SECURITY;
CREATE POLICY events_shared ON events FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE error_logs ENABLE ROW LEVEL SECURITY;
ALTER TABLE error_logs FORCE ROW LEVEL SECURITY;
CREATE POLICY error_logs_shared ON error_logs FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE config ENABLE ROW LEVEL SECURITY;
ALTER TABLE config FORCE ROW LEVEL SECURITY;
CREATE POLICY config_shared ON config FOR ALL USING (true) WITH CHECK (true);

ALTER TABLE health_checks ENABLE ROW LEVEL SECURITY;
ALTER TABLE health_checks FORCE ROW LEVEL SECURITY;
CREATE POLICY health_checks_shared ON health_checks FOR ALL USING (true) WITH CHECK (true);


-- ===========================================================================
-- Narrow SECURITY DEFINER functions
-- ===========================================================================

-- Each does one fixed thing across tenants. search_path is pinned, and the
-- bodies are SQL-standard (BEGIN ATOMIC), so their tables are bound when the
-- function is created, in the schema being migrated. EXECUTE is revoked from
-- PUBLIC; the migrator grants it to monitor_app.

-- Token authentication, before the tenant is known: the token with this
-- SHA-256 digest, revoked or not (the caller checks revoked_at).
CREATE FUNCTION monitor_token_lookup(p_digest bytea)
    RETURNS TABLE (token_id uuid, tenant_id uuid, name text, created_at timestamptz, revoked_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.tenant_id, t.name, t.created_at, t.revoked_at
      FROM tokens t
     WHERE t.digest = p_digest;
END;
REVOKE EXECUTE ON FUNCTION monitor_token_lookup(bytea) FROM PUBLIC;

-- Operator lookup of a tenant by its unique name.
CREATE FUNCTION monitor_tenant_by_name(p_name text)
    RETURNS TABLE (id uuid, name text, kind text, status text, quota_bytes bigint,
                   reserved_bytes bigint, created_at timestamptz, updated_at timestamptz)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.name, t.kind, t.status, t.quota_bytes, t.reserved_bytes, t.created_at, t.updated_at
      FROM tenants t
     WHERE t.name = p_name;
END;
REVOKE EXECUTE ON FUNCTION monitor_tenant_by_name(text) FROM PUBLIC;

-- The executing tenant of a finished capture schedules the delivery of the
-- result to every channel submitter of it, whichever tenant they belong to
-- (seed 000: capture_deliveries). Only this one state change is possible.
CREATE FUNCTION monitor_capture_mark_deliverable(p_capture uuid)
    RETURNS void
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    UPDATE submissions
       SET delivery_state = 'pending', updated_at = now()
     WHERE capture_id = p_capture
       AND channel_id IS NOT NULL
       AND delivery_state = 'none';
END;
REVOKE EXECUTE ON FUNCTION monitor_capture_mark_deliverable(uuid) FROM PUBLIC;
