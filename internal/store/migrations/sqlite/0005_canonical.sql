-- Canonical targets: an adapter may answer a fetch with the stable identity
-- of what was asked for (a member of a Telegram album is the album). The
-- collection asked for then points at the canonical one.
ALTER TABLE collections ADD COLUMN canonical_id TEXT REFERENCES collections (id);
