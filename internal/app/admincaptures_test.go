package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

func TestAdminCaptureListRetry(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		bob := p.tenant(t, "bob", nil)
		p.fx.FailNext(1, 404)
		failed, final := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateFailed, final.State)
		done, _ := p.capture(t, bob, videoPost)

		all, err := p.app.AdminCaptures(ctx, app.AdminCaptureFilter{Limit: 10})
		require.NoError(t, err)
		require.Len(t, all, 2)
		require.Equal(t, done.CaptureID, all[0].ID, "newest first, across tenants")
		require.Equal(t, "bob", all[0].Tenant)
		require.Equal(t, "x", all[0].Platform)

		only, err := p.app.AdminCaptures(ctx, app.AdminCaptureFilter{State: app.StateFailed, Limit: 10})
		require.NoError(t, err)
		require.Len(t, only, 1)
		require.Equal(t, failed.CaptureID, only[0].ID)
		require.Equal(t, "alice", only[0].Tenant)
		require.NotEmpty(t, only[0].Error)
		byTenant, err := p.app.AdminCaptures(ctx, app.AdminCaptureFilter{Tenant: "bob", Limit: 10})
		require.NoError(t, err)
		require.Len(t, byTenant, 1)
		_, err = p.app.AdminCaptures(ctx, app.AdminCaptureFilter{State: "lost", Limit: 10})
		require.ErrorIs(t, err, app.ErrInvalid)

		d, err := p.app.AdminCapture(ctx, bob, done.CaptureID)
		require.NoError(t, err)
		require.Equal(t, "complete", d.State)
		require.NotEmpty(t, d.Assets)
		require.NotEmpty(t, d.RawResponses)
		require.Len(t, d.Submissions, 1)
		require.False(t, d.Retryable)
		_, err = p.app.AdminCapture(ctx, alice, done.CaptureID)
		require.ErrorIs(t, err, app.ErrNotFound, "another tenant's capture")

		_, err = p.app.RetryCapture(ctx, "admin", app.CaptureRef{TenantID: bob, CaptureID: done.CaptureID})
		require.ErrorIs(t, err, app.ErrInvalid, "a complete capture is not retried")
		next, err := p.app.RetryCapture(ctx, "admin", app.CaptureRef{TenantID: alice, CaptureID: failed.CaptureID})
		require.NoError(t, err)
		require.NotEqual(t, failed.CaptureID, next)
		ended := p.core.Ended(next)
		if d, err := p.app.AdminCapture(ctx, alice, next); err != nil || !testcore.Ended(d.State) {
			select {
			case <-ended:
			case <-time.After(testcore.WaitTimeout):
				t.Fatal("the retried capture did not end")
			}
		}
		d, err = p.app.AdminCapture(ctx, alice, next)
		require.NoError(t, err)
		require.Equal(t, app.StateComplete, d.State, d.Error)

		entries, err := p.app.Audit(ctx, 10)
		require.NoError(t, err)
		require.Equal(t, "capture.retry", entries[0].Action)
		require.Equal(t, "admin", entries[0].Actor)

		var cut bool
		var rows []app.AdminCaptureView
		cut, err = p.app.ExportCaptures(ctx, app.AdminCaptureFilter{}, 2, func(v app.AdminCaptureView) error { rows = append(rows, v); return nil })
		require.NoError(t, err)
		require.True(t, cut, "three captures, two rows")
		require.Len(t, rows, 2)
		rows = nil
		cut, err = p.app.ExportCaptures(ctx, app.AdminCaptureFilter{}, 10, func(v app.AdminCaptureView) error { rows = append(rows, v); return nil })
		require.NoError(t, err)
		require.False(t, cut)
		require.Len(t, rows, 3)
	})
}

func TestAdminCaptureCancel(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{Limits: testLimits(), NoStart: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		res, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: photosPost})
		require.NoError(t, err)
		ref := app.CaptureRef{TenantID: alice, CaptureID: res.CaptureID}

		got, err := c.App.CancelCaptures(ctx, "admin", []app.CaptureRef{ref, {TenantID: alice, CaptureID: uuid.Must(uuid.NewV7())}})
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{res.CaptureID}, got.Done)
		require.Len(t, got.Failed, 1, "an unknown capture is reported, not fatal")

		v, err := c.App.Capture(ctx, alice, res.CaptureID)
		require.NoError(t, err)
		require.Equal(t, app.StateFailed, v.State)
		require.Contains(t, v.Error, "cancelled")
		require.ErrorIs(t, c.App.CancelCapture(ctx, "admin", ref), app.ErrInvalid, "cancelled already")

		c.StartQueue(t)
		_, err = c.App.RetryCaptures(ctx, "admin", make([]app.CaptureRef, app.MaxCaptureBatch+1))
		require.ErrorIs(t, err, app.ErrInvalid)
		entries, err := c.App.Audit(ctx, 10)
		require.NoError(t, err)
		require.Equal(t, "capture.cancel", entries[0].Action)
	})
}
