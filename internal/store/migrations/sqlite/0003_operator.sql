-- The operator side: admin tokens, error codes on captures, error logs per
-- submission.

-- An admin token may call /v1/admin/... besides acting for its tenant.
ALTER TABLE tokens ADD COLUMN admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1));

-- A machine-readable reason next to the human one, e.g. INTERRUPTED.
ALTER TABLE captures ADD COLUMN error_code TEXT NOT NULL DEFAULT '';

ALTER TABLE error_logs ADD COLUMN submission_id TEXT;

CREATE INDEX objects_gc_idx ON objects (state, created_at);
