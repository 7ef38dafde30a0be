-- Canonical targets: an adapter may answer a fetch with the stable identity
-- of what was asked for (a member of a Telegram album is the album, whose
-- identity is its first message). The collection asked for then points at
-- the canonical one, and the capture, its submissions and their saved
-- references move there.

ALTER TABLE collections ADD COLUMN canonical_id UUID REFERENCES collections (id);

-- Moves capture p_capture of collection p_from to the canonical collection
-- p_to: the capture, every submission of it (whichever tenant made it) and
-- those submitters' saved references. Only the executing tenant may move its
-- own capture in flight, and only between collections of the same scope,
-- platform and entity type.
CREATE FUNCTION monitor_capture_repoint(p_capture uuid, p_from uuid, p_to uuid)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $$
BEGIN
    PERFORM 1
       FROM captures p
       JOIN collections f ON f.id = p_from
       JOIN collections t ON t.id = p_to
      WHERE p.id = p_capture
        AND p.collection_id = p_from
        AND p.tenant_id = monitor_tenant()
        AND p.state IN ('queued', 'downloading')
        AND f.data_scope = t.data_scope AND f.access_scope = t.access_scope
        AND f.platform = t.platform AND f.entity_type = t.entity_type
        AND f.id <> t.id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'capture % cannot move from collection % to %', p_capture, p_from, p_to
            USING ERRCODE = 'insufficient_privilege';
    END IF;

    UPDATE collections SET canonical_id = p_to, updated_at = now()
     WHERE id = p_from AND canonical_id IS NULL;
    UPDATE captures SET collection_id = p_to, updated_at = now() WHERE id = p_capture;
    UPDATE submissions SET collection_id = p_to, updated_at = now() WHERE capture_id = p_capture;
    DELETE FROM tenant_collections tc
     WHERE tc.collection_id = p_from
       AND tc.tenant_id IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = p_capture)
       AND EXISTS (SELECT 1 FROM tenant_collections o
                    WHERE o.tenant_id = tc.tenant_id AND o.collection_id = p_to);
    UPDATE tenant_collections SET collection_id = p_to
     WHERE collection_id = p_from
       AND tenant_id IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = p_capture);
    UPDATE collections SET unreferenced_at = NULL WHERE id = p_to AND unreferenced_at IS NOT NULL;
    UPDATE collections SET unreferenced_at = now()
     WHERE id = p_from AND unreferenced_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM tenant_collections o WHERE o.collection_id = p_from);
END;
$$;
REVOKE EXECUTE ON FUNCTION monitor_capture_repoint(uuid, uuid, uuid) FROM PUBLIC;
