package tgchannel_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
)

// The channels of the push tests, as the bot sees them: it is an admin of
// both; only harbour_news is watched.
var (
	harbour   = testkit.BotChannel{ID: -1009001, Title: "Harbour News", Username: "Harbour_News"}
	unwatched = testkit.BotChannel{ID: -1009002, Title: "Elsewhere", Username: "elsewhere_news"}
	private   = testkit.BotChannel{ID: -1009003, Title: "Private"}
)

// watchPushWorld is a world whose two people, Alice and Bob, watch the
// synthetic t.me channel harbour_news (3 posts), which the pull has read
// once.
func watchPushWorld(t *testing.T) (*world, []uuid.UUID) {
	t.Helper()
	w := newWorld(t)
	ch := w.tme.AddChannel("harbour_news", 3, 20)
	w.tme.AddChannel("elsewhere_news", 3, 20)
	w.start()
	for _, p := range []testkit.BotUser{alice, bob} {
		w.bot.PushPrivateMessage(p, "/watch "+ch.URL)
		made := w.nthMessage(p.ID, 0, "the watch made")
		require.True(t, strings.HasPrefix(made.Text, "👀 Watching "), made.Text)
	}
	w.runWatches(0) // the first run notes where the channel stands
	var tenants []uuid.UUID
	for _, name := range []string{"tg1001", "tg1002"} {
		tv, err := w.core.App().TenantByName(context.Background(), name)
		require.NoError(t, err)
		tenants = append(tenants, tv.ID)
	}
	return w, tenants
}

// results are the capture results the bot sent to a chat: one per
// archived post (notify deliver).
func (w *world) results(chat int64) []testkit.BotCall {
	var out []testkit.BotCall
	for _, c := range w.bot.Calls() {
		if c.ChatID == chat && c.OK() && c.Method != "editMessageText" && strings.Contains(c.Text, "🆔 ") {
			out = append(out, c)
		}
	}
	return out
}

// savedURLs are the source links of what the tenant saved.
func (w *world) savedURLs(tenant uuid.UUID) []string {
	w.t.Helper()
	page, err := w.core.App().Collections(context.Background(), tenant, 100, "")
	require.NoError(w.t, err)
	var out []string
	for _, c := range page.Items {
		out = append(out, c.SourceURL)
	}
	return out
}

// A post pushed by a watched channel is archived at once for both
// watchers, once each, and the next pull neither captures it again nor
// delivers it again; posts of a channel no one watches, and of a private
// channel, leave nothing.
func TestAPushedPostIsArchivedOnceForEveryWatcher(t *testing.T) {
	t.Parallel()
	w, tenants := watchPushWorld(t)
	post := w.tme.GrowChannel("harbour_news", 1)[0] // https://t.me/harbour_news/4
	other := w.tme.GrowChannel("elsewhere_news", 1)[0]
	listing := w.tme.Hits("/s/harbour_news")

	w.bot.PushChannelPost(unwatched, testkit.ChannelPost{MessageID: 4, Text: "Synthetic post 4"})
	w.bot.PushChannelPost(private, testkit.ChannelPost{MessageID: 4, Text: "secret"})
	w.bot.PushChannelPost(harbour, testkit.ChannelPost{MessageID: 4, Text: "Synthetic post 4"})
	for _, p := range []testkit.BotUser{alice, bob} {
		require.Eventually(t, func() bool { return len(w.results(p.ID)) == 1 }, 60*time.Second, 20*time.Millisecond,
			"the pushed post delivered to %s", p.FirstName)
	}
	for _, tenant := range tenants {
		require.Equal(t, []string{post}, w.savedURLs(tenant))
	}
	embeds := w.tme.Hits("/harbour_news/4")
	require.Positive(t, embeds, "the pushed post was fetched")
	require.Equal(t, listing, w.tme.Hits("/s/harbour_news"), "a push reads no channel page")
	require.Zero(t, w.tme.Hits(strings.TrimPrefix(other, "https://t.me")), "a channel no one watches is not read")
	require.Zero(t, w.tme.Hits("/s/elsewhere_news"))

	// The pull reads the page that lists the post, and leaves it.
	w.runWatches(16 * time.Minute)
	require.Greater(t, w.tme.Hits("/s/harbour_news"), listing, "the pull ran")
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, embeds, w.tme.Hits("/harbour_news/4"), "the pull did not fetch the pushed post again")
	for _, p := range []testkit.BotUser{alice, bob} {
		require.Len(t, w.results(p.ID), 1, "nothing delivered twice to %s", p.FirstName)
	}
	for _, tenant := range tenants {
		require.Equal(t, []string{post}, w.savedURLs(tenant))
	}
	ws, err := w.core.App().AdminWatches(context.Background(), "", 10)
	require.NoError(t, err)
	require.Len(t, ws, 2)
	for _, v := range ws {
		require.Equal(t, 1, v.NewPosts, "one post for each watcher")
	}
	// A post the pull finds that did not come by push is still archived.
	next := w.tme.GrowChannel("harbour_news", 1)[0]
	w.runWatches(16 * time.Minute)
	for _, v := range ws {
		runs, err := w.core.App().WatchRuns(context.Background(), *v.TenantID, v.ID, 1)
		require.NoError(t, err)
		require.Len(t, runs, 1)
		require.Len(t, runs[0].Posts, 1, "the pull's run: %+v", runs[0])
		require.Equal(t, next, runs[0].Posts[0].URL)
		w.core.WaitEnded(t, runs[0].Posts[0].CaptureID)
		c, err := w.core.App().Capture(context.Background(), *v.TenantID, runs[0].Posts[0].CaptureID)
		require.NoError(t, err)
		require.Equal(t, app.StateComplete, c.State, c.Error)
	}
	for _, tenant := range tenants {
		require.Equal(t, []string{next, post}, w.savedURLs(tenant))
	}
}

// An album pushed part by part (three photos sharing a media_group_id)
// becomes one post: one collection, under the album's first message, with
// its three photos.
func TestAPushedAlbumIsOneCollection(t *testing.T) {
	t.Parallel()
	w, tenants := watchPushWorld(t)
	parts := w.tme.GrowChannelAlbum("harbour_news", 3) // messages 4, 5, 6
	for i := range parts {
		w.bot.PushChannelPost(harbour, testkit.ChannelPost{MessageID: int64(4 + i), Photo: true, MediaGroupID: "13960000001",
			Caption: map[bool]string{true: "Synthetic album"}[i == 0]})
		time.Sleep(200 * time.Millisecond) // parts arrive apart, within the quiet time
	}
	require.Eventually(t, func() bool { return len(w.results(alice.ID)) == 1 }, 60*time.Second, 20*time.Millisecond,
		"the album delivered")
	for _, tenant := range tenants {
		require.Eventually(t, func() bool { return len(w.savedURLs(tenant)) == 1 }, 60*time.Second, 20*time.Millisecond)
		page, err := w.core.App().Collections(context.Background(), tenant, 100, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1, "one collection for the album")
		require.Equal(t, parts[0], page.Items[0].SourceURL)
		var c app.CollectionView
		require.Eventually(t, func() bool {
			c, err = w.core.App().Collection(context.Background(), tenant, page.Items[0].ID)
			require.NoError(t, err)
			return len(c.Media) == 3
		}, 60*time.Second, 20*time.Millisecond, "the album's three photos")
		for _, m := range c.Media {
			require.Equal(t, "image", m.Kind)
		}
	}
	time.Sleep(2 * app.WatchPushQuiet) // the other parts' jobs end with nothing to do
	require.Len(t, w.results(alice.ID), 1)
	require.Len(t, w.results(bob.ID), 1)
}
