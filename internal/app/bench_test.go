package app_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// BenchmarkCapturePhotoPosts captures batches of 200 distinct posts with
// two 256 KiB photos each against the fake upstream, through the whole
// pipeline (adapter over gRPC, downloads, dedup, finalize), on SQLite with
// local files and on PostgreSQL with S3. In the same run it times the
// anchor, a plain client fetching, hashing and writing the same media 8 at
// a time (testkit.PlainFetch), and reports the ratio (issue 20's P1: goal
// ≤ 1.5 on the embedded default, ≤ 2.5 on PostgreSQL and S3).
func BenchmarkCapturePhotoPosts(b *testing.B) {
	b.Run("sqlite-files", func(b *testing.B) {
		benchmarkPhotoPosts(b, newPipeline(b, "sqlite", testLimits()))
	})
	b.Run("postgres-s3", func(b *testing.B) {
		if !slices.Contains(storetest.Drivers(), "postgres") {
			b.Skip("PostgreSQL is not reachable")
		}
		benchmarkPhotoPosts(b, pipelineOf(testcore.New(b, testcore.Options{DB: "postgres", Blob: "s3", Limits: testLimits()})))
	})
}

func benchmarkPhotoPosts(b *testing.B, p *pipeline) {
	const posts = 200
	p.fx.SetMediaSize(256 << 10)
	tenant := p.tenant(b, "bench", nil)
	ctx := context.Background()
	batch := 0
	var total, anchor time.Duration
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for b.Loop() {
		batch++
		urls := make([]string, posts)
		var media []string
		for i := range urls {
			id := fmt.Sprintf("3%04d%05d", batch, i)
			urls[i] = p.fx.AddPost(testkit.SyntheticPost{ID: id, Photos: 2, NoAvatar: true})
			for j := range 2 {
				media = append(media, p.fx.MediaURL(fmt.Sprintf("https://pbs.twimg.com/media/S%s-%d.jpg?name=orig", id, j)))
			}
		}
		anchor += testkit.PlainFetch(b, client, media, 8)
		start := time.Now()
		ids := make([]uuid.UUID, posts)
		for i, u := range urls {
			res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: tenant, URL: u})
			if err != nil {
				b.Fatal(err)
			}
			ids[i] = res.CaptureID
		}
		for _, id := range ids {
			if c := p.wait(b, tenant, id); c.State != app.StateComplete {
				b.Fatalf("capture %s: %s %s", id, c.State, c.Error)
			}
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(batch*posts)/total.Seconds(), "captures/s")
	b.ReportMetric(total.Seconds()/float64(batch), "monitor-s/batch")
	b.ReportMetric(anchor.Seconds()/float64(batch), "anchor-s/batch")
	b.ReportMetric(total.Seconds()/anchor.Seconds(), "ratio")
}

// BenchmarkSubmitToComplete measures, for text-only posts, the time from
// Submit returning to the capture being complete, and reports p50 and p95.
func BenchmarkSubmitToComplete(b *testing.B) {
	p := newPipeline(b, "sqlite", testLimits())
	tenant := p.tenant(b, "bench", nil)
	ctx := context.Background()
	var (
		mu    sync.Mutex
		lats  []time.Duration
		index int
	)
	for b.Loop() {
		index++
		u := p.fx.AddPost(testkit.SyntheticPost{ID: fmt.Sprintf("4%09d", index), NoAvatar: true})
		start := time.Now()
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: tenant, URL: u})
		if err != nil {
			b.Fatal(err)
		}
		if c := p.wait(b, tenant, res.CaptureID); c.State != app.StateComplete {
			b.Fatalf("capture %s: %s", c.State, c.Error)
		}
		mu.Lock()
		lats = append(lats, time.Since(start))
		mu.Unlock()
	}
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lats[len(lats)*95/100].Microseconds())/1000, "p95-ms")
}
