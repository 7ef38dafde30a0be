-- Collection pages (mirrors migrations/sqlite/0012_pages.sql). A capture
-- may be asked for more than the target itself: expand names what the
-- adapter should also list ('' = nothing more, 'thread' = the author's
-- thread around a post), page_size how many related targets a page should
-- hold (0 = the adapter's default). Both are part of what makes two
-- in-flight captures the same one.
ALTER TABLE captures ADD COLUMN expand TEXT NOT NULL DEFAULT '';
ALTER TABLE captures ADD COLUMN page_size INTEGER NOT NULL DEFAULT 0 CHECK (page_size >= 0);

DROP INDEX captures_in_flight_key;
CREATE UNIQUE INDEX captures_in_flight_key ON captures (
    collection_id,
    provider_id,
    (COALESCE(connection_id::text, '')),
    automatic,
    (COALESCE(page_cursor, '')),
    expand,
    page_size
) WHERE state IN ('queued', 'downloading');

-- The children of a page (automatic submissions) and the later pages of a
-- chain (parent = the chain's first page) are found by parent.
CREATE INDEX submissions_parent_automatic_idx ON submissions (parent_submission_id, automatic, created_at)
    WHERE parent_submission_id IS NOT NULL;
