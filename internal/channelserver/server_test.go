package channelserver_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/channelserver"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// photosPost is the fixture post with two photos
// (internal/testkit/testdata/fxtwitter/routes.json).
const photosPost = "https://x.com/archivist_demo/status/2078399740166950912"

const secret = "channel-test-secret"

// core is the channel API served by the test core (testcore): a real
// business layer on a real store, blob store, queue and adapters over gRPC;
// only FxTwitter and t.me are fake.
type core struct {
	tc      *testcore.Core
	app     *app.App
	fx      *testkit.FxTwitter
	api     *channelapi.Client
	url     string
	channel uuid.UUID
	offset  int64
	// held are items claimed while waiting for another one.
	held []channelapi.Work
}

// newCore serves the channel API from a core on st; opts may change the
// server and its Deps before it starts.
func newCore(t *testing.T, st *store.Store, opts ...func(*http.Server, *channelserver.Deps)) *core {
	t.Helper()
	return newCoreOn(t, testcore.New(t, testcore.Options{Store: st}), opts...)
}

// newCoreOn serves the channel API from tc, with a channel said hello and
// holding the poll lease; opts may change the server and its Deps before
// it starts.
func newCoreOn(t *testing.T, tc *testcore.Core, opts ...func(*http.Server, *channelserver.Deps)) *core {
	t.Helper()
	ctx := context.Background()
	a := tc.App
	// People here send several links within seconds.
	_, err := a.SetSetting(ctx, "test", "self_service_submit_interval_seconds", "0")
	require.NoError(t, err)

	deps := channelserver.Deps{Service: a, Secret: secret, Log: storetest.Logger(t)}
	srv := httptest.NewUnstartedServer(nil)
	for _, o := range opts {
		o(srv.Config, &deps)
	}
	srv.Config.Handler = channelserver.NewServer(deps)
	srv.Start()
	t.Cleanup(srv.Close)
	c := &core{tc: tc, app: a, fx: tc.FX, url: srv.URL, api: channelapi.NewClient(srv.URL, secret, srv.Client())}
	h, err := c.api.Hello(ctx, channelapi.Hello{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
	require.NoError(t, err)
	c.channel, c.offset = h.ChannelID, h.NextOffset
	l, err := c.api.PollLease(ctx, channelapi.PollLeaseRequest{ChannelID: c.channel, Owner: owner})
	require.NoError(t, err)
	require.True(t, l.Granted)
	return c
}

// send posts one update as the channel does and returns its work item.
func (c *core) send(t *testing.T, u channelapi.Update) channelapi.Work {
	t.Helper()
	c.offset++
	u.UpdateID = c.offset
	r, err := c.api.PostUpdates(context.Background(), channelapi.UpdatesRequest{ChannelID: c.channel, Owner: owner, Updates: []channelapi.Update{u}, NextOffset: c.offset + 1})
	require.NoError(t, err)
	require.Equal(t, 1, r.Stored)
	for {
		w := c.claim(t)
		if w.Kind == channelapi.WorkUpdate && w.Update.UpdateID == c.offset {
			return w
		}
		c.held = append(c.held, w)
	}
}

const owner = "bot-1"

// next is the oldest item claimed and held, or else the next ready item.
func (c *core) next(t *testing.T) channelapi.Work {
	t.Helper()
	if len(c.held) > 0 {
		w := c.held[0]
		c.held = c.held[1:]
		return w
	}
	return c.claim(t)
}

// claim claims the next ready item. When none is ready it waits for the
// next capture to end, which is what makes deliveries ready.
func (c *core) claim(t *testing.T) channelapi.Work {
	t.Helper()
	deadline := time.After(testcore.WaitTimeout)
	for {
		ended := c.tc.NextEnd()
		w, err := c.api.Claim(context.Background(), channelapi.ClaimRequest{ChannelID: c.channel, Owner: owner, Max: 1})
		require.NoError(t, err)
		if len(w) == 1 {
			return w[0]
		}
		select {
		case <-ended:
		case <-deadline:
			t.Fatal("no work became ready")
		}
	}
}

// nothingReady checks that no item is ready now.
func (c *core) nothingReady(t *testing.T) {
	t.Helper()
	w, err := c.api.Claim(context.Background(), channelapi.ClaimRequest{ChannelID: c.channel, Owner: owner, Max: 10})
	require.NoError(t, err)
	require.Empty(t, w)
}

func private(user int64, text string) channelapi.Update {
	return channelapi.Update{Kind: channelapi.UpdateMessage, From: channelapi.User{ID: user, Username: "u" + strconv.FormatInt(user, 10)},
		ChatID: user, ChatType: "private", MessageID: 10, Text: text}
}

func inGroup(user int64, text string) channelapi.Update {
	return channelapi.Update{Kind: channelapi.UpdateMessage, From: channelapi.User{ID: user}, ChatID: -100, ChatType: "supergroup",
		MessageID: 20, Text: text}
}

// press is a button press on a bot message of chat.
func press(user, chat, message int64, data string) channelapi.Update {
	return channelapi.Update{Kind: channelapi.UpdateCallback, From: channelapi.User{ID: user}, ChatID: chat, ChatType: "supergroup",
		MessageID: message, CallbackID: "cb-" + data, CallbackData: data}
}

// deliver waits until a deliver item's result is ready, checking that it
// reports progress until then.
func (c *core) deliver(t *testing.T, w channelapi.Work) channelapi.Delivery {
	t.Helper()
	deadline := time.After(testcore.WaitTimeout)
	for {
		ended := c.tc.NextEnd()
		d, err := c.api.Delivery(context.Background(), w.ID, owner)
		require.NoError(t, err)
		if d.State != channelapi.DeliveryPending {
			return d
		}
		require.NotEmpty(t, d.Progress, "a running capture says how far it is")
		select {
		case <-ended:
		case <-deadline:
			t.Fatal("the capture did not end")
		}
	}
}

func code(t *testing.T, err error) string {
	t.Helper()
	var e *channelapi.Error
	require.ErrorAs(t, err, &e)
	return e.Code
}

func TestCaptureThroughTheAPIIsDeliveredWithItsPhotos(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()

		w := c.send(t, private(1, photosPost))
		require.True(t, w.Tenant.New, "the first message made the account")
		require.Equal(t, "tg1", w.Tenant.Name)
		req := channelapi.CaptureRequest{Owner: owner, URL: photosPost, StatusMessageID: 500}
		captured, err := c.api.Capture(ctx, w.ID, req)
		require.NoError(t, err)
		again, err := c.api.Capture(ctx, w.ID, req)
		require.NoError(t, err)
		require.Equal(t, captured.SubmissionID, again.SubmissionID, "a retried item gets the same submission")
		require.NoError(t, c.api.Done(ctx, w.ID, owner))

		d := c.next(t)
		require.Equal(t, channelapi.WorkDeliver, d.Kind)
		require.Equal(t, captured.SubmissionID, *d.SubmissionID)
		require.Equal(t, w.Tenant.ID, d.Tenant.ID)
		got := c.deliver(t, d)
		require.Equal(t, channelapi.DeliveryReady, got.State, got.Error)
		require.Equal(t, "complete", got.CaptureState)
		require.Equal(t, photosPost, got.InputURL)
		require.Equal(t, int64(1), got.ChatID)
		require.Equal(t, int64(500), got.StatusMessageID)
		require.True(t, got.Public)
		require.NotNil(t, got.Item)
		require.Equal(t, captured.CollectionID, got.Item.ID)
		require.Contains(t, got.Item.Text, "Two frames")
		require.Len(t, got.Item.Media, 2)
		for _, m := range got.Item.Media {
			require.Equal(t, "image", m.Kind)
			rc, n, err := c.api.Media(ctx, d.ID, owner, m.SHA256)
			require.NoError(t, err)
			body, err := io.ReadAll(rc)
			require.NoError(t, rc.Close())
			require.NoError(t, err)
			require.Equal(t, m.Size, n, "Content-Length")
			sum := sha256.Sum256(body)
			require.Equal(t, m.SHA256, hex.EncodeToString(sum[:]), "the bytes are the photo's")
		}
		_, _, err = c.api.Media(ctx, d.ID, owner, hex.EncodeToString(make([]byte, 32)))
		require.Equal(t, channelapi.CodeNotFound, code(t, err))
		_, _, err = c.api.Media(ctx, d.ID, owner, strings.Repeat("AB", 32))
		require.Equal(t, channelapi.CodeInvalid, code(t, err), "media are named in lowercase hex")

		require.NoError(t, c.api.Progress(ctx, d.ID, owner, map[string]any{"media_batches": 1}))
		tctx := store.WithTenant(ctx, d.Tenant.ID)
		sub, err := st.SubmissionGet(tctx, captured.SubmissionID)
		require.NoError(t, err)
		require.JSONEq(t, `{"media_batches": 1}`, string(sub.DeliveryProgress), "the submission keeps the delivery's progress")
		require.NoError(t, c.api.Messages(ctx, d.ID, channelapi.MessagesRequest{Owner: owner, ChatID: 1, MessageIDs: []int64{501}}))
		require.NoError(t, c.api.Done(ctx, d.ID, owner))
		sub, err = st.SubmissionGet(tctx, captured.SubmissionID)
		require.NoError(t, err)
		require.Equal(t, store.DeliveryDelivered, sub.DeliveryState)
		err = c.api.Progress(ctx, d.ID, owner, map[string]any{})
		require.Equal(t, channelapi.CodeLeaseLost, code(t, err), "an ended item takes no more calls")
		var e *channelapi.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, http.StatusConflict, e.Status)
		c.nothingReady(t) // no second delivery for the retried capture
	})
}

func TestDeferredDeliveryWakesWhenTheCaptureEnds(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()
		c.fx.Delay(300 * time.Millisecond)

		w := c.send(t, private(1, photosPost))
		_, err := c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: photosPost})
		require.NoError(t, err)
		require.NoError(t, c.api.Done(ctx, w.ID, owner))
		d := c.next(t)
		got, err := c.api.Delivery(ctx, d.ID, owner)
		require.NoError(t, err)
		require.Equal(t, channelapi.DeliveryPending, got.State)
		require.NotEmpty(t, got.Progress)
		// The channel comes back in an hour at the latest...
		require.NoError(t, c.api.Defer(ctx, d.ID, channelapi.DeferRequest{Owner: owner, AfterSeconds: 3600}))
		c.nothingReady(t)
		// ...but the capture's end wakes the item at once.
		again := c.next(t)
		require.Equal(t, d.ID, again.ID)
		require.Equal(t, 2, again.Attempts)
		got, err = c.api.Delivery(ctx, again.ID, owner)
		require.NoError(t, err)
		require.Equal(t, channelapi.DeliveryReady, got.State)
	})
}

func TestSaveTooDeleteAndButtonsOfOthers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()
		const alice, bob = 1, 2

		// Alice archives a post in a group; the result's text carries the
		// buttons as message 900.
		w := c.send(t, inGroup(alice, "@monitor_bot "+photosPost))
		captured, err := c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: photosPost, ReplyToMessageID: 20})
		require.NoError(t, err)
		require.NoError(t, c.api.Done(ctx, w.ID, owner))
		d := c.next(t)
		got := c.deliver(t, d)
		require.Equal(t, channelapi.DeliveryReady, got.State)
		require.Equal(t, int64(-100), got.ChatID)
		require.Equal(t, int64(20), got.ReplyToMessageID)
		require.NoError(t, c.api.Messages(ctx, d.ID, channelapi.MessagesRequest{Owner: owner, ChatID: -100, MessageIDs: []int64{900}}))
		require.NoError(t, c.api.Done(ctx, d.ID, owner))
		id := captured.CollectionID.String()

		// Bob presses "view" on Alice's result: not his.
		p := c.send(t, press(bob, -100, 900, "view:"+id))
		_, err = c.api.Get(ctx, p.ID, channelapi.ItemRequest{Owner: owner, ID: id})
		require.Equal(t, channelapi.CodeForbidden, code(t, err))
		require.Equal(t, "This button belongs to someone else's request, or is too old to use.", err.Error())
		_, err = c.api.List(ctx, p.ID, channelapi.ListRequest{Owner: owner})
		require.Equal(t, channelapi.CodeForbidden, code(t, err))
		require.NoError(t, c.api.Done(ctx, p.ID, owner))

		// "Save too" is the one button anyone may press.
		p = c.send(t, press(bob, -100, 900, "save:"+id))
		saved, err := c.api.Save(ctx, p.ID, channelapi.ItemRequest{Owner: owner, ID: id})
		require.NoError(t, err)
		require.Equal(t, channelapi.SaveReply{Result: channelapi.SaveSaved}, saved)
		require.NoError(t, c.api.Done(ctx, p.ID, owner))
		p = c.send(t, press(bob, -100, 900, "save:"+id))
		saved, err = c.api.Save(ctx, p.ID, channelapi.ItemRequest{Owner: owner, ID: id})
		require.NoError(t, err)
		require.Equal(t, channelapi.SaveAlready, saved.Result)
		require.NoError(t, c.api.Done(ctx, p.ID, owner))

		// Alice may press her own button, and read its media.
		p = c.send(t, press(alice, -100, 900, "view:"+id))
		item, err := c.api.Get(ctx, p.ID, channelapi.ItemRequest{Owner: owner, ID: id})
		require.NoError(t, err)
		require.Equal(t, captured.CollectionID, item.ID)
		rc, _, err := c.api.Media(ctx, p.ID, owner, item.Media[0].SHA256)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		require.NoError(t, c.api.Done(ctx, p.ID, owner))
		p = c.send(t, press(bob, -100, 900, "view:"+id))
		_, _, err = c.api.Media(ctx, p.ID, owner, item.Media[0].SHA256)
		require.Equal(t, channelapi.CodeForbidden, code(t, err))
		require.NoError(t, c.api.Fail(ctx, p.ID, owner, "not his button"))

		// Bob's /list shows the post he saved too; /get takes an id prefix.
		m := c.send(t, private(bob, "/list"))
		list, err := c.api.List(ctx, m.ID, channelapi.ListRequest{Owner: owner, Limit: 5})
		require.NoError(t, err)
		require.Len(t, list.Items, 1)
		require.False(t, list.More)
		require.Equal(t, captured.CollectionID, list.Items[0].ID)
		require.Len(t, list.Items[0].Media, 2)
		item, err = c.api.Get(ctx, m.ID, channelapi.ItemRequest{Owner: owner, ID: id[:8]})
		require.NoError(t, err)
		require.Equal(t, captured.CollectionID, item.ID)
		_, err = c.api.Get(ctx, m.ID, channelapi.ItemRequest{Owner: owner, ID: "abc"})
		require.Equal(t, channelapi.CodeInvalid, code(t, err))
		require.NoError(t, c.api.Done(ctx, m.ID, owner))

		// Bob's /delete removes his reference only.
		m = c.send(t, private(bob, "/delete "+id[:8]))
		del, err := c.api.Delete(ctx, m.ID, channelapi.ItemRequest{Owner: owner, ID: id[:8]})
		require.NoError(t, err)
		require.Equal(t, captured.CollectionID, del.ID)
		_, err = c.api.Delete(ctx, m.ID, channelapi.ItemRequest{Owner: owner, ID: id})
		require.Equal(t, channelapi.CodeNotFound, code(t, err))
		list, err = c.api.List(ctx, m.ID, channelapi.ListRequest{Owner: owner})
		require.NoError(t, err)
		require.Empty(t, list.Items)
		require.NoError(t, c.api.Done(ctx, m.ID, owner))

		m = c.send(t, private(alice, "/list"))
		list, err = c.api.List(ctx, m.ID, channelapi.ListRequest{Owner: owner})
		require.NoError(t, err)
		require.Len(t, list.Items, 1, "Alice keeps her post")
		require.Equal(t, captured.CollectionID, list.Items[0].ID)
		usage, err := c.api.Usage(ctx, m.ID, owner)
		require.NoError(t, err)
		require.Equal(t, 1, usage.Collections)
		require.Equal(t, 1, usage.SubmittedToday)
		require.Positive(t, usage.UsedBytes)
		require.NoError(t, c.api.Done(ctx, m.ID, owner))

		// Carol has no room: "save too" says why.
		m = c.send(t, private(3, "/start"))
		require.NoError(t, c.api.Done(ctx, m.ID, owner))
		zero := int64(0)
		_, err = c.app.UpdateTenant(ctx, "test", m.Tenant.Name, app.TenantChange{QuotaSet: true, QuotaBytes: &zero})
		require.NoError(t, err)
		p = c.send(t, press(3, -100, 900, "save:"+id))
		saved, err = c.api.Save(ctx, p.ID, channelapi.ItemRequest{Owner: owner, ID: id})
		require.NoError(t, err)
		require.Equal(t, channelapi.SaveRefused, saved.Result)
		require.Contains(t, saved.Reason, "quota")
	})
}

func TestTokenOnlyInAPrivateChat(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()

		w := c.send(t, inGroup(5, "/token@monitor_bot"))
		_, err := c.api.Token(ctx, w.ID, owner)
		require.Equal(t, channelapi.CodeForbidden, code(t, err))
		require.Contains(t, err.Error(), "private chat")
		require.NoError(t, c.api.Done(ctx, w.ID, owner))

		w = c.send(t, private(5, "/token"))
		tok, err := c.api.Token(ctx, w.ID, owner)
		require.NoError(t, err)
		require.NotEmpty(t, tok.Token)
		p, err := c.app.Authenticate(ctx, tok.Token)
		require.NoError(t, err, "the token works on the REST API")
		require.Equal(t, w.Tenant.ID, p.TenantID)
	})
}

func TestTheSecretGuardsEveryRoute(t *testing.T) {
	t.Parallel()
	c := newCore(t, storetest.New(t, "sqlite"))
	ctx := context.Background()

	wrong := channelapi.NewClient(c.url, "not-the-secret", nil)
	_, err := wrong.Hello(ctx, channelapi.Hello{Kind: "telegram", ExternalID: "1000"})
	require.Equal(t, channelapi.CodeUnauthorized, code(t, err))
	var e *channelapi.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusUnauthorized, e.Status)
	_, err = wrong.Claim(ctx, channelapi.ClaimRequest{ChannelID: c.channel, Owner: owner, Max: 1})
	require.Equal(t, channelapi.CodeUnauthorized, code(t, err))
	_, _, err = wrong.Media(ctx, uuid.New(), owner, hex.EncodeToString(make([]byte, 32)))
	require.Equal(t, channelapi.CodeUnauthorized, code(t, err))

	post := func(path, auth string, body []byte) int {
		req, err := http.NewRequest(http.MethodPost, c.url+path, bytes.NewReader(body))
		require.NoError(t, err)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusUnauthorized, post(channelapi.PathHello, "", []byte(`{}`)))
	require.Equal(t, http.StatusUnauthorized, post(channelapi.PathHello, "Bearer "+secret+"x", []byte(`{}`)))
	require.Equal(t, http.StatusUnauthorized, post("/nowhere", "", nil), "nothing is revealed without the secret")
	require.Equal(t, http.StatusNotFound, post("/nowhere", "Bearer "+secret, nil))
	require.Equal(t, http.StatusBadRequest, post(channelapi.PathHello, "Bearer "+secret, []byte(`{"kind":"telegram","external_id":"1","extra":1}`)),
		"unknown fields are refused")
	require.Equal(t, http.StatusBadRequest, post(channelapi.PathHello, "Bearer "+secret, bytes.Repeat([]byte(" "), 2<<20)),
		"bodies over 1 MiB are refused")

	// A work id that nobody holds: the lease is lost, whatever the call.
	_, err = c.api.Delivery(ctx, uuid.New(), owner)
	require.Equal(t, channelapi.CodeLeaseLost, code(t, err))
}

func TestFailedCaptureIsDeliveredWithItsReason(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()
		const gone = "https://x.com/archivist_demo/status/1000000000000000001?s=20" // 404 upstream
		w := c.send(t, private(1, gone))
		_, err := c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: gone, StatusMessageID: 77})
		require.NoError(t, err)
		require.NoError(t, c.api.Done(ctx, w.ID, owner))
		d := c.deliver(t, c.next(t))
		require.Equal(t, channelapi.DeliveryFailed, d.State)
		require.Equal(t, "failed", d.CaptureState)
		require.NotEmpty(t, d.Error)
		require.Equal(t, gone, d.InputURL, "the link exactly as sent")
		require.Equal(t, int64(77), d.StatusMessageID)
		require.Nil(t, d.Item)
	})
}

func TestListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, tc *testcore.Core) {
		c := newCoreOn(t, tc)
		ctx := context.Background()
		const videoPost = "https://x.com/archivist_demo/status/2079251421658238976"
		var ids []uuid.UUID
		for _, u := range []string{photosPost, videoPost} {
			w := c.send(t, private(1, u))
			r, err := c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: u})
			require.NoError(t, err)
			require.NoError(t, c.api.Done(ctx, w.ID, owner))
			ids = append(ids, r.CollectionID)
			tc.Clock.Advance(time.Second) // distinct save times
		}
		w := c.send(t, private(1, "/list"))
		page, err := c.api.List(ctx, w.ID, channelapi.ListRequest{Owner: owner, Limit: 1})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		require.True(t, page.More)
		require.Equal(t, ids[1], page.Items[0].ID, "the newest save first")
		after := page.Items[0].ID
		page, err = c.api.List(ctx, w.ID, channelapi.ListRequest{Owner: owner, Limit: 1, After: &after})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		require.False(t, page.More)
		require.Equal(t, ids[0], page.Items[0].ID)
		_, err = c.api.List(ctx, w.ID, channelapi.ListRequest{Owner: owner, Limit: 21})
		require.Equal(t, channelapi.CodeInvalid, code(t, err))
	})
}

func TestPendingAccountCannotCaptureYet(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()
		_, err := c.app.SetSetting(ctx, "test", "approval_mode", "approval")
		require.NoError(t, err)
		w := c.send(t, private(9, photosPost))
		require.Equal(t, "pending", w.Tenant.Status)
		_, err = c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: photosPost})
		require.Equal(t, channelapi.CodeTenantNotActive, code(t, err))
		require.Contains(t, err.Error(), "approval")
		_, err = c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: "https://example.com/nothing"})
		require.Equal(t, channelapi.CodeUnsupported, code(t, err), "an unsupported link is said so before the account's state")
	})
}

func TestMediaCacheDropsOnlyTheReferenceItWasTold(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()
		key := channelapi.CacheKey{ChannelKind: "telegram", AccountID: "1000", SHA256: hex.EncodeToString(make([]byte, 32)), Representation: "photo"}

		_, err := c.api.CacheGet(ctx, key)
		require.Equal(t, channelapi.CodeNotFound, code(t, err))
		require.NoError(t, c.api.CachePut(ctx, channelapi.CacheEntry{CacheKey: key, RemoteID: "file-1"}))
		require.NoError(t, c.api.CachePut(ctx, channelapi.CacheEntry{CacheKey: key, RemoteID: "file-2"}), "a newer upload replaces it")
		got, err := c.api.CacheGet(ctx, key)
		require.NoError(t, err)
		require.Equal(t, "file-2", got.RemoteID)

		// A sender that found file-1 invalid must not drop file-2.
		require.NoError(t, c.api.CacheDrop(ctx, channelapi.CacheEntry{CacheKey: key, RemoteID: "file-1"}))
		got, err = c.api.CacheGet(ctx, key)
		require.NoError(t, err)
		require.Equal(t, "file-2", got.RemoteID)
		require.NoError(t, c.api.CacheDrop(ctx, channelapi.CacheEntry{CacheKey: key, RemoteID: "file-2"}))
		_, err = c.api.CacheGet(ctx, key)
		require.Equal(t, channelapi.CodeNotFound, code(t, err))

		other := key
		other.Representation = "document"
		_, err = c.api.CacheGet(ctx, other)
		require.Equal(t, channelapi.CodeNotFound, code(t, err), "each representation is its own entry")
		bad := key
		bad.SHA256 = "XYZ"
		_, err = c.api.CacheGet(ctx, bad)
		require.Equal(t, channelapi.CodeInvalid, code(t, err))
	})
}

func TestOnlyThePollLeaseHolderPostsUpdates(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()
		c.send(t, private(1, "/help"))
		before := c.offset + 1

		l, err := c.api.PollLease(ctx, channelapi.PollLeaseRequest{ChannelID: c.channel, Owner: "bot-2"})
		require.NoError(t, err)
		require.False(t, l.Granted, "one poller at a time")
		require.Equal(t, owner, l.Holder)
		require.True(t, l.ExpiresAt.After(time.Now().Add(channelapi.LeaseTTL-10*time.Second)), "expires %v", l.ExpiresAt)

		_, err = c.api.PostUpdates(ctx, channelapi.UpdatesRequest{ChannelID: c.channel, Owner: "bot-2",
			Updates: []channelapi.Update{{UpdateID: before, Kind: channelapi.UpdateMessage, From: channelapi.User{ID: 1}, ChatID: 1,
				ChatType: "private", MessageID: 1, Text: "hi"}}, NextOffset: before + 5})
		var e *channelapi.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, http.StatusConflict, e.Status)
		require.Equal(t, channelapi.CodeLeaseLost, e.Code)
		h, err := c.api.Hello(ctx, channelapi.Hello{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
		require.NoError(t, err)
		require.Equal(t, before, h.NextOffset, "a non-holder does not move the offset")
		c.nothingReady(t)

		// Released by its holder, the lease goes to the next that asks.
		_, err = c.api.PollLease(ctx, channelapi.PollLeaseRequest{ChannelID: c.channel, Owner: owner, Release: true})
		require.NoError(t, err)
		l, err = c.api.PollLease(ctx, channelapi.PollLeaseRequest{ChannelID: c.channel, Owner: "bot-2"})
		require.NoError(t, err)
		require.True(t, l.Granted)
		require.Equal(t, before, l.NextOffset)
		_, err = c.api.PostUpdates(ctx, channelapi.UpdatesRequest{ChannelID: c.channel, Owner: owner, NextOffset: before + 5})
		require.True(t, channelapi.IsCode(err, channelapi.CodeLeaseLost), "the former holder: %v", err)
	})
}
