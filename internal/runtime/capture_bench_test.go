//go:build unix

package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// BenchmarkCaptureThroughput (issue 20, P1) submits a batch of photo posts
// (two 256 KiB photos each) at once through REST on the embedded default
// (SQLite and local files) and waits until every capture has ended. In the
// same run it measures the anchor: a plain Go client that GETs the same
// media from the same fake, hashes it and writes it to a temp dir, 8 at a
// time. It reports both times per batch and their ratio (goal ≤ 1.5).
// MONITOR_BENCH_POSTS sets the batch size (default 200); the worker and
// slot settings (MONITOR_TENANT_CAPTURES, MONITOR_*_WORKERS) pass through.
// MONITOR_BENCH_BACKEND=postgres-s3 runs the batch on the scale backends
// instead: PostgreSQL (MONITOR_TEST_POSTGRES_URL) and S3 on versitygw
// (goal ≤ 2.5).
func BenchmarkCaptureThroughput(b *testing.B) {
	posts := 200
	if v, err := strconv.Atoi(os.Getenv("MONITOR_BENCH_POSTS")); err == nil && v > 0 {
		posts = v
	}
	fx := testkit.NewFxTwitter(b)
	fx.SetMediaSize(256 << 10)
	env := map[string]string{}
	for _, k := range []string{"MONITOR_TENANT_CAPTURES", "MONITOR_CAPTURE_WORKERS", "MONITOR_DOWNLOAD_WORKERS", "MONITOR_CONTROL_WORKERS"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	benchBackend(b, env)
	cfg := testcore.Config(b, env)
	cfg.FxTwitterURL = fx.URL()
	core := testcore.Run(b, cfg)
	base := "http://" + core.Addr()
	ctx := context.Background()
	tenant, err := core.App().CreateTenant(ctx, "bench", "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	token, _, err := core.App().CreateToken(ctx, "bench", "bench", "", false)
	if err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	var monitor, anchor, cpu time.Duration
	batch := 0
	for b.Loop() {
		batch++
		urls := make([]string, posts)
		var media []string
		for i := range urls {
			id := fmt.Sprintf("5%04d%05d", batch, i)
			urls[i] = fx.AddPost(testkit.SyntheticPost{ID: id, Photos: 2, NoAvatar: true})
			for j := range 2 {
				media = append(media, fx.MediaURL(fmt.Sprintf("https://pbs.twimg.com/media/S%s-%d.jpg?name=orig", id, j)))
			}
		}
		// The fake builds each body once; build them all before either
		// side is timed, so neither pays for it.
		for _, u := range media {
			fx.MediaBytes(u)
		}
		anchor += testkit.PlainFetch(b, client, media, 8)
		before := processCPU(b)
		monitor += submitAll(b, client, core, base, token, tenant.ID, urls)
		cpu += processCPU(b) - before
	}
	b.ReportMetric(monitor.Seconds()/float64(batch), "monitor-s/batch")
	b.ReportMetric(anchor.Seconds()/float64(batch), "anchor-s/batch")
	b.ReportMetric(monitor.Seconds()/anchor.Seconds(), "ratio")
	b.ReportMetric(float64(batch*posts)/monitor.Seconds(), "captures/s")
	// CPU time of the whole process (the fake serving the media included)
	// while Monitor works: steadier than wall time on a busy machine.
	b.ReportMetric(cpu.Seconds()/float64(batch), "monitor-cpu-s/batch")
}

// benchBackend adds to env the database and media store that
// MONITOR_BENCH_BACKEND names: "embedded" (the default: SQLite and files
// in the data dir) or "postgres-s3".
func benchBackend(b *testing.B, env map[string]string) {
	b.Helper()
	switch v := os.Getenv("MONITOR_BENCH_BACKEND"); v {
	case "", "embedded":
	case "postgres-s3":
		_, dbURL := storetest.NewWithURL(b, "postgres")
		srv := testkit.StartS3(b)
		env["MONITOR_DATABASE_URL"] = dbURL
		env["MONITOR_BLOB_URL"] = "s3://" + srv.NewBucket(b) + "?endpoint=" + srv.Endpoint + "&region=" + srv.Region
		env["MONITOR_S3_ACCESS_KEY_ID"] = srv.AccessKeyID
		env["MONITOR_S3_SECRET_ACCESS_KEY"] = srv.SecretAccessKey
	default:
		b.Fatalf("MONITOR_BENCH_BACKEND=%q: use embedded or postgres-s3", v)
	}
}

// submitAll posts every URL to POST /v1/captures from 8 clients at once and
// returns the time until the last capture ended; each must be complete.
func submitAll(b *testing.B, client *http.Client, core *testcore.Running, base, token string, tenantID uuid.UUID, urls []string) time.Duration {
	b.Helper()
	start := time.Now()
	ids := make([]uuid.UUID, len(urls))
	ended := make([]<-chan struct{}, len(urls))
	errs := make(chan error, len(urls))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				body, _ := json.Marshal(map[string]string{"url": urls[i]})
				req, _ := http.NewRequest("POST", base+"/v1/captures", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					continue
				}
				var got struct {
					CaptureID string `json:"capture_id"`
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted || json.Unmarshal(raw, &got) != nil {
					errs <- fmt.Errorf("POST /v1/captures: %d %s", resp.StatusCode, raw)
					continue
				}
				ids[i] = uuid.MustParse(got.CaptureID)
				ended[i] = core.Ended(ids[i])
			}
		})
	}
	for i := range urls {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	for i, id := range ids {
		select {
		case <-ended[i]:
		case <-time.After(time.Minute):
			b.Fatalf("capture %s did not end within a minute", id)
		}
	}
	took := time.Since(start)
	for _, id := range ids {
		v, err := core.App().Capture(context.Background(), tenantID, id)
		if err != nil {
			b.Fatal(err)
		}
		if v.State != "complete" {
			b.Fatalf("capture %s: %s %s", id, v.State, v.Error)
		}
	}
	return took
}

// processCPU is the CPU time this process has used so far.
func processCPU(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
