package store

import (
	"context"
	"database/sql"
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
}

// tenantColumns is also the column list of the PostgreSQL functions that
// return tenants; keep them in step.
const tenantColumns = `id, name, kind, status, quota_bytes, reserved_bytes, submit_interval_seconds, daily_limit,
	concurrent_limit, last_submit_at, last_denied_at, last_denied_reason, created_at, updated_at`

func scanTenant(row interface{ Scan(...any) error }) (Tenant, error) {
	var t Tenant
	var quota sql.NullInt64
	var lastSubmit, lastDenied sql.NullTime
	err := row.Scan(&t.ID, &t.Name, &t.Kind, &t.Status, &quota, &t.ReservedBytes, &t.SubmitIntervalSeconds, &t.DailyLimit,
		&t.ConcurrentLimit, &lastSubmit, &lastDenied, &t.LastDeniedReason, &t.CreatedAt, &t.UpdatedAt)
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

// TenantInsert creates a tenant; a taken name is ErrConflict. Zero ID and
// times are filled in.
func (tx *Tx) TenantInsert(ctx context.Context, t Tenant) (Tenant, error) {
	if t.ID == uuid.Nil {
		t.ID = uuid.Must(uuid.NewV7())
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now()
	}
	t.UpdatedAt = t.CreatedAt
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tenants (id, name, kind, status, quota_bytes, reserved_bytes, submit_interval_seconds, daily_limit,
			concurrent_limit, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		t.ID, t.Name, t.Kind, t.Status, t.QuotaBytes, t.ReservedBytes, t.SubmitIntervalSeconds, t.DailyLimit,
		t.ConcurrentLimit, t.CreatedAt, t.UpdatedAt)
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
