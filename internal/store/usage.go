package store

import (
	"context"

	"github.com/google/uuid"
)

// Usage is a tenant's storage accounting.
type Usage struct {
	UsedBytes     int64
	ReservedBytes int64
	QuotaBytes    *int64
}

// usageQuery computes used_bytes: the content bytes of every revision of
// every collection the tenant saved ($1), plus $2 when it is not nil (a
// collection about to be saved), plus the distinct media those revisions
// reference, plus their captures' raw responses.
const usageQuery = `
WITH saved AS (
	SELECT collection_id FROM tenant_collections WHERE tenant_id = $1
	UNION SELECT id FROM collections WHERE id = $2
), revs AS (
	SELECT r.capture_id, r.content_bytes FROM revisions r JOIN saved s ON s.collection_id = r.collection_id
)
SELECT CAST(
	(SELECT COALESCE(SUM(content_bytes), 0) FROM revs)
	+ (SELECT COALESCE(SUM(b.size), 0) FROM blobs b WHERE b.id IN (
		SELECT a.blob_id FROM assets a JOIN revs ON revs.capture_id = a.capture_id WHERE a.blob_id IS NOT NULL))
	+ (SELECT COALESCE(SUM(sr.size), 0) FROM source_responses sr WHERE sr.capture_id IN (SELECT capture_id FROM revs))
	AS BIGINT)`

// TenantUsage computes a tenant's usage inside the transaction; extra, when
// not nil, is counted as if saved already.
func (tx *Tx) TenantUsage(ctx context.Context, tenantID uuid.UUID, extra *uuid.UUID) (Usage, error) {
	return tenantUsage(ctx, tx.d, tx.tx, tenantID, extra)
}

// TenantUsage computes a tenant's usage.
func (s *Store) TenantUsage(ctx context.Context, tenantID uuid.UUID) (u Usage, err error) {
	err = s.view(ctx, func(q querier) error {
		u, err = tenantUsage(ctx, s.d, q, tenantID, nil)
		return err
	})
	return u, err
}

func tenantUsage(ctx context.Context, d dialect, q querier, tenantID uuid.UUID, extra *uuid.UUID) (Usage, error) {
	var u Usage
	if err := q.QueryRowContext(ctx, usageQuery, tenantID, nullUUID(extra)).Scan(&u.UsedBytes); err != nil {
		return u, wrap(d, "compute usage", err)
	}
	t, err := scanTenant(q.QueryRowContext(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, tenantID))
	if err != nil {
		return u, wrap(d, "compute usage", err)
	}
	u.ReservedBytes = t.ReservedBytes
	u.QuotaBytes = t.QuotaBytes
	return u, nil
}
