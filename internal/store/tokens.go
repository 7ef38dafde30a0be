package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// Token is a REST API credential. Only the SHA-256 digest of the secret is
// stored; the secret itself is shown once, when it is created.
type Token struct {
	ID        uuid.UUID
	TenantID  uuid.UUID
	Name      string
	Digest    []byte
	CreatedAt time.Time
	RevokedAt *time.Time
}

// TokenInsert stores a new token.
func (tx *Tx) TokenInsert(ctx context.Context, t Token) (Token, error) {
	if t.ID == uuid.Nil {
		t.ID = uuid.Must(uuid.NewV7())
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now()
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tokens (id, tenant_id, name, digest, created_at) VALUES ($1, $2, $3, $4, $5)`,
		t.ID, t.TenantID, t.Name, t.Digest, t.CreatedAt)
	return t, wrap(tx.d, "insert token", err)
}

// TokenGetByDigest finds a token by the digest of its secret, revoked or not.
func (s *Store) TokenGetByDigest(ctx context.Context, digest []byte) (Token, error) {
	t := Token{Digest: digest}
	var revoked sql.NullTime
	err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, s.d.tokenByDigestQuery(), digest).Scan(&t.ID, &t.TenantID, &t.Name, &t.CreatedAt, &revoked)
	})
	if revoked.Valid {
		t.RevokedAt = &revoked.Time
	}
	return t, wrap(s.d, "get token by digest", err)
}
