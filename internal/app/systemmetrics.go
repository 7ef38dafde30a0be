package app

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/monitorhq/monitor/internal/store"
)

// System metric samples (seed 003, system_metric_samples): every process
// that serves takes one sample every MetricSampleInterval and keeps
// MetricRetention of them; the operator console charts them.
//
// The sampler is a goroutine with a ticker in each serving process
// (runtime), not a periodic River job: RSS, CPU, goroutines and transfer
// rates belong to the process that measures them, and a River job runs in
// whichever replica fetches it. A tick wakes the process once per
// interval and costs one write transaction (the insert and the purge), no
// queue rows.
const (
	// MetricSampleInterval is how often a process samples itself.
	MetricSampleInterval = 30 * time.Second
	// MetricRetention is how long samples are kept.
	MetricRetention = 48 * time.Hour
)

// Metric names, for MetricSeries.Values.
const (
	MetricRSS         = "rss_bytes"
	MetricCPU         = "cpu_percent"
	MetricGoroutines  = "goroutines"
	MetricDB          = "db_bytes"
	MetricBlob        = "blob_bytes"
	MetricQueueJobs   = "queue_jobs"
	MetricDownloadBPS = "download_bytes_per_second"
	MetricUploadBPS   = "upload_bytes_per_second"
)

// MetricNames lists every metric a sample holds, in the order the console
// shows them.
func MetricNames() []string {
	return []string{MetricRSS, MetricCPU, MetricGoroutines, MetricDB, MetricBlob, MetricQueueJobs, MetricDownloadBPS, MetricUploadBPS}
}

// Sampler takes one process's samples. Rates and CPU are measured between
// two samples, so the first sample of a process has none.
type Sampler struct {
	app      *App
	instance string

	mu   sync.Mutex
	prev *samplePoint
	// sizedAt is when the database and media sizes were last measured;
	// between measurements samples repeat them (sizes change slowly, and
	// summing every object's size is the dearest probe).
	sizedAt            time.Time
	dbBytes, blobBytes *int64
}

// sizeEvery is how often a sampler measures the database and media sizes.
const sizeEvery = 10 * time.Minute

// samplePoint is what a rate is computed from.
type samplePoint struct {
	at       time.Time
	cpu      time.Duration
	cpuOK    bool
	down, up int64
}

// NewSampler returns the sampler of the process named instance.
func (a *App) NewSampler(instance string) *Sampler {
	return &Sampler{app: a, instance: instance}
}

// Sample measures the process, the database, the media store and the
// queue now and stores the sample, deleting samples older than
// MetricRetention. The sample's time is the business clock truncated to
// MetricSampleInterval.
func (s *Sampler) Sample(ctx context.Context) error {
	a := s.app
	now := a.now().UTC()
	m := store.MetricSample{SampledAt: now.Truncate(MetricSampleInterval), Instance: s.instance}
	if rss, ok := processRSS(); ok {
		m.RSSBytes = &rss
	}
	g := int64(runtime.NumGoroutine())
	m.Goroutines = &g
	m.DBBytes, m.BlobBytes = s.sizes(ctx, now)
	if n, err := a.store.QueueJobsWaiting(ctx); err == nil {
		m.QueueJobs = &n
	} else {
		a.log.WarnContext(ctx, "metric sample: queue jobs", "err", err)
	}
	cur := samplePoint{at: now}
	cur.down, cur.up = a.traffic.totals()
	cur.cpu, cur.cpuOK = processCPU()

	s.mu.Lock()
	prev := s.prev
	s.prev = &cur
	s.mu.Unlock()
	if prev != nil {
		if secs := cur.at.Sub(prev.at).Seconds(); secs > 0 {
			down, up := float64(cur.down-prev.down)/secs, float64(cur.up-prev.up)/secs
			m.DownloadBPS, m.UploadBPS = &down, &up
			if cur.cpuOK && prev.cpuOK {
				pct := 100 * (cur.cpu - prev.cpu).Seconds() / secs / float64(runtime.NumCPU())
				pct = min(max(pct, 0), 100)
				m.CPUPercent = &pct
			}
		}
	}
	return a.store.MetricSampleInsert(ctx, m, now.Add(-MetricRetention))
}

// sizes are the database's and the media's bytes, measured at most every
// sizeEvery.
func (s *Sampler) sizes(ctx context.Context, now time.Time) (db, media *int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sizedAt.IsZero() && now.Sub(s.sizedAt) < sizeEvery && now.After(s.sizedAt) {
		return s.dbBytes, s.blobBytes
	}
	a := s.app
	s.sizedAt, s.dbBytes, s.blobBytes = now, nil, nil
	if n, err := a.store.DatabaseBytes(ctx); err == nil {
		s.dbBytes = &n
	} else {
		a.log.WarnContext(ctx, "metric sample: database size", "err", err)
	}
	if _, n, err := a.store.BlobUsage(ctx); err == nil {
		s.blobBytes = &n
	} else {
		a.log.WarnContext(ctx, "metric sample: media usage", "err", err)
	}
	return s.dbBytes, s.blobBytes
}

// MetricSeries is the samples of a time window in equal buckets, for
// charts: each point is the mean of the bucket's sampling ticks, where a
// tick adds up the processes (RSS, CPU, goroutines, rates) or takes the
// largest figure of those shared by all (database, media, queue).
type MetricSeries struct {
	From   time.Time     `json:"from"`
	To     time.Time     `json:"to"`
	Bucket time.Duration `json:"bucket"`
	// Points has one entry per bucket, oldest first; a bucket without
	// samples has no values (nil).
	Points []MetricPoint `json:"points"`
}

// MetricPoint is one bucket of a MetricSeries. Nil: no sample in the
// bucket measured it.
type MetricPoint struct {
	// At is the bucket's start.
	At          time.Time `json:"at"`
	RSSBytes    *float64  `json:"rss_bytes"`
	CPUPercent  *float64  `json:"cpu_percent"`
	Goroutines  *float64  `json:"goroutines"`
	DBBytes     *float64  `json:"db_bytes"`
	BlobBytes   *float64  `json:"blob_bytes"`
	QueueJobs   *float64  `json:"queue_jobs"`
	DownloadBPS *float64  `json:"download_bytes_per_second"`
	UploadBPS   *float64  `json:"upload_bytes_per_second"`
}

// field returns the point's value of the named metric.
func (p *MetricPoint) field(name string) **float64 {
	switch name {
	case MetricRSS:
		return &p.RSSBytes
	case MetricCPU:
		return &p.CPUPercent
	case MetricGoroutines:
		return &p.Goroutines
	case MetricDB:
		return &p.DBBytes
	case MetricBlob:
		return &p.BlobBytes
	case MetricQueueJobs:
		return &p.QueueJobs
	case MetricDownloadBPS:
		return &p.DownloadBPS
	case MetricUploadBPS:
		return &p.UploadBPS
	}
	return nil
}

// Values is one metric over the buckets, oldest first (nil: no data in
// that bucket). An unknown name gives nil.
func (s MetricSeries) Values(name string) []*float64 {
	if (&MetricPoint{}).field(name) == nil {
		return nil
	}
	out := make([]*float64, len(s.Points))
	for i := range s.Points {
		out[i] = *s.Points[i].field(name)
	}
	return out
}

// Latest is the newest value of a metric in the series (false: none).
func (s MetricSeries) Latest(name string) (float64, bool) {
	vs := s.Values(name)
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i] != nil {
			return *vs[i], true
		}
	}
	return 0, false
}

// Limits of a SystemMetrics query.
const (
	// DayWindow and DayBucket are the console's one-day view.
	DayWindow = 24 * time.Hour
	DayBucket = 2 * time.Minute
	// maxMetricPoints bounds the buckets of one query.
	maxMetricPoints = 2000
)

// SystemMetrics returns the samples of the window that ends now, in
// buckets of the given size (the one-day view: DayWindow, DayBucket). The
// window must be within MetricRetention and the buckets at least one
// sampling interval, at most 2,000 of them. Buckets are aligned to the
// bucket size, so a page reloaded shows the same buckets.
func (a *App) SystemMetrics(ctx context.Context, window, bucket time.Duration) (MetricSeries, error) {
	if window <= 0 || window > MetricRetention {
		return MetricSeries{}, errorf(ErrInvalid, "the metrics window must be more than 0 and at most %s, not %s", MetricRetention, window)
	}
	if bucket < MetricSampleInterval || bucket > window {
		return MetricSeries{}, errorf(ErrInvalid, "a metrics bucket must be from %s to the window (%s), not %s", MetricSampleInterval, window, bucket)
	}
	n := int((window + bucket - 1) / bucket)
	if n > maxMetricPoints {
		return MetricSeries{}, errorf(ErrInvalid, "%s in buckets of %s is %d points; at most %d — choose larger buckets", window, bucket, n, maxMetricPoints)
	}
	to := a.now().UTC().Truncate(bucket).Add(bucket) // the current bucket, whole
	from := to.Add(-time.Duration(n) * bucket)
	samples, err := a.store.MetricSampleList(ctx, from, to)
	if err != nil {
		return MetricSeries{}, err
	}
	return bucketSamples(samples, from, bucket, n), nil
}

// bucketSamples folds samples (oldest first) into n buckets from from.
func bucketSamples(samples []store.MetricSample, from time.Time, bucket time.Duration, n int) MetricSeries {
	out := MetricSeries{From: from, To: from.Add(time.Duration(n) * bucket), Bucket: bucket, Points: make([]MetricPoint, n)}
	for i := range out.Points {
		out.Points[i].At = from.Add(time.Duration(i) * bucket)
	}
	names := MetricNames()
	// Which metrics (in MetricNames' order) add up over processes: RSS,
	// CPU, goroutines and the rates; the rest are shared figures.
	summed := [numMetrics]bool{true, true, true, false, false, false, true, true}
	type acc struct {
		sum   [numMetrics]float64
		count [numMetrics]int
	}
	accs := make([]acc, n)
	for i := 0; i < len(samples); {
		at := samples[i].SampledAt
		var tick [numMetrics]float64
		var has [numMetrics]bool
		for ; i < len(samples) && samples[i].SampledAt.Equal(at); i++ {
			for k, v := range sampleValues(&samples[i]) {
				switch {
				case v == nil:
				case !has[k]:
					tick[k], has[k] = *v, true
				case summed[k]:
					tick[k] += *v
				case *v > tick[k]:
					tick[k] = *v
				}
			}
		}
		idx := int(at.Sub(from) / bucket)
		if idx < 0 || idx >= n {
			continue
		}
		for k := range tick {
			if has[k] {
				accs[idx].sum[k] += tick[k]
				accs[idx].count[k]++
			}
		}
	}
	for i := range accs {
		for k, name := range names {
			if c := accs[i].count[k]; c > 0 {
				*out.Points[i].field(name) = ptrF(accs[i].sum[k] / float64(c))
			}
		}
	}
	return out
}

// numMetrics is how many metrics a sample holds (MetricNames).
const numMetrics = 8

// sampleValues is a sample's metrics in MetricNames' order.
func sampleValues(m *store.MetricSample) [numMetrics]*float64 {
	return [numMetrics]*float64{intF(m.RSSBytes), m.CPUPercent, intF(m.Goroutines), intF(m.DBBytes), intF(m.BlobBytes), intF(m.QueueJobs),
		m.DownloadBPS, m.UploadBPS}
}

func intF(v *int64) *float64 {
	if v == nil {
		return nil
	}
	return ptrF(float64(*v))
}

func ptrF(v float64) *float64 { return &v }

// MediaUsage is what the media store holds for the archive, from Monitor's
// own accounting of attached objects (never by listing a bucket).
type MediaUsage struct {
	Objects int64 `json:"objects"`
	Bytes   int64 `json:"bytes"`
}

// MediaUsage counts the attached media objects of every tenant and their
// bytes, for the console's overview.
func (a *App) MediaUsage(ctx context.Context) (MediaUsage, error) {
	objects, bytes, err := a.store.BlobUsage(ctx)
	return MediaUsage{Objects: objects, Bytes: bytes}, err
}
