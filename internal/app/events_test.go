package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

func TestEventDedupResolveReopen(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		clk := &testkit.Clock{}
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t), Now: clk.Now})

		require.NoError(t, a.RecordEvent(ctx, app.EventQueueBacklog, app.SeverityWarn, "the oldest capture job has waited 6m"))
		clk.Advance(time.Minute)
		require.NoError(t, a.RecordEvent(ctx, app.EventQueueBacklog, app.SeverityWarn, "the oldest capture job has waited 7m"))

		open, err := a.Events(ctx, app.EventOpen, 100)
		require.NoError(t, err)
		require.Len(t, open, 1, "the same key twice is one event")
		require.Equal(t, int64(2), open[0].Count)
		require.Equal(t, "the oldest capture job has waited 7m", open[0].Message)
		require.GreaterOrEqual(t, open[0].LastAt.Sub(open[0].FirstAt), time.Minute, "first and last seen")

		resolved, err := a.ResolveEvent(ctx, "admin-alice", app.EventQueueBacklog)
		require.NoError(t, err)
		require.Equal(t, app.EventResolved, resolved.Status)
		require.NotNil(t, resolved.ResolvedAt)
		open, err = a.Events(ctx, app.EventOpen, 100)
		require.NoError(t, err)
		require.Empty(t, open)

		// Resolving again changes nothing and audits nothing.
		_, err = a.ResolveEvent(ctx, "admin-alice", app.EventQueueBacklog)
		require.NoError(t, err)
		entries, err := a.Audit(ctx, 100)
		require.NoError(t, err)
		var resolves int
		for _, e := range entries {
			if e.Action == "event.resolve" {
				resolves++
				require.Equal(t, "admin-alice", e.Actor)
				require.Equal(t, app.EventQueueBacklog, e.Target)
			}
		}
		require.Equal(t, 1, resolves)

		clk.Advance(time.Minute)
		require.NoError(t, a.RecordEvent(ctx, app.EventQueueBacklog, app.SeverityWarn, "again"))
		open, err = a.Events(ctx, app.EventOpen, 100)
		require.NoError(t, err)
		require.Len(t, open, 1, "it happened again: open again")
		require.Equal(t, int64(3), open[0].Count)
		require.Nil(t, open[0].ResolvedAt)

		all, err := a.Events(ctx, "all", 100)
		require.NoError(t, err)
		require.Len(t, all, 1)
		resolvedOnly, err := a.Events(ctx, app.EventResolved, 100)
		require.NoError(t, err)
		require.Empty(t, resolvedOnly)

		_, err = a.ResolveEvent(ctx, "admin-alice", "no.such.event")
		require.ErrorIs(t, err, app.ErrNotFound)
		require.ErrorIs(t, a.RecordEvent(ctx, "x", "fatal", "m"), app.ErrInvalid)
		require.ErrorIs(t, a.RecordEvent(ctx, "", app.SeverityInfo, "m"), app.ErrInvalid)
		_, err = a.Events(ctx, "closed", 10)
		require.ErrorIs(t, err, app.ErrInvalid)
	})
}
