package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// Bindings on both databases: a chat belongs to one tenant (another one
// binding it is a conflict, although it cannot see the first one's row),
// the channel limit holds until an operator raises it, each post the
// tenant archives afterwards gets one copy item per active binding aimed
// at the bound chat, and a chat reported gone is unbound once with reason
// channel_gone.
func TestChannelBindingsAndCopies(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		a := p.app
		ctx := context.Background()
		ch := hello(t, a)
		const alice, bob = 7, 8
		_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
			Updates: []app.ChannelUpdate{message(1, alice, "/bind @a"), message(2, bob, "/bind @a")}, NextOffset: 3})
		require.NoError(t, err)
		work := claimAll(t, a, ch, "bot")
		require.Len(t, work, 2)
		items := map[int64]app.ChannelWork{}
		for _, w := range work {
			items[w.Update.From.ID] = w
		}
		aliceItem, bobItem := items[alice], items[bob]
		bind := func(item app.ChannelWork, chat int64) (app.ChannelBindResult, error) {
			return a.ChannelBind(ctx, item.ID, app.ChannelBindRequest{Owner: "bot", ChatID: chat, ChatType: "channel",
				Username: "@chan", Title: "Chan"})
		}

		r, err := bind(aliceItem, -100500)
		require.NoError(t, err)
		require.False(t, r.Already)
		require.Equal(t, 1, r.Limit)
		require.Equal(t, "chan", r.Binding.Username)
		r, err = bind(aliceItem, -100500)
		require.NoError(t, err)
		require.True(t, r.Already)
		_, err = bind(bobItem, -100500)
		require.ErrorIs(t, err, app.ErrConflict, "a chat belongs to one tenant")
		_, err = bind(aliceItem, -100600)
		require.ErrorIs(t, err, app.ErrLimit)
		_, err = bind(aliceItem, 42)
		require.ErrorIs(t, err, app.ErrInvalid)

		tenant := aliceItem.Tenant.ID
		tv, err := a.TenantShow(ctx, aliceItem.Tenant.Name)
		require.NoError(t, err)
		require.Equal(t, 1, tv.ChannelLimit)
		two := 2
		_, err = a.UpdateTenant(ctx, "test", aliceItem.Tenant.Name, app.TenantChange{ChannelLimit: &two})
		require.NoError(t, err)
		_, err = bind(aliceItem, -100600)
		require.NoError(t, err)
		list, err := a.ChannelBindings(ctx, aliceItem.ID, "bot")
		require.NoError(t, err)
		require.Len(t, list, 2)
		none, err := a.ChannelBindings(ctx, bobItem.ID, "bot")
		require.NoError(t, err)
		require.Empty(t, none, "one tenant never sees another's bindings")

		// A post archived now is copied to both chats.
		res, _ := p.capture(t, tenant, photosPost)
		copies := copyItems(t, a, ch)
		require.Len(t, copies, 2)
		chats := map[int64]uuid.UUID{}
		for _, w := range copies {
			require.Equal(t, res.SubmissionID, *w.SubmissionID)
			d, err := a.ChannelDelivery(ctx, w.ID, "bot")
			require.NoError(t, err)
			require.Equal(t, app.DeliveryReady, d.State)
			require.NotNil(t, d.Copy)
			require.Equal(t, d.Copy.Binding.ChatID, d.ChatID)
			require.Zero(t, d.StatusMessageID)
			require.EqualValues(t, alice, d.Copy.Binding.OwnerChatID)
			chats[d.ChatID] = w.ID
		}
		require.Contains(t, chats, int64(-100500))
		require.Contains(t, chats, int64(-100600))

		// The first chat is gone: unbound once.
		gone := chats[-100500]
		b, changed, err := a.ChannelCopyGone(ctx, gone, "bot", "Forbidden: bot was kicked from the channel chat")
		require.NoError(t, err)
		require.True(t, changed)
		require.Equal(t, app.UnbindChannelGone, b.UnbindReason)
		_, changed, err = a.ChannelCopyGone(ctx, gone, "bot", "again")
		require.NoError(t, err)
		require.False(t, changed)
		require.NoError(t, a.ChannelDone(ctx, gone, "bot"))
		require.NoError(t, a.ChannelDone(ctx, chats[-100600], "bot"))

		// The second one is unbound by hand; the history stays.
		v, err := a.ChannelUnbind(ctx, aliceItem.ID, "bot", "1")
		require.NoError(t, err)
		require.EqualValues(t, -100600, v.ChatID)
		_, err = a.ChannelUnbind(ctx, aliceItem.ID, "bot", "")
		require.ErrorIs(t, err, app.ErrNotFound)
		all, err := a.TenantBindings(ctx, tenant)
		require.NoError(t, err)
		require.Len(t, all, 2)
		for _, b := range all {
			require.Equal(t, "unbound", b.State)
		}

		// Nothing is copied any more; and the chat is free for Bob.
		p.clock.Advance(11 * time.Second) // the submit interval
		p.capture(t, tenant, videoPost)
		require.Empty(t, copyItems(t, a, ch))
		_, err = bind(bobItem, -100500)
		require.NoError(t, err)
	})
}

// copyItems claims the ready copy items of the channel.
func copyItems(t *testing.T, a *app.App, ch uuid.UUID) []app.ChannelWork {
	t.Helper()
	var out []app.ChannelWork
	for _, w := range claimAll(t, a, ch, "bot") {
		if w.Kind == app.ChannelWorkCopy {
			out = append(out, w)
		}
	}
	return out
}

// Replies on both databases: the status message recorded with a channel
// submission leads /cancel to it (only in its person's chat), a cancelled
// submission's delivery says cancelled while the shared capture goes on
// for another tenant, and /pin finds the copy recorded in the bound chat.
func TestChannelCancelAndPin(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		a := p.app
		ctx := context.Background()
		ch := hello(t, a)
		const alice, bob = 7, 8
		var delivers []app.ChannelWork // claimed along with the updates
		items := func(updates ...app.ChannelUpdate) map[int64]app.ChannelWork {
			next := updates[len(updates)-1].UpdateID + 1
			_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller, Updates: updates, NextOffset: next})
			require.NoError(t, err)
			out := map[int64]app.ChannelWork{}
			for _, w := range claimAll(t, a, ch, "bot") {
				switch w.Kind {
				case app.ChannelWorkUpdate:
					out[w.Update.From.ID] = w
				case app.ChannelWorkDeliver:
					delivers = append(delivers, w)
				}
			}
			require.Len(t, out, len(updates))
			return out
		}
		p.fx.Delay(3 * time.Second) // hold the media downloads
		links := items(message(1, alice, photosPost), message(2, bob, photosPost))
		aliceSub, err := a.ChannelCapture(ctx, links[alice].ID, app.ChannelCaptureRequest{Owner: "bot", URL: photosPost, StatusMessageID: 55})
		require.NoError(t, err)
		bobSub, err := a.ChannelCapture(ctx, links[bob].ID, app.ChannelCaptureRequest{Owner: "bot", URL: photosPost, StatusMessageID: 55})
		require.NoError(t, err)
		require.Equal(t, aliceSub.CaptureID, bobSub.CaptureID, "one shared capture")

		reply := func(id, user int64, text string, to int64) app.ChannelUpdate {
			u := message(id, user, text)
			u.ReplyToMessageID = to
			return u
		}
		cancels := items(reply(3, alice, "/cancel", 55), reply(4, bob, "/cancel", 56))
		_, err = a.ChannelCancel(ctx, cancels[bob].ID, "bot", 56, "")
		require.ErrorIs(t, err, app.ErrNotFound, "Bob's chat has no message 56")
		r, err := a.ChannelCancel(ctx, cancels[alice].ID, "bot", 55, "")
		require.NoError(t, err)
		require.Equal(t, 1, r.Cancelled)
		require.Equal(t, photosPost, r.URL)
		_, err = a.ChannelCancel(ctx, cancels[alice].ID, "bot", 0, photosPost)
		require.ErrorIs(t, err, app.ErrNotFound, "cancelled already")

		p.wait(t, links[alice].Tenant.ID, aliceSub.CaptureID)
		states := map[uuid.UUID]string{}
		var bobDeliver uuid.UUID
		require.Len(t, delivers, 2)
		for _, w := range delivers {
			d, err := a.ChannelDelivery(ctx, w.ID, "bot")
			require.NoError(t, err)
			states[d.SubmissionID] = d.State
			if d.SubmissionID == bobSub.SubmissionID {
				bobDeliver = w.ID
			}
		}
		require.Equal(t, map[uuid.UUID]string{aliceSub.SubmissionID: app.DeliveryCancelled, bobSub.SubmissionID: app.DeliveryReady}, states)
		_, err = a.ChannelCancel(ctx, cancels[bob].ID, "bot", 55, "")
		require.ErrorIs(t, err, app.ErrConflict, "archived already")

		// Bob binds a channel; /pin finds nothing until a copy is there.
		bind := items(message(5, bob, "/bind @b"))[bob]
		_, err = a.ChannelBind(ctx, bind.ID, app.ChannelBindRequest{Owner: "bot", ChatID: -100700, ChatType: "channel"})
		require.NoError(t, err)
		require.NoError(t, a.ChannelSent(ctx, bobDeliver, "bot", bob, []int64{60, 61}, app.SentResult))
		_, err = a.ChannelPin(ctx, bind.ID, "bot", 61, "")
		require.ErrorIs(t, err, app.ErrConflict, "not copied: it was archived before the bind")
		p.clock.Advance(11 * time.Second)
		p.fx.Delay(0)
		p.capture(t, bind.Tenant.ID, videoPost)
		copies := copyItems(t, a, ch)
		require.Len(t, copies, 1)
		require.Error(t, a.ChannelSent(ctx, copies[0].ID, "bot", bob, []int64{9}, app.SentChannelCopy), "not the bound chat")
		require.NoError(t, a.ChannelSent(ctx, copies[0].ID, "bot", -100700, []int64{9}, app.SentChannelCopy))
		pins := items(message(6, bob, "/pin "+videoPost))[bob]
		targets, err := a.ChannelPin(ctx, pins.ID, "bot", 0, videoPost)
		require.NoError(t, err)
		require.Len(t, targets, 1)
		require.EqualValues(t, -100700, targets[0].Binding.ChatID)
		require.EqualValues(t, 9, targets[0].MessageID)
		_, err = a.ChannelPin(ctx, links[alice].ID, "bot", 0, videoPost)
		require.ErrorIs(t, err, app.ErrNotFound, "Alice bound nothing")
	})
}

// BenchmarkSubmitArchivedPost is the cost of one more submission of a
// post archived already, by a tenant with no bound channel and with three
// (each submission then queues three copy items in its transaction).
func BenchmarkSubmitArchivedPost(b *testing.B) {
	for _, n := range []int{0, 3} {
		b.Run(fmt.Sprintf("bindings=%d", n), func(b *testing.B) {
			p := newPipeline(b, "sqlite", testLimits())
			a, ctx := p.app, context.Background()
			h, err := a.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
			require.NoError(b, err)
			_, err = a.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: h.ChannelID, Owner: poller})
			require.NoError(b, err)
			_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: h.ChannelID, Owner: poller,
				Updates: []app.ChannelUpdate{message(1, 7, "/bind")}, NextOffset: 2})
			require.NoError(b, err)
			work, err := a.ChannelClaim(ctx, app.ChannelClaimRequest{ChannelID: h.ChannelID, Owner: "bot", Max: 1})
			require.NoError(b, err)
			item := work[0]
			limit, none := 3, app.TenantLimits{}
			_, err = a.UpdateTenant(ctx, "test", item.Tenant.Name, app.TenantChange{ChannelLimit: &limit, Limits: &none})
			require.NoError(b, err)
			for i := range n {
				_, err := a.ChannelBind(ctx, item.ID, app.ChannelBindRequest{Owner: "bot", ChatID: int64(-100500 - i), ChatType: "channel"})
				require.NoError(b, err)
			}
			res, err := a.Submit(ctx, app.SubmitRequest{TenantID: item.Tenant.ID, URL: photosPost})
			require.NoError(b, err)
			p.wait(b, item.Tenant.ID, res.CaptureID)
			for b.Loop() {
				if _, err := a.Submit(ctx, app.SubmitRequest{TenantID: item.Tenant.ID, URL: photosPost}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
