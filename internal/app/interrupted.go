package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// CodeInterrupted is the error code of captures that could not resume.
const CodeInterrupted = "INTERRUPTED"

// staleAfter is how long a capture may go without any progress on it or
// its assets before it counts as interrupted. Downloads take at most 30
// minutes an attempt, so this leaves room for every retry.
const staleAfter = 6 * time.Hour

// InterruptStale ends the captures that stopped moving — their jobs were
// lost or gave up — as failed with code INTERRUPTED, so nothing stays in
// flight for ever: unfinished assets fail, reservations go back, and the
// submitters are told. It reports how many captures it ended.
func (a *App) InterruptStale(ctx context.Context) (int, error) {
	cutoff := a.now().Add(-staleAfter)
	stale, err := a.store.StaleCaptures(ctx, cutoff, lifecycleBatch)
	if err != nil {
		return 0, err
	}
	ended := 0
	for _, sc := range stale {
		ok, err := a.interrupt(store.WithTenant(ctx, sc.TenantID), sc.ID, "the capture stopped making progress (its work was lost, for example in a crash) and could not resume")
		if err != nil {
			return ended, err
		}
		if ok {
			ended++
		}
	}
	return ended, nil
}

// interrupt ends one capture in flight as failed with CodeInterrupted and
// reason, unless it finished meanwhile.
func (a *App) interrupt(ctx context.Context, captureID uuid.UUID, reason string) (bool, error) {
	done := false
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CaptureLock(ctx, captureID); err != nil {
			return err
		}
		c, err := tx.CaptureGet(ctx, captureID)
		if err != nil {
			return err
		}
		if c.State != store.CaptureQueued && c.State != store.CaptureDownloading {
			return nil
		}
		if err := tx.AssetsInterrupt(ctx, c.ID, "interrupted: "+reason); err != nil {
			return err
		}
		done = true
		return a.finishCaptureCode(ctx, tx, c, store.CaptureFailed, nil, "interrupted: "+reason, CodeInterrupted)
	})
	if done {
		a.log.WarnContext(ctx, "capture interrupted", slog.String("capture", captureID.String()), slog.String("reason", reason))
	}
	return done, err
}
