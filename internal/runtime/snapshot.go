package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/monitorhq/monitor/internal/backup"
	"github.com/monitorhq/monitor/internal/config"
)

// applySnapshot swaps in a snapshot that `monitor import snapshot` staged,
// before anything opens the database; the previous files stay in the data
// directory as rollback-<time>. Only the embedded default with file media
// has snapshots.
func applySnapshot(cfg *config.Config) error {
	if !Embedded(cfg) || cfg.Blob.Kind != "file" {
		return nil
	}
	if _, err := backup.ApplyStaged(cfg.DataDir, cfg.Database.Path, cfg.Blob.Dir); err != nil {
		return fmt.Errorf("%w; the snapshot waits in %s and the next start tries again", err, backup.RestoreDir)
	}
	return nil
}

// StageSnapshot verifies a snapshot zip and stages it in the data
// directory, where the next start swaps it in.
func StageSnapshot(ctx context.Context, cfg *config.Config, zipPath string) (backup.Staged, error) {
	if !Embedded(cfg) || cfg.Blob.Kind != "file" {
		return backup.Staged{}, fmt.Errorf("snapshots are for the embedded default (SQLite and media files); this instance uses %s and %s media: use their own backup tools", cfg.Database.Driver, cfg.Blob.Kind)
	}
	return backup.Stage(ctx, zipPath, cfg.DataDir)
}

// ExportSnapshot writes a snapshot of this instance (its database and every
// media file it records) to the zip file out. generator names the binary
// that made it.
func ExportSnapshot(ctx context.Context, cfg *config.Config, log *slog.Logger, out, generator string) (backup.Result, error) {
	if !Embedded(cfg) || cfg.Blob.Kind != "file" {
		return backup.Result{}, errors.New("snapshots are for the embedded default (SQLite and media files); back up PostgreSQL with pg_dump and the bucket with the S3 server's tools")
	}
	st, err := OpenStore(ctx, cfg, log)
	if err != nil {
		return backup.Result{}, err
	}
	defer st.Close()
	return backup.Export(ctx, st, cfg.Blob.Dir, out, generator)
}
