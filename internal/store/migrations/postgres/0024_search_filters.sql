-- Search on PostgreSQL, the second step (after 0020): the index lookup
-- also applies what the query requires of the author's handles and of the
-- content's flags, and the trigram index keeps a short pending list.
--
-- monitor_search_match_docs is monitor_search_match_all with two more
-- lists of LIKE patterns: p_handles on search_docs.handles (from:) and
-- p_flags on search_docs.flags (has:, is:sensitive). They are checked on
-- the rows the trigram index finds for p_doc, so "harbour has:photo
-- from:someone" counts the few documents that have all three instead of
-- the tens of thousands that contain "harbour". Like its predecessor it
-- runs as its owner and returns only what the row-level security policy
-- would: documents of the public scope or of the current tenant
-- (monitor_tenant(), never a parameter). The patterns reach the query as
-- parameters; only their count is written into it.
CREATE FUNCTION monitor_search_match_docs(p_doc text[], p_handles text[], p_flags text[], p_limit integer)
    RETURNS TABLE (revision_id uuid)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $fn$
DECLARE
    tenant uuid := monitor_tenant();
    conds text := '';
BEGIN
    IF tenant IS NULL OR coalesce(cardinality(p_doc), 0) = 0 THEN
        RETURN;
    END IF;
    FOR i IN 1 .. cardinality(p_doc) LOOP
        conds := conds || format(' AND sd.doc LIKE $1[%s] ESCAPE ''\''', i);
    END LOOP;
    FOR i IN 1 .. coalesce(cardinality(p_handles), 0) LOOP
        conds := conds || format(' AND sd.handles LIKE $3[%s] ESCAPE ''\''', i);
    END LOOP;
    FOR i IN 1 .. coalesce(cardinality(p_flags), 0) LOOP
        conds := conds || format(' AND sd.flags LIKE $4[%s] ESCAPE ''\''', i);
    END LOOP;
    RETURN QUERY EXECUTE
        'SELECT sd.revision_id FROM public.search_docs sd'
        ' WHERE (sd.data_scope = ''00000000-0000-0000-0000-000000000000'' OR sd.data_scope = $2)' || conds
        || CASE WHEN p_limit IS NULL THEN '' ELSE format(' LIMIT %s', p_limit) END
        USING p_doc, tenant, p_handles, p_flags;
END;
$fn$;
REVOKE EXECUTE ON FUNCTION monitor_search_match_docs(text[], text[], text[], integer) FROM PUBLIC;
DROP FUNCTION IF EXISTS monitor_search_match_all(text[], integer);

-- GIN batches new entries in a pending list that every search reads
-- whole, until a vacuum or the list's limit (4 MB by default) moves them
-- into the index. Measured over 100,000 posts, a pending list of 444 pages
-- (what a bulk import left before autovacuum came) added about 20 ms to
-- each search; 256 kB keeps that near 1 ms and still batches the writes.
ALTER INDEX search_docs_doc_trgm_idx SET (gin_pending_list_limit = 256);
