-- Capture pipeline bookkeeping (mirrors migrations/sqlite/0002_pipeline.sql).

-- Download attempts of an asset, counted by the download worker so that
-- retries honour the upstream's Retry-After without River's backoff.
ALTER TABLE assets ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0);

-- Stored size of the asset's media once downloaded (0 until then).
ALTER TABLE assets ADD COLUMN size BIGINT NOT NULL DEFAULT 0 CHECK (size >= 0);

-- While a capture worker is fetching, it holds an execution slot of its
-- tenant (and connection) until slot_until; a crashed worker's slot expires.
ALTER TABLE captures ADD COLUMN slot_until TIMESTAMPTZ;

CREATE INDEX captures_slot_idx ON captures (tenant_id, slot_until) WHERE slot_until IS NOT NULL;
