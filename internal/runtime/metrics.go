package runtime

import (
	"context"
	"log/slog"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/riverqueue/river/rivertype"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/metrics"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// registerProcessMetrics adds what the process itself reports beside the
// counters of internal/metrics: the Go runtime, the process, the adapters
// online, the build, and the queue's jobs counted at scrape.
func registerProcessMetrics(m *metrics.Metrics, reg *adapterapi.Registry, st *store.Store, log *slog.Logger) error {
	version := "dev"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		version = info.Main.Version
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "monitor_build_info",
		Help:        "Always 1; the version label says which build runs.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	build.Set(1)
	err := m.Register(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "monitor_adapters_online",
			Help: "Configured source adapters whose last health check succeeded.",
		}, func() float64 {
			n := 0
			for _, a := range reg.Adapters() {
				if a.Online() {
					n++
				}
			}
			return float64(n)
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "monitor_adapters_pending",
			Help: "Configured source adapters that have not answered yet.",
		}, func() float64 { return float64(len(reg.Pending())) }),
		build,
	)
	if err != nil {
		return err
	}
	return m.CountQueueJobs(func(ctx context.Context) ([]metrics.JobCount, error) {
		rows, err := st.QueueJobCounts(ctx)
		out := make([]metrics.JobCount, 0, len(rows))
		for _, r := range rows {
			out = append(out, metrics.JobCount{Queue: r.Queue, State: r.State, Jobs: r.Jobs})
		}
		return out, err
	}, queueJobZeros(), log)
}

// queueJobZeros are the (queue, state) pairs always reported: the
// pipeline's queues in the states a job waits or runs in.
func queueJobZeros() []metrics.JobCount {
	var out []metrics.JobCount
	for _, q := range []string{queue.Capture, queue.Download, queue.Control} {
		for _, s := range []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled} {
			out = append(out, metrics.JobCount{Queue: q, State: string(s)})
		}
	}
	return out
}
