package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// CollectionCanonical reports the canonical collection a collection points
// at: a collection asked for under another identity (a member of an album)
// resolves to the collection of its canonical target.
func (tx *Tx) CollectionCanonical(ctx context.Context, id uuid.UUID) (uuid.UUID, bool, error) {
	var to uuid.NullUUID
	err := tx.tx.QueryRowContext(ctx, `SELECT canonical_id FROM collections WHERE id = $1`, id).Scan(&to)
	return to.UUID, to.Valid, wrap(tx.d, "get canonical collection", err)
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
