package xarchive_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/xarchive"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// benchTweets is the archive size: MONITOR_BENCH_TWEETS, default 10,000.
func benchTweets() int {
	if n, err := strconv.Atoi(os.Getenv("MONITOR_BENCH_TWEETS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// heapPeak samples the live heap while an import runs and returns its
// highest value.
func heapPeak(fn func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			mu.Lock()
			peak = max(peak, sample[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return peak
}

// peakRSS is the process's peak resident set (VmHWM), after resetRSS.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// resetRSS resets the peak resident set (Linux: writing 5 to clear_refs).
func resetRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// BenchmarkImportXArchive imports a generated archive of the real 2023+
// layout (data/manifest.js, tweets.js, tweets_media/) into a fresh SQLite
// instance, without media and with a photo on every post, reporting
// posts/s, the peak live heap and the peak RSS of the import. Run it once:
//
//	go test -run '^$' -bench ImportXArchive -benchtime 1x ./internal/capsule/xarchive
func BenchmarkImportXArchive(b *testing.B) {
	n := benchTweets()
	for _, sz := range []int{n / 10, n} {
		for _, media := range []bool{false, true} {
			name := fmt.Sprintf("tweets=%d/media=%v", sz, media)
			b.Run(name, func(b *testing.B) {
				every := 0
				if media {
					every = 1
				}
				dir := writeArchive(b, b.TempDir(), layout2026, "bench", genTweets(sz, every), nil, nil)
				ctx := context.Background()
				for b.Loop() {
					in := capsuletest.New(b, storetest.New(b, "sqlite"))
					tenant := in.Tenant(b, "bench", nil)
					runtime.GC()
					resetRSS()
					var took time.Duration
					var err error
					var created int
					heap := heapPeak(func() {
						start := time.Now()
						src, oerr := xarchive.Open(dir)
						require.NoError(b, oerr)
						defer src.Close()
						o := xarchive.Options{}
						o.TenantID = tenant
						rep, ierr := xarchive.Import(ctx, in.App, src, o)
						err, created, took = ierr, len(rep.Created), time.Since(start)
					})
					require.NoError(b, err)
					require.Equal(b, sz, created)
					b.ReportMetric(float64(sz)/took.Seconds(), "posts/s")
					b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MiB")
					b.ReportMetric(peakRSS(), "peak-RSS-MiB")
				}
			})
		}
	}
}
