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
	// Admin tokens may also call the operator API.
	Admin bool
}

// TokenInsert stores a new token.
func (tx *Tx) TokenInsert(ctx context.Context, t Token) (Token, error) {
	if t.ID == uuid.Nil {
		t.ID = uuid.Must(uuid.NewV7())
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = tx.now()
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tokens (id, tenant_id, name, digest, created_at, admin) VALUES ($1, $2, $3, $4, $5, $6)`,
		t.ID, t.TenantID, t.Name, t.Digest, t.CreatedAt, t.Admin)
	return t, wrap(tx.d, "insert token", err)
}

// TokenTenant is a token with what authenticating it needs of its tenant.
type TokenTenant struct {
	Token
	TenantName   string
	TenantStatus string
	// LibraryMark is the tenant's LibraryMark read in the same query, and
	// LibraryMarkOK says it was (PostgreSQL; on SQLite the mark is
	// ChangeMark, read apart).
	LibraryMark   uint64
	LibraryMarkOK bool
}

// TokenTenantByDigest finds a token by the digest of its secret, revoked or
// not, with its tenant's name and status and, on PostgreSQL, its tenant's
// LibraryMark: one query, outside any transaction (on PostgreSQL a
// SECURITY DEFINER function, since the tenant is not known yet), as every
// authenticated request asks it.
func (s *Store) TokenTenantByDigest(ctx context.Context, digest []byte) (TokenTenant, error) {
	t := TokenTenant{Token: Token{Digest: digest}}
	var revoked sql.NullTime
	var version sql.NullInt64
	err := s.read.QueryRowContext(ctx, s.d.tokenTenantByDigestQuery(), digest).Scan(&t.ID, &t.TenantID, &t.Name, &t.CreatedAt,
		&revoked, &t.Admin, &t.TenantName, &t.TenantStatus, &version)
	if revoked.Valid {
		t.RevokedAt = &revoked.Time
	}
	if err == nil && version.Valid {
		t.LibraryMark, t.LibraryMarkOK = uint64(version.Int64), true
	}
	return t, wrap(s.d, "get token and tenant by digest", err)
}

// TokenList lists a tenant's tokens, newest first.
func (s *Store) TokenList(ctx context.Context, tenantID uuid.UUID) ([]Token, error) {
	var out []Token
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx,
			`SELECT id, tenant_id, name, created_at, revoked_at, admin FROM tokens WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC`, tenantID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t Token
			var revoked sql.NullTime
			if err := rows.Scan(&t.ID, &t.TenantID, &t.Name, &t.CreatedAt, &revoked, &t.Admin); err != nil {
				return err
			}
			if revoked.Valid {
				t.RevokedAt = &revoked.Time
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list tokens", err)
}

// TokenRevoke marks a tenant's token revoked; a missing or already revoked
// token is ErrNotFound.
func (tx *Tx) TokenRevoke(ctx context.Context, tenantID, id uuid.UUID) error {
	res, err := tx.tx.ExecContext(ctx,
		`UPDATE tokens SET revoked_at = $3 WHERE id = $1 AND tenant_id = $2 AND revoked_at IS NULL`, id, tenantID, tx.now())
	if err != nil {
		return wrap(tx.d, "revoke token", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return wrap(tx.d, "revoke token", sql.ErrNoRows)
	}
	return nil
}
