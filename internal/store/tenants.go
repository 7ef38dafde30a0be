package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Tenant statuses.
const (
	TenantPending  = "pending"
	TenantEnabled  = "enabled"
	TenantDisabled = "disabled"
	TenantArchived = "archived"
)

// Tenant kinds: a personal tenant is created on a person's first contact
// through a channel; a managed one by an operator.
const (
	TenantPersonal = "personal"
	TenantManaged  = "managed"
)

// Tenant owns saved collections, tokens and identities, and is the unit of
// quota and limits.
type Tenant struct {
	ID     uuid.UUID
	Name   string
	Kind   string
	Status string
	// QuotaBytes is the storage quota; nil means unlimited.
	QuotaBytes    *int64
	ReservedBytes int64
	// Limits (0: none): seconds between submits, captures per operating
	// day, unfinished captures at once.
	SubmitIntervalSeconds int
	DailyLimit            int
	ConcurrentLimit       int
	LastSubmitAt          *time.Time
	LastDeniedAt          *time.Time
	LastDeniedReason      string
	CreatedAt             time.Time
	UpdatedAt             time.Time
	// Admin marks an operator: the tenant may sign in to the operator
	// console through a channel (the bot's /admin).
	Admin bool
	// ChannelLimit is how many channels the tenant may bind (1 unless an
	// operator changed it).
	ChannelLimit int
}

// tenantColumns is also the column list of the PostgreSQL functions that
// return tenants; keep them in step.
const tenantColumns = `id, name, kind, status, quota_bytes, reserved_bytes, submit_interval_seconds, daily_limit,
	concurrent_limit, last_submit_at, last_denied_at, last_denied_reason, created_at, updated_at, admin, channel_limit`

func scanTenant(row interface{ Scan(...any) error }) (Tenant, error) {
	var t Tenant
	var quota sql.NullInt64
	var lastSubmit, lastDenied sql.NullTime
	err := row.Scan(&t.ID, &t.Name, &t.Kind, &t.Status, &quota, &t.ReservedBytes, &t.SubmitIntervalSeconds, &t.DailyLimit,
		&t.ConcurrentLimit, &lastSubmit, &lastDenied, &t.LastDeniedReason, &t.CreatedAt, &t.UpdatedAt, &t.Admin, &t.ChannelLimit)
	if quota.Valid {
		t.QuotaBytes = &quota.Int64
	}
	if lastSubmit.Valid {
		t.LastSubmitAt = &lastSubmit.Time
	}
	if lastDenied.Valid {
		t.LastDeniedAt = &lastDenied.Time
	}
	return t, err
}

// DefaultChannelLimit is how many channels a new tenant may bind.
const DefaultChannelLimit = 1

// TenantInsert creates a tenant; a taken name is ErrConflict. Zero ID and
// times are filled in, and a zero ChannelLimit is DefaultChannelLimit.
func (tx *Tx) TenantInsert(ctx context.Context, t Tenant) (Tenant, error) {
	if t.ID == uuid.Nil {
		t.ID = uuid.Must(uuid.NewV7())
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = tx.now()
	}
	t.UpdatedAt = t.CreatedAt
	if t.ChannelLimit == 0 {
		t.ChannelLimit = DefaultChannelLimit
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tenants (id, name, kind, status, quota_bytes, reserved_bytes, submit_interval_seconds, daily_limit,
			concurrent_limit, created_at, updated_at, channel_limit)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		t.ID, t.Name, t.Kind, t.Status, t.QuotaBytes, t.ReservedBytes, t.SubmitIntervalSeconds, t.DailyLimit,
		t.ConcurrentLimit, t.CreatedAt, t.UpdatedAt, t.ChannelLimit)
	return t, wrap(tx.d, "insert tenant", err)
}

// TenantGetByName finds a tenant by its unique name.
func (s *Store) TenantGetByName(ctx context.Context, name string) (t Tenant, err error) {
	err = s.view(ctx, func(q querier) error {
		t, err = tenantGetByName(ctx, s.d, q, name)
		return err
	})
	return t, err
}

// TenantGetByName finds a tenant by its unique name inside the transaction.
func (tx *Tx) TenantGetByName(ctx context.Context, name string) (Tenant, error) {
	return tenantGetByName(ctx, tx.d, tx.tx, name)
}

func tenantGetByName(ctx context.Context, d dialect, q querier, name string) (Tenant, error) {
	t, err := scanTenant(q.QueryRowContext(ctx, d.tenantByNameQuery(), name))
	return t, wrap(d, "get tenant by name", err)
}

// TenantGetByID finds a tenant by id.
func (s *Store) TenantGetByID(ctx context.Context, id uuid.UUID) (t Tenant, err error) {
	err = s.view(ctx, func(q querier) error {
		t, err = scanTenant(q.QueryRowContext(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, id))
		return err
	})
	return t, wrap(s.d, "get tenant by id", err)
}

// TenantGetByID finds a tenant by id inside the transaction.
func (tx *Tx) TenantGetByID(ctx context.Context, id uuid.UUID) (Tenant, error) {
	t, err := scanTenant(tx.tx.QueryRowContext(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, id))
	return t, wrap(tx.d, "get tenant by id", err)
}

// TenantUpdate writes a tenant's status, quota, limits, channel limit and
// admin mark.
func (tx *Tx) TenantUpdate(ctx context.Context, t Tenant) error {
	at := tx.now()
	var archivedAt *time.Time
	if t.Status == TenantArchived {
		archivedAt = &at
	}
	res, err := tx.tx.ExecContext(ctx,
		`UPDATE tenants SET status = $2, quota_bytes = $3, submit_interval_seconds = $4, daily_limit = $5,
			concurrent_limit = $6, archived_at = $7, updated_at = $8, admin = $9, channel_limit = $10
		 WHERE id = $1`,
		t.ID, t.Status, t.QuotaBytes, t.SubmitIntervalSeconds, t.DailyLimit, t.ConcurrentLimit, archivedAt, at, t.Admin, t.ChannelLimit)
	if err != nil {
		return wrap(tx.d, "update tenant", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return wrap(tx.d, "update tenant", sql.ErrNoRows)
	}
	return nil
}

// TenantSubmitted records an accepted submit: its time, and one more use
// on the operating day.
func (tx *Tx) TenantSubmitted(ctx context.Context, id uuid.UUID, at time.Time, day string) error {
	if _, err := tx.tx.ExecContext(ctx, `UPDATE tenants SET last_submit_at = $2 WHERE id = $1`, id, at); err != nil {
		return wrap(tx.d, "record submit", err)
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO usage_daily (tenant_id, day, used, created_at, updated_at) VALUES ($1, $2, 1, $3, $3)
		 ON CONFLICT (tenant_id, day) DO UPDATE SET used = usage_daily.used + 1, updated_at = excluded.updated_at`, id, day, tx.now())
	return wrap(tx.d, "count daily usage", err)
}

// TenantDenied records why a tenant was last refused.
func (tx *Tx) TenantDenied(ctx context.Context, id uuid.UUID, at time.Time, reason string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE tenants SET last_denied_at = $2, last_denied_reason = $3 WHERE id = $1`, id, at, reason)
	return wrap(tx.d, "record denial", err)
}

// UsageDay is a tenant's use on one operating day.
type UsageDay struct {
	Day        string
	Used       int
	ResetCount int
}

// UsageDayGet reads a tenant's use on a day (zero when none).
func (tx *Tx) UsageDayGet(ctx context.Context, id uuid.UUID, day string) (UsageDay, error) {
	u := UsageDay{Day: day}
	err := tx.tx.QueryRowContext(ctx, `SELECT used, reset_count FROM usage_daily WHERE tenant_id = $1 AND day = $2`, id, day).
		Scan(&u.Used, &u.ResetCount)
	if errors.Is(err, sql.ErrNoRows) {
		return u, nil
	}
	return u, wrap(tx.d, "get daily usage", err)
}

// UsageDayReset sets a tenant's use on a day back to zero, counting resets.
func (tx *Tx) UsageDayReset(ctx context.Context, id uuid.UUID, day string) error {
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO usage_daily (tenant_id, day, used, reset_count, created_at, updated_at) VALUES ($1, $2, 0, 1, $3, $3)
		 ON CONFLICT (tenant_id, day) DO UPDATE SET used = 0, reset_count = usage_daily.reset_count + 1, updated_at = excluded.updated_at`,
		id, day, tx.now())
	return wrap(tx.d, "reset daily usage", err)
}

// TenantUnfinished counts the tenant's submissions whose capture is still
// queued or downloading.
func (tx *Tx) TenantUnfinished(ctx context.Context, id uuid.UUID) (int, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx,
		`SELECT count(DISTINCT s.capture_id) FROM submissions s JOIN captures c ON c.id = s.capture_id
		 WHERE s.tenant_id = $1 AND c.state IN ('queued', 'downloading')`, id).Scan(&n)
	return n, wrap(tx.d, "count unfinished captures", err)
}

// TenantList lists every tenant by name (operators only).
func (s *Store) TenantList(ctx context.Context) ([]Tenant, error) {
	var out []Tenant
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, s.d.tenantListQuery())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanTenant(rows)
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list tenants", err)
}
