package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Entity is an adapter-defined object, identified like a collection.
type Entity struct {
	ID          uuid.UUID
	DataScope   uuid.UUID
	AccessScope string
	Visibility  string
	Platform    string
	Type        string
	ExternalID  string
	TenantID    uuid.UUID
}

// EntityVersion is one distinct state of an entity.
type EntityVersion struct {
	ID          uuid.UUID
	EntityID    uuid.UUID
	DataScope   uuid.UUID
	Data        []byte
	Schema      []byte
	ContentHash string
	CreatedAt   time.Time
}

// EntityUpsertVersion finds or creates the entity and its version with the
// given content hash, makes that version the entity's latest, and returns
// both ids. The entity's updated_at is when its latest version last
// changed.
func (tx *Tx) EntityUpsertVersion(ctx context.Context, e Entity, v EntityVersion) (entityID, versionID uuid.UUID, err error) {
	at := tx.now()
	// Each insert returns the row's id whether it inserted it or found it:
	// on a conflict it "updates" a column to its own value, so RETURNING
	// has the row, instead of a second query for it.
	if err := tx.tx.QueryRowContext(ctx,
		`INSERT INTO entities (id, data_scope, access_scope, visibility, platform, entity_type, external_id, tenant_id, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
		 ON CONFLICT (data_scope, platform, access_scope, entity_type, external_id) DO UPDATE SET external_id = entities.external_id
		 RETURNING id`,
		uuid.Must(uuid.NewV7()), e.DataScope, e.AccessScope, e.Visibility, e.Platform, e.Type, e.ExternalID, e.TenantID, at).Scan(&entityID); err != nil {
		return uuid.Nil, uuid.Nil, wrap(tx.d, "insert entity", err)
	}
	if err := tx.tx.QueryRowContext(ctx,
		`INSERT INTO entity_versions (id, entity_id, data_scope, data_json, schema_json, content_hash, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)
		 ON CONFLICT (entity_id, content_hash) DO UPDATE SET content_hash = entity_versions.content_hash
		 RETURNING id`,
		uuid.Must(uuid.NewV7()), entityID, e.DataScope, string(v.Data), string(v.Schema), v.ContentHash, at).Scan(&versionID); err != nil {
		return uuid.Nil, uuid.Nil, wrap(tx.d, "insert entity version", err)
	}
	// An entity seen again as it was (an author across their posts) is
	// left as it is: no row to write.
	_, err = tx.tx.ExecContext(ctx,
		`UPDATE entities SET latest_version_id = $2, updated_at = $3 WHERE id = $1 AND latest_version_id IS DISTINCT FROM $2`,
		entityID, versionID, at)
	return entityID, versionID, wrap(tx.d, "set latest entity version", err)
}

// RevisionEntityInsert links a revision's graph key to an entity version.
func (tx *Tx) RevisionEntityInsert(ctx context.Context, revisionID, versionID, dataScope uuid.UUID, key string, root bool) error {
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO revision_entities (revision_id, entity_version_id, data_scope, graph_key, is_root, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6)`, revisionID, versionID, dataScope, key, root, tx.now())
	return wrap(tx.d, "link revision entity", err)
}

// EntityRelationInsert records one edge of a revision's graph.
func (tx *Tx) EntityRelationInsert(ctx context.Context, revisionID, dataScope uuid.UUID, from, relation, to string) error {
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO entity_relations (revision_id, data_scope, from_key, relation, to_key, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, revisionID, dataScope, from, relation, to, tx.now())
	return wrap(tx.d, "insert entity relation", err)
}

// RevisionEntityIDs maps a revision's graph keys to entity ids.
func (s *Store) RevisionEntityIDs(ctx context.Context, revisionID uuid.UUID) (map[string]uuid.UUID, error) {
	out := map[string]uuid.UUID{}
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx,
			`SELECT re.graph_key, ev.entity_id FROM revision_entities re JOIN entity_versions ev ON ev.id = re.entity_version_id
			 WHERE re.revision_id = $1`, revisionID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var id uuid.UUID
			if err := rows.Scan(&k, &id); err != nil {
				return err
			}
			out[k] = id
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list revision entities", err)
}

// EntitySnapshot is the newest version of an entity a tenant can see.
type EntitySnapshot struct {
	Entity
	VersionID uuid.UUID
	Data      []byte
	CreatedAt time.Time
}

// EntityLatestForTenant finds the newest version of an entity that is
// public or in the tenant's own data scope and appears in a revision of a
// collection the tenant saved.
func (s *Store) EntityLatestForTenant(ctx context.Context, tenantID, entityID uuid.UUID) (EntitySnapshot, error) {
	var es EntitySnapshot
	var data string
	err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx,
			`SELECT e.id, e.data_scope, e.access_scope, e.visibility, e.platform, e.entity_type, e.external_id, e.tenant_id,
			ev.id, ev.data_json, ev.created_at
		 FROM entity_versions ev JOIN entities e ON e.id = ev.entity_id
		 WHERE ev.entity_id = $2 AND (e.data_scope = $3 OR e.data_scope = $1) AND EXISTS (
			SELECT 1 FROM revision_entities re
			JOIN revisions r ON r.id = re.revision_id
			JOIN tenant_collections tc ON tc.collection_id = r.collection_id AND tc.tenant_id = $1
			WHERE re.entity_version_id = ev.id)
		 ORDER BY ev.created_at DESC, ev.id DESC LIMIT 1`, tenantID, entityID, PublicScope).Scan(
			&es.ID, &es.DataScope, &es.AccessScope, &es.Visibility, &es.Platform, &es.Type, &es.ExternalID, &es.TenantID,
			&es.VersionID, &data, &es.CreatedAt)
	})
	es.Data = []byte(data)
	return es, wrap(s.d, "get entity", err)
}
