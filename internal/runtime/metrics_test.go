package runtime_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// scrape reads /metrics with the Prometheus text parser: every family by
// name.
func scrape(t *testing.T, rc *restCore) map[string]*dto.MetricFamily {
	t.Helper()
	families, err := scrapeAt(rc.base)
	require.NoError(t, err)
	return families
}

// scrapeAt reads base's /metrics with the Prometheus text parser.
func scrapeAt(base string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics answered %s: %s", resp.Status, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("/metrics does not parse as the Prometheus text format: %w", err)
	}
	return families, nil
}

// sample is the value of the series of family whose labels include want
// (a counter's or gauge's value, a histogram's count); ok is false when
// there is none.
func sample(families map[string]*dto.MetricFamily, family string, want map[string]string) (v float64, ok bool) {
	f := families[family]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, w := range want {
			if labels[k] != w {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// labelValues lists the values label takes in family.
func labelValues(families map[string]*dto.MetricFamily, family, label string) []string {
	var out []string
	for _, m := range families[family].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}

// TestMetricsMoveWithTheWork: after a capture with media, REST reads, a
// media download and an unknown path, /metrics parses and its series say
// so, with route patterns and never raw paths.
func TestMetricsMoveWithTheWork(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	token := rc.tenant(t, "alice", nil)
	before := scrape(t, rc)
	for _, name := range []string{"monitor_download_bytes_total", "monitor_bot_updates_total", "monitor_queue_jobs"} {
		require.Contains(t, before, name, "plain counters and gauges show before their first count")
	}
	idle, ok := sample(before, "monitor_queue_jobs", map[string]string{"queue": "capture", "state": "available"})
	require.True(t, ok, "an empty queue reports 0, not nothing")
	require.Zero(t, idle)
	bytesBefore, _ := sample(before, "monitor_download_bytes_total", nil)

	sub, c := rc.capture(t, token, "https://x.com/archivist_demo/status/2078399740166950912")
	require.Equal(t, "complete", c["state"], c["error"])
	coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil)
	require.Equal(t, http.StatusOK, coll.status)
	media := coll.json(t)["media"].([]any)
	require.Len(t, media, 2)
	var downloaded float64 // what the fake media host served: the images and the author's avatar
	for _, r := range rc.fx.Requests() {
		if strings.HasPrefix(r.Path, "/media/") {
			downloaded += float64(len(rc.fx.MediaBytes(rc.fx.URL() + r.Path + "?" + r.RawQuery)))
		}
	}
	require.NotZero(t, downloaded)
	for _, m := range media {
		mm := m.(map[string]any)
		got := rc.do(t, token, "GET", mm["url"].(string), nil)
		require.Equal(t, http.StatusOK, got.status)
	}
	require.Equal(t, http.StatusNotFound, rc.do(t, token, "GET", "/v1/no-such-thing/"+sub["collection_id"].(string), nil).status)
	web := rc.do(t, "", "GET", "/login/not-a-real-link", nil)
	require.GreaterOrEqual(t, web.status, 300, "a made-up sign-in link does not sign in")

	after := scrape(t, rc)
	n, ok := sample(after, "monitor_captures_total", map[string]string{"platform": "x", "state": "complete"})
	require.True(t, ok)
	require.Equal(t, float64(1), n)
	n, _ = sample(after, "monitor_capture_duration_seconds", map[string]string{"platform": "x", "state": "complete"})
	require.Equal(t, float64(1), n, "one capture timed from submit to end")

	bytesAfter, _ := sample(after, "monitor_download_bytes_total", nil)
	require.Equal(t, downloaded, bytesAfter-bytesBefore, "every byte the media host served")

	for _, want := range []map[string]string{
		{"route": "POST /v1/captures", "code": "202"},
		{"route": "GET /v1/captures/{id}", "code": "200"},
		{"route": "GET /v1/collections/{id}", "code": "200"},
		{"route": "GET /v1/media/{sha256}", "code": "200"},
		{"route": "unmatched", "code": "404"},
		{"route": "GET /metrics", "code": "200"},
		{"route": "GET /login/{token}"}, // the web library too, by its own route table
	} {
		_, ok := sample(after, "monitor_http_requests_total", want)
		require.True(t, ok, "monitor_http_requests_total%v", want)
	}
	n, _ = sample(after, "monitor_http_requests_total", map[string]string{"route": "GET /v1/media/{sha256}", "code": "200"})
	require.Equal(t, float64(2), n)
	n, _ = sample(after, "monitor_http_request_duration_seconds", map[string]string{"route": "GET /v1/media/{sha256}"})
	require.Equal(t, float64(2), n)
	for _, route := range labelValues(after, "monitor_http_requests_total", "route") {
		require.NotContains(t, route, sub["collection_id"].(string), "a raw path leaked into the route label")
		require.NotContains(t, route, "not-a-real-link", "a raw path leaked into the route label")
		require.False(t, strings.Contains(route, "/v1/media/") && !strings.Contains(route, "{sha256}"), "raw media path %q", route)
	}

	n, _ = sample(after, "monitor_blob_operations_total", map[string]string{"op": "put", "result": "ok"})
	require.GreaterOrEqual(t, n, float64(2), "the two images went into the media store")
	n, _ = sample(after, "monitor_blob_operations_total", map[string]string{"op": "get", "result": "ok"})
	require.GreaterOrEqual(t, n, float64(2), "and were read back for the downloads")
	_, ok = sample(after, "monitor_queue_jobs", map[string]string{"queue": "download", "state": "running"})
	require.True(t, ok)
}

// TestMetricsCountTheBot: the bot's updates and deliveries are counted on
// core's side of the channel API, where every bot process reports (so one
// /metrics covers a bot in this process and `monitor telegram` elsewhere),
// and the channel API's own requests by its route patterns.
func TestMetricsCountTheBot(t *testing.T) {
	t.Parallel()
	bot := testkit.NewBotAPI(t)
	fx := testkit.NewFxTwitter(t)
	cfg := testConfig(t)
	cfg.FxTwitterURL = fx.URL()
	cfg.TelegramToken = bot.Token()
	cfg.TelegramAPIURL = bot.URL()
	core := runCore(t, cfg)
	base := "http://" + core.Addr()

	user := testkit.BotUser{ID: 4343, FirstName: "Noor", Username: "noor"}
	bot.PushPrivateMessage(user, "https://x.com/archivist_demo/status/2078399740166950912")

	var families map[string]*dto.MetricFamily
	require.Eventually(t, func() bool {
		var err error
		if families, err = scrapeAt(base); err != nil {
			return false
		}
		n, _ := sample(families, "monitor_bot_deliveries_total", map[string]string{"result": "delivered"})
		return n == 1
	}, 60*time.Second, 50*time.Millisecond, "one delivery counted as delivered")
	n, _ := sample(families, "monitor_bot_updates_total", nil)
	require.Equal(t, float64(1), n, "the one message the user sent")
	n, _ = sample(families, "monitor_captures_total", map[string]string{"platform": "x", "state": "complete"})
	require.Equal(t, float64(1), n)
	_, ok := sample(families, "monitor_http_requests_total", map[string]string{"route": "POST /channel/v1/updates", "code": "200"})
	require.True(t, ok, "the channel API counted by its route pattern: %v", labelValues(families, "monitor_http_requests_total", "route"))
}
