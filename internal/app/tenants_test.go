package app_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestCreateTenantAndToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		quota := int64(1 << 30)
		tenant, err := a.CreateTenant(ctx, "test", "alice", &quota)
		require.NoError(t, err)
		require.Equal(t, store.TenantEnabled, tenant.Status)

		_, err = a.CreateTenant(ctx, "test", "alice", nil)
		require.ErrorIs(t, err, store.ErrConflict)
		require.ErrorContains(t, err, `tenant "alice" already exists`)

		token, tok, err := a.CreateToken(ctx, "test", "alice", "laptop", false)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(token, "mon_"))
		require.Len(t, token, 4+43)
		require.Equal(t, "laptop", tok.Name)

		// Only the digest is stored, and it finds the token again.
		got, err := st.TokenTenantByDigest(ctx, app.TokenDigest(token))
		require.NoError(t, err)
		require.Equal(t, tok.ID, got.ID)
		require.Equal(t, tenant.ID, got.TenantID)
		require.NotEqual(t, []byte(token), got.Digest)
		require.False(t, bytes.Contains(got.Digest, []byte(token[4:])))

		token2, _, err := a.CreateToken(ctx, "test", "alice", "", false)
		require.NoError(t, err)
		require.NotEqual(t, token, token2)

		_, _, err = a.CreateToken(ctx, "test", "nobody", "", false)
		require.ErrorIs(t, err, store.ErrNotFound)
		require.ErrorContains(t, err, "no tenant named \"nobody\"; create it with `monitor admin tenant create nobody`")
	})
}

func TestTenantNameValidation(t *testing.T) {
	t.Parallel()
	st := storetest.New(t, "sqlite")
	a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
	for _, name := range []string{"", "has space", "semi;colon", strings.Repeat("x", 65), "../etc"} {
		_, err := a.CreateTenant(context.Background(), "test", name, nil)
		require.ErrorIs(t, err, app.ErrInvalid, name)
	}
	neg := int64(-1)
	_, err := a.CreateTenant(context.Background(), "test", "ok", &neg)
	require.ErrorIs(t, err, app.ErrInvalid)
}
