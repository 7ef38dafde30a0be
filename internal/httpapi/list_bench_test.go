package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// listSize is how many saved collections the listing benchmark's tenant
// has (MONITOR_BENCH_LIST_SIZE overrides it; CI's compile run uses few).
func listSize() int {
	if n, err := strconv.Atoi(os.Getenv("MONITOR_BENCH_LIST_SIZE")); err == nil && n > 50 {
		return n
	}
	return 10_000
}

// BenchmarkCollectionsList measures `GET /v1/collections?limit=50` over a
// tenant's saved collections (10,000), 16 connections at once over
// loopback, against an anchor measured in the same run: a bare net/http
// handler serving the same body, under the same load. It reports requests
// per second and p99 of both, and their ratio (goal ≥ 0.5).
//
//	go test -run X -bench CollectionsList -benchtime 2000x ./internal/httpapi
func BenchmarkCollectionsList(b *testing.B) {
	for _, db := range storetest.Drivers() {
		b.Run(db, func(b *testing.B) {
			c := testcore.New(b, testcore.Options{DB: db})
			ctx := context.Background()
			tenant := c.Tenant(b, "alice", nil)
			_, cv := c.Capture(b, tenant, photosPost)
			require.Equal(b, "complete", cv.State, cv.Error)
			storetest.SeedLibrary(b, c.StoreURL, tenant, cv.CollectionID, listSize()-1)
			token, _, err := c.App.CreateToken(ctx, "test", "alice", "bench", false)
			require.NoError(b, err)
			api := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Log: storetest.Logger(b)}))
			defer api.Close()
			const path = "/v1/collections?limit=50"
			body := fetch(b, api.URL+path, token)
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			defer bare.Close()

			n := max(b.N, 64)
			b.ResetTimer()
			rps, p99 := load(b, api.URL+path, token, n)
			anchorRPS, anchorP99 := load(b, bare.URL+path, token, n)
			b.StopTimer()
			b.ReportMetric(rps, "req/s")
			b.ReportMetric(ms(p99), "p99-ms")
			b.ReportMetric(anchorRPS, "anchor-req/s")
			b.ReportMetric(ms(anchorP99), "anchor-p99-ms")
			b.ReportMetric(rps/anchorRPS, "ratio")
			fmt.Fprintf(os.Stderr, "%s: %d saved, %d requests: %.0f req/s p99 %.1f ms; bare handler %.0f req/s p99 %.1f ms; ratio %.2f\n",
				db, listSize(), n, rps, ms(p99), anchorRPS, ms(anchorP99), rps/anchorRPS)
		})
	}
}

// load sends n GETs from 16 connections at once and returns requests per
// second and the 99th percentile of their times.
func load(b *testing.B, url, token string, n int) (float64, time.Duration) {
	b.Helper()
	const conns = 16
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	times := make([]time.Duration, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	start := time.Now()
	for range conns {
		wg.Go(func() {
			for i := range next {
				t := time.Now()
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("status %d", resp.StatusCode)
					return
				}
				times[i] = time.Since(t)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	slices.Sort(times)
	return float64(n) / elapsed.Seconds(), times[len(times)*99/100]
}

func fetch(b *testing.B, url, token string) []byte {
	b.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode)
	out, err := io.ReadAll(resp.Body)
	require.NoError(b, err)
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
