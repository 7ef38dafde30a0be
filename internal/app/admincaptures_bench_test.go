package app_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// BenchmarkExportCaptures reads 20,000 captures of one tenant through the
// operator's CSV export path (pages of 1,000); rows/s is the figure.
func BenchmarkExportCaptures(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			st := storetest.New(b, driver)
			ctx := context.Background()
			a := app.New(app.Deps{Store: st, Log: storetest.Logger(b)})
			tn, err := a.CreateTenant(ctx, "bench", "alice", nil)
			require.NoError(b, err)
			tctx := store.WithTenant(ctx, tn.ID)
			coll := uuid.Must(uuid.NewV7())
			const rows = 20_000
			require.NoError(b, st.InTx(tctx, func(tx *store.Tx) error {
				if err := tx.CollectionInsertAt(tctx, store.Collection{ID: coll, TenantID: tn.ID, Visibility: store.Private, DataScope: tn.ID,
					AccessScope: "private", Platform: "x", EntityType: "x.post", ExternalID: "1", AdapterID: "x",
					SourceURL: "https://x.com/i/status/1"}, time.Now()); err != nil {
					return err
				}
				for i := range rows {
					if _, err := tx.CaptureInsert(tctx, store.Capture{CollectionID: coll, TenantID: tn.ID, Visibility: store.Private,
						DataScope: tn.ID, AccessScope: "private", AdapterID: "x", Provider: "fxtwitter", PageCursor: strconv.Itoa(i)}); err != nil {
						return err
					}
				}
				return nil
			}))
			b.ResetTimer()
			for b.Loop() {
				n := 0
				_, err := a.ExportCaptures(ctx, app.AdminCaptureFilter{}, app.MaxCaptureExport, func(app.AdminCaptureView) error { n++; return nil })
				require.NoError(b, err)
				require.Equal(b, rows, n)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
