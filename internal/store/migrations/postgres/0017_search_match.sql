-- Search through the trigram index under row-level security (PostgreSQL
-- only; SQLite's FTS5 index needs nothing like it). LIKE is not leakproof,
-- so the planner never uses search_docs_doc_trgm_idx for a query the
-- policy filters: a word found nowhere read every document. This function
-- runs the LIKE as its owner, through the index, and returns only what the
-- policy would: documents of the public scope or of the current tenant
-- (monitor_tenant(), never a parameter, so a caller cannot name another
-- tenant). The pattern is a LIKE pattern with \ as its escape.
CREATE FUNCTION monitor_search_match(p_pattern text)
    RETURNS TABLE (revision_id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT sd.revision_id
      FROM search_docs sd
     WHERE sd.doc LIKE p_pattern ESCAPE '\'
       AND monitor_tenant() IS NOT NULL
       AND (sd.data_scope = '00000000-0000-0000-0000-000000000000' OR sd.data_scope = monitor_tenant());
END;
REVOKE EXECUTE ON FUNCTION monitor_search_match(text) FROM PUBLIC;
