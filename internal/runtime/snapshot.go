package runtime

import (
	"context"
	"fmt"

	"github.com/monitorhq/monitor/internal/capsule/snapshot"
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
	if _, err := snapshot.ApplyStaged(cfg.DataDir, cfg.Database.Path, cfg.Blob.Dir); err != nil {
		return fmt.Errorf("%w; the snapshot waits in %s and the next start tries again", err, snapshot.RestoreDir)
	}
	return nil
}

// StageSnapshot verifies a snapshot zip and stages it in the data
// directory, where the next start swaps it in.
func StageSnapshot(ctx context.Context, cfg *config.Config, zipPath string) (snapshot.Staged, error) {
	if !Embedded(cfg) || cfg.Blob.Kind != "file" {
		return snapshot.Staged{}, fmt.Errorf("snapshots are for the embedded default (SQLite and media files); this instance uses %s and %s media: use their own backup tools", cfg.Database.Driver, cfg.Blob.Kind)
	}
	return snapshot.Stage(ctx, zipPath, cfg.DataDir)
}
