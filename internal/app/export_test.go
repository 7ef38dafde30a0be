package app

import (
	"context"

	"github.com/google/uuid"
)

// RunWatchSource runs one source run inline, for benchmarks that time it
// without the queue: owner must hold the source's lease.
func (a *App) RunWatchSource(ctx context.Context, sourceID uuid.UUID, owner string) error {
	return a.runWatchSource(ctx, sourceID, owner)
}
