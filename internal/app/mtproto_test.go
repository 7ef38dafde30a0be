package app_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// Telegram through a tenant's session (issue 23) end to end: the real
// Telegram adapter's mtproto provider talks to gotd's MTProto test server
// (testkit.Telegram), core streams its media through ReadMedia into the
// blob store.

const tgPrivateURL = "https://t.me/c/1234567890/42"

// tgSessionCore is a core whose Telegram adapter reaches the fake
// Telegram, where the account is a member of a private channel with an
// album of a photo and a video (messages 41 and 42).
func tgSessionCore(t *testing.T, fn func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte)) {
	t.Helper()
	// Like testcore.Each, with a fake Telegram of each core's own.
	for _, db := range storetest.Drivers() {
		t.Run(db, func(t *testing.T) {
			fake := testkit.NewTelegram(t)
			session := fake.Session(t)
			ch := &tg.Channel{ID: 1234567890, AccessHash: 4242, Title: "Spore Private", Broadcast: true}
			fake.AddChannel(ch)
			ph, vid := fake.AddFile(9001, 300_000), fake.AddFile(9002, 2_000_000)
			fake.AddMessage(ch.ID, &tg.Message{ID: 41, GroupedID: 7, Message: "harbour notes", Media: &tg.MessageMediaPhoto{Photo: &tg.Photo{
				ID: 9001, AccessHash: 1, FileReference: ph.Ref, DCID: 2, Sizes: []tg.PhotoSizeClass{&tg.PhotoSize{Type: "y", W: 1280, H: 720}}}}})
			fake.AddMessage(ch.ID, &tg.Message{ID: 42, GroupedID: 7, Media: &tg.MessageMediaDocument{Document: &tg.Document{
				ID: 9002, AccessHash: 2, FileReference: vid.Ref, DCID: 2, Size: 2_000_000, MimeType: "video/mp4",
				Attributes: []tg.DocumentAttributeClass{&tg.DocumentAttributeVideo{W: 640, H: 360, Duration: 3}}}}})
			c := testcore.New(t, testcore.Options{DB: db, MasterKey: accountsMasterKey, TelegramMTProto: &telegram.MTProto{
				AppID: 1, AppHash: "test-hash", DCList: fake.DCList(), Resolver: fake.Resolver(), PublicKeys: fake.PublicKeys()}})
			fn(t, c, fake, session)
		})
	}
}

func addTelegramAccount(t *testing.T, c *testcore.Core, tenant uuid.UUID, session []byte) app.ConnectionView {
	t.Helper()
	res, err := c.App.AddConnection(context.Background(), app.AddConnectionRequest{TenantID: tenant, Adapter: "telegram",
		Secret: session, Actor: "test"})
	require.NoError(t, err)
	return res.Connection
}

// A private channel's album archived through Alice's session: private to
// her, both media streamed whole; Bob without an account is told he needs
// one and never sees Alice's copy.
func TestMTProtoCapturePrivateAlbum(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		conn := addTelegramAccount(t, c, alice, session)
		require.Equal(t, "mtproto", conn.Provider)
		require.Equal(t, "5001", conn.AccountID)
		require.Equal(t, "spore_reader", conn.Handle)

		res, v := captureWith(t, c, alice, tgPrivateURL, conn.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		require.Equal(t, "mtproto", v.Provider)
		coll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", coll.Visibility)
		require.Equal(t, "harbour notes", coll.Text)
		// Core moves only public collections to an album's identity (its
		// first message); a private one stays under the link asked for.
		require.Equal(t, tgPrivateURL, coll.SourceURL)
		require.Len(t, coll.Media, 2)
		require.Equal(t, testkit.FakeFileSHA256(9001, 300_000), coll.Media[0].SHA256)
		require.Equal(t, "image", coll.Media[0].Kind)
		require.Equal(t, testkit.FakeFileSHA256(9002, 2_000_000), coll.Media[1].SHA256)
		require.Equal(t, int64(2_000_000), coll.Media[1].Size)
		require.Equal(t, "video/mp4", coll.Media[1].Mime)

		// Again: core hands back the channel's access hash it kept for the
		// connection, so the account's chat list is not read again.
		require.Equal(t, 1, fake.Calls(tg.MessagesGetDialogsRequestTypeID))
		again, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tgPrivateURL, ConnectionID: conn.ID, Refresh: true})
		require.NoError(t, err)
		require.Equal(t, app.StateComplete, c.WaitCapture(t, alice, again.CaptureID).State)
		require.Equal(t, 1, fake.Calls(tg.MessagesGetDialogsRequestTypeID))
		require.Equal(t, 1, fake.Calls(tg.ChannelsGetChannelsRequestTypeID))

		// Bob has no Telegram account: the link needs one, at once.
		_, err = c.App.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: tgPrivateURL})
		require.Error(t, err)
		require.Contains(t, err.Error(), "needs a Telegram account connection")
		_, err = c.App.Collection(ctx, bob, res.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound, "Alice's copy stays hers")
	})
}

// The same public post through the web preview and through a session is
// one public collection; a post of that channel that protects its
// content, or the channel named by its internal id, stays private.
func TestMTProtoPublicPostJoinsThePublicCollection(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		open := &tg.Channel{ID: 3003, AccessHash: 31, Title: "Tidewatch", Username: "tidewatch_demo", Broadcast: true}
		fake.AddChannel(open)
		fake.AddMessage(open.ID, &tg.Message{ID: 140, Message: "forwarded note"})
		fake.AddMessage(open.ID, &tg.Message{ID: 141, Message: "members only", Noforwards: true})
		pub := app.PublicCollectionID("telegram", "telegram.message", "tidewatch_demo", "tidewatch_demo/140")

		_, av := c.Capture(t, alice, "https://t.me/tidewatch_demo/140")
		require.Equal(t, app.StateComplete, av.State, av.Error)
		require.Equal(t, pub, av.CollectionID, "the preview provider's public collection")

		conn := addTelegramAccount(t, c, bob, session)
		_, bv := captureWith(t, c, bob, "https://t.me/tidewatch_demo/140", conn.ID)
		require.Equal(t, app.StateComplete, bv.State, bv.Error)
		require.Equal(t, "mtproto", bv.Provider)
		require.Equal(t, pub, bv.CollectionID, "the session's capture joined the same public collection")

		res, pv := captureWith(t, c, bob, "https://t.me/tidewatch_demo/141", conn.ID)
		require.Equal(t, app.StateComplete, pv.State, pv.Error)
		coll, err := c.App.Collection(ctx, bob, pv.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", coll.Visibility, "protected content stays the tenant's")
		_, err = c.App.Collection(ctx, alice, res.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound)

		_, iv := captureWith(t, c, bob, "https://t.me/c/3003/140", conn.ID)
		require.Equal(t, app.StateComplete, iv.State, iv.Error)
		require.NotEqual(t, pub, iv.CollectionID, "a post read by the channel's internal id stays private")
	})
}

// Telegram refusing the session (AUTH_KEY_UNREGISTERED) marks the
// connection reauth_required and fails the capture without retries.
func TestMTProtoCaptureSessionRefused(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		conn := addTelegramAccount(t, c, alice, session)
		fake.Fail(tg.ChannelsGetMessagesRequestTypeID, testkit.ErrAuthKeyUnregistered)
		_, v := captureWith(t, c, alice, tgPrivateURL, conn.ID)
		require.Equal(t, app.StateFailed, v.State)
		require.Contains(t, v.Error, "AUTH_KEY_UNREGISTERED")
		after, err := c.App.Connection(ctx, alice, conn.ID)
		require.NoError(t, err)
		require.Equal(t, "reauth_required", after.Status)
		require.Equal(t, 1, fake.Calls(tg.ChannelsGetMessagesRequestTypeID), "no retry storm")
	})
}

// FLOOD_WAIT_3 is honoured: the capture waits 3 seconds, then reads.
func TestMTProtoCaptureFloodWait(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		alice := c.Tenant(t, "alice", nil)
		conn := addTelegramAccount(t, c, alice, session)
		fake.Fail(tg.ChannelsGetMessagesRequestTypeID, testkit.ErrFloodWait3)
		start := time.Now()
		_, v := captureWith(t, c, alice, tgPrivateURL, conn.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		require.GreaterOrEqual(t, time.Since(start), 3*time.Second, "waited as Telegram asked")
		require.Equal(t, 2, fake.Calls(tg.ChannelsGetMessagesRequestTypeID))
	})
}

// A 50 MiB document is captured in parts through ReadMedia into the blob
// store; the heap in use stays far below the file's size.
func TestMTProtoCaptureBigDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MiB capture")
	}
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		const size = 50 << 20
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		conn := addTelegramAccount(t, c, alice, session)
		f := fake.AddFile(9300, size)
		fake.AddMessage(1234567890, &tg.Message{ID: 60, Message: "the dump", Media: &tg.MessageMediaDocument{Document: &tg.Document{
			ID: 9300, AccessHash: 3, FileReference: f.Ref, DCID: 2, Size: size, MimeType: "application/zip",
			Attributes: []tg.DocumentAttributeClass{&tg.DocumentAttributeFilename{FileName: "dump.zip"}}}}})

		mem := watchMemory()
		start := time.Now()
		res, v := captureWith(t, c, alice, "https://t.me/c/1234567890/60", conn.ID)
		elapsed := time.Since(start)
		heap, rss, rssGrowth := mem.stop()
		require.Equal(t, app.StateComplete, v.State, v.Error)
		coll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, coll.Media, 1)
		require.Equal(t, int64(size), coll.Media[0].Size)
		require.Equal(t, testkit.FakeFileSHA256(9300, size), coll.Media[0].SHA256)
		t.Logf("50 MiB document captured in %s (%.1f MiB/s); heap in use peaked %.1f MiB above the start; "+
			"peak RSS of the whole test process %.1f MiB, %.1f MiB above its start",
			elapsed, float64(size)/(1<<20)/elapsed.Seconds(), float64(heap)/(1<<20), float64(rss)/(1<<20), float64(rssGrowth)/(1<<20))
		require.Less(t, heap, int64(32<<20), "the file was never whole in memory")
		require.Less(t, rssGrowth, int64(64<<20), "the capture's memory stays under 64 MiB")
	})
}

// memoryWatch samples the heap in use while a test runs and reads the
// process's peak RSS (VmHWM, reset at the start where Linux allows).
type memoryWatch struct {
	base    uint64
	baseRSS int64
	peak    atomic.Uint64
	stopped chan struct{}
	done    chan struct{}
}

func watchMemory() *memoryWatch {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// "5" resets the peak RSS of the process (Linux 4.0 and later).
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	w := &memoryWatch{base: m.HeapInuse, baseRSS: procStatus("VmRSS:"), stopped: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > w.peak.Load() {
				w.peak.Store(m.HeapInuse)
			}
			select {
			case <-w.stopped:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

// stop ends the watch: how far the heap in use rose above the start, the
// peak RSS, and how far it rose above the RSS at the start (0 where /proc
// does not tell).
func (w *memoryWatch) stop() (heapGrowth, peakRSS, rssGrowth int64) {
	close(w.stopped)
	<-w.done
	peakRSS = procStatus("VmHWM:")
	return int64(w.peak.Load()) - int64(w.base), peakRSS, max(peakRSS-w.baseRSS, 0)
}

// procStatus reads a size of /proc/self/status in bytes (0: unknown).
func procStatus(key string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkMTProtoDownload captures one document of
// MONITOR_BENCH_MTPROTO_SIZE bytes (default 200 MiB) through a Telegram
// session into the blob store, on SQLite: throughput and peak memory
// (scripts/bench-mtproto).
func BenchmarkMTProtoDownload(b *testing.B) {
	size := int64(200 << 20)
	if v := os.Getenv("MONITOR_BENCH_MTPROTO_SIZE"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(b, err)
		size = n
	}
	fake := testkit.NewTelegram(b)
	session := fake.Session(b)
	ch := &tg.Channel{ID: 1234567890, AccessHash: 4242, Title: "Bench", Broadcast: true}
	fake.AddChannel(ch)
	limits := testcore.TestLimits()
	limits.MaxMediaBytes = size + 1
	c := testcore.New(b, testcore.Options{MasterKey: accountsMasterKey, Limits: limits, TelegramMTProto: &telegram.MTProto{
		AppID: 1, AppHash: "test-hash", DCList: fake.DCList(), Resolver: fake.Resolver(), PublicKeys: fake.PublicKeys()}})
	tenant := c.Tenant(b, "bench", nil)
	res, err := c.App.AddConnection(context.Background(), app.AddConnectionRequest{TenantID: tenant, Adapter: "telegram", Secret: session, Actor: "test"})
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := int64(9500 + i)
		f := fake.AddFile(id, size)
		fake.AddMessage(ch.ID, &tg.Message{ID: 100 + i, Media: &tg.MessageMediaDocument{Document: &tg.Document{
			ID: id, AccessHash: 3, FileReference: f.Ref, DCID: 2, Size: size, MimeType: "application/octet-stream"}}})
		mem := watchMemory()
		b.StartTimer()
		start := time.Now()
		sub, err := c.App.Submit(context.Background(), app.SubmitRequest{TenantID: tenant, URL: "https://t.me/c/1234567890/" + strconv.Itoa(100+i),
			ConnectionID: res.Connection.ID})
		require.NoError(b, err)
		v := c.WaitCapture(b, tenant, sub.CaptureID)
		elapsed := time.Since(start)
		b.StopTimer()
		heap, rss, rssGrowth := mem.stop()
		require.Equal(b, app.StateComplete, v.State, v.Error)
		b.ReportMetric(float64(size)/(1<<20)/elapsed.Seconds(), "MiB/s")
		b.ReportMetric(float64(heap)/(1<<20), "heap-growth-MiB")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(rssGrowth)/(1<<20), "RSS-growth-MiB")
		b.StartTimer()
	}
}

// A private channel's link through Alice's session archives the channel
// page by page (messages.getHistory, pages of 2 posts chained by a
// batch): five posts, one of them the album 41-42, each captured through
// the same account into Alice's private copies; Bob sees none of them.
func TestMTProtoPrivateChannelPages(t *testing.T) {
	t.Parallel()
	for _, db := range storetest.Drivers() {
		t.Run(db, func(t *testing.T) {
			ctx := context.Background()
			fake := testkit.NewTelegram(t)
			session := fake.Session(t)
			ch := &tg.Channel{ID: 1234567890, AccessHash: 4242, Title: "Spore Private", Broadcast: true}
			fake.AddChannel(ch)
			ph, vid := fake.AddFile(9001, 3_000), fake.AddFile(9002, 20_000)
			fake.AddMessage(ch.ID, &tg.Message{ID: 40, Message: "the first tide"})
			fake.AddMessage(ch.ID, &tg.Message{ID: 41, GroupedID: 7, Message: "harbour notes", Media: &tg.MessageMediaPhoto{Photo: &tg.Photo{
				ID: 9001, AccessHash: 1, FileReference: ph.Ref, DCID: 2, Sizes: []tg.PhotoSizeClass{&tg.PhotoSize{Type: "y", W: 1280, H: 720}}}}})
			fake.AddMessage(ch.ID, &tg.Message{ID: 42, GroupedID: 7, Media: &tg.MessageMediaDocument{Document: &tg.Document{
				ID: 9002, AccessHash: 2, FileReference: vid.Ref, DCID: 2, Size: 20_000, MimeType: "video/mp4",
				Attributes: []tg.DocumentAttributeClass{&tg.DocumentAttributeVideo{W: 640, H: 360, Duration: 3}}}}})
			for id := 43; id <= 45; id++ {
				fake.AddMessage(ch.ID, &tg.Message{ID: id, Message: "tide " + strconv.Itoa(id)})
			}
			limits := testcore.TestLimits()
			limits.PageSize, limits.TenantCaptures = 2, 8
			c := testcore.New(t, testcore.Options{DB: db, MasterKey: accountsMasterKey, Limits: limits, TelegramMTProto: &telegram.MTProto{
				AppID: 1, AppHash: "test-hash", DCList: fake.DCList(), Resolver: fake.Resolver(), PublicKeys: fake.PublicKeys()}})
			alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
			conn := addTelegramAccount(t, c, alice, session)

			res, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: "https://t.me/c/1234567890", ConnectionID: conn.ID, Limit: 10})
			require.NoError(t, err)
			sub := waitSubmission(t, c.App, alice, res.SubmissionID)
			require.Equal(t, app.StateComplete, sub.State, sub.Error)
			require.Equal(t, "channel", sub.Kind)
			require.Equal(t, app.SubmissionProgress{Total: 5, Complete: 5}, sub.Progress)
			require.False(t, sub.HasMore)
			require.GreaterOrEqual(t, len(fake.HistoryOffsets()), 3, "pages of 2 posts: at least three reads")

			header, err := c.App.Collection(ctx, alice, sub.CollectionID)
			require.NoError(t, err)
			require.Equal(t, "telegram.channel", header.EntityType)
			require.Equal(t, "private", header.Visibility)
			require.Equal(t, "Spore Private", header.AuthorName)

			var members []app.CollectionView
			for cursor := ""; ; {
				page, err := c.App.Members(ctx, alice, sub.CollectionID, 100, cursor)
				require.NoError(t, err)
				members = append(members, page.Items...)
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			urls := map[string]app.CollectionView{}
			for _, m := range members {
				require.Equal(t, "private", m.Visibility, m.SourceURL)
				require.Equal(t, "telegram.message", m.EntityType)
				urls[m.SourceURL] = m
			}
			require.Len(t, urls, 5)
			for _, id := range []int{40, 41, 43, 44, 45} {
				require.Contains(t, urls, "https://t.me/c/1234567890/"+strconv.Itoa(id))
			}
			album := urls["https://t.me/c/1234567890/41"]
			require.Equal(t, "harbour notes", album.Text)
			full, err := c.App.Collection(ctx, alice, album.ID)
			require.NoError(t, err)
			require.Len(t, full.Media, 2, "the album whole")
			require.Equal(t, testkit.FakeFileSHA256(9002, 20_000), full.Media[1].SHA256)
			require.Equal(t, 1, fake.Calls(tg.MessagesGetDialogsRequestTypeID), "the channel's access hash is kept for its pages and posts")

			// Bob sees neither the channel nor its posts, and needs an
			// account of his own.
			_, err = c.App.Collection(ctx, bob, sub.CollectionID)
			require.ErrorIs(t, err, app.ErrNotFound)
			for _, m := range members {
				_, err := c.App.Collection(ctx, bob, m.ID)
				require.ErrorIs(t, err, app.ErrNotFound, m.SourceURL)
			}
			_, err = c.App.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: "https://t.me/c/1234567890"})
			require.ErrorContains(t, err, "needs a Telegram account connection")
		})
	}
}

// A public channel's link through a session pages the same way: its open
// post joins the post's public collection, the one that protects its
// content stays the tenant's.
func TestMTProtoPublicChannelPages(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		open := &tg.Channel{ID: 3003, AccessHash: 31, Title: "Tidewatch", Username: "tidewatch_demo", Broadcast: true}
		fake.AddChannel(open)
		fake.AddMessage(open.ID, &tg.Message{ID: 140, Message: "forwarded note"})
		fake.AddMessage(open.ID, &tg.Message{ID: 141, Message: "members only", Noforwards: true})
		conn := addTelegramAccount(t, c, bob, session)

		res, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: "https://t.me/tidewatch_demo", ConnectionID: conn.ID, Limit: 10})
		require.NoError(t, err)
		sub := waitSubmission(t, c.App, bob, res.SubmissionID)
		require.Equal(t, app.StateComplete, sub.State, sub.Error)
		require.Equal(t, app.SubmissionProgress{Total: 2, Complete: 2}, sub.Progress)
		page, err := c.App.Members(ctx, bob, sub.CollectionID, 10, "")
		require.NoError(t, err)
		vis := map[string]string{}
		for _, m := range page.Items {
			vis[m.SourceURL] = m.Visibility
			switch m.SourceURL {
			case "https://t.me/tidewatch_demo/140":
				require.Equal(t, app.PublicCollectionID("telegram", "telegram.message", "tidewatch_demo", "tidewatch_demo/140"), m.ID)
			case "https://t.me/tidewatch_demo/141":
				_, err := c.App.Collection(ctx, alice, m.ID)
				require.ErrorIs(t, err, app.ErrNotFound, "the protected post is Bob's")
			}
		}
		require.Equal(t, map[string]string{"https://t.me/tidewatch_demo/140": "public", "https://t.me/tidewatch_demo/141": "private"}, vis)
	})
}
