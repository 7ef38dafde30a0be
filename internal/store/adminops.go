package store

import (
	"context"
	"time"
)

// QueueCount is how many jobs of one queue are in one state.
type QueueCount struct {
	Queue string
	State string
	Count int64
}

// QueueCounts counts the queue's jobs by queue and state.
func (s *Store) QueueCounts(ctx context.Context) (out []QueueCount, err error) {
	err = s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT queue, state, COUNT(*) FROM river_job WHERE kind <> '`+QueueWakeKind+`' GROUP BY queue, state ORDER BY queue, state`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c QueueCount
			if err := rows.Scan(&c.Queue, &c.State, &c.Count); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "count queue jobs", err)
}

// ErrorLogDeleteRange deletes up to limit rows written from from (inclusive)
// to to (exclusive), of one source ("" for all), and reports how many it
// deleted; callers repeat until it deletes fewer than limit.
func (tx *Tx) ErrorLogDeleteRange(ctx context.Context, from, to time.Time, source string, limit int) (int64, error) {
	res, err := tx.tx.ExecContext(ctx,
		`DELETE FROM error_logs WHERE id IN (
			SELECT id FROM error_logs WHERE created_at >= $1 AND created_at < $2 AND ($3 = '' OR source = $3)
			ORDER BY created_at LIMIT `+itoa(limit)+`)`,
		from.UTC().Truncate(time.Microsecond), to.UTC().Truncate(time.Microsecond), source)
	if err != nil {
		return 0, wrap(tx.d, "delete error logs", err)
	}
	n, err := res.RowsAffected()
	return n, wrap(tx.d, "delete error logs", err)
}
