package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Object states.
const (
	ObjectPending  = "pending"
	ObjectAttached = "attached"
	ObjectGarbage  = "garbage"
)

// Object is the lifecycle record of one stored object.
type Object struct {
	ID       uuid.UUID
	TenantID uuid.UUID
	Key      string
	State    string
}

// ObjectInsertPending records an object before its bytes are uploaded, so
// an upload whose commit is lost is found and collected later.
func (tx *Tx) ObjectInsertPending(ctx context.Context, o Object) error {
	at := tx.now()
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO objects (id, tenant_id, key, state, created_at, updated_at) VALUES ($1, $2, $3, 'pending', $4, $4)`,
		o.ID, o.TenantID, o.Key, at)
	return wrap(tx.d, "insert object", err)
}

// ObjectSetState moves an object to attached or garbage, recording its
// size and hash when known.
func (tx *Tx) ObjectSetState(ctx context.Context, id uuid.UUID, state string, size int64, sha256 string) error {
	var sum any
	if sha256 != "" {
		sum = sha256
	}
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE objects SET state = $2, size = $3, sha256 = COALESCE($4, sha256), updated_at = $5 WHERE id = $1`,
		id, state, size, sum, tx.now())
	return wrap(tx.d, "set object state", err)
}

// Blob is deduplicated media content.
type Blob struct {
	ID          uuid.UUID
	DataScope   uuid.UUID
	AccessScope string
	Visibility  string
	SHA256      string
	Size        int64
	Mime        string
	ObjectID    uuid.UUID
	ObjectKey   string
	TenantID    uuid.UUID
	CreatedAt   time.Time
}

const blobColumns = `b.id, b.data_scope, b.access_scope, b.visibility, b.sha256, b.size, b.mime, b.object_id,
	(SELECT o.key FROM objects o WHERE o.id = b.object_id), b.tenant_id, b.created_at`

func scanBlob(row interface{ Scan(...any) error }) (Blob, error) {
	var b Blob
	err := row.Scan(&b.ID, &b.DataScope, &b.AccessScope, &b.Visibility, &b.SHA256, &b.Size, &b.Mime, &b.ObjectID,
		&b.ObjectKey, &b.TenantID, &b.CreatedAt)
	return b, err
}

// BlobLock serializes, until the transaction ends, the transactions that
// look up or create the blob of some content in a data and access scope.
func (tx *Tx) BlobLock(ctx context.Context, dataScope uuid.UUID, accessScope, sha256 string) error {
	q := tx.d.lockKeyQuery()
	if q == "" {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, q, "blob/"+dataScope.String()+"/"+accessScope+"/"+sha256)
	return wrap(tx.d, "lock blob", err)
}

// BlobGetByHash finds the blob of some content in a data and access scope.
func (tx *Tx) BlobGetByHash(ctx context.Context, dataScope uuid.UUID, accessScope, sha256 string) (Blob, error) {
	b, err := scanBlob(tx.tx.QueryRowContext(ctx,
		`SELECT `+blobColumns+` FROM blobs b WHERE b.data_scope = $1 AND b.access_scope = $2 AND b.sha256 = $3`,
		dataScope, accessScope, sha256))
	return b, wrap(tx.d, "get blob", err)
}

// BlobInsert records new content stored as the given (now attached) object.
func (tx *Tx) BlobInsert(ctx context.Context, b Blob) (Blob, error) {
	if b.ID == uuid.Nil {
		b.ID = uuid.Must(uuid.NewV7())
	}
	b.CreatedAt = tx.now()
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO blobs (id, data_scope, access_scope, visibility, sha256, size, mime, object_id, tenant_id, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		b.ID, b.DataScope, b.AccessScope, b.Visibility, b.SHA256, b.Size, b.Mime, b.ObjectID, b.TenantID, b.CreatedAt)
	return b, wrap(tx.d, "insert blob", err)
}

// BlobForTenant finds the blob of some content that a tenant may read: it
// is public or in the tenant's own data scope, and referenced by a
// revision of a collection the tenant saved.
func (s *Store) BlobForTenant(ctx context.Context, tenantID uuid.UUID, sha256 string) (b Blob, err error) {
	err = s.view(ctx, func(q querier) error {
		b, err = scanBlob(q.QueryRowContext(ctx,
			`SELECT `+blobColumns+` FROM blobs b
		 WHERE b.sha256 = $2 AND (b.data_scope = $3 OR b.data_scope = $1) AND EXISTS (
			SELECT 1 FROM assets a
			JOIN revisions r ON r.capture_id = a.capture_id
			JOIN tenant_collections tc ON tc.collection_id = r.collection_id AND tc.tenant_id = $1
			WHERE a.blob_id = b.id)
		 LIMIT 1`, tenantID, sha256, PublicScope))
		return err
	})
	return b, wrap(s.d, "get blob for tenant", err)
}

// ObjectDelete removes the record of an object whose bytes are gone.
func (tx *Tx) ObjectDelete(ctx context.Context, id uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, `DELETE FROM objects WHERE id = $1`, id)
	return wrap(tx.d, "delete object", err)
}

// ObjectCounts counts objects by state, for operations and tests.
func (s *Store) ObjectCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT state, count(*) FROM objects GROUP BY state`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var state string
			var n int
			if err := rows.Scan(&state, &n); err != nil {
				return err
			}
			out[state] = n
		}
		return rows.Err()
	})
	return out, wrap(s.d, "count objects", err)
}

// BlobCount counts stored blobs.
func (s *Store) BlobCount(ctx context.Context) (int, error) {
	var n int
	err := s.view(ctx, func(q querier) error { return q.QueryRowContext(ctx, `SELECT count(*) FROM blobs`).Scan(&n) })
	return n, wrap(s.d, "count blobs", err)
}
