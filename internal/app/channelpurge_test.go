package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

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

// buttonPress is a press by user on a bot message of the user's private
// chat.
func buttonPress(updateID, user, message int64) app.ChannelUpdate {
	return app.ChannelUpdate{UpdateID: updateID, Kind: app.ChannelUpdateCallback, From: app.ChannelUser{ID: user}, ChatID: user,
		ChatType: "private", MessageID: message, CallbackID: "cb", CallbackData: "list"}
}

// claimUpdate claims ready work until it finds the item of an update.
func claimUpdate(t *testing.T, a *app.App, channel uuid.UUID, updateID int64) app.ChannelWork {
	t.Helper()
	for _, w := range claimAll(t, a, channel, "bot") {
		if w.Update != nil && w.Update.UpdateID == updateID {
			return w
		}
	}
	t.Fatalf("update %d is not ready", updateID)
	return app.ChannelWork{}
}

func TestChannelRetentionFollowsTheSetting(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		clk := &testkit.Clock{}
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t), Now: clk.Now})
		_, err := a.SetSetting(ctx, app.ActorCLI, "channel_retention_days", "10")
		require.NoError(t, err)
		_, err = a.SetSetting(ctx, app.ActorCLI, "channel_retention_days", "0")
		require.ErrorIs(t, err, app.ErrInvalid, "at least a day")
		ch := hello(t, a)

		// Three commands: one answered with a button message, one that
		// failed, one still leased.
		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{message(1, 7, "/list"), message(2, 7, "/help"), message(3, 7, "/usage")}, NextOffset: 4})
		require.NoError(t, err)
		work := claimAll(t, a, ch, "bot")
		require.Len(t, work, 3)
		tctx := store.WithTenant(ctx, work[0].Tenant.ID)
		require.NoError(t, a.ChannelMessages(ctx, work[0].ID, "bot", 7, []int64{500}))
		require.NoError(t, a.ChannelDone(ctx, work[0].ID, "bot"))
		require.NoError(t, a.ChannelFail(ctx, work[1].ID, "bot", "no"))
		leased := work[2]

		// The button works for its owner while it is young.
		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{buttonPress(4, 7, 500)}, NextOffset: 5})
		require.NoError(t, err)
		p := claimUpdate(t, a, ch, 4)
		_, err = a.ChannelList(ctx, p.ID, "bot", nil, 0)
		require.NoError(t, err)
		require.NoError(t, a.ChannelDone(ctx, p.ID, "bot"))

		// Nearly ten days on, nothing is old enough.
		clk.Advance(9*24*time.Hour + 21*time.Hour)
		n, err := a.PurgeChannelRows(ctx)
		require.NoError(t, err)
		require.Equal(t, app.ChannelPurged{}, n)

		// Past ten days the finished work, its updates and the button
		// message go; the leased item and its update stay.
		clk.Advance(4 * time.Hour)
		n, err = a.PurgeChannelRows(ctx)
		require.NoError(t, err)
		require.Equal(t, app.ChannelPurged{Work: 3, Inbox: 3, Messages: 1}, n)
		for _, w := range work[:2] {
			_, err := st.ChannelWorkGet(tctx, w.ID)
			require.ErrorIs(t, err, store.ErrNotFound)
		}
		w, err := st.ChannelWorkGet(tctx, leased.ID)
		require.NoError(t, err)
		require.Equal(t, store.WorkLeased, w.State)
		_, err = st.InboxGet(tctx, *w.InboxID)
		require.NoError(t, err, "leased work keeps its update")

		// Now a press on the old button says it is too old (or not theirs).
		pollLease(t, a, ch) // days passed: the poller's lease ran out
		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{buttonPress(5, 7, 500)}, NextOffset: 6})
		require.NoError(t, err)
		p = claimUpdate(t, a, ch, 5)
		_, err = a.ChannelList(ctx, p.ID, "bot", nil, 0)
		require.True(t, errors.Is(err, app.ErrForbidden), "%v", err)
		require.Equal(t, "This button belongs to someone else's request, or is too old to use.", err.Error())
	})
}

// TestChannelPurgeRunsOnStart runs the purge the way serve does, as the
// periodic job of queue.Schedule, with a retention shorter than the
// default: it deletes only if it reads the setting.
func TestChannelPurgeRunsOnStart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		log := storetest.Logger(t)
		clk := &testkit.Clock{}
		a := app.New(app.Deps{Store: st, Log: log, Now: clk.Now})
		_, err := a.SetSetting(ctx, app.ActorCLI, "channel_retention_days", "2")
		require.NoError(t, err)
		ch := hello(t, a)
		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{message(1, 7, "/help")}, NextOffset: 2})
		require.NoError(t, err)
		w := claimUpdate(t, a, ch, 1)
		require.NoError(t, a.ChannelDone(ctx, w.ID, "bot"))
		clk.Advance(3 * 24 * time.Hour) // the default retention is 30 days

		q, err := queue.New(st, config.Queue{CaptureWorkers: 1, DownloadWorkers: 1, ControlWorkers: 1}, log, a.RegisterWorkers)
		require.NoError(t, err)
		require.NoError(t, q.AddPeriodic(queue.Schedule()...))
		a.AttachQueue(q)
		purged := testcore.JobDone(t, q, queue.PurgeChannelRowsArgs{}.Kind())
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = q.Stop(ctx)
		})
		purged() // the purge runs at start
		tctx := store.WithTenant(ctx, w.Tenant.ID)
		n, err := st.InboxCount(tctx, ch)
		require.NoError(t, err)
		require.Zero(t, n)
		_, err = st.ChannelWorkGet(tctx, w.ID)
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

// TestChannelPurgeKeepsDeliveryProgress delivers a capture to a channel and
// purges its work items: the submission keeps its delivery state and
// progress.
func TestChannelPurgeKeepsDeliveryProgress(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		st := p.st
		a := p.app
		ctx := context.Background()
		ch := hello(t, a)
		_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{message(1, 7, photosPost)}, NextOffset: 2})
		require.NoError(t, err)
		w := claimUpdate(t, a, ch, 1)
		res, err := a.ChannelCapture(ctx, w.ID, app.ChannelCaptureRequest{Owner: "bot", URL: photosPost})
		require.NoError(t, err)
		require.NoError(t, a.ChannelDone(ctx, w.ID, "bot"))

		var d app.ChannelWork
		for _, c := range claimAll(t, a, ch, "bot") {
			if c.Kind == app.ChannelWorkDeliver {
				d = c
			}
		}
		require.Equal(t, app.ChannelWorkDeliver, d.Kind)
		p.wait(t, w.Tenant.ID, res.CaptureID)
		got, err := a.ChannelDelivery(ctx, d.ID, "bot")
		require.NoError(t, err)
		require.Equal(t, app.DeliveryReady, got.State, got.Error)
		require.NoError(t, a.ChannelProgress(ctx, d.ID, "bot", json.RawMessage(`{"media_batches":1}`)))
		require.NoError(t, a.ChannelDone(ctx, d.ID, "bot"))

		p.clock.Advance(31 * 24 * time.Hour)
		n, err := a.PurgeChannelRows(ctx)
		require.NoError(t, err)
		require.Equal(t, app.ChannelPurged{Work: 2, Inbox: 1}, n, "the update's and the delivery's work, the update")
		tctx := store.WithTenant(ctx, w.Tenant.ID)
		_, err = st.ChannelWorkGet(tctx, d.ID)
		require.ErrorIs(t, err, store.ErrNotFound)
		sub, err := st.SubmissionGet(tctx, res.SubmissionID)
		require.NoError(t, err)
		require.Equal(t, store.DeliveryDelivered, sub.DeliveryState)
		require.JSONEq(t, `{"media_batches":1}`, string(sub.DeliveryProgress))
	})
}
