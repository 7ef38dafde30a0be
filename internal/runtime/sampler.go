package runtime

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
)

// sampleTimeout bounds one metric sample (its queries and its write).
const sampleTimeout = 10 * time.Second

// sampleMetrics takes this process's system metric samples every
// app.MetricSampleInterval until ctx ends: a goroutine with a ticker, not a
// River job, because what it measures (RSS, CPU, goroutines, transfer
// rates) belongs to this process (see app/systemmetrics.go). Ticks are
// aligned to the interval, so every replica samples at the same moments.
func (c *Core) sampleMetrics(ctx context.Context) {
	s := c.app.NewSampler(c.instance)
	sample := func() {
		sctx, cancel := context.WithTimeout(ctx, sampleTimeout)
		defer cancel()
		if err := s.Sample(sctx); err != nil && ctx.Err() == nil {
			c.log.WarnContext(ctx, "cannot record a system metric sample", slog.Any("err", err))
		}
	}
	sample()
	// Wait for the next aligned tick, then tick every interval.
	wait := time.Until(time.Now().Truncate(app.MetricSampleInterval).Add(app.MetricSampleInterval))
	first := time.NewTimer(wait)
	defer first.Stop()
	select {
	case <-ctx.Done():
		return
	case <-first.C:
	}
	t := time.NewTicker(app.MetricSampleInterval)
	defer t.Stop()
	for {
		sample()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// backupConfig is where snapshots go: the data directory's backups/ on the
// embedded default with media files; nowhere otherwise.
func backupConfig(cfg *config.Config) app.BackupConfig {
	if !Embedded(cfg) || cfg.Blob.Kind != "file" {
		return app.BackupConfig{}
	}
	version := "dev"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		version = info.Main.Version
	}
	return app.BackupConfig{Dir: filepath.Join(cfg.DataDir, "backups"), ObjectsRoot: cfg.Blob.Dir, Generator: "monitor " + version,
		DataDir: cfg.DataDir}
}
