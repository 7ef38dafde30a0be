package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// BenchmarkChannelProgressLook is what one look of a progress message
// costs core: the channel reads the Delivery of a profile's chain every
// few seconds while it runs. The chain is a profile of 250 posts over
// three pages (a batch after the first), on each database.
func BenchmarkChannelProgressLook(b *testing.B) {
	eachChannelStore(b, func(b *testing.B, driver string) {
		p := newPipeline(b, driver, testLimits())
		a := p.app
		ctx := context.Background()
		tl := p.fx.AddTimeline(timelineHandle, timelineID, timelinePosts, 20)
		h, err := a.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
		require.NoError(b, err)
		_, err = a.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: h.ChannelID, Owner: poller})
		require.NoError(b, err)
		claim := func(u app.ChannelUpdate) (update, deliver app.ChannelWork) {
			_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: h.ChannelID, Owner: poller,
				Updates: []app.ChannelUpdate{u}, NextOffset: u.UpdateID + 1})
			require.NoError(b, err)
			ws, err := a.ChannelClaim(ctx, app.ChannelClaimRequest{ChannelID: h.ChannelID, Owner: "bot", Max: 50})
			require.NoError(b, err)
			for _, w := range ws {
				switch {
				case w.Kind == app.ChannelWorkDeliver:
					deliver = w
				case w.Update != nil && w.Update.UpdateID == u.UpdateID:
					update = w
				}
			}
			return update, deliver
		}
		w, _ := claim(message(1, 7, tl.ProfileURL))
		res, err := a.ChannelCapture(ctx, w.ID, app.ChannelCaptureRequest{Owner: "bot", URL: tl.ProfileURL, StatusMessageID: 500})
		require.NoError(b, err)
		require.NoError(b, a.ChannelMessages(ctx, w.ID, "bot", 7, []int64{500}))
		p.waitSubmission(b, w.Tenant.ID, res.SubmissionID)
		bw, d := claim(press(2, 7, 7, 500, "b:"+res.SubmissionID.String()))
		_, err = a.ChannelMore(ctx, bw.ID, app.ChannelMoreRequest{Owner: "bot", SubmissionID: res.SubmissionID, Batch: true})
		require.NoError(b, err)
		// The batch's pages chain in the transaction that ends the one
		// before, so the chain has ended only once they all have.
		v := p.waitSubmission(b, w.Tenant.ID, res.SubmissionID)
		require.Equal(b, timelinePosts, v.Progress.Total)
		require.Equal(b, app.ChannelWorkDeliver, d.Kind)

		b.ResetTimer()
		for b.Loop() {
			got, err := a.ChannelDelivery(ctx, d.ID, "bot")
			if err != nil {
				b.Fatal(err)
			}
			if got.Collection == nil || got.Collection.Total != timelinePosts {
				b.Fatalf("the look saw %+v", got.Collection)
			}
		}
	})
}
