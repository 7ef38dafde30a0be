-- The verifiable archive (docs/verify.md): every revision is a link of its
-- collection's hash chain, monitor-chain-v1 (internal/chain). chain_seq is
-- the revision's place in the chain (1 = first); prev_hash the chain hash
-- of the revision before it ('' for the first); chain_hash the SHA-256 of
-- the link's canonical encoding. chain_raw (the SHA-256s of the raw
-- upstream responses of the capture that produced it, sorted, comma
-- separated) and chain_adapter_id / chain_adapter_version are kept with
-- the revision, as an imported revision has no responses or adapter of
-- its own. The store fills existing revisions in order per collection in
-- the same transaction, after this file (store.backfillChains).
-- Mirrors the other dialect's 0018_chain.sql.
ALTER TABLE revisions ADD COLUMN chain_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE revisions ADD COLUMN prev_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE revisions ADD COLUMN chain_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE revisions ADD COLUMN chain_raw TEXT NOT NULL DEFAULT '';
ALTER TABLE revisions ADD COLUMN chain_adapter_id TEXT NOT NULL DEFAULT '';
ALTER TABLE revisions ADD COLUMN chain_adapter_version TEXT NOT NULL DEFAULT '';
CREATE INDEX revisions_chain_idx ON revisions (collection_id, chain_seq);
