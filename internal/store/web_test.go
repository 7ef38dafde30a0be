package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func webTenant(t *testing.T, st *store.Store, name string) uuid.UUID {
	t.Helper()
	ctx, id := newTenantCtx(context.Background())
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.TenantInsert(ctx, store.Tenant{ID: id, Name: name, Kind: store.TenantManaged, Status: store.TenantEnabled})
		return err
	}))
	return id
}

func digestOf(s string) []byte { d := sha256.Sum256([]byte(s)); return d[:] }

func TestLoginLinkIsRedeemedOnceAcrossTenants(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		alice := webTenant(t, st, "alice")
		now := time.Now().UTC()
		link := digestOf("link")
		require.NoError(t, st.InTx(store.WithTenant(ctx, alice), func(tx *store.Tx) error {
			_, err := tx.LoginLinkInsert(ctx, store.LoginLink{Digest: link, TenantID: alice, Admin: true, ExpiresAt: now.Add(time.Minute)})
			return err
		}))

		// Two browsers at once, neither knowing the tenant: one session.
		var wg sync.WaitGroup
		results := make([]error, 8)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, results[i] = st.LoginLinkRedeem(ctx, link, now, store.WebSession{
					Digest: digestOf("session" + string(rune('a'+i))), CSRF: "c", Label: "login link", ExpiresAt: now.Add(time.Hour)})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range results {
			if err == nil {
				won++
			} else {
				require.ErrorIs(t, err, store.ErrNotFound)
			}
		}
		require.Equal(t, 1, won, "exactly one redeem wins")

		l, err := st.LoginLinkGetByDigest(ctx, link)
		require.NoError(t, err)
		require.NotNil(t, l.UsedAt)
		require.Equal(t, alice, l.TenantID)
		sessions, err := st.WebSessionList(store.WithTenant(ctx, alice), alice, now)
		require.NoError(t, err)
		require.Len(t, sessions, 1)
		require.True(t, sessions[0].Admin, "the session takes the link's admin flag")
		require.Equal(t, "login link", sessions[0].Label)

		ws, err := st.WebSessionGetByDigest(ctx, sessions[0].Digest)
		require.NoError(t, err)
		require.Equal(t, alice, ws.TenantID)
		require.Nil(t, ws.LastSeenAt)
		require.NoError(t, st.WebSessionTouch(store.WithTenant(ctx, alice), ws.Digest, now, now.Add(-time.Minute)))
		ws, err = st.WebSessionGetByDigest(ctx, ws.Digest)
		require.NoError(t, err)
		require.NotNil(t, ws.LastSeenAt)

		// An expired link is not redeemed either.
		old := digestOf("old")
		require.NoError(t, st.InTx(store.WithTenant(ctx, alice), func(tx *store.Tx) error {
			_, err := tx.LoginLinkInsert(ctx, store.LoginLink{Digest: old, TenantID: alice, ExpiresAt: now.Add(time.Minute)})
			return err
		}))
		_, _, err = st.LoginLinkRedeem(ctx, old, now.Add(2*time.Minute), store.WebSession{Digest: digestOf("x"), CSRF: "c", ExpiresAt: now.Add(time.Hour)})
		require.ErrorIs(t, err, store.ErrNotFound)
		_, err = st.LoginLinkGetByDigest(ctx, digestOf("never"))
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

func TestWebSessionsStayWithTheirTenantAndArePurged(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
		now := time.Now().UTC()
		for _, s := range []struct {
			tenant  uuid.UUID
			key     string
			expires time.Time
		}{{alice, "a1", now.Add(time.Hour)}, {alice, "a-old", now.Add(-time.Hour)}, {bob, "b1", now.Add(time.Hour)}} {
			tctx := store.WithTenant(ctx, s.tenant)
			require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
				_, err := tx.WebSessionInsert(tctx, store.WebSession{Digest: digestOf(s.key), TenantID: s.tenant, CSRF: "c", ExpiresAt: s.expires, CreatedAt: s.expires.Add(-2 * time.Hour)})
				return err
			}))
		}
		actx := store.WithTenant(ctx, alice)
		list, err := st.WebSessionList(actx, alice, now)
		require.NoError(t, err)
		require.Len(t, list, 1, "only alice's unexpired session")
		require.Equal(t, digestOf("a1"), list[0].Digest)

		err = st.InTx(actx, func(tx *store.Tx) error { return tx.WebSessionDelete(actx, alice, digestOf("b1")) })
		require.ErrorIs(t, err, store.ErrNotFound, "alice cannot end bob's session")
		_, err = st.WebSessionGetByDigest(ctx, digestOf("b1"))
		require.NoError(t, err)

		require.NoError(t, st.InTx(store.WithTenant(ctx, bob), func(tx *store.Tx) error {
			_, err := tx.LoginLinkInsert(ctx, store.LoginLink{Digest: digestOf("bob-link"), TenantID: bob, ExpiresAt: now.Add(-time.Second)})
			return err
		}))
		var sessions, links int64
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if sessions, err = tx.WebSessionDeleteExpired(ctx, now, 100); err != nil {
				return err
			}
			links, err = tx.LoginLinkDeleteExpired(ctx, now, 100)
			return err
		}))
		require.Equal(t, int64(1), sessions)
		require.Equal(t, int64(1), links)
		_, err = st.WebSessionGetByDigest(ctx, digestOf("a-old"))
		require.True(t, errors.Is(err, store.ErrNotFound))
		_, err = st.WebSessionGetByDigest(ctx, digestOf("a1"))
		require.NoError(t, err)

		// Preferences.
		_, err = st.WebPreferencesGet(actx, alice)
		require.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
			return tx.WebPreferencesPut(actx, store.WebPreferences{TenantID: alice, Language: "zh-CN", Theme: "dark"})
		}))
		p, err := st.WebPreferencesGet(actx, alice)
		require.NoError(t, err)
		require.Equal(t, "zh-CN", p.Language)
		require.Equal(t, "dark", p.Theme)
		_, err = st.WebPreferencesGet(store.WithTenant(ctx, bob), alice)
		if st.Driver() == "postgres" {
			require.ErrorIs(t, err, store.ErrNotFound, "row-level security hides alice's preferences from bob")
		}
	})
}

// TestWebTablesRowLevelSecurity connects as monitor_app with raw SQL: a
// transaction of another tenant, or of none, sees no session, link or
// preference of alice's, and cannot write one for her.
func TestWebTablesRowLevelSecurity(t *testing.T) {
	t.Parallel()
	if !contains(storetest.Drivers(), "postgres") {
		t.Skip("PostgreSQL is not reachable; row-level security exists only there")
	}
	st, appURL := storetest.NewWithURL(t, "postgres")
	ctx := context.Background()
	alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
	now := time.Now().UTC()
	actx := store.WithTenant(ctx, alice)
	require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
		if _, err := tx.WebSessionInsert(actx, store.WebSession{Digest: digestOf("s"), TenantID: alice, CSRF: "c", ExpiresAt: now.Add(time.Hour)}); err != nil {
			return err
		}
		if _, err := tx.LoginLinkInsert(actx, store.LoginLink{Digest: digestOf("l"), TenantID: alice, ExpiresAt: now.Add(time.Hour)}); err != nil {
			return err
		}
		return tx.WebPreferencesPut(actx, store.WebPreferences{TenantID: alice, Language: "en"})
	}))

	db, err := sql.Open("pgx", appURL)
	require.NoError(t, err)
	defer db.Close()
	for _, as := range []uuid.UUID{bob, uuid.Nil} {
		for _, table := range []string{"web_sessions", "web_login_links", "web_preferences"} {
			require.NoError(t, asTenant(t, db, as, func(tx *sql.Tx) error {
				var n int
				require.NoError(t, tx.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
				require.Zero(t, n, "%s as %s", table, as)
				return nil
			}))
		}
		err := asTenant(t, db, as, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO web_sessions (id_digest, tenant_id, csrf_token, created_at, expires_at) VALUES ($1, $2, 'c', now(), now() + interval '1 hour')`, digestOf("forged"), alice)
			return err
		})
		require.Error(t, err, "no session is written for alice as %s", as)
		err = asTenant(t, db, as, func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE web_login_links SET used_at = NULL, expires_at = now() + interval '7 days'`)
			return err
		})
		require.NoError(t, err)
	}
	l, err := st.LoginLinkGetByDigest(ctx, digestOf("l"))
	require.NoError(t, err)
	require.WithinDuration(t, now.Add(time.Hour), l.ExpiresAt, time.Second, "the update above reached no row")
}
