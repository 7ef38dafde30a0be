package app_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// BenchmarkWatchSchedule is the scheduler's database cost: 1,000 watches
// of 1,000 sources, all due, and one tick that leases them and inserts
// their 1,000 source-run jobs, on each database. It reports the time per
// due watch.
func BenchmarkWatchSchedule(b *testing.B) {
	const n = 1000
	for _, driver := range storetest.Drivers() {
		b.Run(driver, func(b *testing.B) {
			c := testcore.New(b, testcore.Options{DB: driver, NoStart: true})
			ctx := context.Background()
			tenant := c.Tenant(b, "bench", nil)
			tctx := store.WithTenant(ctx, tenant)
			past := c.Clock.Now().Add(-time.Hour)
			err := c.Store.InTx(tctx, func(tx *store.Tx) error {
				for i := range n {
					src, err := tx.WatchSourceAdd(tctx, store.WatchSource{ID: uuid.New(), AdapterID: "x", Provider: "fxtwitter",
						Platform: "x", EntityType: "x.profile", ObjectScope: "", ExternalID: strconv.Itoa(i),
						URL: "https://x.com/bench_" + strconv.Itoa(i)}, past)
					if err != nil {
						return err
					}
					if _, err := tx.WatchInsert(tctx, store.Watch{TenantID: tenant, SourceID: src.ID, URL: src.URL, IntervalSeconds: 900,
						Notify: app.NotifyNone, State: store.WatchActive}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				// Past the lease of the tick before: every source is due again.
				c.Clock.Advance(11 * time.Minute)
				got, err := c.App.WatchTick(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if got != n {
					b.Fatalf("tick started %d runs, want %d", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/n, "µs/due-watch")
		})
	}
}

// BenchmarkWatchRun is one run of a source whose watchers have nothing
// new, with 1 and with 20 watchers: one adapter read (X over gRPC to the
// fake FxTwitter) and the database work of each watcher's run record. The
// difference between the two is the database time per watcher.
func BenchmarkWatchRun(b *testing.B) {
	for _, driver := range storetest.Drivers() {
		for _, watchers := range []int{1, 20} {
			b.Run(fmt.Sprintf("%s/watchers=%d", driver, watchers), func(b *testing.B) {
				p := pipelineOf(testcore.New(b, testcore.Options{DB: driver}))
				ctx := context.Background()
				tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
				var source uuid.UUID
				for i := range watchers {
					tenant := p.tenant(b, "bench"+strconv.Itoa(i), nil)
					w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: tenant, URL: tl.ProfileURL, Notify: app.NotifyNone})
					if err != nil {
						b.Fatal(err)
					}
					source = w.SourceID
				}
				p.tick(b, 0, 1) // the first run, which learns what is there
				for b.Loop() {
					p.clock.Advance(20 * time.Minute)
					owner := uuid.NewString()
					now := p.clock.Now()
					if err := p.st.InTx(ctx, func(tx *store.Tx) error {
						got, err := tx.WatchSourcesClaimDue(ctx, owner, now, now.Add(10*time.Minute), 10)
						if err == nil && len(got) != 1 {
							err = fmt.Errorf("claimed %d sources, want 1", len(got))
						}
						return err
					}); err != nil {
						b.Fatal(err)
					}
					if err := p.app.RunWatchSource(ctx, source, owner); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/run")
			})
		}
	}
}

// BenchmarkWatchUpstream counts the upstream reads of one interval with
// 1,000 watchers over 50 sources (50 tenants, each watching 20 of them)
// when every source has one new post: the goal is one read per source,
// 50. It reports the timeline reads, all upstream API requests (timeline
// pages, profiles and the new posts' own fetches) and the posts the
// watchers got. Run with -benchtime 1x.
func BenchmarkWatchUpstream(b *testing.B) {
	const sources, tenants, each = 50, 50, 20
	p := newPipeline(b, "sqlite", testLimits())
	ctx := context.Background()
	for k, v := range map[string]string{"watch_per_user_limit": strconv.Itoa(each), "watch_max_sources": strconv.Itoa(sources)} {
		if _, err := p.app.SetSetting(ctx, "bench", k, v); err != nil {
			b.Fatal(err)
		}
	}
	handles := make([]string, sources)
	urls := make([]string, sources)
	for i := range sources {
		handles[i] = fmt.Sprintf("watched_%02d", i)
		urls[i] = p.fx.AddTimeline(handles[i], strconv.Itoa(4500000000000000000+i), 25, 20).ProfileURL
	}
	for t := range tenants {
		tenant := p.tenant(b, "watcher"+strconv.Itoa(t), nil)
		for j := range each {
			if _, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: tenant, URL: urls[(t+j)%sources], Notify: app.NotifyNone}); err != nil {
				b.Fatal(err)
			}
		}
	}
	p.tick(b, 0, sources)
	timelineReads := func() int {
		n := 0
		for _, h := range handles {
			n += p.fx.Hits("/2/profile/" + h + "/statuses")
		}
		return n
	}
	for b.Loop() {
		for _, h := range handles {
			p.fx.GrowTimeline(h, 1)
		}
		reads, requests := timelineReads(), len(p.fx.Requests())
		p.tick(b, 15*time.Minute, sources)
		b.ReportMetric(float64(timelineReads()-reads), "timeline-reads/interval")
		b.ReportMetric(float64(len(p.fx.Requests())-requests), "api-requests/interval")
	}
	got := 0
	for t := range tenants {
		tenant, err := p.app.TenantByName(ctx, "watcher"+strconv.Itoa(t))
		if err != nil {
			b.Fatal(err)
		}
		ws, err := p.app.Watches(ctx, tenant.ID)
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range ws {
			got += w.NewPosts
		}
	}
	b.ReportMetric(float64(got), "posts-given")
}
