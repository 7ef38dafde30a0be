package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// asTenant runs fn in a transaction of the raw monitor_app connection with
// app.tenant_id set (uuid.Nil: not set), and rolls back when fn fails.
func asTenant(t *testing.T, db *sql.DB, tenant uuid.UUID, fn func(tx *sql.Tx) error) error {
	t.Helper()
	tx, err := db.Begin()
	require.NoError(t, err)
	if tenant != uuid.Nil {
		_, err = tx.Exec(`SELECT set_config('app.tenant_id', $1, true)`, tenant.String())
		require.NoError(t, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// TestRowLevelSecurity connects as monitor_app with raw SQL and tries to
// reach another tenant's private rows: every attempt sees nothing, changes
// nothing, or fails.
func TestRowLevelSecurity(t *testing.T) {
	t.Parallel()
	if !contains(storetest.Drivers(), "postgres") {
		t.Skip("PostgreSQL is not reachable; row-level security exists only there")
	}
	st, appURL := storetest.NewWithURL(t, "postgres")
	ctx := context.Background()
	db, err := sql.Open("pgx", appURL)
	require.NoError(t, err)
	defer db.Close()

	a, b := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	for _, id := range []uuid.UUID{a, b} {
		err := st.InTx(store.WithTenant(ctx, id), func(tx *store.Tx) error {
			_, err := tx.TenantInsert(ctx, store.Tenant{ID: id, Name: "t-" + id.String(), Kind: store.TenantManaged, Status: store.TenantEnabled})
			return err
		})
		require.NoError(t, err)
	}

	// A's private content and tenant rows.
	coll, capt, rev, obj, blb, sub, tok, ident, ch := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	require.NoError(t, asTenant(t, db, a, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, external_id, adapter_id, source_url, created_at, updated_at)
			  VALUES ($1, $2, 'private', $2, 'connection:x', 'x', 'x.post', '1', 'x', 'https://x.com/i/status/1', now(), now())`, []any{coll, a}},
			{`INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id, state, created_at, updated_at)
			  VALUES ($1, $2, $3, 'private', $3, 'connection:x', 'x', 'x-session', 'complete', now(), now())`, []any{capt, coll, a}},
			{`INSERT INTO revisions (id, collection_id, data_scope, visibility, capture_id, content_hash, content_json, content_bytes, observed_at, created_at)
			  VALUES ($1, $2, $3, 'private', $4, 'h', '{"text":"secret"}', 17, now(), now())`, []any{rev, coll, a, capt}},
			{`INSERT INTO objects (id, tenant_id, key, state, created_at, updated_at) VALUES ($1, $2, $3, 'attached', now(), now())`, []any{obj, a, a.String() + "/objects/" + obj.String()}},
			{`INSERT INTO blobs (id, data_scope, access_scope, visibility, sha256, size, object_id, tenant_id, created_at)
			  VALUES ($1, $2, 'connection:x', 'private', repeat('a', 64), 10, $3, $2, now())`, []any{blb, a, obj}},
			{`INSERT INTO assets (id, capture_id, data_scope, visibility, position, source_url, kind, state, blob_id, created_at, updated_at)
			  VALUES ($1, $2, $3, 'private', 0, 'https://pbs.twimg.com/a.jpg', 'image', 'complete', $4, now(), now())`, []any{uuid.New(), capt, a, blb}},
			{`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES ($1, $2, now(), now())`, []any{a, coll}},
			{`INSERT INTO submissions (id, tenant_id, capture_id, collection_id, input_url, created_at, updated_at) VALUES ($1, $2, $3, $4, 'https://x.com/i/status/1', now(), now())`, []any{sub, a, capt, coll}},
			{`INSERT INTO tokens (id, tenant_id, digest, created_at) VALUES ($1, $2, decode(repeat('ab', 32), 'hex'), now())`, []any{tok, a}},
			{`INSERT INTO channels (id, kind, external_id, created_at, updated_at) VALUES ($1, 'telegram', 'bot1', now(), now())`, []any{ch}},
			{`INSERT INTO identities (id, channel_id, external_id, tenant_id, created_at, updated_at) VALUES ($1, $2, '42', $3, now(), now())`, []any{ident, ch, a}},
			{`INSERT INTO usage_daily (tenant_id, day, used, created_at, updated_at) VALUES ($1, '2026-11-30', 3, now(), now())`, []any{a}},
		} {
			if _, err := tx.Exec(q.sql, q.args...); err != nil {
				return err
			}
		}
		return nil
	}))

	targets := []struct{ table, key string }{
		{"collections", "id"}, {"captures", "id"}, {"revisions", "id"}, {"blobs", "id"}, {"objects", "id"}, {"assets", "capture_id"},
		{"submissions", "id"}, {"tokens", "id"}, {"identities", "id"}, {"tenant_collections", "collection_id"},
		{"usage_daily", "tenant_id"}, {"tenants", "id"},
	}
	ids := map[string]uuid.UUID{"assets": capt, "collections": coll, "captures": capt, "revisions": rev, "blobs": blb, "objects": obj,
		"submissions": sub, "tokens": tok, "identities": ident, "tenant_collections": coll, "usage_daily": a, "tenants": a}

	for _, as := range []uuid.UUID{b, uuid.Nil} {
		for _, tg := range targets {
			require.NoError(t, asTenant(t, db, as, func(tx *sql.Tx) error {
				var n int
				require.NoError(t, tx.QueryRow(`SELECT count(*) FROM `+tg.table+` WHERE `+tg.key+` = $1`, ids[tg.table]).Scan(&n))
				require.Zero(t, n, "%s: another tenant sees the row", tg.table)
				res, err := tx.Exec(`DELETE FROM `+tg.table+` WHERE `+tg.key+` = $1`, ids[tg.table])
				require.NoError(t, err)
				gone, _ := res.RowsAffected()
				require.Zero(t, gone, "%s: another tenant deleted the row", tg.table)
				return nil
			}))
		}
		// Updates change nothing either.
		require.NoError(t, asTenant(t, db, as, func(tx *sql.Tx) error {
			for _, u := range []struct {
				sql string
				id  uuid.UUID
			}{
				{`UPDATE collections SET source_url = 'https://evil.example' WHERE id = $1`, coll},
				{`UPDATE revisions SET content_json = '{}' WHERE id = $1`, rev},
				{`UPDATE tokens SET revoked_at = now() WHERE id = $1`, tok},
				{`UPDATE submissions SET input_url = 'x' WHERE id = $1`, sub},
				{`UPDATE tenants SET quota_bytes = 0 WHERE id = $1`, a},
			} {
				res, err := tx.Exec(u.sql, u.id)
				require.NoError(t, err)
				n, _ := res.RowsAffected()
				require.Zero(t, n, u.sql)
			}
			return nil
		}))
	}

	// Writing into A's scope from B fails.
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, external_id, adapter_id, source_url, created_at, updated_at)
		  VALUES ($1, $2, 'private', $2, 'connection:x', 'x', 'x.post', '2', 'x', 'u', now(), now())`, []any{uuid.New(), a}},
		{`INSERT INTO tokens (id, tenant_id, digest, created_at) VALUES ($1, $2, decode(repeat('cd', 32), 'hex'), now())`, []any{uuid.New(), a}},
		{`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES ($1, $2, now(), now())`, []any{b, coll}},
	} {
		err := asTenant(t, db, b, func(tx *sql.Tx) error { _, err := tx.Exec(q.sql, q.args...); return err })
		require.Error(t, err, q.sql)
	}

	// B's usage never counts A's private content; A's does.
	ub, err := st.TenantUsage(store.WithTenant(ctx, b), b)
	require.NoError(t, err)
	require.Zero(t, ub.UsedBytes)
	ua, err := st.TenantUsage(store.WithTenant(ctx, a), a)
	require.NoError(t, err)
	require.Equal(t, int64(17+10), ua.UsedBytes)
	_, err = st.TenantUsage(store.WithTenant(ctx, b), a)
	require.ErrorIs(t, err, store.ErrNotFound, "B cannot read A's tenant row")

	// The narrow functions answer what they must, and nothing more.
	digest := bytes.Repeat([]byte{0xab}, 32)
	got, err := st.TokenTenantByDigest(ctx, digest)
	require.NoError(t, err)
	require.Equal(t, a, got.TenantID)
	withTenant, err := st.TokenTenantByDigest(ctx, digest)
	require.NoError(t, err)
	require.Equal(t, a, withTenant.TenantID)
	require.Equal(t, "t-"+a.String(), withTenant.TenantName)
	require.Equal(t, store.TenantEnabled, withTenant.TenantStatus)
	la, ok := st.LibraryMark(ctx, a)
	require.True(t, ok, "monitor_app may read a library version")
	lb, _ := st.LibraryMark(ctx, b)
	require.NotEqual(t, la, lb, "A saved a collection, B did not")

	// Only the executing tenant may move its capture in flight to a
	// canonical collection.
	member, album, flight := uuid.New(), uuid.New(), uuid.New()
	require.NoError(t, asTenant(t, db, a, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, object_scope, external_id, adapter_id, source_url, created_at, updated_at)
			  VALUES ($1, $2, 'public', '00000000-0000-0000-0000-000000000000', 'public', 'telegram', 'telegram.message', 'ch', $3, 'telegram', 'https://t.me/ch/1', now(), now())`, []any{member, a, "ch/2"}},
			{`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, object_scope, external_id, adapter_id, source_url, created_at, updated_at)
			  VALUES ($1, $2, 'public', '00000000-0000-0000-0000-000000000000', 'public', 'telegram', 'telegram.message', 'ch', $3, 'telegram', 'https://t.me/ch/1', now(), now())`, []any{album, a, "ch/1"}},
			{`INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id, state, created_at, updated_at)
			  VALUES ($1, $2, $3, 'public', '00000000-0000-0000-0000-000000000000', 'public', 'telegram', 'tme-public', 'queued', now(), now())`, []any{flight, member, a}},
		} {
			if _, err := tx.Exec(q.sql, q.args...); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, as := range []uuid.UUID{b, uuid.Nil} {
		err := asTenant(t, db, as, func(tx *sql.Tx) error {
			_, err := tx.Exec(`SELECT monitor_capture_repoint($1, $2, $3)`, flight, member, album)
			return err
		})
		require.ErrorContains(t, err, "cannot move", "another tenant moved A's capture")
	}
	require.NoError(t, asTenant(t, db, a, func(tx *sql.Tx) error {
		_, err := tx.Exec(`SELECT monitor_capture_repoint($1, $2, $3)`, flight, member, album)
		return err
	}))
	var moved uuid.UUID
	require.NoError(t, asTenant(t, db, a, func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT collection_id FROM captures WHERE id = $1`, flight).Scan(&moved)
	}))
	require.Equal(t, album, moved)

	// Only a submitter of a complete capture of a public collection, or its
	// executing tenant, may put that collection in the place of imported
	// copies.
	for _, as := range []uuid.UUID{a, b, uuid.Nil} {
		err := asTenant(t, db, as, func(tx *sql.Tx) error {
			_, err := tx.Exec(`SELECT monitor_capture_adopt_imports($1, $2)`, flight, album)
			return err
		})
		require.ErrorContains(t, err, "cannot take the place", "a capture in flight is no evidence yet")
	}
	require.NoError(t, asTenant(t, db, a, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE captures SET state = 'complete' WHERE id = $1`, flight)
		return err
	}))
	for _, as := range []uuid.UUID{b, uuid.Nil} {
		err := asTenant(t, db, as, func(tx *sql.Tx) error {
			_, err := tx.Exec(`SELECT monitor_capture_adopt_imports($1, $2)`, flight, album)
			return err
		})
		require.ErrorContains(t, err, "cannot take the place", "a tenant that did not submit the capture")
	}
	require.NoError(t, asTenant(t, db, a, func(tx *sql.Tx) error {
		_, err := tx.Exec(`SELECT monitor_capture_adopt_imports($1, $2)`, flight, album)
		return err
	}))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
