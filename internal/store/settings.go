package store

import (
	"context"
	"time"
)

// Setting is one stored runtime setting.
type Setting struct {
	Key       string
	Value     string
	Type      string // string, int, bool, duration, json
	Secret    bool   // Value is ciphertext
	UpdatedAt time.Time
}

// SettingList returns every stored setting, by key.
func (s *Store) SettingList(ctx context.Context) ([]Setting, error) {
	var out []Setting
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT key, value, value_type, secret, updated_at FROM config ORDER BY key`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st Setting
			if err := rows.Scan(&st.Key, &st.Value, &st.Type, &st.Secret, &st.UpdatedAt); err != nil {
				return err
			}
			out = append(out, st)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list settings", err)
}

// SettingGet finds one stored setting (ErrNotFound when it was never set).
func (tx *Tx) SettingGet(ctx context.Context, key string) (Setting, error) {
	st := Setting{Key: key}
	err := tx.tx.QueryRowContext(ctx, `SELECT value, value_type, secret, updated_at FROM config WHERE key = $1`, key).
		Scan(&st.Value, &st.Type, &st.Secret, &st.UpdatedAt)
	return st, wrap(tx.d, "get setting "+key, err)
}

// SettingPut stores a setting, replacing its value.
func (tx *Tx) SettingPut(ctx context.Context, st Setting) error {
	at := tx.now()
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO config (key, value, value_type, secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
		 ON CONFLICT (key) DO UPDATE SET value = excluded.value, value_type = excluded.value_type, secret = excluded.secret,
			updated_at = excluded.updated_at`, st.Key, st.Value, st.Type, st.Secret, at)
	return wrap(tx.d, "put setting "+st.Key, err)
}

// SettingDelete removes a stored setting, so its default applies again.
func (tx *Tx) SettingDelete(ctx context.Context, key string) error {
	_, err := tx.tx.ExecContext(ctx, `DELETE FROM config WHERE key = $1`, key)
	return wrap(tx.d, "delete setting "+key, err)
}
