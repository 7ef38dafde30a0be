package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// TestInterruptedCapturesNeverStayStuck: a capture whose work was lost (the
// queue stopped before working it, as after a crash that lost the job) ends
// failed with code INTERRUPTED once it has made no progress for hours, and
// its submitter sees why; a capture that is moving is left alone.
func TestInterruptedCapturesNeverStayStuck(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		stopCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		require.NoError(t, p.q.Stop(stopCtx))
		cancel()
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: photosPost})
		require.NoError(t, err)

		p.clock.Advance(time.Hour)
		n, err := p.app.InterruptStale(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "an hour is not stuck")

		p.clock.Advance(6 * time.Hour)
		n, err = p.app.InterruptStale(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		c, err := p.app.Capture(ctx, alice, res.CaptureID)
		require.NoError(t, err)
		require.Equal(t, app.StateFailed, c.State)
		require.Equal(t, app.CodeInterrupted, c.ErrorCode)
		require.Contains(t, c.Error, "interrupted")
		u, err := p.app.Usage(ctx, alice)
		require.NoError(t, err)
		require.Zero(t, u.ReservedBytes)

		// The lost job, if it ever runs, finds nothing to do; a new submit
		// captures afresh.
		p.start(t)
		res2, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: photosPost})
		require.NoError(t, err)
		require.NotEqual(t, res.CaptureID, res2.CaptureID)
		c = p.wait(t, alice, res2.CaptureID)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		c, err = p.app.Capture(ctx, alice, res.CaptureID)
		require.NoError(t, err)
		require.Equal(t, app.StateFailed, c.State, "an interrupted capture stays ended")
	})
}
