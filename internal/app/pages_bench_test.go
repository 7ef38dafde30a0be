package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// BenchmarkProfileTimeline archives a profile's timeline of text posts
// with one photo each, through the whole pipeline on SQLite (X adapter
// over gRPC, a fake FxTwitter paging 20 posts an upstream page), as one
// batch of the given size; the anchor archives the same number of posts
// sent one by one, as a person would without profiles. It reports the
// time per post, the upstream API requests and media requests, and the
// ratio to the anchor's time per post. Run with -benchtime 1x.
func BenchmarkProfileTimeline(b *testing.B) {
	for _, n := range []int{100, 1000} {
		var anchor float64
		b.Run(fmt.Sprintf("one-by-one=%d", n), func(b *testing.B) {
			for b.Loop() {
				p := newPipeline(b, "sqlite", testLimits())
				tl := p.fx.AddTimeline(timelineHandle, timelineID, n, 20)
				tenant := p.tenant(b, "bench", nil)
				ctx := context.Background()
				start := time.Now()
				ids := make([]uuid.UUID, len(tl.Posts))
				for i, u := range tl.Posts {
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
				anchor = float64(time.Since(start).Milliseconds()) / float64(n)
				b.ReportMetric(anchor, "ms/post")
				reportRequests(b, p)
			}
		})
		b.Run(fmt.Sprintf("profile=%d", n), func(b *testing.B) {
			for b.Loop() {
				p := newPipeline(b, "sqlite", testLimits())
				tl := p.fx.AddTimeline(timelineHandle, timelineID, n, 20)
				tenant := p.tenant(b, "bench", nil)
				ctx := context.Background()
				start := time.Now()
				res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: tenant, URL: tl.ProfileURL, Limit: n})
				if err != nil {
					b.Fatal(err)
				}
				v := p.waitSubmission(b, tenant, res.SubmissionID)
				for v.Progress.Total < n && v.NextSubmission != nil || v.Progress.Queued > 0 {
					time.Sleep(10 * time.Millisecond)
					v = p.waitSubmission(b, tenant, res.SubmissionID)
				}
				if v.Progress.Complete != n {
					b.Fatalf("archived %+v of %d", v.Progress, n)
				}
				perPost := float64(time.Since(start).Milliseconds()) / float64(n)
				b.ReportMetric(perPost, "ms/post")
				if anchor > 0 {
					b.ReportMetric(perPost/anchor, "x-one-by-one")
				}
				reportRequests(b, p)
			}
		})
	}
}

// reportRequests reports the fake FxTwitter's API and media requests.
func reportRequests(b *testing.B, p *pipeline) {
	api, media := 0, 0
	for _, r := range p.fx.Requests() {
		if strings.HasPrefix(r.Path, "/media/") {
			media++
		} else {
			api++
		}
	}
	b.ReportMetric(float64(api), "api-requests")
	b.ReportMetric(float64(media), "media-requests")
}
