-- Search (mirrors migrations/sqlite/0010_search.sql): one document per
-- revision, what full text is looked for in, and the filters the query
-- language reads that the revision's content alone answers.
--
-- doc is the lower-cased text, author name, author handle, media alt texts
-- and link titles, one per line; a pg_trgm GIN index answers LIKE on it for
-- any substring of 3 or more characters (CJK included). handles is the
-- author's handles between spaces (' monitor_demo '), flags what the
-- content has (' photo video gif media quote poll sensitive '). The row is
-- written in the revision's transaction (SearchIndexRevision, with the same
-- SELECT as below) and goes with it (ON DELETE CASCADE); it is under the
-- revisions' row-level security.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE search_docs (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    revision_id   UUID NOT NULL UNIQUE,
    collection_id UUID NOT NULL,
    data_scope    UUID NOT NULL,
    doc           TEXT NOT NULL DEFAULT '',
    handles       TEXT NOT NULL DEFAULT '',
    flags         TEXT NOT NULL DEFAULT '',
    published_at  TIMESTAMPTZ,
    FOREIGN KEY (revision_id, data_scope) REFERENCES revisions (id, data_scope) ON DELETE CASCADE
);

CREATE INDEX search_docs_collection_id_idx ON search_docs (collection_id);
CREATE INDEX search_docs_doc_trgm_idx ON search_docs USING gin (doc gin_trgm_ops);

ALTER TABLE search_docs ENABLE ROW LEVEL SECURITY;
ALTER TABLE search_docs FORCE ROW LEVEL SECURITY;
CREATE POLICY search_docs_scope ON search_docs FOR ALL
    USING (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant())
    WITH CHECK (data_scope = '00000000-0000-0000-0000-000000000000' OR data_scope = monitor_tenant());

-- What is already archived.
INSERT INTO search_docs (revision_id, collection_id, data_scope, doc, handles, flags, published_at)
SELECT r.id, r.collection_id, r.data_scope,
    lower(concat_ws(E'\n',
        r.content_json->>'text',
        r.content_json->>'author_name',
        (SELECT string_agg(coalesce(e->'data'->>'handle', e->'data'->>'username', e->'data'->>'channel'), ' ')
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.content_json->'graph'->'entities') = 'array' THEN r.content_json->'graph'->'entities' ELSE '[]'::jsonb END) e
         WHERE e->>'key' = r.content_json->'graph'->>'root'
            OR e->>'key' IN (SELECT l->>'to' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.content_json->'graph'->'relations') = 'array' THEN r.content_json->'graph'->'relations' ELSE '[]'::jsonb END) l
                WHERE l->>'from' = r.content_json->'graph'->>'root' AND l->>'relation' IN ('authored_by', 'posted_in'))),
        (SELECT string_agg(m->>'alt', E'\n') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.content_json->'media') = 'array' THEN r.content_json->'media' ELSE '[]'::jsonb END) m),
        (SELECT string_agg(e->'data'->'link_preview'->>'title', E'\n')
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.content_json->'graph'->'entities') = 'array' THEN r.content_json->'graph'->'entities' ELSE '[]'::jsonb END) e))),
    ' ' || coalesce((SELECT string_agg(lower(coalesce(e->'data'->>'handle', e->'data'->>'username', e->'data'->>'channel')), ' ')
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.content_json->'graph'->'entities') = 'array' THEN r.content_json->'graph'->'entities' ELSE '[]'::jsonb END) e
         WHERE e->>'key' = r.content_json->'graph'->>'root'
            OR e->>'key' IN (SELECT l->>'to' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.content_json->'graph'->'relations') = 'array' THEN r.content_json->'graph'->'relations' ELSE '[]'::jsonb END) l
                WHERE l->>'from' = r.content_json->'graph'->>'root' AND l->>'relation' IN ('authored_by', 'posted_in'))), '') || ' ',
    ' ' || concat_ws(' ',
        CASE WHEN r.content_json->'media' @> '[{"kind":"image"}]' THEN 'photo' END,
        CASE WHEN r.content_json->'media' @> '[{"kind":"video"}]' THEN 'video' END,
        CASE WHEN r.content_json->'media' @> '[{"kind":"gif"}]' THEN 'gif' END,
        CASE WHEN jsonb_typeof(r.content_json->'media') = 'array' AND jsonb_array_length(r.content_json->'media') > 0 THEN 'media' END,
        CASE WHEN r.content_json->'graph'->'relations' @> jsonb_build_array(jsonb_build_object('relation', 'quotes', 'from', r.content_json->'graph'->>'root')) THEN 'quote' END,
        CASE WHEN r.content_json->'graph'->'entities' @> jsonb_build_array(jsonb_build_object('key', r.content_json->'graph'->>'root', 'data', jsonb_build_object('poll', '{}'::jsonb)))
              AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.content_json->'graph'->'entities') e
                  WHERE e->>'key' = r.content_json->'graph'->>'root' AND jsonb_typeof(e->'data'->'poll') = 'object') THEN 'poll' END,
        CASE WHEN r.content_json->'media' @> '[{"sensitive":true}]'
              OR r.content_json->'graph'->'entities' @> jsonb_build_array(jsonb_build_object('key', r.content_json->'graph'->>'root', 'data', jsonb_build_object('sensitive', true))) THEN 'sensitive' END
    ) || ' ',
    (r.content_json->>'published_at')::timestamptz
FROM revisions r;
