package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Revision is one content version of a collection.
type Revision struct {
	ID           uuid.UUID
	CollectionID uuid.UUID
	DataScope    uuid.UUID
	Visibility   string
	CaptureID    uuid.UUID
	ContentHash  string
	Content      []byte
	ContentBytes int64
	ObservedAt   time.Time
	CreatedAt    time.Time
}

const revisionColumns = `id, collection_id, data_scope, visibility, capture_id, content_hash, content_json, content_bytes, observed_at, created_at`

func scanRevision(row interface{ Scan(...any) error }) (Revision, error) {
	var r Revision
	var content string
	err := row.Scan(&r.ID, &r.CollectionID, &r.DataScope, &r.Visibility, &r.CaptureID, &r.ContentHash, &content,
		&r.ContentBytes, &r.ObservedAt, &r.CreatedAt)
	r.Content = []byte(content)
	return r, err
}

// RevisionGetByHash finds a collection's revision with the given content.
func (tx *Tx) RevisionGetByHash(ctx context.Context, collectionID uuid.UUID, hash string) (Revision, error) {
	r, err := scanRevision(tx.tx.QueryRowContext(ctx,
		`SELECT `+revisionColumns+` FROM revisions WHERE collection_id = $1 AND content_hash = $2`, collectionID, hash))
	return r, wrap(tx.d, "get revision by hash", err)
}

// RevisionInsert stores a new content version.
func (tx *Tx) RevisionInsert(ctx context.Context, r Revision) (Revision, error) {
	if r.ID == uuid.Nil {
		r.ID = uuid.Must(uuid.NewV7())
	}
	r.CreatedAt = tx.now()
	r.ObservedAt = r.CreatedAt
	r.ContentBytes = int64(len(r.Content))
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO revisions (id, collection_id, data_scope, visibility, capture_id, content_hash, content_json, content_bytes,
			observed_at, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
		r.ID, r.CollectionID, r.DataScope, r.Visibility, r.CaptureID, r.ContentHash, string(r.Content), r.ContentBytes, r.CreatedAt)
	return r, wrap(tx.d, "insert revision", err)
}

// RevisionObserved records that a capture saw a revision's content again.
func (tx *Tx) RevisionObserved(ctx context.Context, id uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE revisions SET observed_at = $2 WHERE id = $1`, id, tx.now())
	return wrap(tx.d, "bump revision observed time", err)
}

// RevisionGet finds a revision.
func (s *Store) RevisionGet(ctx context.Context, id uuid.UUID) (r Revision, err error) {
	err = s.view(ctx, func(q querier) error {
		r, err = scanRevision(q.QueryRowContext(ctx, `SELECT `+revisionColumns+` FROM revisions WHERE id = $1`, id))
		return err
	})
	return r, wrap(s.d, "get revision", err)
}

// RevisionList lists a collection's revisions, newest first.
func (s *Store) RevisionList(ctx context.Context, collectionID uuid.UUID) ([]Revision, error) {
	var out []Revision
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx,
			`SELECT `+revisionColumns+` FROM revisions WHERE collection_id = $1 ORDER BY created_at DESC, id DESC`, collectionID)
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
	return out, wrap(s.d, "list revisions", err)
}

// SourceResponse is one raw upstream response of a capture.
type SourceResponse struct {
	CaptureID   uuid.UUID
	TenantID    uuid.UUID
	Visibility  string
	DataScope   uuid.UUID
	RequestURL  string
	ContentType string
	Body        []byte
	SHA256      string
}

// SourceResponseInsert stores a raw upstream response.
func (tx *Tx) SourceResponseInsert(ctx context.Context, r SourceResponse) error {
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO source_responses (id, capture_id, tenant_id, visibility, data_scope, request_url, content_type, body, sha256, size, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		uuid.Must(uuid.NewV7()), r.CaptureID, r.TenantID, r.Visibility, r.DataScope, r.RequestURL, r.ContentType,
		r.Body, r.SHA256, len(r.Body), tx.now())
	return wrap(tx.d, "insert source response", err)
}
