package tgchannel_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/runtime"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/tgchannel"
)

// Fixture posts of the fake FxTwitter (internal/testkit/testdata/fxtwitter/routes.json).
const (
	photosPost = "https://x.com/archivist_demo/status/2078399740166950912" // two photos
	gifPost    = "https://x.com/archivist_demo/status/2080424850067443712" // a sensitive GIF
	gonePost   = "https://x.com/archivist_demo/status/1000000000000000001" // 404
)

const (
	group  = int64(-1001234)
	secret = "test-channel-secret"
)

var (
	alice = testkit.BotUser{ID: 1001, FirstName: "Alice", Username: "alice"}
	bob   = testkit.BotUser{ID: 1002, FirstName: "Bob", Username: "bob"}
)

// world is a real core on the embedded default with the X adapter on a
// fake FxTwitter, the Telegram adapter on a fake t.me, a fake Bot API, and
// the Telegram channel between them.
type world struct {
	t    *testing.T
	core *testcore.Running
	fx   *testkit.FxTwitter
	tme  *testkit.Tme
	bot  *testkit.BotAPI
	api  *channelapi.Client
	runs atomic.Int32
	// dbPath is the core's SQLite file, which settle reads.
	dbPath string
	// uploadLimit is the channel's Config.UploadLimit (0: the fake counts
	// as a local Bot API server, which takes 2000 MB).
	uploadLimit int64
}

func newWorld(t *testing.T, opts ...runtime.Option) *world {
	t.Helper()
	return newWorldEnv(t, nil, opts...)
}

// newWorldEnv is newWorld with more of core's environment.
func newWorldEnv(t *testing.T, more map[string]string, opts ...runtime.Option) *world {
	t.Helper()
	fx, tme := testkit.NewFxTwitter(t), testkit.NewTme(t)
	env := map[string]string{
		"MONITOR_CHANNEL_ADDR":   "127.0.0.1:0",
		"MONITOR_CHANNEL_SECRET": secret,
		"MONITOR_FXTWITTER_URL":  fx.URL(),
		"MONITOR_TME_URL":        tme.URL(),
	}
	for k, v := range more {
		env[k] = v
	}
	cfg := testcore.Config(t, env)
	core := testcore.Run(t, cfg, opts...)
	require.NotEmpty(t, core.ChannelAddr())
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return &world{t: t, core: core, fx: fx, tme: tme, bot: testkit.NewBotAPI(t), dbPath: cfg.Database.Path,
		api: channelapi.NewClient("http://"+core.ChannelAddr(), secret, hc)}
}

// start runs a channel process until the returned stop is called (or the
// test ends); stop waits for Run to return.
func (w *world) start() (stop func()) {
	w.t.Helper()
	w.startTickDone()
	return w.startWith(nil, nil)
}

// startTickDone waits until the watch tick the core's queue runs when it
// starts has ended; the next comes a minute later. A test then makes its
// watches and ticks them itself (runWatches): a queue tick running a
// shared source while the second watch of it was being made would leave
// that watch out of the run and the source not due again.
func (w *world) startTickDone() {
	w.t.Helper()
	w.untilDB("the queue's first watch tick", func(db *sql.DB) bool {
		var done, pending int
		require.NoError(w.t, db.QueryRow(`SELECT count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state IN ('available', 'pending', 'running', 'retryable', 'scheduled'))
			FROM river_job WHERE kind = 'watch_tick'`).Scan(&done, &pending))
		return done > 0 && pending == 0
	})
}

// startWith is start with the Bot API client hc (nil: a new one) and the
// logger log (nil: discarded).
func (w *world) startWith(hc *http.Client, log *slog.Logger) (stop func()) {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	n := w.runs.Add(1)
	go func() {
		done <- tgchannel.Run(ctx, tgchannel.Config{
			Token: w.bot.Token(), APIURL: w.bot.URL(), Core: w.api, HTTPClient: hc,
			Log: log, Owner: "test-run-" + string(rune('0'+n)), UploadLimit: w.uploadLimit,
		})
	}()
	var stopped atomic.Bool
	stop = func() {
		if stopped.Swap(true) {
			return
		}
		cancel()
		select {
		case err := <-done:
			require.NoError(w.t, err)
		case <-time.After(30 * time.Second):
			w.t.Fatal("the channel did not stop")
		}
	}
	w.t.Cleanup(stop)
	return stop
}

// waitCall waits for a recorded call that matches and returns it.
func (w *world) waitCall(what string, match func(testkit.BotCall) bool) testkit.BotCall {
	w.t.Helper()
	return w.waitCallWithin(what, 60*time.Second, match)
}

// waitCallWithin is waitCall with a deadline.
func (w *world) waitCallWithin(what string, within time.Duration, match func(testkit.BotCall) bool) testkit.BotCall {
	w.t.Helper()
	var found testkit.BotCall
	require.Eventually(w.t, func() bool {
		for _, c := range w.bot.Calls() {
			if match(c) {
				found = c
				return true
			}
		}
		return false
	}, within, 20*time.Millisecond, "waiting for %s", what)
	return found
}

// calls returns the successful calls of a method to a chat.
func (w *world) calls(chat int64, method string) []testkit.BotCall {
	var out []testkit.BotCall
	for _, c := range w.bot.ChatCalls(chat) {
		if c.Method == method && c.OK() {
			out = append(out, c)
		}
	}
	return out
}

// result waits for the delivered result text (the message with the id
// line) in a chat.
func (w *world) result(chat int64) testkit.BotCall {
	w.t.Helper()
	return w.resultWithin(chat, 60*time.Second)
}

// resultWithin is result with a deadline.
func (w *world) resultWithin(chat int64, within time.Duration) testkit.BotCall {
	w.t.Helper()
	return w.waitCallWithin("the result text", within, func(c testkit.BotCall) bool {
		return c.ChatID == chat && c.OK() && c.Method != "editMessageText" && strings.Contains(c.Text, "🆔 ")
	})
}

// reply waits for a successful sendMessage to chat after n earlier ones.
func (w *world) nthMessage(chat int64, n int, what string) testkit.BotCall {
	w.t.Helper()
	var found testkit.BotCall
	require.Eventually(w.t, func() bool {
		sent := w.calls(chat, "sendMessage")
		if len(sent) > n {
			found = sent[n]
			return true
		}
		return false
	}, 60*time.Second, 20*time.Millisecond, "waiting for %s", what)
	return found
}

// idOf reads the collection id from a result text.
func idOf(t *testing.T, text string) string {
	t.Helper()
	_, after, ok := strings.Cut(text, "🆔 ")
	require.True(t, ok, text)
	return strings.Fields(after)[0]
}

func TestPhotoPostArrivesAsOneAlbumThenTextWithButtons(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	in := w.bot.PushPrivateMessage(alice, photosPost)

	res := w.result(alice.ID)
	albums := w.calls(alice.ID, "sendMediaGroup")
	require.Len(t, albums, 1, "one album")
	require.Len(t, albums[0].Media, 2)
	for _, m := range albums[0].Media {
		require.Equal(t, "photo", m.Kind)
		require.True(t, m.Uploaded)
		require.Equal(t, int64(testkit.DefaultMediaSize), m.Size)
		require.False(t, m.HasSpoiler)
	}
	require.True(t, albums[0].At.Before(res.At), "media first, then the text")
	require.Contains(t, res.Text, "Two frames from this morning's walk")
	require.Contains(t, res.Text, "🕒 ")
	orig, ok := res.Button("Original")
	require.True(t, ok)
	require.Equal(t, photosPost, orig.URL)
	_, ok = res.Button("Save too")
	require.False(t, ok, "no save-too in a private chat")

	// The status message came first, then went away; nothing replies in a
	// private chat.
	status := w.calls(alice.ID, "sendMessage")[0]
	require.Equal(t, "⏳ Archiving "+photosPost+"…", status.Text)
	w.waitCall("the status message deleted", func(c testkit.BotCall) bool {
		return c.Method == "deleteMessage" && c.OK() && c.MessageID == status.Result[0]
	})
	for _, c := range w.bot.ChatCalls(alice.ID) {
		require.Zero(t, c.ReplyTo, c.Method)
	}
	require.Less(t, in.MessageID, status.Result[0])

	// The menu came from the registry.
	var names []string
	for _, c := range w.bot.Commands() {
		names = append(names, c.Command)
	}
	require.Equal(t, []string{"start", "help", "list", "search", "get", "delete", "watch", "watches", "unwatch", "bind", "channels", "unbind", "account_add", "accounts", "account_remove", "join", "cancel", "download", "pin", "usage", "token", "web"}, names)
	zh := w.bot.CommandsFor("zh")
	require.Len(t, zh, len(names), "the menu in Chinese for Chinese clients")
	require.Equal(t, "list", zh[2].Command)
	require.Equal(t, "你的收藏，最新的在前，每页 10 条", zh[2].Description)
	require.Equal(t, "your archive, newest first, 10 a page", w.bot.Commands()[2].Description)

	// Sent by someone else, the same media goes by file_id, not uploaded
	// again.
	w.bot.PushPrivateMessage(bob, photosPost)
	w.result(bob.ID)
	again := w.calls(bob.ID, "sendMediaGroup")[0]
	for i, m := range again.Media {
		require.False(t, m.Uploaded, "media %d re-sent by file_id", i)
		require.NotEmpty(t, m.FileID)
		require.Equal(t, albums[0].Media[i].SHA256, m.SHA256)
	}
}

// Two links in one message: each gets its own status message, capture and
// delivery; the second waits for the account's interval between links
// (10 s for self-service accounts) instead of being refused.
func TestTwoLinksInOneMessageAreBothDelivered(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bot.PushPrivateMessage(alice, photosPost+"\nand "+gifPost)

	w.waitCall("the second link queued by the account's interval", func(c testkit.BotCall) bool {
		return c.Method == "editMessageText" && c.OK() && strings.Contains(c.Text, gifPost) && strings.Contains(c.Text, "queued")
	})
	w.waitCall("the animation", func(c testkit.BotCall) bool { return c.Method == "sendAnimation" && c.OK() })
	w.waitCall("the album's text", func(c testkit.BotCall) bool {
		return c.Method == "sendMessage" && c.OK() && strings.Contains(c.Text, "Two frames from this morning's walk")
	})
	require.Len(t, w.calls(alice.ID, "sendMediaGroup"), 1)
	var statuses []string
	for _, c := range w.calls(alice.ID, "sendMessage") {
		if strings.HasPrefix(c.Text, "⏳ ") {
			statuses = append(statuses, c.Text)
		}
	}
	require.Equal(t, []string{"⏳ Archiving " + photosPost + "…", "⏳ Archiving " + gifPost + "…"}, statuses)
}

func TestSensitiveGIFIsSentWithASpoiler(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bot.PushPrivateMessage(alice, gifPost)

	anim := w.waitCall("the animation", func(c testkit.BotCall) bool { return c.Method == "sendAnimation" && c.OK() })
	require.Equal(t, alice.ID, anim.ChatID)
	require.True(t, anim.HasSpoiler())
	require.Contains(t, anim.Text, "Night shift at the dry dock", "one media carries the text as its caption")
	_, ok := anim.Button("Original")
	require.True(t, ok, "the buttons ride on the single media")
	require.Empty(t, w.calls(alice.ID, "sendMediaGroup"))
}

func TestGroupsAnswerOnlyWhenAddressedAndAlwaysAsReplies(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()

	ignored := []testkit.PushedMessage{
		w.bot.PushGroupMessage(group, alice, photosPost),
		w.bot.PushGroupMessage(group, alice, "/list"),
		w.bot.PushGroupMessage(group, alice, "@someone_else "+photosPost),
	}
	last := ignored[len(ignored)-1]
	require.Eventually(t, func() bool { return w.bot.Offset() > last.UpdateID }, 30*time.Second, 20*time.Millisecond,
		"the ignored updates are confirmed all the same")

	in := w.bot.PushGroupMessage(group, alice, "@monitor_test_bot "+photosPost)
	res := w.result(group)
	_, ok := res.Button("Save too")
	require.True(t, ok, "save-too on a public result in a group")
	// Nothing answered the ignored messages: every call to the group
	// replies to the addressed one (edits and deletes quote nothing).
	for _, c := range w.bot.ChatCalls(group) {
		switch c.Method {
		case "sendMessage", "sendMediaGroup", "sendPhoto", "sendVideo", "sendAnimation", "sendDocument":
			require.Equal(t, in.MessageID, c.ReplyTo, "%s %q", c.Method, c.Text)
		}
	}
	require.Len(t, w.calls(group, "sendMediaGroup"), 1)

	// A command addressed to the bot, in a caption too.
	cmd := w.bot.PushGroupMessage(group, alice, "/usage@monitor_test_bot")
	usage := w.waitCall("the usage answer", func(c testkit.BotCall) bool {
		return c.ChatID == group && c.Method == "sendMessage" && strings.Contains(c.Text, "💾 Storage")
	})
	require.Equal(t, cmd.MessageID, usage.ReplyTo)
	capt := w.bot.PushCaptionMessage(group, alice, "what about this @monitor_test_bot")
	hint := w.waitCall("the answer to the caption", func(c testkit.BotCall) bool {
		return c.ChatID == group && c.Method == "sendMessage" && strings.Contains(c.Text, "Send me a link")
	})
	require.Equal(t, capt.MessageID, hint.ReplyTo)

	// /token stays out of groups.
	w.bot.PushGroupMessage(group, alice, "/token@monitor_test_bot")
	w.waitCall("the /token refusal", func(c testkit.BotCall) bool {
		return c.ChatID == group && strings.Contains(c.Text, "only in a private chat")
	})
}

func TestDeliveryKilledMidwayResumesWithoutResendingMedia(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// Hold the result text, which comes after the album.
	held := w.bot.Block("sendMessage", func(c testkit.BotCall) bool { return strings.Contains(c.Text, "🆔 ") })
	stop := w.start()
	w.bot.PushPrivateMessage(alice, photosPost)
	select {
	case <-held.Arrived():
	case <-time.After(60 * time.Second):
		t.Fatal("the delivery never reached its text")
	}
	require.Len(t, w.calls(alice.ID, "sendMediaGroup"), 1)

	stop() // the process goes away mid-call: the held text never lands
	w.waitCall("the abandoned text", func(c testkit.BotCall) bool {
		return c.Method == "sendMessage" && strings.Contains(c.Error, "went away")
	})
	held.Release()
	require.Empty(t, w.calls(alice.ID, "sendMessage")[1:], "only the status message is out")

	w.start()
	res := w.result(alice.ID)
	require.Contains(t, res.Text, "Two frames")
	w.waitCall("the status message deleted", func(c testkit.BotCall) bool { return c.Method == "deleteMessage" && c.OK() })
	require.Len(t, w.calls(alice.ID, "sendMediaGroup"), 1, "no media sent twice")
	var texts int
	for _, c := range w.calls(alice.ID, "sendMessage") {
		if strings.Contains(c.Text, "🆔 ") {
			texts++
		}
	}
	require.Equal(t, 1, texts, "the text delivered once")
}

func TestRateLimitedAlbumIsRetriedAfterRetryAfter(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.bot.RateLimitNext("sendMediaGroup", 2)
	w.start()
	w.bot.PushPrivateMessage(alice, photosPost)
	w.result(alice.ID)

	var albums []testkit.BotCall
	for _, c := range w.bot.ChatCalls(alice.ID) {
		if c.Method == "sendMediaGroup" {
			albums = append(albums, c)
		}
	}
	require.Len(t, albums, 2)
	require.Equal(t, http.StatusTooManyRequests, albums[0].Status)
	require.True(t, albums[1].OK())
	require.GreaterOrEqual(t, albums[1].At.Sub(albums[0].At), 2*time.Second, "waited retry_after")
	require.True(t, albums[1].Media[0].Uploaded, "a 429 does not poison the cache")
}

func TestRefusedPhotosGoAsDocumentsAndStaleFileIDsAreDropped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.bot.RejectKind("photo", "Bad Request: IMAGE_PROCESS_FAILED")
	w.start()
	w.bot.PushPrivateMessage(alice, photosPost)
	w.result(alice.ID)
	docs := w.calls(alice.ID, "sendDocument")
	require.Len(t, docs, 2, "each photo again as a document")
	for _, d := range docs {
		require.False(t, d.HasSpoiler())
		require.True(t, d.Media[0].Uploaded)
	}
	require.Empty(t, w.calls(alice.ID, "sendMediaGroup"))

	// Telegram forgets its file ids: the cached ones are dropped and the
	// photos uploaded again.
	w.bot.RejectKind("photo", "")
	w.bot.PushPrivateMessage(bob, photosPost)
	w.result(bob.ID)
	first := w.calls(bob.ID, "sendMediaGroup")[0]
	require.True(t, first.Media[0].Uploaded, "a document's file id is cached apart from a photo's")
	w.bot.ForgetFileIDs()
	carol := testkit.BotUser{ID: 1003, FirstName: "Carol"}
	w.bot.PushPrivateMessage(carol, photosPost)
	w.result(carol.ID)
	var refused bool
	for _, c := range w.bot.ChatCalls(carol.ID) {
		if c.Method == "sendMediaGroup" && strings.Contains(c.Error, "wrong file identifier") {
			refused = true
		}
	}
	require.True(t, refused, "the stale file ids were tried first")
	again := w.calls(carol.ID, "sendMediaGroup")[0]
	for i, m := range again.Media {
		require.True(t, m.Uploaded)
		require.Equal(t, first.Media[i].SHA256, m.SHA256)
	}
}

func TestFailedCaptureShowsTheReasonWithTheLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bot.PushPrivateMessage(alice, gonePost)
	edit := w.waitCall("the failure", func(c testkit.BotCall) bool {
		return c.Method == "editMessageText" && c.OK() && strings.HasPrefix(c.Text, "❌ Could not archive "+gonePost)
	})
	status := w.calls(alice.ID, "sendMessage")[0]
	require.Equal(t, status.Result[0], edit.MessageID, "the status message becomes the reason")
	require.Greater(t, len(strings.TrimPrefix(edit.Text, "❌ Could not archive "+gonePost)), 2, "with a reason")

	w.bot.PushPrivateMessage(alice, "https://example.org/not/a/post")
	w.waitCall("the unsupported link", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && strings.HasPrefix(c.Text, "❌ Could not archive https://example.org/not/a/post\n🚫")
	})
}

func TestSaveTooListAndDelete(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bot.PushGroupMessage(group, alice, "@monitor_test_bot "+photosPost)
	res := w.result(group)
	id := idOf(t, res.Text)
	save, ok := res.Button("Save too")
	require.True(t, ok)
	require.Equal(t, "s:"+id, save.CallbackData)

	// Bob taps "save too": only a toast answers.
	before := len(w.calls(group, "sendMessage"))
	_, cb := w.bot.PushCallback(group, bob, res.Result[0], save.CallbackData)
	ans := w.waitCall("the toast", func(c testkit.BotCall) bool { return c.Method == "answerCallbackQuery" && c.CallbackQueryID == cb })
	require.True(t, ans.OK())
	require.Contains(t, ans.Text, "Saved")
	_, cb = w.bot.PushCallback(group, bob, res.Result[0], save.CallbackData)
	ans = w.waitCall("the second toast", func(c testkit.BotCall) bool { return c.Method == "answerCallbackQuery" && c.CallbackQueryID == cb })
	require.Contains(t, ans.Text, "Already")
	require.Len(t, w.calls(group, "sendMessage"), before, "no messages for save-too")

	// It is in Bob's /list, with view and original buttons.
	w.bot.PushPrivateMessage(bob, "/list")
	list := w.waitCall("Bob's list", func(c testkit.BotCall) bool {
		return c.ChatID == bob.ID && c.Method == "sendMessage" && strings.HasPrefix(c.Text, "📚")
	})
	require.Contains(t, list.Text, "1. ")
	require.Contains(t, list.Text, "Two frames")
	view, ok := list.Button("View 1")
	require.True(t, ok)
	require.Equal(t, "v:"+id, view.CallbackData)
	orig, ok := list.Button("Original 1")
	require.True(t, ok)
	require.Equal(t, photosPost, orig.URL)

	// Bob views it; Alice may not press Bob's buttons.
	_, cb = w.bot.PushCallback(bob.ID, bob, list.Result[0], view.CallbackData)
	detail := w.waitCall("the detail", func(c testkit.BotCall) bool {
		return c.ChatID == bob.ID && c.Method == "sendMessage" && strings.HasPrefix(c.Text, "🆔 "+id)
	})
	require.Contains(t, detail.Text, "(UTC+8)")
	w.bot.PushGroupMessage(group, bob, "/list@monitor_test_bot")
	glist := w.waitCall("Bob's list in the group", func(c testkit.BotCall) bool {
		return c.ChatID == group && c.Method == "sendMessage" && strings.HasPrefix(c.Text, "📚")
	})
	_, cb = w.bot.PushCallback(group, alice, glist.Result[0], view.CallbackData)
	denied := w.waitCall("the refusal", func(c testkit.BotCall) bool { return c.Method == "answerCallbackQuery" && c.CallbackQueryID == cb })
	require.True(t, denied.ShowAlert)
	require.NotEmpty(t, denied.Text)

	// Bob deletes his reference; Alice keeps hers.
	w.bot.PushPrivateMessage(bob, "/delete "+id[:8])
	w.waitCall("the deletion", func(c testkit.BotCall) bool {
		return c.ChatID == bob.ID && strings.HasPrefix(c.Text, "🗑 Removed "+id)
	})
	w.bot.PushPrivateMessage(bob, "/list")
	w.waitCall("Bob's empty list", func(c testkit.BotCall) bool {
		return c.ChatID == bob.ID && strings.Contains(c.Text, "Your archive is empty")
	})
	w.bot.PushPrivateMessage(alice, "/list")
	alist := w.waitCall("Alice's list", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && strings.HasPrefix(c.Text, "📚")
	})
	require.Contains(t, alist.Text, "Two frames")
	w.bot.PushPrivateMessage(bob, "/get "+id)
	w.waitCall("Bob's get of a deleted item", func(c testkit.BotCall) bool {
		return c.ChatID == bob.ID && strings.HasPrefix(c.Text, "⚠️")
	})
}

func TestCommandsInAPrivateChat(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bot.PushPrivateMessage(alice, "/start")
	start := w.nthMessage(alice.ID, 0, "the welcome")
	require.Contains(t, start.Text, "Hi Alice")
	require.Contains(t, start.Text, "/get ID — show a saved item")

	w.bot.PushPrivateMessage(alice, "/get nothing")
	bad := w.nthMessage(alice.ID, 1, "the usage")
	require.Contains(t, bad.Text, "Usage: /get ID")

	w.bot.PushPrivateMessage(alice, "/token")
	tok := w.nthMessage(alice.ID, 2, "the token")
	require.Contains(t, tok.Text, "🔑 Your REST API token")
	require.Len(t, tok.Entities, 1)
	require.Equal(t, "code", tok.Entities[0].Type)

	w.bot.PushPrivateMessage(alice, "hello")
	hint := w.nthMessage(alice.ID, 3, "the hint")
	require.Contains(t, hint.Text, "Send me a link")
}
