package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"

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
func (a *App) CreateToken(ctx context.Context, tenantName, tokenName string) (string, store.Token, error) {
	if tokenName != "" {
		if err := checkName("token name", tokenName); err != nil {
			return "", store.Token{}, err
		}
	}
	tenant, err := a.tenantByName(ctx, tenantName)
	if err != nil {
		return "", store.Token{}, err
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret)

	var t store.Token
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		t, err = tx.TokenInsert(ctx, store.Token{TenantID: tenant.ID, Name: tokenName, Digest: TokenDigest(token)})
		return err
	})
	if err != nil {
		return "", store.Token{}, err
	}
	return token, t, nil
}
