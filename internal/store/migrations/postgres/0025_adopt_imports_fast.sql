-- A complete capture of a public post looks for imported private copies
-- to replace (0009) in one indexed look first: the statements that replace
-- them read every save of each submitter, at every finalize, so a capture
-- took longer the larger its submitters' archives were. The rest of the
-- function is 0009's.
CREATE OR REPLACE FUNCTION monitor_capture_adopt_imports(p_capture uuid, p_to uuid)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $$
BEGIN
    PERFORM 1
       FROM captures p
       JOIN collections t ON t.id = p_to
      WHERE p.id = p_capture
        AND p.collection_id = p_to
        AND p.state = 'complete'
        AND t.data_scope = '00000000-0000-0000-0000-000000000000'
        AND (p.tenant_id = monitor_tenant()
             OR EXISTS (SELECT 1 FROM submissions s WHERE s.capture_id = p_capture AND s.tenant_id = monitor_tenant()));
    IF NOT FOUND THEN
        RAISE EXCEPTION 'capture % of collection % cannot take the place of imported copies', p_capture, p_to
            USING ERRCODE = 'insufficient_privilege';
    END IF;

    -- Almost every capture has no imported copy to replace: one look
    -- through the collections' identity index says so.
    IF NOT EXISTS (
        SELECT 1 FROM collections c JOIN collections t ON t.id = p_to
         WHERE c.data_scope IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = p_capture)
           AND c.access_scope = 'private' AND c.claimed_visibility = 'public'
           AND c.platform = t.platform AND c.entity_type = t.entity_type
           AND c.object_scope = t.object_scope AND c.external_id = t.external_id) THEN
        RETURN;
    END IF;

    UPDATE tenant_collections SET saved_at = (
            SELECT min(o.saved_at) FROM tenant_collections o
              JOIN collections c ON c.id = o.collection_id JOIN collections t ON t.id = p_to
             WHERE o.tenant_id = tenant_collections.tenant_id
               AND c.data_scope = o.tenant_id AND c.access_scope = 'private' AND c.claimed_visibility = 'public'
               AND c.platform = t.platform AND c.entity_type = t.entity_type
               AND c.object_scope = t.object_scope AND c.external_id = t.external_id)
     WHERE collection_id = p_to
       AND tenant_id IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = p_capture)
       AND saved_at > (
            SELECT min(o.saved_at) FROM tenant_collections o
              JOIN collections c ON c.id = o.collection_id JOIN collections t ON t.id = p_to
             WHERE o.tenant_id = tenant_collections.tenant_id
               AND c.data_scope = o.tenant_id AND c.access_scope = 'private' AND c.claimed_visibility = 'public'
               AND c.platform = t.platform AND c.entity_type = t.entity_type
               AND c.object_scope = t.object_scope AND c.external_id = t.external_id);
    UPDATE collections SET canonical_id = p_to, updated_at = now()
     WHERE canonical_id IS NULL AND id IN (
            SELECT o.collection_id FROM tenant_collections o
              JOIN collections c ON c.id = o.collection_id JOIN collections t ON t.id = p_to
             WHERE o.tenant_id IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = p_capture)
               AND EXISTS (SELECT 1 FROM tenant_collections r WHERE r.tenant_id = o.tenant_id AND r.collection_id = p_to)
               AND c.data_scope = o.tenant_id AND c.access_scope = 'private' AND c.claimed_visibility = 'public'
               AND c.platform = t.platform AND c.entity_type = t.entity_type
               AND c.object_scope = t.object_scope AND c.external_id = t.external_id);
    DELETE FROM tenant_collections
     WHERE tenant_id IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = p_capture)
       AND EXISTS (SELECT 1 FROM tenant_collections r WHERE r.tenant_id = tenant_collections.tenant_id AND r.collection_id = p_to)
       AND collection_id IN (
            SELECT c.id FROM collections c JOIN collections t ON t.id = p_to
             WHERE c.data_scope = tenant_collections.tenant_id AND c.access_scope = 'private' AND c.claimed_visibility = 'public'
               AND c.platform = t.platform AND c.entity_type = t.entity_type
               AND c.object_scope = t.object_scope AND c.external_id = t.external_id);
    UPDATE collections SET unreferenced_at = now()
     WHERE canonical_id = p_to AND access_scope = 'private' AND claimed_visibility = 'public' AND unreferenced_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM tenant_collections o WHERE o.collection_id = collections.id);
END;
$$;
