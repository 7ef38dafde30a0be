package store

import (
	"context"
	"database/sql"
	"time"
)

// MetricSample is one process's system metrics at one moment (seed 003's
// system_metric_samples). A nil field is a probe that was not available.
type MetricSample struct {
	// SampledAt is the sampling tick, aligned to the sampling interval so
	// that the samples of several processes line up.
	SampledAt time.Time
	// Instance names the process that took it.
	Instance   string
	RSSBytes   *int64
	CPUPercent *float64 // 0–100, of all cores
	Goroutines *int64
	DBBytes    *int64
	BlobBytes  *int64
	// QueueJobs are the jobs waiting or running.
	QueueJobs *int64
	// DownloadBPS and UploadBPS are bytes per second since the previous
	// sample of the process.
	DownloadBPS *float64
	UploadBPS   *float64
}

const metricSampleColumns = `sampled_at, instance, rss_bytes, cpu_percent, goroutines, db_bytes, blob_bytes, queue_jobs,
	download_bytes_per_second, upload_bytes_per_second`

// MetricSampleInsert stores a sample (replacing one of the same instance
// and tick) and deletes every sample taken before purgeBefore, in one
// transaction: the table never holds more than its retention.
func (s *Store) MetricSampleInsert(ctx context.Context, m MetricSample, purgeBefore time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx,
			`INSERT INTO system_metric_samples (`+metricSampleColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			 ON CONFLICT (sampled_at, instance) DO UPDATE SET rss_bytes = excluded.rss_bytes, cpu_percent = excluded.cpu_percent,
				goroutines = excluded.goroutines, db_bytes = excluded.db_bytes, blob_bytes = excluded.blob_bytes,
				queue_jobs = excluded.queue_jobs, download_bytes_per_second = excluded.download_bytes_per_second,
				upload_bytes_per_second = excluded.upload_bytes_per_second`,
			m.SampledAt.UTC().Truncate(time.Microsecond), m.Instance, m.RSSBytes, m.CPUPercent, m.Goroutines, m.DBBytes, m.BlobBytes,
			m.QueueJobs, m.DownloadBPS, m.UploadBPS)
		if err != nil {
			return wrap(tx.d, "insert metric sample", err)
		}
		_, err = tx.tx.ExecContext(ctx, `DELETE FROM system_metric_samples WHERE sampled_at < $1`, purgeBefore.UTC().Truncate(time.Microsecond))
		return wrap(tx.d, "purge metric samples", err)
	})
}

// MetricSampleList lists the samples taken from from (inclusive) to to
// (exclusive), oldest first.
func (s *Store) MetricSampleList(ctx context.Context, from, to time.Time) ([]MetricSample, error) {
	var out []MetricSample
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+metricSampleColumns+` FROM system_metric_samples
			WHERE sampled_at >= $1 AND sampled_at < $2 ORDER BY sampled_at, instance`,
			from.UTC().Truncate(time.Microsecond), to.UTC().Truncate(time.Microsecond))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m MetricSample
			var rss, gor, db, bl, jobs sql.NullInt64
			var cpu, down, up sql.NullFloat64
			if err := rows.Scan(&m.SampledAt, &m.Instance, &rss, &cpu, &gor, &db, &bl, &jobs, &down, &up); err != nil {
				return err
			}
			m.SampledAt = m.SampledAt.UTC()
			m.RSSBytes, m.Goroutines, m.DBBytes, m.BlobBytes, m.QueueJobs = nullInt(rss), nullInt(gor), nullInt(db), nullInt(bl), nullInt(jobs)
			m.CPUPercent, m.DownloadBPS, m.UploadBPS = nullFloat(cpu), nullFloat(down), nullFloat(up)
			out = append(out, m)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list metric samples", err)
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	return &v.Int64
}

func nullFloat(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	return &v.Float64
}

// DatabaseBytes is the size of the database: the SQLite file's pages, or
// PostgreSQL's current database.
func (s *Store) DatabaseBytes(ctx context.Context) (int64, error) {
	q := `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`
	if s.d.name() == "postgres" {
		q = `SELECT pg_database_size(current_database())`
	}
	var n int64
	err := s.read.QueryRowContext(ctx, q).Scan(&n)
	return n, wrap(s.d, "database size", err)
}

// BlobUsage counts the attached media objects of every tenant and their
// bytes: what the media store holds for the archive.
func (s *Store) BlobUsage(ctx context.Context) (objects, bytes int64, err error) {
	q := `SELECT count(*), COALESCE(sum(size), 0) FROM objects WHERE state = 'attached'`
	if s.d.name() == "postgres" {
		q = `SELECT objects, bytes FROM monitor_blob_usage()`
	}
	err = s.read.QueryRowContext(ctx, q).Scan(&objects, &bytes)
	return objects, bytes, wrap(s.d, "blob usage", err)
}

// QueueJobsWaiting counts the queue's jobs that wait or run (available,
// scheduled, retryable, running, pending), read from River's table.
func (s *Store) QueueJobsWaiting(ctx context.Context) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx,
		`SELECT count(*) FROM river_job WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'pending') AND kind <> '`+QueueWakeKind+`'`).Scan(&n)
	return n, wrap(s.d, "count queue jobs", err)
}
