-- A version per tenant of what its library listing shows (GET
-- /v1/collections): its saved references, the collections they point at
-- and those collections' captures. Every committed change to one of those
-- rows gives each tenant that saves the row's collection a new version, in
-- the same transaction, so a process that kept a rendered page under the
-- version it read before reading the page gives it again only while the
-- version is unchanged, on every replica alike. (SQLite tells the same by
-- PRAGMA data_version and needs none of this.)
--
-- Versions are drawn from a sequence, so a version number is never given
-- twice, whatever happens to the rows of library_versions.
--
-- Deadlocks: a change to shared public content touches every saver's
-- version, and two transactions touching two tenants in opposite order
-- would deadlock if each locked a version row when it touched it. So
-- touching only records the tenant in a transaction-local setting
-- (monitor.library_touched), and the versions are written at commit, by a
-- deferred trigger, in one statement in tenant order: a transaction that
-- waits for a version row waits for one that is committing and waits for
-- nothing else.

CREATE SEQUENCE library_version_seq;

CREATE TABLE library_versions (
    tenant_id UUID PRIMARY KEY,
    version   BIGINT NOT NULL
);

ALTER TABLE library_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE library_versions FORCE ROW LEVEL SECURITY;
CREATE POLICY library_versions_tenant ON library_versions FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());

-- Records tenants whose listing the current transaction changes.
CREATE FUNCTION monitor_library_touch(p_tenants uuid[]) RETURNS void
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, public
AS $$
DECLARE
    touched text := coalesce(current_setting('monitor.library_touched', true), '');
    t uuid;
BEGIN
    IF p_tenants IS NULL THEN
        RETURN;
    END IF;
    FOREACH t IN ARRAY p_tenants LOOP
        IF t IS NOT NULL AND strpos(touched, t::text) = 0 THEN
            touched := touched || t::text || ',';
        END IF;
    END LOOP;
    PERFORM set_config('monitor.library_touched', touched, true);
END
$$;

-- At commit: a new version for every tenant touched, in tenant order; the
-- first deferred call of a transaction does it, the others find nothing.
CREATE FUNCTION monitor_library_flush() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $$
DECLARE
    touched text := current_setting('monitor.library_touched', true);
BEGIN
    IF touched IS NULL OR touched = '' THEN
        RETURN NULL;
    END IF;
    PERFORM set_config('monitor.library_touched', '', true);
    INSERT INTO library_versions AS v (tenant_id, version)
    SELECT d.t, nextval('library_version_seq')
      FROM (SELECT DISTINCT x::uuid AS t FROM unnest(string_to_array(touched, ',')) x WHERE x <> '') d
     ORDER BY d.t
    ON CONFLICT (tenant_id) DO UPDATE SET version = EXCLUDED.version;
    RETURN NULL;
END
$$;

-- Saved references: the tenants of the rows changed.
CREATE FUNCTION monitor_library_saved_changed() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM monitor_library_touch(ARRAY(SELECT DISTINCT tenant_id FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM monitor_library_touch(ARRAY(SELECT DISTINCT tenant_id FROM old_rows));
    ELSE
        PERFORM monitor_library_touch(ARRAY(SELECT tenant_id FROM new_rows UNION SELECT tenant_id FROM old_rows));
    END IF;
    RETURN NULL;
END
$$;

-- Collections: every tenant that saves a collection changed.
CREATE FUNCTION monitor_library_collection_changed() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM monitor_library_touch(ARRAY(SELECT DISTINCT tc.tenant_id FROM tenant_collections tc
                                             WHERE tc.collection_id IN (SELECT id FROM old_rows)));
    ELSE
        PERFORM monitor_library_touch(ARRAY(SELECT DISTINCT tc.tenant_id FROM tenant_collections tc
                                             WHERE tc.collection_id IN (SELECT id FROM new_rows UNION SELECT id FROM old_rows)));
    END IF;
    RETURN NULL;
END
$$;

-- Captures: every tenant that saves the collection of a capture added,
-- removed, or changed in what the listing reads of it (its state, whether
-- someone asked for it, its collection, its time).
CREATE FUNCTION monitor_library_capture_changed() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM monitor_library_touch(ARRAY(SELECT DISTINCT tc.tenant_id FROM tenant_collections tc
                                             WHERE tc.collection_id IN (SELECT collection_id FROM new_rows)));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM monitor_library_touch(ARRAY(SELECT DISTINCT tc.tenant_id FROM tenant_collections tc
                                             WHERE tc.collection_id IN (SELECT collection_id FROM old_rows)));
    ELSE
        PERFORM monitor_library_touch(ARRAY(SELECT DISTINCT tc.tenant_id FROM tenant_collections tc
                                             WHERE tc.collection_id IN (
                                                 SELECT n.collection_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                                                  WHERE (n.state, n.automatic, n.collection_id, n.created_at)
                                                        IS DISTINCT FROM (o.state, o.automatic, o.collection_id, o.created_at)
                                                 UNION
                                                 SELECT o.collection_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                                                  WHERE (n.state, n.automatic, n.collection_id, n.created_at)
                                                        IS DISTINCT FROM (o.state, o.automatic, o.collection_id, o.created_at))));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER library_saved_insert AFTER INSERT ON tenant_collections
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_saved_changed();
CREATE TRIGGER library_saved_update AFTER UPDATE ON tenant_collections
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_saved_changed();
CREATE TRIGGER library_saved_delete AFTER DELETE ON tenant_collections
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_saved_changed();

CREATE TRIGGER library_collection_update AFTER UPDATE ON collections
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_collection_changed();
CREATE TRIGGER library_collection_delete AFTER DELETE ON collections
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_collection_changed();

CREATE TRIGGER library_capture_insert AFTER INSERT ON captures
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_capture_changed();
CREATE TRIGGER library_capture_update AFTER UPDATE ON captures
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_capture_changed();
CREATE TRIGGER library_capture_delete AFTER DELETE ON captures
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION monitor_library_capture_changed();

-- The flush, once per changed row at commit (all but the first are a
-- setting read).
CREATE CONSTRAINT TRIGGER library_saved_flush AFTER INSERT OR UPDATE OR DELETE ON tenant_collections
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION monitor_library_flush();
CREATE CONSTRAINT TRIGGER library_collection_flush AFTER UPDATE OR DELETE ON collections
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION monitor_library_flush();
CREATE CONSTRAINT TRIGGER library_capture_flush AFTER INSERT OR UPDATE OR DELETE ON captures
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION monitor_library_flush();

-- The tenant's listing version (0: never changed since this migration).
CREATE FUNCTION monitor_library_version(p_tenant uuid) RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT coalesce((SELECT v.version FROM library_versions v WHERE v.tenant_id = p_tenant), 0);
END;
REVOKE EXECUTE ON FUNCTION monitor_library_version(uuid) FROM PUBLIC;

-- Token authentication in one call, before the tenant is known: the token
-- with this digest, revoked or not, with its tenant's name and status (the
-- caller checks both) and the tenant's library version, instead of a token
-- lookup and a tenant read in two transactions and a version read on every
-- request.
CREATE FUNCTION monitor_token_tenant(p_digest bytea)
    RETURNS TABLE (token_id uuid, tenant_id uuid, name text, created_at timestamptz, revoked_at timestamptz, admin boolean,
                   tenant_name text, tenant_status text, library_version bigint)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT t.id, t.tenant_id, t.name, t.created_at, t.revoked_at, t.admin, n.name, n.status,
           coalesce((SELECT v.version FROM library_versions v WHERE v.tenant_id = t.tenant_id), 0)
      FROM tokens t JOIN tenants n ON n.id = t.tenant_id
     WHERE t.digest = p_digest;
END;
REVOKE EXECUTE ON FUNCTION monitor_token_tenant(bytea) FROM PUBLIC;
