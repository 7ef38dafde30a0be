package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestConditionsRecordTransitions(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		cs := newConditions(a, time.Now, storetest.Logger(t))
		const key = app.EventAdapterOfflinePrefix + "x"
		events := func(status string) []app.EventView {
			t.Helper()
			ev, err := a.Events(ctx, status, 10)
			require.NoError(t, err)
			return ev
		}

		cs.observe(ctx, key, app.SeverityError, false, "")
		require.Empty(t, events("all"), "a good condition that never happened records nothing")

		cs.observe(ctx, key, app.SeverityError, true, "adapter x does not answer")
		cs.observe(ctx, key, app.SeverityError, true, "adapter x does not answer")
		open := events(app.EventOpen)
		require.Len(t, open, 1)
		require.Equal(t, int64(1), open[0].Count, "counted once per occurrence, not per check")
		require.Equal(t, app.SeverityError, open[0].Severity)

		cs.observe(ctx, key, app.SeverityError, false, "")
		require.Empty(t, events(app.EventOpen), "resolved when good again")
		entries, err := a.Audit(ctx, 10)
		require.NoError(t, err)
		require.Equal(t, app.ActorSystem, entries[0].Actor)
		require.Equal(t, "event.resolve", entries[0].Action)

		cs.observe(ctx, key, app.SeverityError, true, "adapter x does not answer")
		open = events(app.EventOpen)
		require.Len(t, open, 1, "opened again")
		require.Equal(t, int64(2), open[0].Count)

		// After a restart, the first good observation resolves what the
		// last process left open.
		restarted := newConditions(a, time.Now, storetest.Logger(t))
		restarted.observe(ctx, key, app.SeverityError, false, "")
		require.Empty(t, events(app.EventOpen))

		long := strings.Repeat("m", 2*maxConditionMessage)
		cs.observe(ctx, app.EventQueueBacklog, app.SeverityWarn, true, long)
		open = events(app.EventOpen)
		require.Len(t, open, 1)
		require.Len(t, open[0].Message, maxConditionMessage+len("…"))
	})
}

func TestBacklog(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		q, err := queue.New(st, config.Queue{CaptureWorkers: 1, DownloadWorkers: 1, ControlWorkers: 1}, storetest.Logger(t))
		require.NoError(t, err)
		client := q.Client()
		now := time.Now()

		_, bad, err := backlog(ctx, client, now)
		require.NoError(t, err)
		require.False(t, bad, "an empty queue")

		// Not started, so nothing works the jobs: they wait.
		_, err = client.Insert(ctx, queue.NoopArgs{}, &river.InsertOpts{Queue: queue.Capture})
		require.NoError(t, err)
		_, err = client.Insert(ctx, queue.NoopArgs{}, &river.InsertOpts{Queue: queue.Control, ScheduledAt: now.Add(-time.Hour)})
		require.NoError(t, err)
		_, bad, err = backlog(ctx, client, now.Add(time.Minute))
		require.NoError(t, err)
		require.False(t, bad, "a minute is not a backlog; the control queue is not watched")

		msg, bad, err := backlog(ctx, client, now.Add(7*time.Minute))
		require.NoError(t, err)
		require.True(t, bad)
		require.Contains(t, msg, "the oldest capture job has waited 7m")
		require.NotContains(t, msg, "download job")

		// A snoozed download whose time has long passed waits too.
		_, err = client.Insert(ctx, queue.NoopArgs{}, &river.InsertOpts{Queue: queue.Download, ScheduledAt: now.Add(-10 * time.Minute)})
		require.NoError(t, err)
		_, err = client.Insert(ctx, queue.NoopArgs{}, &river.InsertOpts{Queue: queue.Download, ScheduledAt: now.Add(time.Hour)})
		require.NoError(t, err)
		msg, bad, err = backlog(ctx, client, now)
		require.NoError(t, err)
		require.True(t, bad)
		require.Contains(t, msg, "the oldest download job has waited 10m")
		require.NotContains(t, msg, "capture job")
	})
}
