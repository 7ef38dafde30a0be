-- Media that only an adapter can read (a Telegram session's files, which
-- have no URL) carry the adapter's opaque reference, which core hands back
-- to the adapter's ReadMedia with the capture's credential. It stays with
-- the asset (whose row security already covers it): never shown, never
-- exported.
ALTER TABLE assets ADD COLUMN stream_ref TEXT NOT NULL DEFAULT '';
