-- Every required term of a search in one look at the trigram index
-- (PostgreSQL only). monitor_search_match answers one pattern, so a query
-- of five common words made five sets of tens of thousands of documents
-- and intersected them, seconds a search. This function puts every
-- pattern in one query, so the index intersects them itself, and
-- returns only what the row-level security policy would, like
-- monitor_search_match: documents of the public scope or of the current
-- tenant (monitor_tenant(), never a parameter). The patterns are LIKE
-- patterns with \ as their escape; they reach the query as parameters,
-- only their count is written into it. With p_limit, at most that many
-- documents are returned: enough to tell few matches from many.
CREATE FUNCTION monitor_search_match_all(p_patterns text[], p_limit integer)
    RETURNS TABLE (revision_id uuid)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
AS $fn$
DECLARE
    tenant uuid := monitor_tenant();
    conds text := '';
BEGIN
    IF tenant IS NULL OR coalesce(cardinality(p_patterns), 0) = 0 THEN
        RETURN;
    END IF;
    FOR i IN 1 .. cardinality(p_patterns) LOOP
        conds := conds || format(' AND sd.doc LIKE $1[%s] ESCAPE ''\''', i);
    END LOOP;
    RETURN QUERY EXECUTE
        'SELECT sd.revision_id FROM public.search_docs sd'
        ' WHERE (sd.data_scope = ''00000000-0000-0000-0000-000000000000'' OR sd.data_scope = $2)' || conds
        || CASE WHEN p_limit IS NULL THEN '' ELSE format(' LIMIT %s', p_limit) END
        USING p_patterns, tenant;
END;
$fn$;
REVOKE EXECUTE ON FUNCTION monitor_search_match_all(text[], integer) FROM PUBLIC;
-- Its one-pattern predecessor has no caller left.
DROP FUNCTION IF EXISTS monitor_search_match(text);
