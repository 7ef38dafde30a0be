-- Operations (mirrors migrations/postgres/0016_ops.sql): the system metric
-- samples behind the operator console's charts (seed 003 v7/v14), one row
-- per process every 30 s, kept 48 h. sampled_at is aligned to the sampling
-- interval, so the rows of several processes line up; NULL means the probe
-- was not available.
CREATE TABLE system_metric_samples (
    sampled_at                DATETIME NOT NULL,
    instance                  TEXT NOT NULL,
    rss_bytes                 INTEGER,
    cpu_percent               REAL,
    goroutines                INTEGER,
    db_bytes                  INTEGER,
    blob_bytes                INTEGER,
    queue_jobs                INTEGER,
    download_bytes_per_second REAL,
    upload_bytes_per_second   REAL,
    PRIMARY KEY (sampled_at, instance)
);
