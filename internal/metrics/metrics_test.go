package metrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/metrics"
)

func exposition(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Body.String()
}

// A nil *Metrics counts nothing and breaks nothing.
func TestNilMetricsDoNothing(t *testing.T) {
	t.Parallel()
	var m *metrics.Metrics
	m.CaptureEnded("x", "complete", time.Second)
	m.DownloadedBytes(10)
	m.BotUpdates(1)
	m.BotDelivery(metrics.DeliveryDelivered)
	m.BlobOperation("put", metrics.ResultOK)
	m.WatchRun("ok")
	require.NoError(t, m.Register())
	require.NoError(t, m.CountQueueJobs(nil, nil, nil))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	require.NotNil(t, m.Instrument(h))
}

func TestCountersAndLabels(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.CaptureEnded("x", "partial", 3*time.Second)
	m.DownloadedBytes(1000)
	m.DownloadedBytes(24)
	m.BotUpdates(2)
	m.BotDelivery(metrics.DeliveryDeferred)
	m.BlobOperation("get", metrics.ResultNotFound)
	m.WatchRun("failed")
	body := exposition(t, m)
	for _, want := range []string{
		`monitor_captures_total{platform="x",state="partial"} 1`,
		`monitor_capture_duration_seconds_bucket{platform="x",state="partial",le="5"} 1`,
		`monitor_capture_duration_seconds_bucket{platform="x",state="partial",le="2"} 0`,
		`monitor_download_bytes_total 1024`,
		`monitor_bot_updates_total 2`,
		`monitor_bot_deliveries_total{result="deferred"} 1`,
		`monitor_blob_operations_total{op="get",result="not_found"} 1`,
		`monitor_watch_runs_total{result="failed"} 1`,
	} {
		require.Contains(t, body, want+"\n")
	}
}

// Instrument labels by the pattern the mux matched, "unmatched" otherwise,
// keeps the final status over a 1xx and lets ResponseController through.
func TestInstrumentByRoutePattern(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/things/{id}", func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute)))
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, "short and stout")
	})
	srv := httptest.NewServer(m.Instrument(mux))
	t.Cleanup(srv.Close)
	for _, p := range []string{"/v1/things/1", "/v1/things/2", "/v1/secret-path-abc"} {
		resp, err := http.Get(srv.URL + p)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	body := exposition(t, m)
	require.Contains(t, body, `monitor_http_requests_total{code="418",route="GET /v1/things/{id}"} 2`+"\n")
	require.Contains(t, body, `monitor_http_requests_total{code="404",route="unmatched"} 1`+"\n")
	require.Contains(t, body, `monitor_http_request_duration_seconds_count{route="GET /v1/things/{id}"} 2`+"\n")
	require.NotContains(t, body, "secret-path-abc")
	require.NotContains(t, body, "/v1/things/1")
}

// The queue's jobs are read at scrape; pairs that count returns nothing
// for read 0, and a count that fails leaves only that series out.
func TestQueueJobsAtScrape(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	calls := 0
	fail := false
	require.NoError(t, m.CountQueueJobs(func(ctx context.Context) ([]metrics.JobCount, error) {
		calls++
		_, ok := ctx.Deadline()
		require.True(t, ok, "the count is bounded")
		if fail {
			return nil, errors.New("database is gone")
		}
		return []metrics.JobCount{{Queue: "capture", State: "available", Jobs: 7}}, nil
	}, []metrics.JobCount{{Queue: "capture", State: "available"}, {Queue: "download", State: "running"}}, slog.New(slog.DiscardHandler)))
	body := exposition(t, m)
	require.Contains(t, body, `monitor_queue_jobs{queue="capture",state="available"} 7`+"\n")
	require.Contains(t, body, `monitor_queue_jobs{queue="download",state="running"} 0`+"\n")
	require.Equal(t, 1, calls, "one count a scrape")

	fail = true
	m.BotUpdates(1)
	body = exposition(t, m)
	require.False(t, strings.Contains(body, "monitor_queue_jobs{"), body)
	require.Contains(t, body, "monitor_bot_updates_total 1\n", "the other series are still served")
}

// TestGrafanaDashboardUsesTheseSeries: every monitor_* series the
// dashboard in deploy/grafana queries exists (here, or among the gauges
// runtime registers beside these).
func TestGrafanaDashboardUsesTheseSeries(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana", "monitor.json"))
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(raw, &dash))

	m := metrics.New()
	m.CaptureEnded("x", "complete", time.Second)
	m.DownloadedBytes(1)
	m.BotUpdates(1)
	m.BotDelivery(metrics.DeliveryDelivered)
	m.BlobOperation("put", metrics.ResultOK)
	m.WatchRun("ok")
	require.NoError(t, m.CountQueueJobs(func(context.Context) ([]metrics.JobCount, error) {
		return []metrics.JobCount{{Queue: "capture", State: "available", Jobs: 1}}, nil
	}, nil, nil))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x", func(http.ResponseWriter, *http.Request) {})
	m.Instrument(mux).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	body := exposition(t, m)
	known := map[string]bool{"monitor_adapters_online": true, "monitor_adapters_pending": true, "monitor_build_info": true}
	for _, line := range strings.Split(body, "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			known[strings.Fields(name)[0]] = true
		}
	}

	name := regexp.MustCompile(`monitor_[a-z_]+`)
	used := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				base := n
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if s, ok := strings.CutSuffix(n, suffix); ok && known[s] {
						base = s
					}
				}
				require.True(t, known[base], "panel %q queries %s, which Monitor does not expose", p.Title, n)
				used++
			}
		}
	}
	require.NotZero(t, used)
}
