package web

import (
	"context"
	"html/template"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/monitorhq/monitor/internal/app"
)

// readyTimeout bounds the overview's health check, as /readyz does.
const readyTimeout = 2 * time.Second

// overviewView is the overview page's content.
type overviewView struct {
	Version   string
	GoVersion string
	Started   time.Time
	Uptime    string
	// Healthy is the database and media store check; Problem says why not.
	Healthy  bool
	Checked  bool
	Problem  string
	Queues   []queueRow
	Adapters []app.AdapterView
	Process  processStats
	Disk     diskStats
	Media    mediaStats
	OpenEvts int
	// Charts are the last day of system metric samples, drawn as SVG.
	Charts []template.HTML
}

// queueRow is one queue's jobs by state.
type queueRow struct {
	Queue  string
	States []app.QueueCount
	Total  int64
}

// processStats are the process's own numbers, read from /proc where there
// is one.
type processStats struct {
	RSS        string
	CPU        string
	Goroutines int
	Heap       string
}

// mediaStats is what the media store holds, from the database's own
// accounting of attached objects: the bucket is never listed.
type mediaStats struct {
	// Bucket is the S3 bucket ("": files in the data directory).
	Bucket  string
	Bytes   string
	Objects int64
}

// diskStats is the data directory's file system.
type diskStats struct {
	Dir        string
	Used, Free string
	Percent    int
	Known      bool
}

// adminOverview serves GET /admin: version, uptime, health, queues,
// adapters and the process.
func (s *server) adminOverview(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx := r.Context()
	v := &overviewView{Version: buildVersion(), GoVersion: runtime.Version(), Started: s.started, Uptime: roundUptime(time.Since(s.started)),
		Adapters: s.d.App.Adapters(), Process: readProcess(), Disk: readDisk(s.d.DataDir)}
	if s.d.Ready != nil {
		cctx, cancel := context.WithTimeout(ctx, readyTimeout)
		err := s.d.Ready(cctx)
		cancel()
		v.Checked, v.Healthy = true, err == nil
		if err != nil {
			v.Problem = err.Error()
		}
	}
	counts, err := s.d.App.QueueCounts(ctx)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	for _, c := range counts {
		if len(v.Queues) == 0 || v.Queues[len(v.Queues)-1].Queue != c.Queue {
			v.Queues = append(v.Queues, queueRow{Queue: c.Queue})
		}
		q := &v.Queues[len(v.Queues)-1]
		q.States = append(q.States, c)
		q.Total += c.Count
	}
	open, err := s.d.App.Events(ctx, app.EventOpen, 1000)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.OpenEvts = len(open)
	mu, err := s.d.App.MediaUsage(ctx)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Media = mediaStats{Bucket: s.d.Bucket, Bytes: formatBytes(mu.Bytes), Objects: mu.Objects}
	series, err := s.d.App.SystemMetrics(ctx, app.DayWindow, app.DayBucket)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Charts = s.overviewCharts(rq, series)
	s.adminPage(w, r, rq, http.StatusOK, "admin_overview.html", "overview", "admin.overview", adminView{Body: v})
}

// chartWidth and chartHeight are the overview charts' drawing size: narrow
// enough that their text stays readable when a phone scales them down to
// its width, while two fit side by side on a desktop.
const (
	chartWidth  = 440
	chartHeight = 220
)

// overviewCharts draws the one-day view: memory, CPU, traffic, queue
// depth and storage, each in its own chart.
func (s *server) overviewCharts(rq *request, m app.MetricSeries) []template.HTML {
	line := func(key, metric string) ChartSeries {
		return ChartSeries{Label: s.t(rq, key), Values: m.Values(metric)}
	}
	charts := []LineChart{
		{Title: s.t(rq, "admin.ch.rss"), Series: []ChartSeries{line("admin.ch.rss", app.MetricRSS)}, Format: ChartBytes, Binary: true},
		{Title: s.t(rq, "admin.ch.cpu"), Series: []ChartSeries{line("admin.ch.cpu", app.MetricCPU)}, Format: ChartPercent},
		{Title: s.t(rq, "admin.ch.traffic"), Series: []ChartSeries{line("admin.ch.download", app.MetricDownloadBPS),
			line("admin.ch.upload", app.MetricUploadBPS)}, Format: ChartRate, Binary: true},
		{Title: s.t(rq, "admin.ch.queue"), Series: []ChartSeries{line("admin.ch.queue", app.MetricQueueJobs)}, Format: ChartCount},
		{Title: s.t(rq, "admin.ch.storage"), Series: []ChartSeries{line("admin.ch.db", app.MetricDB), line("admin.ch.media", app.MetricBlob)},
			Format: ChartBytes, Binary: true},
	}
	out := make([]template.HTML, len(charts))
	for i, c := range charts {
		c.From, c.To = m.From, m.To
		c.Width, c.Height = chartWidth, chartHeight
		out[i] = c.SVG()
	}
	return out
}

// buildVersion is the module version the binary was built from.
func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

// roundUptime shows a duration to the minute (seconds under a minute).
func roundUptime(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

// readProcess reads the resident set size and CPU time of this process.
func readProcess() processStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p := processStats{Goroutines: runtime.NumGoroutine(), Heap: formatBytes(int64(ms.HeapAlloc))}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						p.RSS = formatBytes(kb << 10)
					}
				}
			}
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		p.CPU = cpu.Round(10 * time.Millisecond).String()
	}
	return p
}

// readDisk reports the file system that holds the data directory.
func readDisk(dir string) diskStats {
	if dir == "" {
		return diskStats{}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return diskStats{Dir: dir}
	}
	total := int64(st.Blocks) * int64(st.Bsize)
	free := int64(st.Bavail) * int64(st.Bsize)
	d := diskStats{Dir: dir, Used: formatBytes(total - free), Free: formatBytes(free), Known: true}
	if total > 0 {
		d.Percent = int((total - free) * 100 / total)
	}
	return d
}
