package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// PurgeCandidate is a collection retention may purge, in its data scope.
type PurgeCandidate struct {
	CollectionID uuid.UUID
	DataScope    uuid.UUID
}

// purgeCandidatesSQL is the SQLite form of monitor_purge_candidates: no
// reference, unreferenced since before $1, no capture in flight, nothing
// left to deliver.
const purgeCandidatesSQL = `SELECT c.id AS collection_id, c.data_scope FROM collections c
	WHERE c.unreferenced_at IS NOT NULL AND c.unreferenced_at < $1
	  AND NOT EXISTS (SELECT 1 FROM tenant_collections tc WHERE tc.collection_id = c.id)
	  AND NOT EXISTS (SELECT 1 FROM captures p WHERE p.collection_id = c.id AND p.state IN ('queued', 'downloading'))
	  AND NOT EXISTS (SELECT 1 FROM submissions s WHERE s.collection_id = c.id AND s.delivery_state IN ('pending', 'delivering'))
	ORDER BY c.unreferenced_at LIMIT $2`

// PurgeCandidates lists collections whose retention ran out before cutoff,
// across data scopes.
func (s *Store) PurgeCandidates(ctx context.Context, cutoff time.Time, limit int) ([]PurgeCandidate, error) {
	var out []PurgeCandidate
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, s.d.purgeCandidatesQuery(), cutoff.UTC(), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c PurgeCandidate
			if err := rows.Scan(&c.CollectionID, &c.DataScope); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list purge candidates", err)
}

// CollectionPurge deletes a collection's content when it is still a
// candidate under the lock on its row: revisions with their entity links,
// assets, raw responses and staged fetches. Blobs nothing references any
// more are deleted and their objects become garbage. The collection keeps
// its identity (a new save captures it afresh) and loses its purge mark. It
// reports whether it purged.
func (tx *Tx) CollectionPurge(ctx context.Context, id uuid.UUID, cutoff time.Time) (bool, error) {
	if q := tx.d.lockCollectionQuery(); q != "" {
		if _, err := tx.tx.ExecContext(ctx, q, id); err != nil {
			return false, wrap(tx.d, "lock collection", err)
		}
	}
	var n int
	if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+tx.d.purgeCandidatesQuery()+`) c WHERE c.collection_id = $3`,
		cutoff.UTC(), 1<<30, id).Scan(&n); err != nil {
		return false, wrap(tx.d, "recheck purge", err)
	}
	if n == 0 {
		return false, nil // saved again, or work arrived, since it was listed
	}
	at := tx.now()
	if _, err := tx.tx.ExecContext(ctx, `UPDATE collections SET current_revision_id = NULL, unreferenced_at = NULL, updated_at = $2 WHERE id = $1`, id, at); err != nil {
		return false, wrap(tx.d, "clear current revision", err)
	}
	if _, err := tx.tx.ExecContext(ctx, `UPDATE captures SET revision_id = NULL, staged_json = NULL, updated_at = $2 WHERE collection_id = $1`, id, at); err != nil {
		return false, wrap(tx.d, "unlink captures", err)
	}
	// Revisions take their entity links and relations with them (cascade).
	if _, err := tx.tx.ExecContext(ctx, `DELETE FROM revisions WHERE collection_id = $1`, id); err != nil {
		return false, wrap(tx.d, "delete revisions", err)
	}
	// The blobs the collection's assets used, before the assets go.
	rows, err := tx.tx.QueryContext(ctx,
		`SELECT DISTINCT a.blob_id FROM assets a JOIN captures c ON c.id = a.capture_id
		 WHERE c.collection_id = $1 AND a.blob_id IS NOT NULL`, id)
	if err != nil {
		return false, wrap(tx.d, "list blobs", err)
	}
	var blobs []uuid.UUID
	for rows.Next() {
		var b uuid.UUID
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return false, wrap(tx.d, "list blobs", err)
		}
		blobs = append(blobs, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, wrap(tx.d, "list blobs", err)
	}
	for _, q := range []string{
		`DELETE FROM assets WHERE capture_id IN (SELECT id FROM captures WHERE collection_id = $1)`,
		`DELETE FROM source_responses WHERE capture_id IN (SELECT id FROM captures WHERE collection_id = $1)`,
	} {
		if _, err := tx.tx.ExecContext(ctx, q, id); err != nil {
			return false, wrap(tx.d, "purge content", err)
		}
	}
	for _, b := range blobs {
		var refs int
		if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM assets WHERE blob_id = $1`, b).Scan(&refs); err != nil {
			return false, wrap(tx.d, "count blob references", err)
		}
		if refs > 0 {
			continue // another collection still shows these bytes
		}
		var object uuid.UUID
		if err := tx.tx.QueryRowContext(ctx, `DELETE FROM blobs WHERE id = $1 RETURNING object_id`, b).Scan(&object); err != nil {
			return false, wrap(tx.d, "delete blob", err)
		}
		if err := tx.markGarbage(ctx, object); err != nil {
			return false, err
		}
	}
	return true, nil
}

// GCObject is an object the garbage collector may delete.
type GCObject struct {
	ID       uuid.UUID
	TenantID uuid.UUID
	Key      string
	State    string
}

// gcObjectsSQL is the SQLite form of monitor_gc_objects.
const gcObjectsSQL = `SELECT id, tenant_id, key, state FROM objects
	WHERE state IN ('garbage', 'deleting') OR (state = 'pending' AND created_at < $1)
	ORDER BY created_at LIMIT $2`

// GCObjects lists garbage objects, and pending ones created before
// pendingCutoff (uploads whose commit was lost), across tenants.
func (s *Store) GCObjects(ctx context.Context, pendingCutoff time.Time, limit int) ([]GCObject, error) {
	var out []GCObject
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, s.d.gcObjectsQuery(), pendingCutoff.UTC(), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var o GCObject
			if err := rows.Scan(&o.ID, &o.TenantID, &o.Key, &o.State); err != nil {
				return err
			}
			out = append(out, o)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list objects to collect", err)
}

// ObjectClaimForDelete moves a collectable object to deleting (so it is
// never attached again) and reports whether it was still collectable.
func (tx *Tx) ObjectClaimForDelete(ctx context.Context, id uuid.UUID, pendingCutoff time.Time) (bool, error) {
	res, err := tx.tx.ExecContext(ctx,
		`UPDATE objects SET state = 'deleting', updated_at = $3
		 WHERE id = $1 AND (state IN ('garbage', 'deleting') OR (state = 'pending' AND created_at < $2))`,
		id, pendingCutoff.UTC(), tx.now())
	if err != nil {
		return false, wrap(tx.d, "claim object", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// markGarbage hands an object no blob uses to the garbage collector,
// whichever tenant uploaded it.
func (tx *Tx) markGarbage(ctx context.Context, id uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, tx.d.markGarbageQuery(), id)
	return wrap(tx.d, "mark object garbage", err)
}

// StaleCapture is a capture in flight that nothing has worked on lately.
type StaleCapture struct {
	ID       uuid.UUID
	TenantID uuid.UUID
}

// staleCapturesSQL is the SQLite form of monitor_stale_captures.
const staleCapturesSQL = `SELECT c.id, c.tenant_id FROM captures c
	WHERE c.state IN ('queued', 'downloading') AND c.updated_at < $1
	  AND NOT EXISTS (SELECT 1 FROM assets a WHERE a.capture_id = c.id AND a.updated_at >= $1)
	ORDER BY c.updated_at LIMIT $2`

// StaleCaptures lists captures in flight with no progress since cutoff,
// across tenants.
func (s *Store) StaleCaptures(ctx context.Context, cutoff time.Time, limit int) ([]StaleCapture, error) {
	var out []StaleCapture
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, s.d.staleCapturesQuery(), cutoff.UTC(), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c StaleCapture
			if err := rows.Scan(&c.ID, &c.TenantID); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list stale captures", err)
}

// AssetsInterrupt ends a capture's unfinished assets as failed with reason.
func (tx *Tx) AssetsInterrupt(ctx context.Context, captureID uuid.UUID, reason string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE assets SET state = 'failed', error = $2, updated_at = $3 WHERE capture_id = $1 AND state IN ('pending', 'downloading')`,
		captureID, reason, tx.now())
	return wrap(tx.d, "interrupt assets", err)
}
