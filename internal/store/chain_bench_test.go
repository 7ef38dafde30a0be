package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// BenchmarkFinalizeChainStep is what the chain adds to a finalize
// transaction: lock and read the collection's chain head, read the
// capture's raw-response hashes, hash the link. Both sub-benchmarks move
// the collection's current revision, as finalize does (a writing
// transaction, whose commit waits for the disk either way);
// "with-chain" also runs the chain step, "without" does not.
func BenchmarkFinalizeChainStep(b *testing.B) {
	for _, driver := range storetest.Drivers() {
		b.Run(driver, func(b *testing.B) {
			ctx := context.Background()
			st := storetest.New(b, driver)
			tenant := uuid.Must(uuid.NewV7())
			ctx = store.WithTenant(ctx, tenant)
			coll, capt := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
			var rev uuid.UUID
			now := time.Now().UTC()
			err := st.InTx(ctx, func(tx *store.Tx) error {
				if _, err := tx.TenantInsert(ctx, store.Tenant{ID: tenant, Name: "bench", Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
					return err
				}
				c, _, err := tx.CollectionGetOrInsert(ctx, store.Collection{ID: coll, TenantID: tenant, Visibility: store.Public, DataScope: store.PublicScope,
					AccessScope: "public", Platform: "x", EntityType: "x.post", ExternalID: "1", AdapterID: "x", SourceURL: "https://x.com/i/status/1"})
				if err != nil {
					return err
				}
				coll = c.ID
				rev = uuid.Must(uuid.NewV7())
				if _, err := tx.CaptureInsertFinished(ctx, store.Capture{ID: capt, CollectionID: coll, TenantID: tenant, Visibility: store.Public,
					DataScope: store.PublicScope, AccessScope: "public", AdapterID: "x", Provider: "fxtwitter"}, rev, now); err != nil {
					return err
				}
				if _, err := tx.RevisionInsertAt(ctx, store.Revision{ID: rev, CollectionID: coll, DataScope: store.PublicScope, Visibility: store.Public,
					CaptureID: capt, ContentHash: sha('c'), Content: []byte(`{}`), Chain: store.RevisionChain{Seq: 1, Hash: sha('h')}}, now); err != nil {
					return err
				}
				for _, body := range []string{`{"a":1}`, `{"b":2}`} {
					if err := tx.SourceResponseInsert(ctx, store.SourceResponse{CaptureID: capt, TenantID: tenant, Visibility: store.Public,
						DataScope: store.PublicScope, RequestURL: "https://api.fxtwitter.com/2/status/1", Body: []byte(body), SHA256: sha('a' + body[2])}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			content := []byte(`{"media":[{"sha256":"` + sha('1') + `"},{"sha256":"` + sha('2') + `"}],"graph":{"entities":[{"resources":[{"sha256":"` + sha('3') + `"}]}]}}`)
			b.Run("with-chain", func(b *testing.B) {
				for b.Loop() {
					err := st.InTx(ctx, func(tx *store.Tx) error {
						if err := tx.CollectionSetCurrent(ctx, coll, rev); err != nil {
							return err
						}
						_, head, err := tx.RevisionChainHead(ctx, coll)
						if err != nil {
							return err
						}
						raw, err := tx.SourceResponseHashes(ctx, capt)
						if err != nil {
							return err
						}
						media, err := chain.MediaOfContent(content)
						if err != nil {
							return err
						}
						_ = chain.Link{PrevHash: head, ContentHash: sha('c'), Media: media, Raw: raw, CapturedAt: tx.Now(), AdapterID: "x"}.Hash()
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("without", func(b *testing.B) {
				for b.Loop() {
					if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.CollectionSetCurrent(ctx, coll, rev) }); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
