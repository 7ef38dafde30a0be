// Package metrics holds the Prometheus series Monitor's core exposes on
// /metrics: one Metrics value per process, built by runtime and handed
// down through the Deps of the parts that count (no global registry).
//
// Every method is safe on a nil *Metrics and then does nothing, so tests
// and one-shot commands that do not care need not build one.
//
// The series:
//
//	monitor_captures_total{platform,state}          captures ended (complete, partial, failed)
//	monitor_capture_duration_seconds{platform,state} histogram: capture created (first submit) → ended
//	monitor_download_bytes_total                    media bytes read from upstream hosts
//	monitor_queue_jobs{queue,state}                 River jobs not completed, read at scrape
//	monitor_http_requests_total{route,code}         HTTP answers by route pattern and status
//	monitor_http_request_duration_seconds{route}    histogram of the same, by route pattern
//	monitor_bot_updates_total                       channel updates core stored (new ones only)
//	monitor_bot_deliveries_total{result}            delivery work ended: delivered, failed, deferred
//	monitor_blob_operations_total{op,result}        media store calls: put, get, stat, delete, list × ok, not_found, error
//	monitor_watch_runs_total{result}                watch runs ended
//
// Route labels are ServeMux patterns ("GET /v1/collections/{id}"), never
// raw paths, so ids do not grow the label set; a request no route matches
// is "unmatched".
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one process's series and the registry that exposes them.
type Metrics struct {
	reg             *prometheus.Registry
	captures        *prometheus.CounterVec
	captureDuration *prometheus.HistogramVec
	downloadBytes   prometheus.Counter
	httpRequests    *prometheus.CounterVec
	httpDuration    *prometheus.HistogramVec
	botUpdates      prometheus.Counter
	botDeliveries   *prometheus.CounterVec
	blobOps         *prometheus.CounterVec
	watchRuns       *prometheus.CounterVec
}

// Label values used by more than one caller.
const (
	// ResultOK and ResultError are the plain outcomes of an operation.
	ResultOK    = "ok"
	ResultError = "error"
	// ResultNotFound is a blob operation on a key that does not exist.
	ResultNotFound = "not_found"
	// Delivery outcomes of monitor_bot_deliveries_total.
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
	DeliveryDeferred  = "deferred"
	// RouteUnmatched labels requests that no route pattern matched.
	RouteUnmatched = "unmatched"
)

// New builds the series on a registry of their own, with the Go runtime
// and process collectors beside them.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		captures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "monitor_captures_total",
			Help: "Captures that ended, by platform (the adapter) and final state.",
		}, []string{"platform", "state"}),
		captureDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "monitor_capture_duration_seconds",
			Help:    "Time from a capture's first submit to its end, by platform and final state.",
			Buckets: []float64{0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600},
		}, []string{"platform", "state"}),
		downloadBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "monitor_download_bytes_total",
			Help: "Media bytes read from upstream hosts, including downloads that failed part way.",
		}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "monitor_http_requests_total",
			Help: "HTTP answers by route pattern (never the raw path) and status code.",
		}, []string{"route", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "monitor_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern; streamed media counts until its last byte.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
		botUpdates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "monitor_bot_updates_total",
			Help: "Updates channel processes posted that core stored (a repeat of a stored update is not counted).",
		}),
		botDeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "monitor_bot_deliveries_total",
			Help: "Deliveries of results to chats that ended (delivered, failed) or were put back for later (deferred).",
		}, []string{"result"}),
		blobOps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "monitor_blob_operations_total",
			Help: "Media store calls by operation and result.",
		}, []string{"op", "result"}),
		watchRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "monitor_watch_runs_total",
			Help: "Watch runs that ended, by result.",
		}, []string{"result"}),
	}
	m.reg.MustRegister(m.captures, m.captureDuration, m.downloadBytes, m.httpRequests, m.httpDuration,
		m.botUpdates, m.botDeliveries, m.blobOps, m.watchRuns)
	return m
}

// Register adds more collectors to the registry, such as the runtime's
// gauges of adapters and the build.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	if m == nil {
		return nil
	}
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Handler serves the Prometheus exposition of the registry. A collector
// that fails leaves its series out and the rest are served.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// CaptureEnded counts a capture that ended in state after took.
func (m *Metrics) CaptureEnded(platform, state string, took time.Duration) {
	if m == nil {
		return
	}
	m.captures.WithLabelValues(platform, state).Inc()
	m.captureDuration.WithLabelValues(platform, state).Observe(max(took.Seconds(), 0))
}

// DownloadedBytes counts media bytes read from an upstream host.
func (m *Metrics) DownloadedBytes(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.downloadBytes.Add(float64(n))
}

// BotUpdates counts n updates stored for a channel.
func (m *Metrics) BotUpdates(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.botUpdates.Add(float64(n))
}

// BotDelivery counts a delivery that ended or was deferred
// (DeliveryDelivered, DeliveryFailed, DeliveryDeferred).
func (m *Metrics) BotDelivery(result string) {
	if m == nil {
		return
	}
	m.botDeliveries.WithLabelValues(result).Inc()
}

// BlobOperation counts a media store call (op: put, get, stat, delete,
// list; result: ResultOK, ResultNotFound, ResultError).
func (m *Metrics) BlobOperation(op, result string) {
	if m == nil {
		return
	}
	m.blobOps.WithLabelValues(op, result).Inc()
}

// WatchRun counts a watch run that ended; result is a short fixed word
// such as "ok", "failed" or "skipped" (never an id or a message).
func (m *Metrics) WatchRun(result string) {
	if m == nil {
		return
	}
	m.watchRuns.WithLabelValues(result).Inc()
}

// JobCount is how many jobs of a queue are in a state.
type JobCount struct {
	Queue string
	State string
	Jobs  int64
}

// queueJobsTimeout bounds the count a scrape makes, so a slow database
// leaves the series out instead of holding the scrape.
const queueJobsTimeout = 3 * time.Second

// CountQueueJobs registers monitor_queue_jobs{queue,state}, read by count
// at every scrape. Every pair in zero is reported, as 0 when count does not
// return it, so a queue that empties shows 0 rather than vanishing.
func (m *Metrics) CountQueueJobs(count func(ctx context.Context) ([]JobCount, error), zero []JobCount, log *slog.Logger) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(&queueJobs{count: count, zero: zero, log: log, desc: prometheus.NewDesc("monitor_queue_jobs",
		"Jobs of each queue in each state, completed ones aside (River keeps those a while; their rate is in the other counters).",
		[]string{"queue", "state"}, nil)})
}

// queueJobs is the collector of monitor_queue_jobs.
type queueJobs struct {
	count func(ctx context.Context) ([]JobCount, error)
	zero  []JobCount
	log   *slog.Logger
	desc  *prometheus.Desc
}

func (q *queueJobs) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q *queueJobs) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), queueJobsTimeout)
	defer cancel()
	counts, err := q.count(ctx)
	if err != nil {
		if q.log != nil {
			q.log.Warn("metrics: cannot count queue jobs", slog.Any("err", err))
		}
		ch <- prometheus.NewInvalidMetric(q.desc, err)
		return
	}
	type key struct{ queue, state string }
	seen := map[key]bool{}
	for _, c := range counts {
		seen[key{c.Queue, c.State}] = true
		ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(c.Jobs), c.Queue, c.State)
	}
	for _, z := range q.zero {
		if !seen[key{z.Queue, z.State}] {
			seen[key{z.Queue, z.State}] = true
			ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, 0, z.Queue, z.State)
		}
	}
}

// Instrument counts every answer of next by the pattern of the route that
// served it (http.Request.Pattern, which ServeMux sets on the request it is
// given, so next must hand this request to its mux, not a copy).
func (m *Metrics) Instrument(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = RouteUnmatched
		}
		code := sw.status
		if code == 0 {
			code = http.StatusOK
		}
		m.httpRequests.WithLabelValues(route, strconv.Itoa(code)).Inc()
		m.httpDuration.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status of an answer. Unwrap lets
// http.ResponseController reach the connection (deadlines, flushes) as
// the media and streaming handlers need.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 || w.status < 200 { // 1xx answers come before the final one
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes a flush on, for handlers that assert http.Flusher.
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap is the underlying writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
