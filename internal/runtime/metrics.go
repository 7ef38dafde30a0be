package runtime

import (
	"net/http"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/monitorhq/monitor/internal/adapterapi"
)

// metricsHandler exposes the process's metrics on a registry of its own:
// the Go runtime, the process, the adapters online and the build.
func metricsHandler(reg *adapterapi.Registry) http.Handler {
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
	r := prometheus.NewRegistry()
	r.MustRegister(
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
	return promhttp.HandlerFor(r, promhttp.HandlerOpts{})
}
