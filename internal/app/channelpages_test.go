package app_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// press is a button press on a bot message.
func press(updateID, userID, chatID, messageID int64, data string) app.ChannelUpdate {
	return app.ChannelUpdate{UpdateID: updateID, Kind: app.ChannelUpdateCallback, From: app.ChannelUser{ID: userID},
		ChatID: chatID, ChatType: "group", MessageID: messageID, CallbackID: "cb", CallbackData: data}
}

// A profile link sent to the bot is delivered as the progress of its
// chain; "fetch more" is for the sender only, twice is one page with one
// progress item, and stop ends the chain.
func TestChannelProfileProgressMoreAndStop(t *testing.T) {
	t.Parallel()
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		a := p.app
		ctx := context.Background()
		tl := p.fx.AddTextTimeline(timelineHandle, timelineID, timelinePosts, timelinePage)
		ch := hello(t, a)
		const chat, status = -100, 500
		link := message(1, 7, tl.ProfileURL)
		link.ChatID, link.ChatType = chat, "group"
		// post stores an update and claims every ready item: the update's,
		// and any progress item, which it keeps in follow.
		var follow []app.ChannelWork
		post := func(u app.ChannelUpdate) app.ChannelWork {
			t.Helper()
			_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
				Updates: []app.ChannelUpdate{u}, NextOffset: u.UpdateID + 1})
			require.NoError(t, err)
			var found app.ChannelWork
			for _, w := range claimAll(t, a, ch, "bot") {
				switch {
				case w.Kind == app.ChannelWorkProgress:
					follow = append(follow, w)
				case w.Update != nil && w.Update.UpdateID == u.UpdateID:
					found = w
				}
			}
			require.NotNil(t, found.Update, "update %d is not ready", u.UpdateID)
			return found
		}
		w := post(link)
		res, err := a.ChannelCapture(ctx, w.ID, app.ChannelCaptureRequest{Owner: "bot", URL: tl.ProfileURL, StatusMessageID: status})
		require.NoError(t, err)
		require.NoError(t, a.ChannelMessages(ctx, w.ID, "bot", chat, []int64{status}))
		require.NoError(t, a.ChannelDone(ctx, w.ID, "bot"))
		tenant := w.Tenant.ID

		var d app.ChannelWork
		for _, c := range claimAll(t, a, ch, "bot") {
			if c.Kind == app.ChannelWorkDeliver {
				d = c
			}
		}
		require.Equal(t, app.ChannelWorkDeliver, d.Kind)
		p.waitSubmission(t, tenant, res.SubmissionID)
		got, err := a.ChannelDelivery(ctx, d.ID, "bot")
		require.NoError(t, err)
		require.Equal(t, app.DeliveryReady, got.State)
		require.Nil(t, got.Item, "a profile is not sent as a post")
		require.Equal(t, int64(status), got.StatusMessageID)
		require.Equal(t, &app.ChannelCollection{Kind: "profile", Title: "Synthetic " + timelineHandle, InputURL: tl.ProfileURL,
			State: app.StateComplete, Total: 10, Archived: 10, HasMore: true, MoreFrom: res.SubmissionID, Root: res.SubmissionID,
			BatchSize: 1000}, got.Collection)
		require.NoError(t, a.ChannelDone(ctx, d.ID, "bot"))

		// Someone else's press is refused.
		more := "m:" + res.SubmissionID.String()
		other := post(press(2, 8, chat, status, more))
		_, err = a.ChannelMore(ctx, other.ID, app.ChannelMoreRequest{Owner: "bot", SubmissionID: res.SubmissionID})
		require.ErrorIs(t, err, app.ErrForbidden)
		_, err = a.ChannelStop(ctx, other.ID, "bot", res.SubmissionID)
		require.ErrorIs(t, err, app.ErrForbidden)

		// The sender presses twice: one page, one progress item.
		start := json.RawMessage(`{"message_id":500}`)
		var pages []uuid.UUID
		for i := range 2 {
			pw := post(press(int64(3+i), 7, chat, status, more))
			cc, err := a.ChannelMore(ctx, pw.ID, app.ChannelMoreRequest{Owner: "bot", SubmissionID: res.SubmissionID, Progress: start})
			require.NoError(t, err)
			require.Equal(t, res.SubmissionID, cc.Root)
			require.NotEqual(t, res.SubmissionID, cc.MoreFrom, "the new page is the one to go on from")
			pages = append(pages, cc.MoreFrom)
		}
		require.Equal(t, pages[0], pages[1], "pressing twice is one page")
		for _, c := range claimAll(t, a, ch, "bot") {
			if c.Kind == app.ChannelWorkProgress {
				follow = append(follow, c)
			}
		}
		require.Len(t, follow, 1, "one progress item for one page")
		require.Equal(t, pages[0], *follow[0].SubmissionID)
		require.JSONEq(t, string(start), string(follow[0].Progress))
		pd, err := a.ChannelDelivery(ctx, follow[0].ID, "bot")
		require.NoError(t, err)
		require.Equal(t, int64(chat), pd.ChatID, "the progress item edits the link's message")
		require.Equal(t, res.SubmissionID, pd.Collection.Root)

		// Stop: the chain is stopped and there is no more after it.
		sw := post(press(5, 7, chat, status, "x:"+res.SubmissionID.String()))
		cc, err := a.ChannelStop(ctx, sw.ID, "bot", res.SubmissionID)
		require.NoError(t, err)
		require.True(t, cc.Stopped)
		require.False(t, cc.HasMore)
		last := post(press(6, 7, chat, status, "m:"+pages[0].String()))
		_, err = a.ChannelMore(ctx, last.ID, app.ChannelMoreRequest{Owner: "bot", SubmissionID: pages[0]})
		require.ErrorIs(t, err, app.ErrConflict)

		// A post is not a collection.
		p.clock.Advance(11 * time.Second) // the account's interval between links
		pw := post(message(7, 7, photosPost))
		pr, err := a.ChannelCapture(ctx, pw.ID, app.ChannelCaptureRequest{Owner: "bot", URL: photosPost})
		require.NoError(t, err)
		_, err = a.ChannelMore(ctx, pw.ID, app.ChannelMoreRequest{Owner: "bot", SubmissionID: pr.SubmissionID})
		require.ErrorIs(t, err, app.ErrInvalid)
		_, err = a.ChannelMore(ctx, pw.ID, app.ChannelMoreRequest{Owner: "bot", SubmissionID: res.SubmissionID, Progress: json.RawMessage(`[1]`)})
		require.ErrorIs(t, err, app.ErrInvalid, "the progress document must be an object")
	})
}

// "Fetch 1,000 more" on a profile of 25 posts chains the pages after the
// first by itself, to the end of the timeline.
func TestChannelBatchChainsPagesToTheEnd(t *testing.T) {
	t.Parallel()
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		a := p.app
		ctx := context.Background()
		tl := p.fx.AddTextTimeline(timelineHandle, timelineID, timelinePosts, timelinePage)
		ch := hello(t, a)
		_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{message(1, 7, tl.ProfileURL)}, NextOffset: 2})
		require.NoError(t, err)
		w := claimUpdate(t, a, ch, 1)
		res, err := a.ChannelCapture(ctx, w.ID, app.ChannelCaptureRequest{Owner: "bot", URL: tl.ProfileURL, StatusMessageID: 500})
		require.NoError(t, err)
		require.NoError(t, a.ChannelMessages(ctx, w.ID, "bot", 7, []int64{500}))
		p.waitSubmission(t, w.Tenant.ID, res.SubmissionID)

		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{press(2, 7, 7, 500, "b:"+res.SubmissionID.String())}, NextOffset: 3})
		require.NoError(t, err)
		bw := claimUpdate(t, a, ch, 2)
		cc, err := a.ChannelMore(ctx, bw.ID, app.ChannelMoreRequest{Owner: "bot", SubmissionID: res.SubmissionID, Batch: true})
		require.NoError(t, err)
		require.True(t, cc.Running)
		var v app.SubmissionView
		require.Eventually(t, func() bool {
			v = p.waitSubmission(t, w.Tenant.ID, res.SubmissionID)
			return v.Progress.Total == timelinePosts || (!v.HasMore && v.NextSubmission == nil)
		}, 2*testcore.WaitTimeout, 50*time.Millisecond)
		require.Equal(t, app.SubmissionProgress{Total: timelinePosts, Complete: timelinePosts}, v.Progress)
		require.False(t, v.HasMore, "archived to the end")
	})
}
