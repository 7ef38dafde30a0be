package store

import (
	"context"
	"fmt"
	"time"
)

// CheckReady proves the database accepts a write and serves it back: it
// records a heartbeat under instance in a committed transaction and reads it
// from the read pool.
func (s *Store) CheckReady(ctx context.Context, instance string) error {
	at := s.now()
	err := s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx,
			`INSERT INTO health_checks (instance, checked_at) VALUES ($1, $2)
			 ON CONFLICT (instance) DO UPDATE SET checked_at = excluded.checked_at`,
			instance, at)
		return wrap(s.d, "write heartbeat", err)
	})
	if err != nil {
		return err
	}
	var got time.Time
	if err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT checked_at FROM health_checks WHERE instance = $1`, instance).Scan(&got)
	}); err != nil {
		return wrap(s.d, "read heartbeat", err)
	}
	if !got.Equal(at) {
		return fmt.Errorf("store: read heartbeat: got %s, wrote %s", got, at)
	}
	return nil
}
