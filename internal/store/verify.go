package store

import (
	"context"

	"github.com/google/uuid"
)

// This file holds the reads of `monitor verify` (app/verify.go): the
// collections of a scope a page at a time, and the bytes a revision's
// link covers.

// CollectionIDsInScope lists the collections of a data scope that have
// revisions, by id, after the given one (uuid.Nil: from the start).
func (s *Store) CollectionIDsInScope(ctx context.Context, dataScope, after uuid.UUID, limit int) ([]uuid.UUID, error) {
	var out []uuid.UUID
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx,
			`SELECT id FROM collections WHERE data_scope = $1 AND id > $2 AND current_revision_id IS NOT NULL ORDER BY id LIMIT $3`,
			dataScope, after, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list collections of a scope", err)
}

// RevisionChainList lists a collection's revisions in chain order, oldest
// first.
func (s *Store) RevisionChainList(ctx context.Context, collectionID uuid.UUID) ([]Revision, error) {
	var out []Revision
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx,
			`SELECT `+revisionColumns+` FROM revisions WHERE collection_id = $1 ORDER BY chain_seq, created_at, id`, collectionID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRevision(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list revision chain", err)
}

// StoredResponse is a raw upstream response as stored: the SHA-256 it was
// recorded with and its bytes.
type StoredResponse struct {
	RequestURL string
	SHA256     string
	Body       []byte
}

// SourceResponsesOf reads a capture's raw responses, bytes included.
func (s *Store) SourceResponsesOf(ctx context.Context, captureID uuid.UUID) ([]StoredResponse, error) {
	var out []StoredResponse
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx,
			`SELECT request_url, sha256, body FROM source_responses WHERE capture_id = $1 ORDER BY sha256`, captureID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r StoredResponse
			if err := rows.Scan(&r.RequestURL, &r.SHA256, &r.Body); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "read source responses", err)
}

// BlobInScope finds the blob holding some content in a data and access
// scope.
func (s *Store) BlobInScope(ctx context.Context, dataScope uuid.UUID, accessScope, sha256 string) (b Blob, err error) {
	err = s.view(ctx, func(q querier) error {
		b, err = scanBlob(q.QueryRowContext(ctx,
			`SELECT `+blobColumns+` FROM blobs b
			 WHERE b.data_scope = $1 AND b.access_scope = $2 AND b.sha256 = $3`, dataScope, accessScope, sha256))
		return err
	})
	return b, wrap(s.d, "get blob", err)
}
