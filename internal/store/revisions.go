package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/chain"
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
	// Chain is the revision's link in its collection's hash chain
	// (internal/chain, docs/verify.md).
	Chain RevisionChain
}

// RevisionChain is a revision's link: its place in the collection's chain,
// its hashes, and the inputs of the link that the revision's other columns
// do not hold. The link's time is the revision's CreatedAt.
type RevisionChain struct {
	// Seq is the place in the chain, 1 for the first revision.
	Seq            int
	PrevHash       string
	Hash           string
	Raw            []string
	AdapterID      string
	AdapterVersion string
}

const revisionColumns = `id, collection_id, data_scope, visibility, capture_id, content_hash, content_json, content_bytes, observed_at, created_at,
	chain_seq, prev_hash, chain_hash, chain_raw, chain_adapter_id, chain_adapter_version`

func scanRevision(row interface{ Scan(...any) error }) (Revision, error) {
	var r Revision
	var content, raw string
	err := row.Scan(&r.ID, &r.CollectionID, &r.DataScope, &r.Visibility, &r.CaptureID, &r.ContentHash, &content,
		&r.ContentBytes, &r.ObservedAt, &r.CreatedAt,
		&r.Chain.Seq, &r.Chain.PrevHash, &r.Chain.Hash, &raw, &r.Chain.AdapterID, &r.Chain.AdapterVersion)
	r.Content = []byte(content)
	r.Chain.Raw = chain.SplitRaw(raw)
	return r, err
}

// RevisionChainHead is the newest link of a collection's chain: its place
// and chain hash, (0, "") when the collection has no revision yet. On
// PostgreSQL it locks the collection until the transaction ends, so two
// captures finishing at once append one after the other instead of both
// after the same head.
func (tx *Tx) RevisionChainHead(ctx context.Context, collectionID uuid.UUID) (seq int, hash string, err error) {
	if tx.d.name() == "postgres" {
		if _, err := tx.tx.ExecContext(ctx, `SELECT 1 FROM collections WHERE id = $1 FOR UPDATE`, collectionID); err != nil {
			return 0, "", wrap(tx.d, "lock collection chain", err)
		}
	}
	err = tx.tx.QueryRowContext(ctx,
		`SELECT chain_seq, chain_hash FROM revisions WHERE collection_id = $1 ORDER BY chain_seq DESC LIMIT 1`, collectionID).Scan(&seq, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	return seq, hash, wrap(tx.d, "read chain head", err)
}

// SourceResponseHashes are the SHA-256s a capture's raw responses were
// stored with, sorted.
func (tx *Tx) SourceResponseHashes(ctx context.Context, captureID uuid.UUID) ([]string, error) {
	rows, err := tx.tx.QueryContext(ctx, `SELECT sha256 FROM source_responses WHERE capture_id = $1 ORDER BY sha256`, captureID)
	if err != nil {
		return nil, wrap(tx.d, "read source response hashes", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, wrap(tx.d, "read source response hashes", err)
		}
		out = append(out, h)
	}
	return out, wrap(tx.d, "read source response hashes", rows.Err())
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
	return tx.RevisionInsertAt(ctx, r, tx.now())
}

// RevisionInsertAt stores a content version captured at the given time.
// The caller computed its link (r.Chain) for that time, at the microsecond
// both databases keep (RevisionTime).
func (tx *Tx) RevisionInsertAt(ctx context.Context, r Revision, at time.Time) (Revision, error) {
	if r.ID == uuid.Nil {
		r.ID = uuid.Must(uuid.NewV7())
	}
	r.CreatedAt = RevisionTime(at)
	r.ObservedAt = r.CreatedAt
	r.ContentBytes = int64(len(r.Content))
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO revisions (id, collection_id, data_scope, visibility, capture_id, content_hash, content_json, content_bytes,
			observed_at, created_at, chain_seq, prev_hash, chain_hash, chain_raw, chain_adapter_id, chain_adapter_version)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $14, $15)`,
		r.ID, r.CollectionID, r.DataScope, r.Visibility, r.CaptureID, r.ContentHash, string(r.Content), r.ContentBytes, r.CreatedAt,
		r.Chain.Seq, r.Chain.PrevHash, r.Chain.Hash, chain.JoinRaw(r.Chain.Raw), r.Chain.AdapterID, r.Chain.AdapterVersion)
	return r, wrap(tx.d, "insert revision", err)
}

// RevisionTime is the time a revision inserted at t records: UTC, at the
// microsecond both databases keep. A link covers this time.
func RevisionTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Now is the store's clock as a revision inserted now would record it.
func (tx *Tx) Now() time.Time { return tx.now() }

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
