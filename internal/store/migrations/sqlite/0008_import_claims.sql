-- Imported content is never evidence (mirrors migrations/postgres/0009_import_claims.sql):
-- a capsule's collection lands in the importer's private scope whatever it
-- claims, and claimed_visibility keeps what the file said ('' for content a
-- capture fetched), so an export can show it and a later live capture of
-- the real post can take the imported copy's place in the importer's
-- archive (store.CaptureAdoptImports).
ALTER TABLE collections ADD COLUMN claimed_visibility TEXT NOT NULL DEFAULT '';
