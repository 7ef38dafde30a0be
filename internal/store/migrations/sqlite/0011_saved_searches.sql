-- Saved searches (mirrors migrations/postgres/0012_saved_searches.sql): a
-- tenant's queries of the search language under names of its choosing,
-- listed in the web library's navigation and usable by export --query.
-- query is stored as the tenant typed it after ParseQuery accepted it, so
-- a relative date (saved:>7d) stays relative.
CREATE TABLE saved_searches (
    id         TEXT PRIMARY KEY,
    tenant_id  TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
    query      TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    UNIQUE (tenant_id, name)
);
