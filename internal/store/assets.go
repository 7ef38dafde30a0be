package store

import (
	"context"
	"database/sql"

	"github.com/google/uuid"
)

// Asset states.
const (
	AssetPending     = "pending"
	AssetDownloading = "downloading"
	AssetComplete    = "complete"
	AssetFailed      = "failed"
	AssetUnavailable = "unavailable"
)

// Asset is one media reference of a capture.
type Asset struct {
	ID         uuid.UUID
	CaptureID  uuid.UUID
	DataScope  uuid.UUID
	Visibility string
	Position   int
	Purpose    string
	EntityKey  string
	SourceURL  string
	// StreamRef is the adapter's reference of a medium without a URL,
	// read back with ReadMedia; private to the asset, never exported.
	StreamRef   string
	Kind        string
	Mime        string
	Width       int
	Height      int
	DurationMS  int
	Alt         string
	Sensitive   bool
	CacheKey    string
	State       string
	Error       string
	BlobID      *uuid.UUID
	Reserved    int64
	Attempts    int
	Size        int64
	BlobSHA256  string // filled by reads that join blobs
	BlobMime    string
	BlobSize    int64
	AccessScope string // of the capture, filled by AssetGet
	TenantID    uuid.UUID
}

// AssetInsert adds a media reference to a capture.
func (tx *Tx) AssetInsert(ctx context.Context, a Asset) (Asset, error) {
	if a.ID == uuid.Nil {
		a.ID = uuid.Must(uuid.NewV7())
	}
	at := tx.now()
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO assets (id, capture_id, data_scope, visibility, position, purpose, entity_key, source_url, kind, mime,
			width, height, duration_ms, alt, sensitive, cache_key, state, error, created_at, updated_at, stream_ref)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $20)`,
		a.ID, a.CaptureID, a.DataScope, a.Visibility, a.Position, a.Purpose, a.EntityKey, a.SourceURL, a.Kind, a.Mime,
		a.Width, a.Height, a.DurationMS, a.Alt, a.Sensitive, a.CacheKey, a.State, a.Error, at, a.StreamRef)
	return a, wrap(tx.d, "insert asset", err)
}

const assetColumns = `a.id, a.capture_id, a.data_scope, a.visibility, a.position, a.purpose, a.entity_key, a.source_url, a.kind,
	a.mime, a.width, a.height, a.duration_ms, a.alt, a.sensitive, a.cache_key, a.state, a.error, a.blob_id, a.reserved_bytes,
	a.attempts, a.size, COALESCE(b.sha256, ''), COALESCE(b.mime, ''), COALESCE(b.size, 0), c.access_scope, c.tenant_id, a.stream_ref`

const assetFrom = ` FROM assets a JOIN captures c ON c.id = a.capture_id LEFT JOIN blobs b ON b.id = a.blob_id`

func scanAsset(row interface{ Scan(...any) error }) (Asset, error) {
	var a Asset
	var blobID uuid.NullUUID
	err := row.Scan(&a.ID, &a.CaptureID, &a.DataScope, &a.Visibility, &a.Position, &a.Purpose, &a.EntityKey, &a.SourceURL,
		&a.Kind, &a.Mime, &a.Width, &a.Height, &a.DurationMS, &a.Alt, &a.Sensitive, &a.CacheKey, &a.State, &a.Error,
		&blobID, &a.Reserved, &a.Attempts, &a.Size, &a.BlobSHA256, &a.BlobMime, &a.BlobSize, &a.AccessScope, &a.TenantID, &a.StreamRef)
	if blobID.Valid {
		a.BlobID = &blobID.UUID
	}
	return a, err
}

// AssetGet finds an asset with its capture's scope and its blob, if any.
func (tx *Tx) AssetGet(ctx context.Context, id uuid.UUID) (Asset, error) {
	a, err := scanAsset(tx.tx.QueryRowContext(ctx, `SELECT `+assetColumns+assetFrom+` WHERE a.id = $1`, id))
	return a, wrap(tx.d, "get asset", err)
}

// AssetList lists a capture's assets in order.
func (tx *Tx) AssetList(ctx context.Context, captureID uuid.UUID) ([]Asset, error) {
	return assetList(ctx, tx.d, tx.tx, captureID)
}

// AssetList lists a capture's assets in order.
func (s *Store) AssetList(ctx context.Context, captureID uuid.UUID) (out []Asset, err error) {
	err = s.view(ctx, func(q querier) error {
		out, err = assetList(ctx, s.d, q, captureID)
		return err
	})
	return out, err
}

func assetList(ctx context.Context, d dialect, q querier, captureID uuid.UUID) ([]Asset, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+assetColumns+assetFrom+` WHERE a.capture_id = $1 ORDER BY a.position`, captureID)
	if err != nil {
		return nil, wrap(d, "list assets", err)
	}
	defer rows.Close()
	var out []Asset
	for rows.Next() {
		a, err := scanAsset(rows)
		if err != nil {
			return nil, wrap(d, "list assets", err)
		}
		out = append(out, a)
	}
	return out, wrap(d, "list assets", rows.Err())
}

// AssetSetState moves an asset to a state with an error text (terminal
// failures) and counts an attempt when attempted is true.
func (tx *Tx) AssetSetState(ctx context.Context, id uuid.UUID, state, errText string, attempted bool) error {
	inc := 0
	if attempted {
		inc = 1
	}
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE assets SET state = $2, error = $3, attempts = attempts + $4, updated_at = $5 WHERE id = $1`,
		id, state, errText, inc, tx.now())
	return wrap(tx.d, "set asset state", err)
}

// AssetAttach records the stored blob of a downloaded asset.
func (tx *Tx) AssetAttach(ctx context.Context, id, blobID uuid.UUID, size int64, mime string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE assets SET state = 'complete', error = '', blob_id = $2, size = $3,
			mime = CASE WHEN mime = '' THEN $4 ELSE mime END, updated_at = $5
		 WHERE id = $1`, id, blobID, size, mime, tx.now())
	return wrap(tx.d, "attach asset", err)
}

// AssetBlobByCacheKey finds a stored blob of an earlier asset with the same
// cache key in the same data and access scope: immutable media that need not
// be downloaded again.
func (tx *Tx) AssetBlobByCacheKey(ctx context.Context, dataScope uuid.UUID, accessScope, cacheKey string) (Blob, error) {
	if cacheKey == "" {
		return Blob{}, wrap(tx.d, "get blob by cache key", sql.ErrNoRows)
	}
	// "cache_key <> ''" repeats the partial index's condition, so that the
	// lookup searches assets_cache_key_idx instead of walking every asset
	// with a blob (SQLite chose assets_blob_id_idx without it).
	b, err := scanBlob(tx.tx.QueryRowContext(ctx,
		`SELECT `+blobColumns+` FROM blobs b
		 WHERE b.id = (SELECT a.blob_id FROM assets a
		               WHERE a.data_scope = $1 AND a.cache_key = $3 AND a.cache_key <> '' AND a.blob_id IS NOT NULL LIMIT 1)
		   AND b.access_scope = $2`, dataScope, accessScope, cacheKey))
	return b, wrap(tx.d, "get blob by cache key", err)
}

// AssetsPending counts a capture's assets that are not terminal yet.
func (tx *Tx) AssetsPending(ctx context.Context, captureID uuid.UUID) (int, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx,
		`SELECT count(*) FROM assets WHERE capture_id = $1 AND state IN ('pending', 'downloading')`, captureID).Scan(&n)
	return n, wrap(tx.d, "count pending assets", err)
}

// AssetReserve changes an asset's quota reservation and its tenant's by
// delta bytes (negative releases).
func (tx *Tx) AssetReserve(ctx context.Context, assetID, tenantID uuid.UUID, delta int64) error {
	if delta == 0 {
		return nil
	}
	if _, err := tx.tx.ExecContext(ctx,
		`UPDATE assets SET reserved_bytes = reserved_bytes + $2 WHERE id = $1`, assetID, delta); err != nil {
		return wrap(tx.d, "reserve asset bytes", err)
	}
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE tenants SET reserved_bytes = reserved_bytes + $2 WHERE id = $1`, tenantID, delta)
	return wrap(tx.d, "reserve tenant bytes", err)
}

// CaptureReleaseReservations returns every byte a capture's assets hold to
// the tenant, so reserved_bytes goes back to what other captures hold.
func (tx *Tx) CaptureReleaseReservations(ctx context.Context, captureID, tenantID uuid.UUID) error {
	var held int64
	if err := tx.tx.QueryRowContext(ctx,
		`SELECT CAST(COALESCE(SUM(reserved_bytes), 0) AS BIGINT) FROM assets WHERE capture_id = $1`, captureID).Scan(&held); err != nil {
		return wrap(tx.d, "sum reservations", err)
	}
	if held == 0 {
		return nil
	}
	if _, err := tx.tx.ExecContext(ctx, `UPDATE assets SET reserved_bytes = 0 WHERE capture_id = $1`, captureID); err != nil {
		return wrap(tx.d, "release reservations", err)
	}
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE tenants SET reserved_bytes = CASE WHEN reserved_bytes > $2 THEN reserved_bytes - $2 ELSE 0 END WHERE id = $1`, tenantID, held)
	return wrap(tx.d, "release reservations", err)
}
