package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

func TestErrorLogRecord(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		capture, tenant := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
		long := strings.Repeat("é", 299) + "xyz" + strings.Repeat("z", 100)
		a.LogError(ctx, app.ErrorRecord{Source: app.SourceDownload, Stage: "download", Message: "media download failed", Detail: long,
			Context:   map[string]string{"asset_id": "a1", "url": "https://pbs.twimg.com/media/x.jpg", "text": strings.Repeat("t", 101)},
			CaptureID: capture, TenantID: tenant})
		a.LogError(ctx, app.ErrorRecord{Source: app.SourceCapture, Code: "not_found", Severity: "fatal",
			Detail: `Get "https://video.twimg.com/a.mp4?tag=12&sig=secret": EOF`})

		logs, err := a.ErrorLogs(ctx, "", 10)
		require.NoError(t, err)
		require.Len(t, logs, 2)
		c := logs[0]
		require.Equal(t, app.SourceCapture, c.Source)
		require.Equal(t, "error", c.Severity, "unknown severities count as errors")
		require.Equal(t, "capture failed", c.Message)
		require.Equal(t, `Get "<url>": EOF`, c.Detail, "media URLs never reach the log")
		require.Nil(t, c.CaptureID)

		d := logs[1]
		require.Equal(t, 301, utf8.RuneCountInString(d.Detail), "300 characters and an ellipsis")
		require.Equal(t, strings.Repeat("é", 299)+"x…", d.Detail)
		require.JSONEq(t, `{"asset_id": "a1"}`, string(d.Context), "ids only: no URLs, no text")
		require.Equal(t, capture, *d.CaptureID)
		require.Equal(t, tenant, *d.TenantID)

		downloads, err := a.ErrorLogs(ctx, app.SourceDownload, 10)
		require.NoError(t, err)
		require.Len(t, downloads, 1)
		_, err = a.ErrorLogs(ctx, "", 0)
		require.ErrorIs(t, err, app.ErrInvalid)

		b, err := json.Marshal(d)
		require.NoError(t, err)
		require.Contains(t, string(b), `"context":{"asset_id":"a1"}`)
	})
}

func TestErrorLogRetention(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		clk := &testkit.Clock{}
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t), Now: clk.Now})
		_, err := a.SetSetting(ctx, app.ActorCLI, "error_log_retention_days", "10")
		require.NoError(t, err)

		a.LogError(ctx, app.ErrorRecord{Source: app.SourceCapture, Message: "old"})
		clk.Advance(5 * 24 * time.Hour)
		a.LogError(ctx, app.ErrorRecord{Source: app.SourceCapture, Message: "newer"})

		// Day 9.9 after the first: nothing is old enough yet.
		clk.Advance(4*24*time.Hour + 21*time.Hour)
		n, err := a.PurgeErrorLogs(ctx)
		require.NoError(t, err)
		require.Zero(t, n)

		// Past day 10: the first goes, the newer stays.
		clk.Advance(4 * time.Hour)
		n, err = a.PurgeErrorLogs(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
		logs, err := a.ErrorLogs(ctx, "", 10)
		require.NoError(t, err)
		require.Len(t, logs, 1)
		require.Equal(t, "newer", logs[0].Message)

		// Five days later the newer one is past it too.
		clk.Advance(5 * 24 * time.Hour)
		n, err = a.PurgeErrorLogs(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
	})
}

// TestErrorLogPurgeRunsOnStart runs the purge the way serve does: as the
// periodic job of queue.Schedule, which runs once when the queue starts.
func TestErrorLogPurgeRunsOnStart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		log := storetest.Logger(t)
		clk := &testkit.Clock{}
		a := app.New(app.Deps{Store: st, Log: log, Now: clk.Now})
		a.LogError(ctx, app.ErrorRecord{Source: app.SourceCapture, Message: "old"})
		clk.Advance(31 * 24 * time.Hour) // the default retention is 30 days

		q, err := queue.New(st, config.Queue{CaptureWorkers: 1, DownloadWorkers: 1, ControlWorkers: 1}, log, a.RegisterWorkers)
		require.NoError(t, err)
		require.NoError(t, q.AddPeriodic(queue.Schedule()...))
		require.Error(t, q.AddPeriodic(queue.Schedule()...), "each periodic job once")
		a.AttachQueue(q)
		purged := testcore.JobDone(t, q, queue.PurgeErrorLogsArgs{}.Kind())
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = q.Stop(ctx)
		})
		purged() // the purge runs at start
		logs, err := a.ErrorLogs(ctx, "", 10)
		require.NoError(t, err)
		require.Empty(t, logs)
	})
}

func TestFailedCaptureIsInTheErrorLog(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		tenant := p.tenant(t, "alice", nil)
		res, final := p.capture(t, tenant, goncePost)
		require.Equal(t, app.StateFailed, final.State)

		logs, err := p.app.ErrorLogs(context.Background(), app.SourceCapture, 10)
		require.NoError(t, err)
		require.Len(t, logs, 1)
		l := logs[0]
		require.Equal(t, res.CaptureID, *l.CaptureID)
		require.Equal(t, tenant, *l.TenantID)
		require.Equal(t, "fetch", l.Stage)
		require.Equal(t, "not_found", l.Code)
		require.NotEmpty(t, l.Detail)
		var ids map[string]string
		require.NoError(t, json.Unmarshal(l.Context, &ids))
		require.Equal(t, "x", ids["adapter"])
	})
}
