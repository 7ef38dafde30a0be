-- Saved searches (mirrors migrations/sqlite/0011_saved_searches.sql): a
-- tenant's queries of the search language under names of its choosing,
-- listed in the web library's navigation and usable by export --query.
-- query is stored as the tenant typed it after ParseQuery accepted it, so
-- a relative date (saved:>7d) stays relative.
CREATE TABLE saved_searches (
    id         UUID PRIMARY KEY,
    tenant_id  UUID NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name       TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    query      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (tenant_id, name)
);


-- ===========================================================================
-- Row-level security
-- ===========================================================================

ALTER TABLE saved_searches ENABLE ROW LEVEL SECURITY;
ALTER TABLE saved_searches FORCE ROW LEVEL SECURITY;
CREATE POLICY saved_searches_tenant ON saved_searches FOR ALL
    USING (tenant_id = monitor_tenant()) WITH CHECK (tenant_id = monitor_tenant());
