package app_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// A watch made through the bot hands each run to the watcher's private
// chat in the run's own transaction: deliver mode as one deliver item per
// post (aimed at the chat), digest mode as one watch item listing the
// posts; the runs are then no longer pending. /unwatch by number removes
// it, and a number past the list is refused.
func TestChannelWatchRunsBecomeChannelWork(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		a := p.app
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
		ch := hello(t, a)
		const user = 7
		_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{message(1, user, "/watch "+tl.ProfileURL)}, NextOffset: 2})
		require.NoError(t, err)
		work := claimAll(t, a, ch, "bot")
		require.Len(t, work, 1)
		cmd := work[0]
		v, err := a.ChannelWatch(ctx, cmd.ID, "bot", tl.ProfileURL, 0)
		require.NoError(t, err)
		require.Equal(t, "active", v.State)
		_, err = a.ChannelWatch(ctx, cmd.ID, "bot", "not a link", 0)
		require.ErrorIs(t, err, app.ErrInvalid)
		tenant := cmd.Tenant.ID

		p.tick(t, 0, 1)
		p.fx.GrowTimeline(watchHandle, 2)
		p.tick(t, 15*time.Minute, 1)
		// Once the posts are archived: a capture that ends wakes its
		// deliver items, holding their rows while it commits, and a claim
		// skips rows another transaction holds (PostgreSQL).
		p.lastRun(t, tenant, v.ID)
		var delivers []app.ChannelWork
		for _, w := range claimAll(t, a, ch, "bot") {
			if w.Kind == app.ChannelWorkUpdate {
				continue // the command's item, whose lease the clock outran
			}
			require.Equal(t, app.ChannelWorkDeliver, w.Kind)
			delivers = append(delivers, w)
		}
		require.Len(t, delivers, 2)
		for _, w := range delivers {
			d, err := a.ChannelDelivery(ctx, w.ID, "bot")
			require.NoError(t, err)
			require.EqualValues(t, user, d.ChatID, "the watcher's private chat")
		}
		pending, err := a.PendingWatchRuns(ctx, tenant, 10)
		require.NoError(t, err)
		require.Empty(t, pending)

		digest := app.NotifyDigest
		_, err = a.PatchWatch(ctx, tenant, v.ID, app.WatchPatch{Notify: &digest})
		require.NoError(t, err)
		posts := p.fx.GrowTimeline(watchHandle, 1)
		p.tick(t, 15*time.Minute, 1)
		work = nil
		for _, w := range claimAll(t, a, ch, "bot") {
			if w.Kind == app.ChannelWorkWatch { // the rest are earlier items the clock outran
				work = append(work, w)
			}
		}
		require.Len(t, work, 1, "one digest for the run")
		var doc struct {
			Notice app.WatchNotice `json:"notice"`
		}
		require.NoError(t, json.Unmarshal(work[0].Progress, &doc))
		require.Equal(t, app.WatchNotice{ChatID: user, SourceURL: tl.ProfileURL, Notify: "digest", Posts: posts}, doc.Notice)

		list, err := a.ChannelWatches(ctx, cmd.ID, "bot")
		require.NoError(t, err)
		require.Len(t, list, 1)
		require.Equal(t, 3, list[0].NewPosts)
		_, err = a.ChannelUnwatch(ctx, cmd.ID, "bot", "2")
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = a.ChannelUnwatch(ctx, cmd.ID, "bot", "x")
		require.ErrorIs(t, err, app.ErrInvalid)
		gone, err := a.ChannelUnwatch(ctx, cmd.ID, "bot", "1")
		require.NoError(t, err)
		require.Equal(t, v.ID, gone.ID)
		list, err = a.ChannelWatches(ctx, cmd.ID, "bot")
		require.NoError(t, err)
		require.Empty(t, list)
	})
}
