package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// tokenPrefix marks Monitor's API tokens, so a leaked one is recognisable
// in logs and by secret scanners.
const tokenPrefix = "mon_"

// TokenDigest is what the store keeps of a token: its SHA-256.
func TokenDigest(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// CreateToken issues a REST API token for the named tenant and returns the
// token itself; only its digest is stored, so it cannot be shown again.
func (a *App) CreateToken(ctx context.Context, actor, tenantName, tokenName string, admin bool) (string, TokenView, error) {
	if tokenName != "" {
		if err := checkName("token name", tokenName); err != nil {
			return "", TokenView{}, err
		}
	}
	tenant, err := a.tenantByName(ctx, tenantName)
	if err != nil {
		return "", TokenView{}, err
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret)
	ctx = store.WithTenant(ctx, tenant.ID)

	var v TokenView
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		t, err := tx.TokenInsert(ctx, store.Token{TenantID: tenant.ID, Name: tokenName, Digest: TokenDigest(token), Admin: admin})
		if err != nil {
			return err
		}
		v = tokenView(t)
		return audit(ctx, tx, actor, "token.create", "tenant:"+tenant.Name, nil, v)
	})
	if err != nil {
		return "", TokenView{}, err
	}
	return token, v, nil
}

// Principal is who a request acts for.
type Principal struct {
	TenantID   uuid.UUID
	TenantName string
	// TokenID is the credential used; Admin says it may call the operator
	// API.
	TokenID uuid.UUID
	Admin   bool
	// libraryMark is the tenant's store.LibraryMark read while
	// authenticating, before anything the request reads (markOK: it was),
	// so that KeptAnswer need not ask again.
	libraryMark uint64
	markOK      bool
}

// Authenticate finds the tenant of a REST token. Unknown and revoked tokens
// are both ErrUnauthorized, so a caller learns nothing about which; a
// genuine token of a tenant that is not enabled is the *LimitError of its
// status (pending, disabled, archived), as a submit of that tenant is.
func (a *App) Authenticate(ctx context.Context, token string) (Principal, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 200 {
		return Principal{}, ErrUnauthorized
	}
	digest := TokenDigest(token)
	kept, mark, markOK, hit := a.keptPrincipalOf(ctx, digest)
	if hit {
		kept.libraryMark, kept.markOK = mark, true
		return kept, nil
	}
	t, err := a.store.TokenTenantByDigest(ctx, digest)
	if errors.Is(err, store.ErrNotFound) || (err == nil && t.RevokedAt != nil) {
		return Principal{}, ErrUnauthorized
	}
	if err != nil {
		return Principal{}, err
	}
	// The token is genuine: its holder learns why it does not work now
	// (and nobody without a genuine token learns anything new).
	if err := statusLimit(store.Tenant{ID: t.TenantID, Name: t.TenantName, Status: t.TenantStatus}); err != nil {
		return Principal{}, err
	}
	p := Principal{TenantID: t.TenantID, TenantName: t.TenantName, TokenID: t.ID, Admin: t.Admin}
	if markOK {
		a.principals.put(string(digest), keptPrincipal{mark: mark, p: p})
		p.libraryMark, p.markOK = mark, true
	} else if t.LibraryMarkOK {
		p.libraryMark, p.markOK = t.LibraryMark, true
	}
	return p, nil
}
