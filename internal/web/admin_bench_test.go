package web_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/web"
)

// BenchmarkAdminOverview measures the console overview's server time
// (handler only, no network), charts included, with 100,000 captures
// (MONITOR_BENCH_LIBRARY_SIZE overrides) and 48 h of samples from two
// processes, on every database; p50 and p99 in milliseconds and the
// page's HTML in KB.
//
//	go test -run X -bench AdminOverview -benchtime 100x ./internal/web
//
// Measured 2026-12-01 on the shared 2-core machine, 100 runs: SQLite p50
// 31 ms / p99 87 ms, PostgreSQL p50 52 ms / p99 342 ms (other agents'
// load); 75 KB of HTML, most of it the five charts' 720-bucket lines.
func BenchmarkAdminOverview(b *testing.B) {
	for _, db := range storetest.Drivers() {
		b.Run(db, func(b *testing.B) {
			ctx := context.Background()
			c := testcore.New(b, testcore.Options{DB: db})
			tenant := c.Tenant(b, "root", nil)
			_, cv := c.Capture(b, tenant, photosPost)
			require.Equal(b, "complete", cv.State, cv.Error)
			seeded := time.Now()
			storetest.SeedLibrary(b, c.StoreURL, tenant, cv.CollectionID, librarySize()-1)
			now := c.Clock.Now().UTC().Truncate(app.MetricSampleInterval)
			ticks := int(app.MetricRetention / app.MetricSampleInterval)
			for i := range ticks {
				for _, inst := range []string{"a", "b"} {
					rss, db, q := int64(300<<20+i%50<<20), int64(2<<30), int64(i%30)
					cpu, rate := float64(i%70), float64(i%100*4096)
					require.NoError(b, c.Store.MetricSampleInsert(ctx, store.MetricSample{SampledAt: now.Add(-time.Duration(i) * app.MetricSampleInterval),
						Instance: inst, RSSBytes: &rss, CPUPercent: &cpu, DBBytes: &db, BlobBytes: &db, QueueJobs: &q, DownloadBPS: &rate, UploadBPS: &rate},
						now.Add(-app.MetricRetention)))
				}
			}
			fmt.Fprintf(os.Stderr, "%s: seeded %d captures and %d samples in %s\n", db, librarySize(), 2*ticks, time.Since(seeded).Round(time.Millisecond))
			r, err := web.New()
			require.NoError(b, err)
			h, err := web.HandlerAs(web.Deps{App: c.App, Renderer: r}, tenant, &web.Session{TenantName: "root", CSRF: "x", Admin: true})
			require.NoError(b, err)
			body := serve(b, h, "/admin")
			require.Equal(b, 5, strings.Count(body, `<svg class="chart"`))
			var times []time.Duration
			for b.Loop() {
				times = append(times, timed(h, "/admin"))
			}
			b.ReportMetric(ms(pct(times, 50)), "p50-ms")
			b.ReportMetric(ms(pct(times, 99)), "p99-ms")
			b.ReportMetric(float64(len(body))/1000, "html-KB")
		})
	}
}
