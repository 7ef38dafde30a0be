package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// benchOps is a business layer on SQLite with objects attached media
// objects, for the cost of sampling.
func benchOps(b *testing.B, objects int) (*app.App, *testkit.Clock, *store.Store) {
	b.Helper()
	ctx := context.Background()
	st, url := storetest.NewWithURL(b, "sqlite")
	if err := queue.Migrate(ctx, st, storetest.Logger(b)); err != nil {
		b.Fatal(err)
	}
	clk := &testkit.Clock{}
	a := app.New(app.Deps{Store: st, Log: storetest.Logger(b), Now: clk.Now})
	tn, err := a.CreateTenant(ctx, "bench", "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(url, "sqlite://")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO objects (id, tenant_id, key, state, size, created_at, updated_at) VALUES ($1, $2, $3, 'attached', $4, $5, $5)`)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	for i := range objects {
		id := uuid.Must(uuid.NewV7())
		if _, err := ins.Exec(id.String(), tn.ID.String(), fmt.Sprintf("%s/objects/%s", tn.ID, id), 1000+i, now); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return a, clk, st
}

// BenchmarkMetricSample is the cost of one sampling tick (probes, the
// database's and media's size, the queue count, the insert and the purge)
// with 100,000 stored media objects.
func BenchmarkMetricSample(b *testing.B) {
	a, clk, _ := benchOps(b, 100_000)
	s := a.NewSampler("bench")
	ctx := context.Background()
	for b.Loop() {
		if err := s.Sample(ctx); err != nil {
			b.Fatal(err)
		}
		clk.Advance(app.MetricSampleInterval)
	}
}

// BenchmarkSystemMetricsDay reads the one-day view (720 two-minute
// buckets) out of 48 hours of samples of two processes.
func BenchmarkSystemMetricsDay(b *testing.B) {
	a, clk, st := benchOps(b, 0)
	ctx := context.Background()
	start := clk.Now().Add(-app.MetricRetention).Truncate(app.MetricSampleInterval)
	v := int64(1 << 20)
	f := 12.5
	for at := start; at.Before(clk.Now()); at = at.Add(app.MetricSampleInterval) {
		for _, inst := range []string{"a", "b"} {
			m := store.MetricSample{SampledAt: at, Instance: inst, RSSBytes: &v, CPUPercent: &f, Goroutines: &v, DBBytes: &v,
				BlobBytes: &v, QueueJobs: &v, DownloadBPS: &f, UploadBPS: &f}
			if err := st.MetricSampleInsert(ctx, m, start); err != nil {
				b.Fatal(err)
			}
		}
	}
	reads, began := 0, time.Now()
	for b.Loop() {
		s, err := a.SystemMetrics(ctx, app.DayWindow, app.DayBucket)
		if err != nil || len(s.Points) != 720 {
			b.Fatal(err, len(s.Points))
		}
		reads++
	}
	b.ReportMetric(float64(time.Since(began).Milliseconds())/float64(reads), "ms/read")
}
