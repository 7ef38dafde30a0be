-- Search (mirrors migrations/postgres/0011_search.sql): one document per
-- revision, what full text is looked for in, and the filters the query
-- language reads that the revision's content alone answers.
--
-- doc is the lower-cased text, author name, author handle, media alt texts
-- and link titles, one per line. handles is the author's handles between
-- spaces (' monitor_demo '), flags what the content has (' photo video gif
-- media quote poll sensitive '), both lower case so a filter is one LIKE.
-- The row is written in the revision's transaction (SearchIndexRevision,
-- with the same SELECT as below) and goes with it (ON DELETE CASCADE).
-- search_fts is an FTS5 index of doc with the trigram tokenizer, so any
-- substring of 3 or more characters (CJK included) is found by the index;
-- triggers keep it in step with search_docs.
CREATE TABLE search_docs (
    id            INTEGER PRIMARY KEY,
    revision_id   TEXT NOT NULL UNIQUE,
    collection_id TEXT NOT NULL,
    data_scope    TEXT NOT NULL,
    doc           TEXT NOT NULL DEFAULT '',
    handles       TEXT NOT NULL DEFAULT '',
    flags         TEXT NOT NULL DEFAULT '',
    published_at  DATETIME,
    FOREIGN KEY (revision_id, data_scope) REFERENCES revisions (id, data_scope) ON DELETE CASCADE
);

CREATE INDEX search_docs_collection_id_idx ON search_docs (collection_id);

CREATE VIRTUAL TABLE search_fts USING fts5(doc, content='search_docs', content_rowid='id', tokenize='trigram');

CREATE TRIGGER search_docs_fts_insert AFTER INSERT ON search_docs BEGIN
    INSERT INTO search_fts (rowid, doc) VALUES (new.id, new.doc);
END;

CREATE TRIGGER search_docs_fts_delete AFTER DELETE ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, doc) VALUES ('delete', old.id, old.doc);
END;

-- What is already archived.
INSERT INTO search_docs (revision_id, collection_id, data_scope, doc, handles, flags, published_at)
SELECT r.id, r.collection_id, r.data_scope,
    lower(concat_ws(char(10),
        json_extract(r.content_json, '$.text'),
        json_extract(r.content_json, '$.author_name'),
        (SELECT group_concat(coalesce(json_extract(e.value, '$.data.handle'), json_extract(e.value, '$.data.username'),
                json_extract(e.value, '$.data.channel')), ' ')
         FROM json_each(r.content_json, '$.graph.entities') e
         WHERE json_extract(e.value, '$.key') = json_extract(r.content_json, '$.graph.root')
            OR json_extract(e.value, '$.key') IN (SELECT json_extract(l.value, '$.to') FROM json_each(r.content_json, '$.graph.relations') l
                WHERE json_extract(l.value, '$.from') = json_extract(r.content_json, '$.graph.root')
                  AND json_extract(l.value, '$.relation') IN ('authored_by', 'posted_in'))),
        (SELECT group_concat(json_extract(m.value, '$.alt'), char(10)) FROM json_each(r.content_json, '$.media') m),
        (SELECT group_concat(json_extract(e.value, '$.data.link_preview.title'), char(10))
         FROM json_each(r.content_json, '$.graph.entities') e))),
    ' ' || coalesce((SELECT group_concat(lower(coalesce(json_extract(e.value, '$.data.handle'), json_extract(e.value, '$.data.username'),
                json_extract(e.value, '$.data.channel'))), ' ')
         FROM json_each(r.content_json, '$.graph.entities') e
         WHERE json_extract(e.value, '$.key') = json_extract(r.content_json, '$.graph.root')
            OR json_extract(e.value, '$.key') IN (SELECT json_extract(l.value, '$.to') FROM json_each(r.content_json, '$.graph.relations') l
                WHERE json_extract(l.value, '$.from') = json_extract(r.content_json, '$.graph.root')
                  AND json_extract(l.value, '$.relation') IN ('authored_by', 'posted_in'))), '') || ' ',
    ' ' || concat_ws(' ',
        CASE WHEN EXISTS (SELECT 1 FROM json_each(r.content_json, '$.media') m WHERE json_extract(m.value, '$.kind') = 'image') THEN 'photo' END,
        CASE WHEN EXISTS (SELECT 1 FROM json_each(r.content_json, '$.media') m WHERE json_extract(m.value, '$.kind') = 'video') THEN 'video' END,
        CASE WHEN EXISTS (SELECT 1 FROM json_each(r.content_json, '$.media') m WHERE json_extract(m.value, '$.kind') = 'gif') THEN 'gif' END,
        CASE WHEN json_array_length(r.content_json, '$.media') > 0 THEN 'media' END,
        CASE WHEN EXISTS (SELECT 1 FROM json_each(r.content_json, '$.graph.relations') l
            WHERE json_extract(l.value, '$.relation') = 'quotes' AND json_extract(l.value, '$.from') = json_extract(r.content_json, '$.graph.root')) THEN 'quote' END,
        CASE WHEN EXISTS (SELECT 1 FROM json_each(r.content_json, '$.graph.entities') e
            WHERE json_extract(e.value, '$.key') = json_extract(r.content_json, '$.graph.root') AND json_type(e.value, '$.data.poll') = 'object') THEN 'poll' END,
        CASE WHEN EXISTS (SELECT 1 FROM json_each(r.content_json, '$.media') m WHERE json_extract(m.value, '$.sensitive') = 1)
              OR EXISTS (SELECT 1 FROM json_each(r.content_json, '$.graph.entities') e
            WHERE json_extract(e.value, '$.key') = json_extract(r.content_json, '$.graph.root') AND json_extract(e.value, '$.data.sensitive') = 1) THEN 'sensitive' END
    ) || ' ',
    CASE WHEN json_extract(r.content_json, '$.published_at') IS NOT NULL
        THEN strftime('%Y-%m-%d %H:%M:%S', json_extract(r.content_json, '$.published_at')) || '+00:00' END
FROM revisions r;
