package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// This file holds what capsule import and export need beyond the capture
// pipeline's statements: rows written with the times a capsule gives, and
// a few bulk reads.

// ProviderCapsule is the provider of the captures that stand for content
// imported from a capsule.
const ProviderCapsule = "capsule"

// SavedCollectionCount counts the collections a tenant saved.
func (s *Store) SavedCollectionCount(ctx context.Context, tenantID uuid.UUID) (int, error) {
	var n int
	err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT count(*) FROM tenant_collections WHERE tenant_id = $1`, tenantID).Scan(&n)
	})
	return n, wrap(s.d, "count saved collections", err)
}

// CollectionGetByIdentity finds the collection with c's identity (data
// scope, platform, access scope, entity type, object scope, external id).
func (tx *Tx) CollectionGetByIdentity(ctx context.Context, c Collection) (Collection, error) {
	got, err := scanCollection(tx.tx.QueryRowContext(ctx,
		`SELECT `+collectionColumns+` FROM collections
		 WHERE data_scope = $1 AND platform = $2 AND access_scope = $3 AND entity_type = $4 AND object_scope = $5 AND external_id = $6`,
		c.DataScope, c.Platform, c.AccessScope, c.EntityType, c.ObjectScope, c.ExternalID))
	return got, wrap(tx.d, "get collection by identity", err)
}

// CollectionInsertAt creates a collection with the given id, claimed
// visibility and creation time; a taken id or identity is ErrConflict.
func (tx *Tx) CollectionInsertAt(ctx context.Context, c Collection, at time.Time) error {
	at = at.UTC().Truncate(time.Microsecond)
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, object_scope,
			external_id, adapter_id, source_url, claimed_visibility, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
		c.ID, c.TenantID, c.Visibility, c.DataScope, c.AccessScope, c.Platform, c.EntityType, c.ObjectScope,
		c.ExternalID, c.AdapterID, c.SourceURL, c.ClaimedVisibility, at)
	return wrap(tx.d, "insert collection", err)
}

// CaptureInsertFinished records a capture that ended complete at the given
// time with the given revision, as imported content's stand-in for the
// fetch that produced it. The revision may be inserted later in the same
// transaction.
func (tx *Tx) CaptureInsertFinished(ctx context.Context, c Capture, revisionID uuid.UUID, at time.Time) (Capture, error) {
	if c.ID == uuid.Nil {
		c.ID = uuid.Must(uuid.NewV7())
	}
	at = at.UTC().Truncate(time.Microsecond)
	c.State, c.RevisionID, c.CreatedAt, c.UpdatedAt = CaptureComplete, &revisionID, at, at
	c.StartedAt, c.FinishedAt = &at, &at
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id,
			state, revision_id, started_at, finished_at, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $11, $11)`,
		c.ID, c.CollectionID, c.TenantID, c.Visibility, c.DataScope, c.AccessScope, c.AdapterID, c.Provider,
		c.State, revisionID, at)
	return c, wrap(tx.d, "insert finished capture", err)
}

// TenantCollectionSaveAt records the tenant's reference to a collection
// with the given save time; an existing reference is left as it is.
// created reports whether the reference is new. A collection the tenant
// may not see is ErrNotFound, as with TenantCollectionSave.
func (tx *Tx) TenantCollectionSaveAt(ctx context.Context, tenantID, collectionID uuid.UUID, savedAt time.Time) (created bool, err error) {
	if err := tx.collectionVisible(ctx, tenantID, collectionID); err != nil {
		return false, err
	}
	res, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES ($1, $2, $3, $4)
		 ON CONFLICT (tenant_id, collection_id) DO NOTHING`, tenantID, collectionID, savedAt.UTC().Truncate(time.Microsecond), tx.now())
	if err != nil {
		return false, wrap(tx.d, "save collection", err)
	}
	if _, err := tx.tx.ExecContext(ctx,
		`UPDATE collections SET unreferenced_at = NULL WHERE id = $1 AND unreferenced_at IS NOT NULL`, collectionID); err != nil {
		return false, wrap(tx.d, "save collection", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// AssetInsertStored adds a media reference that is stored already: state
// complete, attached to its blob.
func (tx *Tx) AssetInsertStored(ctx context.Context, a Asset) error {
	if a.ID == uuid.Nil {
		a.ID = uuid.Must(uuid.NewV7())
	}
	at := tx.now()
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO assets (id, capture_id, data_scope, visibility, position, purpose, entity_key, source_url, kind, mime,
			width, height, duration_ms, alt, sensitive, cache_key, state, error, blob_id, size, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, '', 'complete', '', $16, $17, $18, $18)`,
		a.ID, a.CaptureID, a.DataScope, a.Visibility, a.Position, a.Purpose, a.EntityKey, a.SourceURL, a.Kind, a.Mime,
		a.Width, a.Height, a.DurationMS, a.Alt, a.Sensitive, a.BlobID, a.Size, at)
	return wrap(tx.d, "insert stored asset", err)
}

// BlobsExisting reports which of the given contents already have a blob in
// a data and access scope, as a set of SHA-256s.
func (s *Store) BlobsExisting(ctx context.Context, dataScope uuid.UUID, accessScope string, sha256s []string) (map[string]bool, error) {
	out := map[string]bool{}
	const chunk = 400
	err := s.view(ctx, func(q querier) error {
		for start := 0; start < len(sha256s); start += chunk {
			part := sha256s[start:min(start+chunk, len(sha256s))]
			args := []any{dataScope, accessScope}
			marks := make([]string, len(part))
			for i, h := range part {
				args = append(args, h)
				marks[i] = "$" + itoa(i+3)
			}
			rows, err := q.QueryContext(ctx,
				`SELECT sha256 FROM blobs WHERE data_scope = $1 AND access_scope = $2 AND sha256 IN (`+strings.Join(marks, ", ")+`)`, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var h string
				if err := rows.Scan(&h); err != nil {
					rows.Close()
					return err
				}
				out[h] = true
			}
			if err := rows.Close(); err != nil {
				return err
			}
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return out, wrap(s.d, "look up blobs", err)
}

// ObjectsInsertPending records objects before their bytes are uploaded, in
// one transaction.
func (s *Store) ObjectsInsertPending(ctx context.Context, objs []Object) error {
	if len(objs) == 0 {
		return nil
	}
	// Many rows a statement: an import records thousands.
	const chunk = 200
	return s.InTx(ctx, func(tx *Tx) error {
		at := tx.now()
		for start := 0; start < len(objs); start += chunk {
			part := objs[start:min(start+chunk, len(objs))]
			var q strings.Builder
			q.WriteString(`INSERT INTO objects (id, tenant_id, key, state, created_at, updated_at) VALUES `)
			args := []any{at}
			for i, o := range part {
				if i > 0 {
					q.WriteString(", ")
				}
				n := len(args)
				q.WriteString("($" + itoa(n+1) + ", $" + itoa(n+2) + ", $" + itoa(n+3) + ", 'pending', $1, $1)")
				args = append(args, o.ID, o.TenantID, o.Key)
			}
			if _, err := tx.tx.ExecContext(ctx, q.String(), args...); err != nil {
				return wrap(tx.d, "insert objects", err)
			}
		}
		return nil
	})
}

// ObjectsDeleteUnattached removes the records of objects no blob holds,
// whose bytes the caller deleted already: uploads of an import that did
// not commit.
func (s *Store) ObjectsDeleteUnattached(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	return s.InTx(ctx, func(tx *Tx) error {
		for _, id := range ids {
			if _, err := tx.tx.ExecContext(ctx,
				`DELETE FROM objects WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM blobs WHERE object_id = $1)`, id); err != nil {
				return wrap(tx.d, "delete object", err)
			}
		}
		return nil
	})
}

// ObjectsMarkGarbage marks objects garbage when no blob holds them, so the
// object collector removes their bytes: uploads of an import that did not
// commit.
func (s *Store) ObjectsMarkGarbage(ctx context.Context, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	return s.InTx(ctx, func(tx *Tx) error {
		for _, id := range ids {
			if _, err := tx.tx.ExecContext(ctx,
				`UPDATE objects SET state = 'garbage', updated_at = $2
				 WHERE id = $1 AND state = 'pending' AND NOT EXISTS (SELECT 1 FROM blobs WHERE object_id = $1)`, id, s.now()); err != nil {
				return wrap(tx.d, "mark object garbage", err)
			}
		}
		return nil
	})
}

// ImportLookup is what an import finds of one collection among what the
// tenant may see, in one query: whether the tenant saved the public
// collection, and the tenant's private copy (its identity) with whether
// the tenant saved it.
type ImportLookup struct {
	PublicSaved bool
	// Private is the private copy's id, uuid.Nil when there is none.
	Private      uuid.UUID
	PrivateSaved bool
}

// CollectionImportLookup looks up, for an import, the public collection
// publicID and the collection with private's identity (data scope,
// platform, access scope, entity type, object scope, external id).
func (tx *Tx) CollectionImportLookup(ctx context.Context, tenantID, publicID uuid.UUID, private Collection) (ImportLookup, error) {
	var l ImportLookup
	var id uuid.NullUUID
	err := tx.tx.QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM tenant_collections WHERE tenant_id = $1 AND collection_id = $2),
			c.id,
			EXISTS (SELECT 1 FROM tenant_collections t WHERE t.tenant_id = $1 AND t.collection_id = c.id)
		 FROM (SELECT 1 AS one) AS one
		 LEFT JOIN collections c ON c.data_scope = $3 AND c.platform = $4 AND c.access_scope = $5 AND c.entity_type = $6
			AND c.object_scope = $7 AND c.external_id = $8`,
		tenantID, publicID, private.DataScope, private.Platform, private.AccessScope, private.EntityType, private.ObjectScope,
		private.ExternalID).Scan(&l.PublicSaved, &id, &l.PrivateSaved)
	if id.Valid {
		l.Private = id.UUID
	}
	return l, wrap(tx.d, "look up imported collection", err)
}

// TenantArchiveEmpty reports whether the tenant has saved no collection
// and holds none in its private scope, saved or not.
func (tx *Tx) TenantArchiveEmpty(ctx context.Context, tenantID uuid.UUID) (bool, error) {
	var empty bool
	err := tx.tx.QueryRowContext(ctx,
		`SELECT NOT EXISTS (SELECT 1 FROM tenant_collections WHERE tenant_id = $1)
			AND NOT EXISTS (SELECT 1 FROM collections WHERE data_scope = $1)`, tenantID).Scan(&empty)
	return empty, wrap(tx.d, "look at the tenant's archive", err)
}

// TenantCollectionInsert records the tenant's reference to a collection
// the transaction created: TenantCollectionSaveAt without its checks,
// which a collection nobody else can see yet passes.
func (tx *Tx) TenantCollectionInsert(ctx context.Context, tenantID, collectionID uuid.UUID, savedAt time.Time) error {
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES ($1, $2, $3, $4)`,
		tenantID, collectionID, savedAt.UTC().Truncate(time.Microsecond), tx.now())
	return wrap(tx.d, "save collection", err)
}

// ExportRows are what an export writes of some collections, read in a
// few queries for all of them instead of several for each.
type ExportRows struct {
	// Revisions are each collection's revisions, by collection, in chain
	// order (oldest first).
	Revisions map[uuid.UUID][]Revision
	// EntityIDs are each revision's entities by graph key, by revision.
	EntityIDs map[uuid.UUID]map[string]uuid.UUID
	// Assets are each capture's assets in order, by capture.
	Assets map[uuid.UUID][]Asset
	// ObjectKeys are the blob store keys of the assets' blobs, by blob id.
	ObjectKeys map[uuid.UUID]string
}

// exportChunk is how many ids one export query names.
const exportChunk = 200

// ExportRead reads the revisions of the collections, with their entities
// and their captures' assets and media keys, in one read.
func (s *Store) ExportRead(ctx context.Context, collectionIDs []uuid.UUID) (ExportRows, error) {
	out := ExportRows{Revisions: map[uuid.UUID][]Revision{}, EntityIDs: map[uuid.UUID]map[string]uuid.UUID{},
		Assets: map[uuid.UUID][]Asset{}, ObjectKeys: map[uuid.UUID]string{}}
	err := s.view(ctx, func(q querier) error {
		var revIDs, captureIDs []uuid.UUID
		if err := inChunks(ctx, q, collectionIDs,
			`SELECT `+revisionColumns+` FROM revisions WHERE collection_id IN (%s) ORDER BY collection_id, chain_seq, created_at, id`,
			func(rows *sql.Rows) error {
				r, err := scanRevision(rows)
				if err != nil {
					return err
				}
				out.Revisions[r.CollectionID] = append(out.Revisions[r.CollectionID], r)
				revIDs, captureIDs = append(revIDs, r.ID), append(captureIDs, r.CaptureID)
				return nil
			}); err != nil {
			return err
		}
		if err := inChunks(ctx, q, revIDs,
			`SELECT re.revision_id, re.graph_key, ev.entity_id FROM revision_entities re JOIN entity_versions ev ON ev.id = re.entity_version_id
			 WHERE re.revision_id IN (%s)`,
			func(rows *sql.Rows) error {
				var rev, id uuid.UUID
				var key string
				if err := rows.Scan(&rev, &key, &id); err != nil {
					return err
				}
				if out.EntityIDs[rev] == nil {
					out.EntityIDs[rev] = map[string]uuid.UUID{}
				}
				out.EntityIDs[rev][key] = id
				return nil
			}); err != nil {
			return err
		}
		return inChunks(ctx, q, captureIDs,
			`SELECT `+assetColumns+`, COALESCE((SELECT o.key FROM objects o WHERE o.id = b.object_id), '')`+assetFrom+`
			 WHERE a.capture_id IN (%s) ORDER BY a.capture_id, a.position`,
			func(rows *sql.Rows) error {
				var key string
				a, err := scanAsset(scanExtra{rows, []any{&key}})
				if err != nil {
					return err
				}
				out.Assets[a.CaptureID] = append(out.Assets[a.CaptureID], a)
				if a.BlobID != nil && key != "" {
					out.ObjectKeys[*a.BlobID] = key
				}
				return nil
			})
	})
	return out, wrap(s.d, "read collections to export", err)
}

// scanExtra scans a row's leading columns into what a scan function asks
// for and the rest into extra.
type scanExtra struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func (s scanExtra) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra...)...) }

// inChunks runs query, whose %s is a list of parameters, over ids a chunk
// at a time, calling fn on every row.
func inChunks(ctx context.Context, q querier, ids []uuid.UUID, query string, fn func(*sql.Rows) error) error {
	for start := 0; start < len(ids); start += exportChunk {
		part := ids[start:min(start+exportChunk, len(ids))]
		marks := make([]string, len(part))
		args := make([]any, len(part))
		for i, id := range part {
			marks[i], args[i] = "$"+itoa(i+1), id
		}
		if err := func() error {
			rows, err := q.QueryContext(ctx, fmt.Sprintf(query, strings.Join(marks, ", ")), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if err := fn(rows); err != nil {
					return err
				}
			}
			return rows.Err()
		}(); err != nil {
			return err
		}
	}
	return nil
}
