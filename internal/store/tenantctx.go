package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"
)

// tenantKey carries the tenant a piece of work acts for.
type tenantKey struct{}

// WithTenant marks ctx as acting for a tenant. On PostgreSQL every
// transaction started with such a context sets app.tenant_id, which the
// row-level security policies check; on SQLite the queries themselves
// carry the tenant.
func WithTenant(ctx context.Context, tenantID uuid.UUID) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenantID)
}

// TenantFrom is the tenant ctx acts for, if any.
func TenantFrom(ctx context.Context) (uuid.UUID, bool) {
	id, ok := ctx.Value(tenantKey{}).(uuid.UUID)
	return id, ok
}

// setTenant applies the context's tenant to a transaction, where the
// dialect needs it.
func (s *Store) setTenant(ctx context.Context, tx *sql.Tx) error {
	q := s.d.tenantSQL()
	if q == "" {
		return nil
	}
	id, ok := TenantFrom(ctx)
	if !ok {
		return nil
	}
	if _, err := tx.ExecContext(ctx, q, id.String()); err != nil {
		return fmt.Errorf("store: set tenant: %w", err)
	}
	return nil
}

// view runs fn with a querier that reads as the context's tenant: the read
// pool itself on SQLite, a short read-only transaction on PostgreSQL.
func (s *Store) view(ctx context.Context, fn func(q querier) error) error {
	if s.d.tenantSQL() == "" {
		return fn(s.read)
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("store: begin read: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.setTenant(ctx, tx); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
