package store_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// The chain migration links the revisions a database held before it, in
// order per collection, over the capture's raw responses and adapter and
// the content's media.
func TestChainMigrationBackfillsRevisionsInOrder(t *testing.T) {
	t.Parallel()
	for _, driver := range storetest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cfg := config.Database{Driver: "sqlite", Path: filepath.Join(t.TempDir(), "monitor.db")}
			before := "0017_tenant_admin.sql"
			if driver == "postgres" {
				owner, _ := storetest.NewPostgresDatabase(t)
				cfg = config.Database{Driver: "postgres", URL: owner}
				before = "0020_search_match_all.sql"
			}
			st, err := store.Open(ctx, cfg, slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			defer st.Close()
			_, err = st.MigrateThrough(ctx, before)
			require.NoError(t, err)

			tenant, coll := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
			pub := "00000000-0000-0000-0000-000000000000"
			t0 := time.Date(2026, 11, 1, 10, 0, 0, 123456000, time.UTC)
			type rev struct {
				id, capture uuid.UUID
				hash, body  string
				at          time.Time
				raw         []string
			}
			revs := []rev{
				{uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7()), "aa", `{"text":"one","media":[{"sha256":"` + sha('1') + `"}],"graph":{"entities":[]}}`, t0, []string{sha('r'), sha('q')}},
				{uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7()), "bb", `{"text":"two","media":[],"graph":{"entities":[{"resources":[{"sha256":"` + sha('2') + `"}]}]}}`, t0.Add(time.Hour), nil},
			}
			db := st.WriteDB()
			exec := func(q string, args ...any) {
				t.Helper()
				_, err := db.ExecContext(ctx, q, args...)
				require.NoError(t, err)
			}
			exec(`INSERT INTO tenants (id, name, kind, status, created_at, updated_at) VALUES ($1, 'backfill', 'managed', 'enabled', $2, $2)`, tenant, t0)
			exec(`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, external_id, adapter_id, source_url, created_at, updated_at)
				VALUES ($1, $2, 'public', $3, 'public', 'x', 'x.post', '1', 'x', 'https://x.com/i/status/1', $4, $4)`, coll, tenant, pub, t0)
			// Inserted newest first: the order comes from the times.
			for i := len(revs) - 1; i >= 0; i-- {
				r := revs[i]
				exec(`INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, adapter_version, provider_id, state, created_at, updated_at)
					VALUES ($1, $2, $3, 'public', $4, 'public', 'x', '1.2.0', 'fxtwitter', 'complete', $5, $5)`, r.capture, coll, tenant, pub, r.at)
				exec(`INSERT INTO revisions (id, collection_id, data_scope, visibility, capture_id, content_hash, content_json, content_bytes, observed_at, created_at)
					VALUES ($1, $2, $3, 'public', $4, $5, $6, 1, $7, $7)`, r.id, coll, pub, r.capture, r.hash, r.body, r.at)
				for _, h := range r.raw {
					exec(`INSERT INTO source_responses (id, capture_id, tenant_id, visibility, data_scope, request_url, body, sha256, size, created_at)
						VALUES ($1, $2, $3, 'public', $4, 'https://api.fxtwitter.com/2/status/1', $5, $6, 1, $7)`, uuid.Must(uuid.NewV7()), r.capture, tenant, pub, []byte("x"), h, r.at)
				}
			}
			_, err = st.Migrate(ctx)
			require.NoError(t, err)

			got, err := st.RevisionList(ctx, coll)
			require.NoError(t, err)
			require.Len(t, got, 2)
			first, second := got[1], got[0] // newest first
			require.Equal(t, revs[0].id, first.ID)
			want0 := chain.Link{ContentHash: "aa", Media: []string{sha('1')}, Raw: revs[0].raw, CapturedAt: t0, AdapterID: "x", AdapterVersion: "1.2.0"}
			require.Equal(t, store.RevisionChain{Seq: 1, Hash: want0.Hash(), Raw: []string{sha('q'), sha('r')}, AdapterID: "x", AdapterVersion: "1.2.0"}, first.Chain)
			want1 := chain.Link{PrevHash: want0.Hash(), ContentHash: "bb", Media: []string{sha('2')}, CapturedAt: t0.Add(time.Hour), AdapterID: "x", AdapterVersion: "1.2.0"}
			require.Equal(t, store.RevisionChain{Seq: 2, PrevHash: want0.Hash(), Hash: want1.Hash(), AdapterID: "x", AdapterVersion: "1.2.0"}, second.Chain)
		})
	}
}

func sha(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = "0123456789abcdef"[(int(c)+i)%16]
	}
	return string(b)
}
