package telegram_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// longCh is the generated channel of fakeChannel.
const longCh = "longtide_demo"

// fakeChannel plays t.me/s for one channel of n posts, written from the
// documented page structure (testdata/tme/STRUCTURE.md): every seventh
// post is an album of three messages with consecutive ids, shown as one
// post under its first id. A page holds the perPage posts before
// ?before=<id>, oldest first, and links to older ones while there are.
type fakeChannel struct {
	srv     *httptest.Server
	posts   []int64 // the posts' ids (an album's first), oldest first
	members map[int64][]int64

	mu       sync.Mutex
	perPage  int
	failAt   map[int64]int // before → HTTP status
	requests []string
}

func newFakeChannel(t *testing.T, n int) *fakeChannel {
	t.Helper()
	f := &fakeChannel{members: map[int64][]int64{}, perPage: 20, failAt: map[int64]int{}}
	id := int64(1)
	for i := range n {
		f.posts = append(f.posts, id)
		if i%7 == 3 {
			f.members[id] = []int64{id, id + 1, id + 2}
			id += 3
		} else {
			id++
		}
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeChannel) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.RequestURI())
	if r.URL.Path != "/s/"+longCh {
		http.NotFound(w, r)
		return
	}
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	if st, ok := f.failAt[before]; ok {
		w.WriteHeader(st)
		_, _ = fmt.Fprintf(w, "<html><body><h1>%d</h1></body></html>", st)
		return
	}
	end := len(f.posts)
	if before > 0 {
		end = 0
		for end < len(f.posts) && f.posts[end] < before {
			end++
		}
	}
	start := max(end-f.perPage, 0)
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Long Tide – Telegram</title></head>` +
		`<body class="widget_frame_base tgme_webpreview"><aside class="tgme_right_column"><section class="tgme_channel_info">` +
		`<div class="tgme_channel_info_header"><div class="tgme_channel_info_header_title"><span dir="auto">Long Tide</span></div>` +
		`<div class="tgme_channel_info_header_username"><a href="https://t.me/` + longCh + `">@` + longCh + `</a></div></div>` +
		`<div class="tgme_channel_info_counters"><div class="tgme_channel_info_counter"><span class="counter_value">1.2K</span> <span class="counter_type">subscribers</span></div></div>` +
		`<div class="tgme_channel_info_description">Every tide, logged.</div></section></aside>` +
		`<main class="tgme_main" data-url="/` + longCh + `"><div class="tgme_container"><section class="tgme_channel_history js-message_history">`)
	if start > 0 {
		fmt.Fprintf(&b, `<div class="tgme_widget_message_centered js-messages_more_wrap"><a href="/s/%s?before=%d" class="tme_messages_more js-messages_more" data-before="%[2]d"></a></div>`,
			longCh, f.posts[start])
	}
	for _, id := range f.posts[start:end] {
		fmt.Fprintf(&b, `<div class="tgme_widget_message_wrap js-widget_message_wrap"><div class="tgme_widget_message text_not_supported_wrap js-widget_message" data-post="%s/%d"><div class="tgme_widget_message_bubble">`, longCh, id)
		if ms := f.members[id]; ms != nil {
			b.WriteString(`<div class="tgme_widget_message_grouped_wrap js-message_grouped_wrap"><div class="tgme_widget_message_grouped js-message_grouped"><div class="tgme_widget_message_grouped_layer js-message_grouped_layer">`)
			for _, m := range ms {
				fmt.Fprintf(&b, `<a class="tgme_widget_message_photo_wrap grouped_media_wrap blured js-message_photo" href="https://t.me/%s/%d?single" style="background-image:url('https://cdn1.telegram-cdn.org/file/p%d.jpg')"><div class="grouped_media_helper"><div class="tgme_widget_message_photo grouped_media"></div></div></a>`, longCh, m, m)
			}
			b.WriteString(`</div></div></div>`)
		}
		fmt.Fprintf(&b, `<div class="tgme_widget_message_text js-message_text" dir="auto">Tide log %d</div>`+
			`<div class="tgme_widget_message_footer compact js-message_footer"><div class="tgme_widget_message_info short js-message_info"><span class="tgme_widget_message_meta">`+
			`<a class="tgme_widget_message_date" href="https://t.me/%s/%[1]d"><time datetime="2026-01-02T03:04:05+00:00" class="time">03:04</time></a></span></div></div></div></div></div>`, id, longCh)
	}
	b.WriteString(`</section></div></main></body></html>`)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

func (f *fakeChannel) requestCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// postURL is the URL of the i-th newest post.
func (f *fakeChannel) postURL(i int) string {
	return fmt.Sprintf("https://t.me/%s/%d", longCh, f.posts[len(f.posts)-1-i])
}

func longRequest(cursor string, size uint32) *adapterv1.FetchRequest {
	return &adapterv1.FetchRequest{ProviderId: telegram.ProviderTmePublic, PageCursor: cursor, PageSize: size,
		Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.channel", ExternalId: longCh, CanonicalUrl: "https://t.me/" + longCh}}
}

func fetchCh(t *testing.T, c adapterv1.AdapterClient, req *adapterv1.FetchRequest) *adapterv1.FetchResponse {
	t.Helper()
	resp, err := c.Fetch(context.Background(), req)
	require.NoError(t, err)
	return resp
}

func targetURLs(resp *adapterv1.FetchResponse) []string {
	var out []string
	for _, rt := range resp.GetRelatedTargets() {
		out = append(out, rt.GetUrl())
	}
	return out
}

// A 250-post channel, 20 posts a t.me/s page: 100 posts a Fetch, newest
// first, page after page by cursor to the end; an album is its first
// message, never its other members.
func TestFetchChannelPages(t *testing.T) {
	t.Parallel()
	f := newFakeChannel(t, 250)
	c := kittest.Serve(t, telegram.New(telegram.Options{BaseURL: f.srv.URL}))
	d, err := c.Describe(context.Background(), &adapterv1.DescribeRequest{})
	require.NoError(t, err)
	schemas := kittest.CompileSchemas(t, d)

	var got []string
	cursor := ""
	for i, want := range []struct{ n, pages int }{{100, 5}, {100, 5}, {50, 3}} {
		before := f.requestCount()
		resp := fetchCh(t, c, longRequest(cursor, 0))
		require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
		kittest.CheckGraph(t, schemas, resp)
		require.Equal(t, "channel:"+longCh, resp.GetGraph().GetRootKey(), "every page carries the channel")
		require.Contains(t, kittest.EntityData(t, resp, "channel:"+longCh), `"subscribers":1200`)
		require.Len(t, resp.GetRelatedTargets(), want.n, "page %d", i)
		require.Equal(t, want.pages, f.requestCount()-before, "page %d: upstream pages", i)
		require.Len(t, resp.GetSourceResponses(), want.pages)
		got = append(got, targetURLs(resp)...)
		for _, rt := range resp.GetRelatedTargets() {
			require.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), rt.GetPublishedAt().AsTime(), "the page's datetime")
		}
		cursor = resp.GetNextPageCursor()
		if i < 2 {
			require.Equal(t, fmt.Sprintf("before=%d", f.posts[len(f.posts)-100*(i+1)]), cursor)
		}
	}
	require.Empty(t, cursor, "the channel's first post ends it")
	require.Len(t, got, 250)
	for i, u := range got {
		require.Equal(t, f.postURL(i), u)
	}
	for first, ms := range f.members {
		require.Contains(t, got, fmt.Sprintf("https://t.me/%s/%d", longCh, first))
		for _, m := range ms[1:] {
			require.NotContains(t, got, fmt.Sprintf("https://t.me/%s/%d", longCh, m), "album members collapse to the album")
		}
	}
}

// At most 20 upstream pages a Fetch; a page failing after progress keeps
// it and resumes there; failing at once is the error.
func TestFetchChannelBounds(t *testing.T) {
	t.Parallel()
	f := newFakeChannel(t, 250)
	f.perPage = 5
	c := kittest.Serve(t, telegram.New(telegram.Options{BaseURL: f.srv.URL}))
	resp := fetchCh(t, c, longRequest("", 200))
	require.Nil(t, resp.GetError())
	require.Len(t, resp.GetRelatedTargets(), 100)
	require.Equal(t, 20, f.requestCount())
	require.Equal(t, fmt.Sprintf("before=%d", f.posts[150]), resp.GetNextPageCursor())

	f.perPage = 20
	third := f.posts[len(f.posts)-40]
	f.failAt[third] = http.StatusBadGateway
	resp = fetchCh(t, c, longRequest("", 0))
	require.Nil(t, resp.GetError())
	require.Len(t, resp.GetRelatedTargets(), 40)
	require.Equal(t, fmt.Sprintf("before=%d", third), resp.GetNextPageCursor(), "more resumes at the failed page")

	resp = fetchCh(t, c, longRequest(resp.GetNextPageCursor(), 0))
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, resp.GetError().GetCode())
	require.True(t, resp.GetError().GetRetryable())

	delete(f.failAt, third)
	resp = fetchCh(t, c, longRequest(fmt.Sprintf("before=%d", third), 0))
	require.Nil(t, resp.GetError())
	require.Equal(t, f.postURL(40), resp.GetRelatedTargets()[0].GetUrl())
}

// expand "none" reads the header alone; a cursor Fetch did not give is
// refused before t.me is asked.
func TestFetchChannelHeaderOnlyAndBadCursor(t *testing.T) {
	t.Parallel()
	f := newFakeChannel(t, 250)
	c := kittest.Serve(t, telegram.New(telegram.Options{BaseURL: f.srv.URL}))
	req := longRequest("", 0)
	req.Expand = adapterv1.ExpandNone
	resp := fetchCh(t, c, req)
	require.Nil(t, resp.GetError())
	require.Empty(t, resp.GetRelatedTargets())
	require.Empty(t, resp.GetNextPageCursor())
	require.Equal(t, 1, f.requestCount())

	for _, cur := range []string{"after=5", "before=abc", "before=0", "before=5&q=x"} {
		resp = fetchCh(t, c, longRequest(cur, 0))
		require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, resp.GetError().GetCode(), cur)
		require.Contains(t, resp.GetError().GetMessage(), "is not one the Telegram adapter gave", cur)
	}
	req = longRequest("", 0)
	req.Expand = adapterv1.ExpandThread
	resp = fetchCh(t, c, req)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, resp.GetError().GetCode())
	require.Equal(t, 1, f.requestCount(), "bad requests never reach t.me")
}
