package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// PublicScope is the data_scope of public content, shared by every tenant.
var PublicScope = uuid.Nil

// Visibilities of content rows.
const (
	Public  = "public"
	Private = "private"
)

// Collection is a post's lasting identity and its current revision.
type Collection struct {
	ID          uuid.UUID
	TenantID    uuid.UUID // creator
	Visibility  string
	DataScope   uuid.UUID
	AccessScope string
	Platform    string
	EntityType  string
	ObjectScope string
	ExternalID  string
	AdapterID   string
	SourceURL   string
	// ClaimedVisibility is what an import's source said the content's
	// visibility was ("" for content an adapter fetched). It is a record
	// of the claim, never a grant: imported content is private to its
	// importer whatever the claim.
	ClaimedVisibility string
	// CurrentRevisionID is nil until the first capture completes.
	CurrentRevisionID *uuid.UUID
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

const collectionColumns = `id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, object_scope,
	external_id, adapter_id, source_url, claimed_visibility, current_revision_id, created_at, updated_at`

func scanCollection(row interface{ Scan(...any) error }) (Collection, error) {
	var c Collection
	var cur uuid.NullUUID
	err := row.Scan(&c.ID, &c.TenantID, &c.Visibility, &c.DataScope, &c.AccessScope, &c.Platform, &c.EntityType,
		&c.ObjectScope, &c.ExternalID, &c.AdapterID, &c.SourceURL, &c.ClaimedVisibility, &cur, &c.CreatedAt, &c.UpdatedAt)
	if cur.Valid {
		c.CurrentRevisionID = &cur.UUID
	}
	return c, err
}

// CollectionGetOrInsert returns the collection with c's identity (data
// scope, platform, access scope, entity type, object scope, external id),
// inserting c when there is none. created reports which.
func (tx *Tx) CollectionGetOrInsert(ctx context.Context, c Collection) (_ Collection, created bool, err error) {
	at := tx.now()
	res, err := tx.tx.ExecContext(ctx,
		`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, object_scope,
			external_id, adapter_id, source_url, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
		 ON CONFLICT (data_scope, platform, access_scope, entity_type, object_scope, external_id) DO NOTHING`,
		c.ID, c.TenantID, c.Visibility, c.DataScope, c.AccessScope, c.Platform, c.EntityType, c.ObjectScope,
		c.ExternalID, c.AdapterID, c.SourceURL, at)
	if err != nil {
		return Collection{}, false, wrap(tx.d, "insert collection", err)
	}
	n, _ := res.RowsAffected()
	got, err := scanCollection(tx.tx.QueryRowContext(ctx,
		`SELECT `+collectionColumns+` FROM collections
		 WHERE data_scope = $1 AND platform = $2 AND access_scope = $3 AND entity_type = $4 AND object_scope = $5 AND external_id = $6`,
		c.DataScope, c.Platform, c.AccessScope, c.EntityType, c.ObjectScope, c.ExternalID))
	return got, n > 0, wrap(tx.d, "get collection", err)
}

// CollectionGet finds a collection by id inside the transaction.
func (tx *Tx) CollectionGet(ctx context.Context, id uuid.UUID) (Collection, error) {
	c, err := scanCollection(tx.tx.QueryRowContext(ctx, `SELECT `+collectionColumns+` FROM collections WHERE id = $1`, id))
	return c, wrap(tx.d, "get collection", err)
}

// CollectionSetCurrent moves a collection's current revision.
func (tx *Tx) CollectionSetCurrent(ctx context.Context, id, revisionID uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE collections SET current_revision_id = $2, updated_at = $3 WHERE id = $1`, id, revisionID, tx.now())
	return wrap(tx.d, "set current revision", err)
}

// SavedCollection is a collection as one tenant saved it.
type SavedCollection struct {
	Collection
	SavedAt time.Time
}

// TenantCollectionSave records the tenant's reference to a collection (the
// first save time stays) and clears the collection's purge mark. created
// reports whether the reference is new. A collection the tenant may not
// see (another tenant's private content) is ErrNotFound: without
// row-level security (SQLite) this check is what keeps a saved reference
// from reaching across tenants.
func (tx *Tx) TenantCollectionSave(ctx context.Context, tenantID, collectionID uuid.UUID) (created bool, err error) {
	if err := tx.collectionVisible(ctx, tenantID, collectionID); err != nil {
		return false, err
	}
	at := tx.now()
	res, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES ($1, $2, $3, $3)
		 ON CONFLICT (tenant_id, collection_id) DO NOTHING`, tenantID, collectionID, at)
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

// collectionVisible is nil when the collection exists and the tenant may
// see it: public, or private in the tenant's own data scope.
func (tx *Tx) collectionVisible(ctx context.Context, tenantID, collectionID uuid.UUID) error {
	var n int
	err := tx.tx.QueryRowContext(ctx,
		`SELECT count(*) FROM collections WHERE id = $1 AND (data_scope = $2 OR data_scope = $3)`,
		collectionID, PublicScope, tenantID).Scan(&n)
	if err == nil && n == 0 {
		err = sql.ErrNoRows
	}
	return wrap(tx.d, "save collection", err)
}

// TenantCollectionExists reports whether the tenant saved the collection.
func (tx *Tx) TenantCollectionExists(ctx context.Context, tenantID, collectionID uuid.UUID) (bool, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx,
		`SELECT count(*) FROM tenant_collections WHERE tenant_id = $1 AND collection_id = $2`, tenantID, collectionID).Scan(&n)
	return n > 0, wrap(tx.d, "look up saved collection", err)
}

// TenantCollectionDelete removes the tenant's reference; when it was the
// last one, the collection is marked for purge after the retention period.
func (tx *Tx) TenantCollectionDelete(ctx context.Context, tenantID, collectionID uuid.UUID) error {
	res, err := tx.tx.ExecContext(ctx,
		`DELETE FROM tenant_collections WHERE tenant_id = $1 AND collection_id = $2`, tenantID, collectionID)
	if err != nil {
		return wrap(tx.d, "delete saved collection", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return wrap(tx.d, "delete saved collection", sql.ErrNoRows)
	}
	_, err = tx.tx.ExecContext(ctx,
		`UPDATE collections SET unreferenced_at = $2
		 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM tenant_collections WHERE collection_id = $1)`, collectionID, tx.now())
	return wrap(tx.d, "mark unreferenced collection", err)
}

// SavedCollectionGet finds a collection the tenant saved.
func (s *Store) SavedCollectionGet(ctx context.Context, tenantID, collectionID uuid.UUID) (sc SavedCollection, err error) {
	err = s.view(ctx, func(q querier) error {
		sc, err = scanSaved(q.QueryRowContext(ctx,
			`SELECT c.id, c.tenant_id, c.visibility, c.data_scope, c.access_scope, c.platform, c.entity_type, c.object_scope,
			c.external_id, c.adapter_id, c.source_url, c.claimed_visibility, c.current_revision_id, c.created_at, c.updated_at, tc.saved_at
		 FROM tenant_collections tc JOIN collections c ON c.id = tc.collection_id
		 WHERE tc.tenant_id = $1 AND tc.collection_id = $2 AND (c.data_scope = $3 OR c.data_scope = $1)`,
			tenantID, collectionID, PublicScope))
		return err
	})
	return sc, wrap(s.d, "get saved collection", err)
}

func scanSaved(row interface{ Scan(...any) error }) (SavedCollection, error) {
	var sc SavedCollection
	var cur uuid.NullUUID
	c := &sc.Collection
	err := row.Scan(&c.ID, &c.TenantID, &c.Visibility, &c.DataScope, &c.AccessScope, &c.Platform, &c.EntityType,
		&c.ObjectScope, &c.ExternalID, &c.AdapterID, &c.SourceURL, &c.ClaimedVisibility, &cur, &c.CreatedAt, &c.UpdatedAt, &sc.SavedAt)
	if cur.Valid {
		c.CurrentRevisionID = &cur.UUID
	}
	return sc, err
}

// SavedCursor is a position in a tenant's list of saved collections.
type SavedCursor struct {
	SavedAt      time.Time
	CollectionID uuid.UUID
}

// SavedCollectionList lists the tenant's saved collections newest save
// first, starting after the cursor (nil: from the newest).
func (s *Store) SavedCollectionList(ctx context.Context, tenantID uuid.UUID, after *SavedCursor, limit int) ([]SavedCollection, error) {
	q := `SELECT c.id, c.tenant_id, c.visibility, c.data_scope, c.access_scope, c.platform, c.entity_type, c.object_scope,
			c.external_id, c.adapter_id, c.source_url, c.claimed_visibility, c.current_revision_id, c.created_at, c.updated_at, tc.saved_at
		 FROM tenant_collections tc JOIN collections c ON c.id = tc.collection_id
		 WHERE tc.tenant_id = $1 AND (c.data_scope = $2 OR c.data_scope = $1)`
	args := []any{tenantID, PublicScope}
	if after != nil {
		q += ` AND (tc.saved_at < $3 OR (tc.saved_at = $3 AND tc.collection_id < $4))`
		args = append(args, after.SavedAt, after.CollectionID)
	}
	q += ` ORDER BY tc.saved_at DESC, tc.collection_id DESC LIMIT ` + itoa(limit)
	var out []SavedCollection
	err := s.view(ctx, func(qr querier) error {
		rows, err := qr.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			sc, err := scanSaved(rows)
			if err != nil {
				return err
			}
			out = append(out, sc)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list saved collections", err)
}

// CollectionGet finds a collection by id.
func (s *Store) CollectionGet(ctx context.Context, id uuid.UUID) (c Collection, err error) {
	err = s.view(ctx, func(q querier) error {
		c, err = scanCollection(q.QueryRowContext(ctx, `SELECT `+collectionColumns+` FROM collections WHERE id = $1`, id))
		return err
	})
	return c, wrap(s.d, "get collection", err)
}
