-- Operations (mirrors migrations/sqlite/0015_ops.sql): the system metric
-- samples behind the operator console's charts (seed 003 v7/v14), one row
-- per process every 30 s, kept 48 h. sampled_at is aligned to the sampling
-- interval, so the rows of several processes line up; NULL means the probe
-- was not available. Samples belong to no tenant: no row-level security.
CREATE TABLE system_metric_samples (
    sampled_at                TIMESTAMPTZ NOT NULL,
    instance                  TEXT NOT NULL,
    rss_bytes                 BIGINT,
    cpu_percent               DOUBLE PRECISION,
    goroutines                INTEGER,
    db_bytes                  BIGINT,
    blob_bytes                BIGINT,
    queue_jobs                INTEGER,
    download_bytes_per_second DOUBLE PRECISION,
    upload_bytes_per_second   DOUBLE PRECISION,
    PRIMARY KEY (sampled_at, instance)
);

-- The media every tenant stores, for the console's usage figure: objects
-- are tenant-scoped, and the sampler counts them all.
CREATE FUNCTION monitor_blob_usage()
    RETURNS TABLE (objects bigint, bytes bigint)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    SELECT count(*), COALESCE(sum(o.size), 0)::bigint
      FROM objects o
     WHERE o.state = 'attached';
END;
REVOKE EXECUTE ON FUNCTION monitor_blob_usage() FROM PUBLIC;
