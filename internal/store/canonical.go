package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// CollectionCanonical reports the canonical collection a collection points
// at: a collection asked for under another identity (a member of an album)
// resolves to the collection of its canonical target, and an imported
// private copy to the public collection that took its place. Only
// collections the tenant may see (public, or private in its own scope)
// answer; any other id is ErrNotFound.
func (tx *Tx) CollectionCanonical(ctx context.Context, tenantID, id uuid.UUID) (uuid.UUID, bool, error) {
	var to uuid.NullUUID
	err := tx.tx.QueryRowContext(ctx,
		`SELECT canonical_id FROM collections WHERE id = $1 AND (data_scope = $2 OR data_scope = $3)`,
		id, PublicScope, tenantID).Scan(&to)
	return to.UUID, to.Valid, wrap(tx.d, "get canonical collection", err)
}

// CaptureAdoptImports puts public collection to, whose capture ended
// complete, in the place of imported private copies of the same post: for
// every tenant that submitted the capture and saved to, a saved copy in
// the tenant's own scope that an import claimed public loses the tenant's
// reference, the reference to to takes the copy's earlier saved time, and
// the copy points at to, so its id keeps finding the post. Imported
// content is never shared; a fetch through an adapter is what makes the
// post public, and this is where the importer's archive follows it.
func (tx *Tx) CaptureAdoptImports(ctx context.Context, captureID, to uuid.UUID) error {
	return wrap(tx.d, "replace imported copies", tx.d.adoptImports(ctx, tx.tx, captureID, to, tx.now()))
}

// importedCopyOf is the condition on collection c (joined with t, the
// public collection) and tenant expression that makes c the tenant's
// imported private copy of t's post. adoptImports and its PostgreSQL
// function (migrations/postgres/0009_import_claims.sql) share it.
func importedCopyOf(tenant string) string {
	return `c.data_scope = ` + tenant + ` AND c.access_scope = 'private' AND c.claimed_visibility = 'public'
	   AND c.platform = t.platform AND c.entity_type = t.entity_type
	   AND c.object_scope = t.object_scope AND c.external_id = t.external_id`
}

// adoptImports is CaptureAdoptImports where no database function does it.
func adoptImports(ctx context.Context, q querier, captureID, to uuid.UUID, at time.Time) error {
	const submitters = `(SELECT s.tenant_id FROM submissions s WHERE s.capture_id = $1)`
	// Almost every capture has no imported copy to replace: one look
	// through the collections' identity index says so, where the steps
	// below read every save of each submitter.
	var found bool
	if err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM collections c JOIN collections t ON t.id = $2
		WHERE c.data_scope IN `+submitters+` AND `+importedCopyOf("c.data_scope")+`)`, captureID, to).Scan(&found); err != nil {
		return err
	}
	if !found {
		return nil
	}
	earliest := `(SELECT min(o.saved_at) FROM tenant_collections o
		JOIN collections c ON c.id = o.collection_id JOIN collections t ON t.id = $2
		WHERE o.tenant_id = tenant_collections.tenant_id AND ` + importedCopyOf("o.tenant_id") + `)`
	steps := []struct {
		sql  string
		args []any
	}{
		{`UPDATE tenant_collections SET saved_at = ` + earliest + `
		   WHERE collection_id = $2 AND tenant_id IN ` + submitters + ` AND saved_at > ` + earliest, []any{captureID, to}},
		{`UPDATE collections SET canonical_id = $2, updated_at = $3
		   WHERE canonical_id IS NULL AND id IN (
			SELECT o.collection_id FROM tenant_collections o
			JOIN collections c ON c.id = o.collection_id JOIN collections t ON t.id = $2
			WHERE o.tenant_id IN ` + submitters + `
			  AND EXISTS (SELECT 1 FROM tenant_collections r WHERE r.tenant_id = o.tenant_id AND r.collection_id = $2)
			  AND ` + importedCopyOf("o.tenant_id") + `)`, []any{captureID, to, at}},
		{`DELETE FROM tenant_collections
		   WHERE tenant_id IN ` + submitters + `
		     AND EXISTS (SELECT 1 FROM tenant_collections r WHERE r.tenant_id = tenant_collections.tenant_id AND r.collection_id = $2)
		     AND collection_id IN (SELECT c.id FROM collections c JOIN collections t ON t.id = $2
			WHERE ` + importedCopyOf("tenant_collections.tenant_id") + `)`, []any{captureID, to}},
		{`UPDATE collections SET unreferenced_at = $2
		   WHERE canonical_id = $1 AND access_scope = 'private' AND claimed_visibility = 'public' AND unreferenced_at IS NULL
		     AND NOT EXISTS (SELECT 1 FROM tenant_collections o WHERE o.collection_id = collections.id)`, []any{to, at}},
	}
	for _, s := range steps {
		if _, err := q.ExecContext(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// CaptureRepoint moves an in-flight capture of collection from to its
// canonical collection to: from points at to from now on, and every
// submission of the capture, whoever made it, and those submitters' saved
// references of from follow (a submitter that already saved to keeps that
// one reference). from is marked unreferenced when nothing saves it any
// more; to is no longer.
func (tx *Tx) CaptureRepoint(ctx context.Context, captureID, from, to uuid.UUID) error {
	return wrap(tx.d, "move capture to its canonical collection", tx.d.repointCapture(ctx, tx.tx, captureID, from, to, tx.now()))
}

// repointCapture is CaptureRepoint where no database function does it.
func repointCapture(ctx context.Context, q querier, captureID, from, to uuid.UUID, at time.Time) error {
	steps := []struct {
		sql  string
		args []any
	}{
		{`UPDATE collections SET canonical_id = $1, updated_at = $2 WHERE id = $3 AND canonical_id IS NULL`, []any{to, at, from}},
		{`UPDATE captures SET collection_id = $1, updated_at = $2 WHERE id = $3 AND collection_id = $4`, []any{to, at, captureID, from}},
		{`UPDATE submissions SET collection_id = $1, updated_at = $2 WHERE capture_id = $3`, []any{to, at, captureID}},
		{`DELETE FROM tenant_collections
		   WHERE collection_id = $1
		     AND tenant_id IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = $2)
		     AND EXISTS (SELECT 1 FROM tenant_collections o
		                  WHERE o.tenant_id = tenant_collections.tenant_id AND o.collection_id = $3)`, []any{from, captureID, to}},
		{`UPDATE tenant_collections SET collection_id = $1
		   WHERE collection_id = $2 AND tenant_id IN (SELECT s.tenant_id FROM submissions s WHERE s.capture_id = $3)`, []any{to, from, captureID}},
		{`UPDATE collections SET unreferenced_at = NULL WHERE id = $1 AND unreferenced_at IS NOT NULL`, []any{to}},
		{`UPDATE collections SET unreferenced_at = $1
		   WHERE id = $2 AND unreferenced_at IS NULL
		     AND NOT EXISTS (SELECT 1 FROM tenant_collections o WHERE o.collection_id = $2)`, []any{at, from}},
	}
	for _, s := range steps {
		if _, err := q.ExecContext(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// CapturePublish moves an in-flight account capture of tenant tenantID
// from its private collection from to the public collection to, because
// the adapter showed what it fetched to be public: the capture takes to's
// scope (what it stores from now on is public, its raw responses aside,
// which the caller keeps private), and its submissions and the tenant's
// saved reference follow. A private collection that already holds
// revisions keeps its reference beside the new one, so nothing archived
// under the account is given up; an empty one is left unreferenced.
func (tx *Tx) CapturePublish(ctx context.Context, tenantID, captureID uuid.UUID, from, to Collection) error {
	if from.Visibility != Private || from.DataScope != tenantID || to.Visibility != Public ||
		from.Platform != to.Platform || from.EntityType != to.EntityType {
		return wrap(tx.d, "publish capture", errors.New("only a tenant's private collection moves to a public one of the same kind"))
	}
	at := tx.now()
	res, err := tx.tx.ExecContext(ctx,
		`UPDATE captures SET collection_id = $1, visibility = $2, data_scope = $3, access_scope = $4, updated_at = $5
		  WHERE id = $6 AND collection_id = $7 AND tenant_id = $8 AND connection_id IS NOT NULL AND state IN ('queued', 'downloading')`,
		to.ID, to.Visibility, to.DataScope, to.AccessScope, at, captureID, from.ID, tenantID)
	if err != nil {
		return wrap(tx.d, "publish capture", err)
	}
	if err := affectedOne(res); err != nil {
		return wrap(tx.d, "publish capture", err)
	}
	var keep bool
	if err := tx.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM revisions WHERE collection_id = $1)`, from.ID).Scan(&keep); err != nil {
		return wrap(tx.d, "publish capture", err)
	}
	type step struct {
		sql  string
		args []any
	}
	steps := []step{
		{`UPDATE submissions SET collection_id = $1, updated_at = $2 WHERE capture_id = $3 AND tenant_id = $4`, []any{to.ID, at, captureID, tenantID}},
		{`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at)
		  SELECT tenant_id, $1, saved_at, $2 FROM tenant_collections WHERE tenant_id = $3 AND collection_id = $4
		  ON CONFLICT DO NOTHING`, []any{to.ID, at, tenantID, from.ID}},
		{`UPDATE collections SET unreferenced_at = NULL WHERE id = $1 AND unreferenced_at IS NOT NULL`, []any{to.ID}},
	}
	if !keep {
		steps = append(steps,
			step{`DELETE FROM tenant_collections WHERE tenant_id = $1 AND collection_id = $2`, []any{tenantID, from.ID}},
			step{`UPDATE collections SET unreferenced_at = $1
			    WHERE id = $2 AND unreferenced_at IS NULL
			      AND NOT EXISTS (SELECT 1 FROM tenant_collections o WHERE o.collection_id = $2)`, []any{at, from.ID}})
	}
	for _, s := range steps {
		if _, err := tx.tx.ExecContext(ctx, s.sql, s.args...); err != nil {
			return wrap(tx.d, "publish capture", err)
		}
	}
	return nil
}
