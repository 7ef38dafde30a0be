package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// A post pushed by a watched channel is archived for both watchers when it
// arrives, on both databases; a post of a channel no one watches is not
// kept. The next pull archives the older post that did not come by push,
// and not the pushed one again.
func TestPushedPostsAndThePull(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		ch := p.tme.AddChannel("harbour_push", 3, 20)
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		var watches [2]app.WatchView
		for i, tenant := range []uuid.UUID{alice, bob} {
			w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: tenant, URL: ch.URL})
			require.NoError(t, err)
			watches[i] = w
		}
		p.tick(t, 0, 1) // the first run learns what is there
		// Carol starts later at a past date: a push before her first run
		// does not cost her the posts from before it.
		carol := p.tenant(t, "carol", nil)
		wc, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: carol, URL: ch.URL,
			Since: testkit.SyntheticTime(2).Add(-30 * time.Minute).Format(time.RFC3339)})
		require.NoError(t, err)

		hello, err := p.app.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: "7000001", Name: "monitor_test_bot"})
		require.NoError(t, err)
		lease, err := p.app.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: hello.ChannelID, Owner: "poller"})
		require.NoError(t, err)
		require.True(t, lease.Granted)

		posts := p.tme.GrowChannel("harbour_push", 2) // 5 and 4: only 5 comes by push
		done := testcore.JobDone(t, p.q, queue.WatchPushArgs{}.Kind())
		reply, err := p.app.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: hello.ChannelID, Owner: "poller", NextOffset: 3,
			Updates: []app.ChannelUpdate{
				{UpdateID: 1, Kind: app.ChannelUpdatePost, ChatID: -1009002, ChatType: "channel", ChatUsername: "nobody_watches", MessageID: 9},
				{UpdateID: 2, Kind: app.ChannelUpdatePost, ChatID: -1009001, ChatType: "channel", ChatUsername: "Harbour_Push", MessageID: 5},
			}})
		require.NoError(t, err)
		require.Equal(t, 1, reply.Stored, "only the watched channel's post is kept")
		done()
		for i, tenant := range []uuid.UUID{alice, bob} {
			run := p.lastRun(t, tenant, watches[i].ID)
			require.Equal(t, []string{posts[0]}, runURLs(run), "the pushed post, at once")
		}
		embeds := p.tme.Hits("/harbour_push/5")
		require.Positive(t, embeds)

		// Telegram sends the update again: nothing new.
		reply, err = p.app.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: hello.ChannelID, Owner: "poller", NextOffset: 3,
			Updates: []app.ChannelUpdate{{UpdateID: 2, Kind: app.ChannelUpdatePost, ChatID: -1009001, ChatType: "channel",
				ChatUsername: "Harbour_Push", MessageID: 5}}})
		require.NoError(t, err)
		require.Zero(t, reply.Stored)

		p.tick(t, 16*time.Minute, 1)
		for i, tenant := range []uuid.UUID{alice, bob} {
			run := p.lastRun(t, tenant, watches[i].ID)
			require.Equal(t, []string{posts[1]}, runURLs(run), "the older post the push did not bring, and not the pushed one")
			lib, err := p.app.Collections(ctx, tenant, 100, "")
			require.NoError(t, err)
			require.Len(t, lib.Items, 2)
		}
		require.Equal(t, embeds, p.tme.Hits("/harbour_push/5"), "the pull did not fetch the pushed post again")
		require.Equal(t, []string{ch.Posts[1], ch.Posts[0], posts[1]}, runURLs(p.lastRun(t, carol, wc.ID)),
			"carol's first run takes posts 2 to 4; 5 came by push")
		lib, err := p.app.Collections(ctx, carol, 100, "")
		require.NoError(t, err)
		require.Len(t, lib.Items, 4)
	})
}

// A channel post needs its message id; its sender is not asked for.
func TestPushedPostsAreChecked(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		hello, err := p.app.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: "7000001", Name: "monitor_test_bot"})
		require.NoError(t, err)
		_, err = p.app.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: hello.ChannelID, Owner: "poller"})
		require.NoError(t, err)
		_, err = p.app.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: hello.ChannelID, Owner: "poller", NextOffset: 2,
			Updates: []app.ChannelUpdate{{UpdateID: 1, Kind: app.ChannelUpdatePost, ChatID: -1009001, ChatUsername: "harbour"}}})
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "a channel post needs its message_id")
	})
}

// An album's parts, pushed apart, are one post, archived once no part came
// for the quiet time; parts stored while no process works are archived by
// the next one (a crash loses nothing).
func TestPushedAlbumAfterAQuietTimeAndARestart(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		ch := p.tme.AddChannel("harbour_album", 3, 20)
		alice := p.tenant(t, "alice", nil)
		w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: ch.URL, Notify: app.NotifyNone})
		require.NoError(t, err)
		p.tick(t, 0, 1)
		hello, err := p.app.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: "7000001", Name: "monitor_test_bot"})
		require.NoError(t, err)
		_, err = p.app.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: hello.ChannelID, Owner: "poller"})
		require.NoError(t, err)
		push := func(updateID, messageID int64) {
			t.Helper()
			_, err := p.app.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: hello.ChannelID, Owner: "poller",
				NextOffset: updateID + 1, Updates: []app.ChannelUpdate{{UpdateID: updateID, Kind: app.ChannelUpdatePost, ChatID: -1009005,
					ChatType: "channel", ChatUsername: "harbour_album", MessageID: messageID, MediaGroupID: "13960000005"}}})
			require.NoError(t, err)
		}
		parts := p.tme.GrowChannelAlbum("harbour_album", 3) // 4, 5, 6

		// The process stops with two parts stored.
		stop, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		require.NoError(t, p.q.Stop(stop))
		push(1, 4)
		push(2, 5)
		p.start(t)
		done := testcore.JobDone(t, p.q, queue.WatchPushArgs{}.Kind())
		time.Sleep(app.WatchPushQuiet / 2)
		// Read before the push: the part's stored time, which the quiet
		// time counts from, is no earlier than this.
		last := p.clock.Now()
		push(3, 6)
		done()
		runs, err := p.app.WatchRuns(ctx, alice, w.ID, 10)
		require.NoError(t, err)
		require.Equal(t, []string{parts[0]}, runURLs(runs[0]), "the album is its first message")
		require.GreaterOrEqual(t, runs[0].StartedAt.Sub(last), app.WatchPushQuiet, "archived once no part came for the quiet time")
		c := p.wait(t, alice, runs[0].Posts[0].CaptureID)
		require.Equal(t, app.StateComplete, c.State)
		got, err := p.app.Collection(ctx, alice, runs[0].Posts[0].CollectionID)
		require.NoError(t, err)
		require.Len(t, got.Media, 3, "one collection with the album's three photos")
		lib, err := p.app.Collections(ctx, alice, 100, "")
		require.NoError(t, err)
		require.Len(t, lib.Items, 1)
	})
}
