package telegram_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// mtHarness is the adapter with its mtproto provider pointed at gotd's
// test server, behind a real gRPC server.
type mtHarness struct {
	fake    *testkit.Telegram
	client  adapterv1.AdapterClient
	schemas kittest.Schemas
	session []byte // what a person gives: gotd's session.json
	cred    []byte // what PrepareCredential made of it
}

func newMTHarness(t *testing.T) *mtHarness {
	t.Helper()
	fake := testkit.NewTelegram(t)
	a := telegram.NewWithMTProto(telegram.Options{}, telegram.MTProto{AppID: 1, AppHash: "test-hash",
		DCList: fake.DCList(), Resolver: fake.Resolver(), PublicKeys: fake.PublicKeys()})
	h := &mtHarness{fake: fake, client: kittest.Serve(t, a), session: fake.Session(t)}
	h.schemas = kittest.CompileSchemas(t, kittest.Describe(t, h.client))
	resp, err := h.client.PrepareCredential(context.Background(), &adapterv1.PrepareCredentialRequest{
		ProviderId: telegram.ProviderMTProto, Input: h.session})
	require.NoError(t, err)
	require.Nil(t, resp.GetError())
	require.Equal(t, "5001", resp.GetAccountId())
	require.Equal(t, "spore_reader", resp.GetHandle())
	h.cred = resp.GetCredential()
	return h
}

// privateChannel is a channel without a username, as t.me/c/ links name
// it.
var privateChannel = &tg.Channel{ID: 1234567890, AccessHash: 4242, Title: "Spore Private", Broadcast: true}

func (h *mtHarness) fetch(t *testing.T, ext string) *adapterv1.FetchResponse {
	t.Helper()
	return h.fetchCached(t, ext, "")
}

// fetchCached is fetch with what core kept for the target's scope.
func (h *mtHarness) fetchCached(t *testing.T, ext, cache string) *adapterv1.FetchResponse {
	t.Helper()
	scope := ext[:strings.LastIndex(ext, "/")]
	resp, err := h.client.Fetch(context.Background(), &adapterv1.FetchRequest{
		ProviderId: telegram.ProviderMTProto, Credential: h.cred, ScopeCache: cache,
		Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.message", ObjectScope: scope, ExternalId: ext,
			CanonicalUrl: "https://t.me/" + ext},
	})
	require.NoError(t, err)
	return resp
}

// read streams a medium and returns its SHA-256, size and first chunk's
// mime, or the stream's error.
func (h *mtHarness) read(t *testing.T, ref string) (sum string, size int64, mime string, e *adapterv1.Error) {
	t.Helper()
	st, err := h.client.ReadMedia(context.Background(), &adapterv1.ReadMediaRequest{ProviderId: telegram.ProviderMTProto,
		Credential: h.cred, StreamRef: ref})
	require.NoError(t, err)
	hash := sha256.New()
	first := true
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if c.GetError() != nil {
			return sum, size, mime, c.GetError()
		}
		if first {
			mime, first = c.GetMime(), false
		}
		hash.Write(c.GetData())
		size += int64(len(c.GetData()))
	}
	return hex.EncodeToString(hash.Sum(nil)), size, mime, nil
}

func tgPhoto(id int64, ref []byte) *tg.MessageMediaPhoto {
	return &tg.MessageMediaPhoto{Photo: &tg.Photo{ID: id, AccessHash: 9, FileReference: ref, DCID: 2,
		Sizes: []tg.PhotoSizeClass{&tg.PhotoSize{Type: "m", W: 320, H: 240, Size: 100}, &tg.PhotoSize{Type: "y", W: 1280, H: 960, Size: 5000}}}}
}

func tgVideo(id, size int64, ref []byte) *tg.MessageMediaDocument {
	return &tg.MessageMediaDocument{Document: &tg.Document{ID: id, AccessHash: 8, FileReference: ref, DCID: 2, Size: size, MimeType: "video/mp4",
		Attributes: []tg.DocumentAttributeClass{&tg.DocumentAttributeVideo{W: 1920, H: 1080, Duration: 12.5},
			&tg.DocumentAttributeFilename{FileName: "clip.mp4"}}}}
}

func tgDocument(id, size int64, ref []byte) *tg.MessageMediaDocument {
	return &tg.MessageMediaDocument{Document: &tg.Document{ID: id, AccessHash: 8, FileReference: ref, DCID: 2, Size: size,
		MimeType: "application/zip", Attributes: []tg.DocumentAttributeClass{&tg.DocumentAttributeFilename{FileName: "dump.zip"}}}}
}

// A private channel's album of a photo and a video, asked by its second
// member: the album whole, private, its identity the first message, text
// with its entities in the public provider's markdown, both media
// streamed byte for byte.
func TestMTProtoPrivateAlbum(t *testing.T) {
	h := newMTHarness(t)
	ph, vid := h.fake.AddFile(9001, 200_000), h.fake.AddFile(9002, 1_300_000)
	h.fake.AddChannel(privateChannel)
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 40, Message: "before"})
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 41, GroupedID: 77, Message: "Spore bold and link", Media: tgPhoto(9001, ph.Ref),
		Entities: []tg.MessageEntityClass{&tg.MessageEntityBold{Offset: 6, Length: 4}, &tg.MessageEntityTextURL{Offset: 15, Length: 4, URL: "https://example.com/x"}}})
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 42, GroupedID: 77, Media: tgVideo(9002, 1_300_000, vid.Ref)})
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 43, Message: "after"})

	resp := h.fetch(t, "c/1234567890/42")
	require.Nil(t, resp.GetError())
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, adapterv1.Visibility_VISIBILITY_PRIVATE, resp.GetVisibility())
	require.Equal(t, "c/1234567890/41", resp.GetCanonicalTarget().GetExternalId())
	require.Equal(t, "https://t.me/c/1234567890/41", resp.GetCanonicalTarget().GetCanonicalUrl())
	data := kittest.EntityData(t, resp, "message:c/1234567890/41")
	require.Contains(t, data, `"text":"Spore bold and link"`)
	require.Contains(t, data, `"text_markdown":"Spore **bold** and [link](https://example.com/x)"`)
	require.Contains(t, data, `"album_id":41`)
	require.Contains(t, resp.GetDisplay().GetSummary(), "⟦image⟧⟦video⟧")
	require.Len(t, resp.GetMedia(), 2)
	img, mov := resp.GetMedia()[0], resp.GetMedia()[1]
	require.Equal(t, adapterv1.MediaKind_MEDIA_KIND_IMAGE, img.GetKind())
	require.Equal(t, uint32(1280), img.GetWidth(), "the largest size")
	require.Equal(t, adapterv1.MediaKind_MEDIA_KIND_VIDEO, mov.GetKind())
	require.Equal(t, uint32(12500), mov.GetDurationMs())
	for _, m := range resp.GetMedia() {
		require.Empty(t, m.GetUrl())
		require.NotEmpty(t, m.GetStreamRef())
	}

	sum, size, _, e := h.read(t, img.GetStreamRef())
	require.Nil(t, e)
	require.Equal(t, int64(200_000), size)
	require.Equal(t, testkit.FakeFileSHA256(9001, 200_000), sum)
	sum, size, mime, e := h.read(t, mov.GetStreamRef())
	require.Nil(t, e)
	require.Equal(t, "video/mp4", mime)
	require.Equal(t, int64(1_300_000), size)
	require.Equal(t, testkit.FakeFileSHA256(9002, 1_300_000), sum)
}

// A public channel's post read through a session is public unless the
// channel or the post protects its content.
func TestMTProtoPublicAndProtected(t *testing.T) {
	h := newMTHarness(t)
	open := &tg.Channel{ID: 2001, AccessHash: 5, Title: "Open", Username: "OpenNews", Broadcast: true}
	closed := &tg.Channel{ID: 2002, AccessHash: 6, Title: "Closed", Username: "closednews", Broadcast: true, Noforwards: true}
	h.fake.AddChannel(open)
	h.fake.AddChannel(closed)
	h.fake.AddMessage(open.ID, &tg.Message{ID: 5, Message: "open post"})
	h.fake.AddMessage(open.ID, &tg.Message{ID: 6, Message: "protected post", Noforwards: true})
	h.fake.AddMessage(closed.ID, &tg.Message{ID: 5, Message: "closed post"})

	resp := h.fetch(t, "opennews/5")
	require.Nil(t, resp.GetError())
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, adapterv1.Visibility_VISIBILITY_PUBLIC, resp.GetVisibility())
	require.Equal(t, adapterv1.Visibility_VISIBILITY_PRIVATE, h.fetch(t, "opennews/6").GetVisibility())
	require.Equal(t, adapterv1.Visibility_VISIBILITY_PRIVATE, h.fetch(t, "closednews/5").GetVisibility())
	require.Equal(t, adapterv1.Visibility_VISIBILITY_PRIVATE, h.fetch(t, "c/2001/5").GetVisibility(), "named by its internal id")

	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, h.fetch(t, "opennews/99").GetError().GetCode())
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_PRIVATE, h.fetch(t, "c/999/1").GetError().GetCode(), "not a member")
}

// A private channel's access hash is asked from the chat list once and
// kept by core (scope_cache); with it the next fetch asks the channel
// directly, and a stale one falls back to the chat list.
func TestMTProtoScopeCache(t *testing.T) {
	h := newMTHarness(t)
	h.fake.AddChannel(privateChannel)
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 1, Message: "x"})
	const dialogs, channels = tg.MessagesGetDialogsRequestTypeID, tg.ChannelsGetChannelsRequestTypeID

	resp := h.fetch(t, "c/1234567890/1")
	require.Nil(t, resp.GetError())
	require.Equal(t, "access_hash:4242", resp.GetScopeCache())
	require.Equal(t, 1, h.fake.Calls(dialogs))

	resp = h.fetchCached(t, "c/1234567890/1", resp.GetScopeCache())
	require.Nil(t, resp.GetError())
	require.Equal(t, 1, h.fake.Calls(dialogs), "the kept access hash spares the chat list")
	require.Equal(t, 1, h.fake.Calls(channels))

	h.fake.SetAccessHash(privateChannel.ID, 5151)
	resp = h.fetchCached(t, "c/1234567890/1", "access_hash:4242")
	require.Nil(t, resp.GetError())
	require.Equal(t, "access_hash:5151", resp.GetScopeCache(), "a stale hash is replaced")
	require.Equal(t, 2, h.fake.Calls(dialogs))
	for _, bad := range []string{"garbage", "access_hash:x"} {
		require.Nil(t, h.fetchCached(t, "c/1234567890/1", bad).GetError(), bad)
	}
}

// An expired file reference is asked again once (the message read anew),
// then the download succeeds.
func TestMTProtoFileReferenceExpired(t *testing.T) {
	h := newMTHarness(t)
	f := h.fake.AddFile(9100, 700_000)
	h.fake.AddChannel(privateChannel)
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 7, Media: tgDocument(9100, 700_000, f.Ref)})
	resp := h.fetch(t, "c/1234567890/7")
	require.Nil(t, resp.GetError())
	ref := resp.GetMedia()[0].GetStreamRef()

	h.fake.RenewFileRef(9100)
	before := h.fake.Calls(tg.ChannelsGetMessagesRequestTypeID)
	sum, size, _, e := h.read(t, ref)
	require.Nil(t, e)
	require.Equal(t, int64(700_000), size)
	require.Equal(t, testkit.FakeFileSHA256(9100, 700_000), sum)
	require.Equal(t, before+1, h.fake.Calls(tg.ChannelsGetMessagesRequestTypeID), "the message was read again once")
}

// FLOOD_WAIT_3 is RATE_LIMITED with 3 seconds to wait; a signed-out
// session is AUTH_FAILED; neither error carries the session.
func TestMTProtoErrors(t *testing.T) {
	h := newMTHarness(t)
	h.fake.AddChannel(privateChannel)
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 1, Message: "x"})

	h.fake.Fail(tg.ChannelsGetMessagesRequestTypeID, testkit.ErrFloodWait3)
	e := h.fetch(t, "c/1234567890/1").GetError()
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, e.GetCode())
	require.Equal(t, uint32(3), e.GetRetryAfterSeconds())
	require.True(t, e.GetRetryable())
	require.Nil(t, h.fetch(t, "c/1234567890/1").GetError(), "after the wait it reads")

	h.fake.Fail(tg.UsersGetUsersRequestTypeID, testkit.ErrAuthKeyUnregistered)
	check, err := h.client.CheckConnection(context.Background(), &adapterv1.CheckConnectionRequest{ProviderId: telegram.ProviderMTProto, Credential: h.cred})
	require.NoError(t, err)
	require.False(t, check.GetOk())
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, check.GetError().GetCode())
	require.Contains(t, check.GetError().GetMessage(), "AUTH_KEY_UNREGISTERED")

	h.fake.Fail(tg.ChannelsGetMessagesRequestTypeID, testkit.ErrAuthKeyUnregistered)
	e = h.fetch(t, "c/1234567890/1").GetError()
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, e.GetCode())
	for _, msg := range []string{e.GetMessage(), check.GetError().GetMessage()} {
		requireNoSecret(t, h, msg)
	}
}

// requireNoSecret fails when s holds the session or its key in any
// common spelling.
func requireNoSecret(t *testing.T, h *mtHarness, s string) {
	t.Helper()
	for _, secret := range []string{string(h.cred), string(h.session)} {
		require.NotContains(t, s, secret)
	}
	key := sessionKey(t, h.cred)
	require.NotContains(t, s, base64.StdEncoding.EncodeToString(key))
	require.NotContains(t, s, base64.StdEncoding.EncodeToString(key[:16]))
}

// sessionKey is the auth key inside a credential.
func sessionKey(t *testing.T, cred []byte) []byte {
	t.Helper()
	i := strings.Index(string(cred), `"auth_key":"`)
	require.Positive(t, i)
	rest := string(cred)[i+len(`"auth_key":"`):]
	key, err := base64.StdEncoding.DecodeString(rest[:strings.IndexByte(rest, '"')])
	require.NoError(t, err)
	return key
}

// Bad input: not a session, the wrong provider, a bad media reference,
// and no app credentials on the adapter's host.
func TestMTProtoRefusals(t *testing.T) {
	h := newMTHarness(t)
	ctx := context.Background()
	for _, in := range []string{"", "hello", `{"Version":1,"Data":{"DC":2}}`, "1AAAAA"} {
		resp, err := h.client.PrepareCredential(ctx, &adapterv1.PrepareCredentialRequest{ProviderId: telegram.ProviderMTProto, Input: []byte(in)})
		require.NoError(t, err)
		require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, resp.GetError().GetCode(), in)
		require.Contains(t, resp.GetError().GetMessage(), "not a Telegram session")
	}
	resp, err := h.client.PrepareCredential(ctx, &adapterv1.PrepareCredentialRequest{ProviderId: telegram.ProviderTmePublic, Input: h.session})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, resp.GetError().GetCode())

	_, _, _, e := h.read(t, "not a reference")
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, e.GetCode())

	bare := kittest.Serve(t, telegram.NewWithMTProto(telegram.Options{}, telegram.MTProto{}))
	check, err := bare.CheckConnection(ctx, &adapterv1.CheckConnectionRequest{ProviderId: telegram.ProviderMTProto, Credential: h.cred})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, check.GetError().GetCode())
	require.Contains(t, check.GetError().GetMessage(), "MONITOR_TELEGRAM_APP_ID")
	require.Contains(t, check.GetError().GetMessage(), "MONITOR_TELEGRAM_APP_HASH")

	// A t.me/c/ link resolves only for a fetch through an account.
	r, err := h.client.Resolve(ctx, &adapterv1.ResolveRequest{Url: "https://t.me/c/1234567890/42"})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT, r.GetError().GetCode())
	r, err = h.client.Resolve(ctx, &adapterv1.ResolveRequest{Url: "https://t.me/c/1234567890/42", Account: true})
	require.NoError(t, err)
	require.Equal(t, "c/1234567890/42", r.GetTarget().GetExternalId())
	require.Equal(t, "c/1234567890", r.GetTarget().GetObjectScope())
	// And the public provider answers such a target with NEEDS_ACCOUNT.
	pub, err := h.client.Fetch(ctx, &adapterv1.FetchRequest{ProviderId: telegram.ProviderTmePublic, Target: r.GetTarget()})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT, pub.GetError().GetCode())
}

// A 50 MiB document streams in parts: the bytes arrive whole and in
// order while the process's heap stays far below the file's size.
func TestMTProtoStream50MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MiB download")
	}
	const size = 50 << 20
	h := newMTHarness(t)
	f := h.fake.AddFile(9200, size)
	h.fake.AddChannel(privateChannel)
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 9, Media: tgDocument(9200, size, f.Ref)})
	resp := h.fetch(t, "c/1234567890/9")
	require.Nil(t, resp.GetError())

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	sum, n, _, e := h.read(t, resp.GetMedia()[0].GetStreamRef())
	elapsed := time.Since(start)
	close(stop)
	<-done
	require.Nil(t, e)
	require.Equal(t, int64(size), n)
	require.Equal(t, testkit.FakeFileSHA256(9200, size), sum)
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("50 MiB in %s (%.1f MiB/s); heap in use peaked %.1f MiB above the start (%.1f MiB)", elapsed,
		float64(size)/(1<<20)/elapsed.Seconds(), float64(grew)/(1<<20), float64(peak.Load())/(1<<20))
	require.Less(t, grew, int64(24<<20), "the file was never whole in memory")
}

// answers is a scripted person signing in: the answer to each question
// by a word of it, and the questions asked.
type answers struct {
	by    map[string]string
	asked []string
}

func (a *answers) ask(_ context.Context, q string, secret bool) (string, error) {
	a.asked = append(a.asked, q)
	for word, answer := range a.by {
		if strings.Contains(q, word) {
			return answer, nil
		}
	}
	return "", errors.New("unexpected question " + q)
}

// Sign-in with a login code, and with a code and the two-step
// verification password (SRP, checked by the fake against its verifier):
// the session it makes is one PrepareCredential takes.
func TestMTProtoSignIn(t *testing.T) {
	h := newMTHarness(t)
	mt := telegram.MTProto{AppID: 1, AppHash: "test-hash", DCList: h.fake.DCList(), Resolver: h.fake.Resolver(), PublicKeys: h.fake.PublicKeys()}
	ctx := context.Background()
	for _, tt := range []struct {
		name, password string
		questions      int
	}{{"code", "", 2}, {"code and password", "correct horse battery staple", 3}} {
		t.Run(tt.name, func(t *testing.T) {
			h.fake.SetSignIn(t, "+15550001111", "12345", tt.password)
			h.fake.Fail(tg.UsersGetUsersRequestTypeID, testkit.ErrAuthKeyUnregistered) // a new session is signed out
			who := &answers{by: map[string]string{"Phone": "+15550001111", "code": "12345", "password": tt.password}}
			sess, err := telegram.SignIn(ctx, mt, who.ask)
			require.NoError(t, err)
			require.Len(t, who.asked, tt.questions)
			resp, err := h.client.PrepareCredential(ctx, &adapterv1.PrepareCredentialRequest{ProviderId: telegram.ProviderMTProto, Input: sess})
			require.NoError(t, err)
			require.Nil(t, resp.GetError())
			require.Equal(t, "5001", resp.GetAccountId())
		})
	}

	// Wrong answers say what was wrong.
	h.fake.SetSignIn(t, "+15550001111", "12345", "right")
	for _, tt := range []struct {
		name    string
		by      map[string]string
		message string
	}{
		{"wrong password", map[string]string{"Phone": "+15550001111", "code": "12345", "password": "wrong"}, "two-step verification password"},
		{"wrong code", map[string]string{"Phone": "+15550001111", "code": "99999"}, "login code"},
		{"wrong phone", map[string]string{"Phone": "+1"}, "phone number"},
	} {
		h.fake.Fail(tg.UsersGetUsersRequestTypeID, testkit.ErrAuthKeyUnregistered)
		_, err := telegram.SignIn(ctx, mt, (&answers{by: tt.by}).ask)
		require.Error(t, err, tt.name)
		require.Contains(t, err.Error(), tt.message, tt.name)
		if pw := tt.by["password"]; pw != "" {
			require.NotContains(t, err.Error(), pw, tt.name)
		}
	}
	_, err := telegram.SignIn(ctx, telegram.MTProto{}, (&answers{}).ask)
	require.ErrorIs(t, err, telegram.ErrNoAppCredentials)
}

// channelPages reads a channel target through the session page by page
// and returns each page's post links.
func (h *mtHarness) channelPages(t *testing.T, ext string, size uint32) [][]string {
	t.Helper()
	var pages [][]string
	cursor := ""
	for range 20 {
		resp, err := h.client.Fetch(context.Background(), &adapterv1.FetchRequest{
			ProviderId: telegram.ProviderMTProto, Credential: h.cred, PageCursor: cursor, PageSize: size,
			Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.channel", ExternalId: ext, CanonicalUrl: "https://t.me/" + ext},
		})
		require.NoError(t, err)
		require.Nil(t, resp.GetError())
		kittest.CheckGraph(t, h.schemas, resp)
		var urls []string
		for _, rt := range resp.GetRelatedTargets() {
			urls = append(urls, rt.GetUrl())
			require.NotNil(t, rt.GetPublishedAt())
		}
		pages = append(pages, urls)
		if cursor = resp.GetNextPageCursor(); cursor == "" {
			return pages
		}
	}
	t.Fatal("the channel's pages did not end")
	return nil
}

// A private channel through the session is a collection: its posts page
// by page from messages.getHistory, newest first, an album as one post
// under its first member; an album the page's read cut short is left
// whole for the next page.
func TestMTProtoChannelPages(t *testing.T) {
	h := newMTHarness(t)
	h.fake.AddChannel(privateChannel)
	h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: 13, Message: "newest"})
	for id := 4; id <= 12; id++ {
		h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: id, GroupedID: 500})
	}
	for id := 1; id <= 3; id++ {
		h.fake.AddMessage(privateChannel.ID, &tg.Message{ID: id, GroupedID: 600})
	}
	u := func(id int) string { return "https://t.me/c/1234567890/" + strconv.Itoa(id) }

	require.Equal(t, [][]string{{u(13), u(4), u(1)}}, h.channelPages(t, "c/1234567890", 3),
		"the album 1-3 that the first read (12 messages, 13 to 2) cut is listed once, under its first member")
	require.Equal(t, []int{0, 4}, h.fake.HistoryOffsets(), "the second read starts after the album 4-12, at 3")
	require.Equal(t, [][]string{{u(13), u(4)}, {u(1)}}, h.channelPages(t, "c/1234567890", 2))
	require.Equal(t, [][]string{{u(13)}, {u(4)}, {u(1)}}, h.channelPages(t, "c/1234567890", 1))
	require.Equal(t, [][]string{{u(13), u(4), u(1)}}, h.channelPages(t, "c/1234567890", 0))

	// The channel is the root, private; the access hash is for core to keep.
	resp, err := h.client.Fetch(context.Background(), &adapterv1.FetchRequest{ProviderId: telegram.ProviderMTProto, Credential: h.cred,
		Expand: adapterv1.ExpandNone, Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.channel", ExternalId: "c/1234567890"}})
	require.NoError(t, err)
	require.Nil(t, resp.GetError())
	require.Equal(t, adapterv1.Visibility_VISIBILITY_PRIVATE, resp.GetVisibility())
	require.Empty(t, resp.GetRelatedTargets(), "expand none: the header alone")
	require.Equal(t, "access_hash:4242", resp.GetScopeCache())
	require.Equal(t, "Spore Private", resp.GetDisplay().GetAuthorName())

	// A public channel by username, and the refusals.
	h.fake.AddChannel(&tg.Channel{ID: 3003, AccessHash: 31, Title: "Tidewatch", Username: "tidewatch_demo", Broadcast: true})
	h.fake.AddMessage(3003, &tg.Message{ID: 7, Message: "open"})
	require.Equal(t, [][]string{{"https://t.me/tidewatch_demo/7"}}, h.channelPages(t, "tidewatch_demo", 5))
	for _, tt := range []struct {
		ext, cursor string
		code        adapterv1.ErrorCode
		message     string
	}{
		{"c/abc", "", adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "is not a Telegram username or c/<channel id>"},
		{"c/1234567890", "after=3", adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "page cursor"},
		{"c/999", "", adapterv1.ErrorCode_ERROR_CODE_PRIVATE, "not a member of the channel"},
	} {
		resp, err := h.client.Fetch(context.Background(), &adapterv1.FetchRequest{ProviderId: telegram.ProviderMTProto, Credential: h.cred,
			PageCursor: tt.cursor, Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.channel", ExternalId: tt.ext}})
		require.NoError(t, err)
		require.Equal(t, tt.code, resp.GetError().GetCode(), tt.ext)
		require.Contains(t, resp.GetError().GetMessage(), tt.message, tt.ext)
	}

	// With an account, t.me/c/<id> resolves to the channel, a collection.
	r, err := h.client.Resolve(context.Background(), &adapterv1.ResolveRequest{Url: "https://t.me/c/1234567890", Account: true})
	require.NoError(t, err)
	require.Nil(t, r.GetError())
	require.True(t, r.GetCollection())
	require.Equal(t, "telegram.channel", r.GetTarget().GetEntityType())
	require.Equal(t, "c/1234567890", r.GetTarget().GetExternalId())
}
