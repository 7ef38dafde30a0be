package x_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// The account of the recorded profile fixture.
const (
	demoHandle = "archivist_demo"
	demoID     = "1455903129074348039"
)

// fakeTimeline plays FxTwitter for one account with a generated timeline
// of n posts, newest first. Cursors are "o<offset>"; a page holds count
// posts (or perPage, when set, whatever count says).
type fakeTimeline struct {
	srv     *httptest.Server
	profile []byte // the /2/profile answer
	posts   []json.RawMessage

	mu       sync.Mutex
	perPage  int         // > 0: ignore count
	pinned   bool        // every page starts with the newest post again
	failAt   map[int]int // offset → HTTP status of its page
	requests []string    // path?query of every request
}

func newFakeTimeline(t testing.TB, n int) *fakeTimeline {
	t.Helper()
	dir := testkit.FixturesDir(t, "fxtwitter")
	profile, err := os.ReadFile(filepath.Join(dir, "profile.json"))
	require.NoError(t, err)
	var prof struct {
		User json.RawMessage `json:"user"`
	}
	require.NoError(t, json.Unmarshal(profile, &prof))
	f := &fakeTimeline{profile: profile, failAt: map[int]int{}}
	for i := range n {
		id := strconv.FormatUint(2080000000000000000-uint64(i)*4096, 10)
		post, err := json.Marshal(map[string]any{
			"type": "status", "id": id, "url": "https://x.com/" + demoHandle + "/status/" + id,
			"text": fmt.Sprintf("Post number %d of the demo timeline", n-i), "author": prof.User,
			"created_timestamp": 1784879920 - i*60, "media": map[string]any{},
		})
		require.NoError(t, err)
		f.posts = append(f.posts, post)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// postURL is the canonical URL of the i-th post of the timeline.
func (f *fakeTimeline) postURL(i int) string {
	var p struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(f.posts[i], &p)
	return p.URL
}

func (f *fakeTimeline) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.Path+"?"+r.URL.RawQuery)
	w.Header().Set("Content-Type", "application/json")
	who, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/2/profile/"), "/")
	if who != demoHandle && who != "id:"+demoID {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"code":404,"message":"User not found"}`))
		return
	}
	if rest == "" {
		_, _ = w.Write(f.profile)
		return
	}
	off := 0
	if c := r.URL.Query().Get("cursor"); c != "" {
		off, _ = strconv.Atoi(strings.TrimPrefix(c, "o"))
	}
	if st, ok := f.failAt[off]; ok {
		w.WriteHeader(st)
		_, _ = fmt.Fprintf(w, `{"code":%d,"results":[],"cursor":{"top":null,"bottom":null}}`, st)
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("count"))
	if f.perPage > 0 {
		n = f.perPage
	}
	end := min(off+n, len(f.posts))
	page := append([]json.RawMessage{}, f.posts[off:end]...)
	if f.pinned && len(f.posts) > 0 {
		page = append([]json.RawMessage{f.posts[0]}, page...)
	}
	body, _ := json.Marshal(map[string]any{
		"code": 200, "results": page, "cursor": map[string]any{"top": "o0", "bottom": "o" + strconv.Itoa(end)},
	})
	_, _ = w.Write(body)
}

func (f *fakeTimeline) timelineRequests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		if strings.Contains(r, "/statuses") {
			out = append(out, r)
		}
	}
	return out
}

// profileClient is the adapter talking to f.
func profileClient(t testing.TB, f *fakeTimeline) adapterv1.AdapterClient {
	t.Helper()
	return kittest.Serve(t, x.New(x.Options{BaseURL: f.srv.URL}))
}

func profileRequest(externalID, cursor string, size uint32) *adapterv1.FetchRequest {
	return &adapterv1.FetchRequest{ProviderId: x.ProviderFxTwitter, PageCursor: cursor, PageSize: size,
		Target: &adapterv1.Target{Platform: x.Platform, EntityType: x.EntityTypeProfile, ExternalId: externalID}}
}

func fetch(t testing.TB, c adapterv1.AdapterClient, req *adapterv1.FetchRequest) *adapterv1.FetchResponse {
	t.Helper()
	resp, err := c.Fetch(context.Background(), req)
	require.NoError(t, err)
	return resp
}

func urls(resp *adapterv1.FetchResponse) []string {
	var out []string
	for _, rt := range resp.GetRelatedTargets() {
		out = append(out, rt.GetUrl())
	}
	return out
}

// A profile by handle: the account as x.profile with avatar and banner,
// the stable id as canonical target, then 100 posts of its timeline per
// Fetch, page after page by cursor, to the end of a 250-post timeline.
func TestFetchProfileTimeline(t *testing.T) {
	t.Parallel()
	f := newFakeTimeline(t, 250)
	c := profileClient(t, f)
	d, err := c.Describe(context.Background(), &adapterv1.DescribeRequest{})
	require.NoError(t, err)
	schemas := kittest.CompileSchemas(t, d)

	resp := fetch(t, c, profileRequest("@"+demoHandle, "", 0))
	require.Nil(t, resp.GetError())
	kittest.CheckGraph(t, schemas, resp)
	require.Equal(t, "profile:"+demoID, resp.GetGraph().GetRootKey())
	ct := resp.GetCanonicalTarget()
	require.Equal(t, []string{"x", "x.profile", "", demoID, "https://x.com/i/user/" + demoID},
		[]string{ct.GetPlatform(), ct.GetEntityType(), ct.GetObjectScope(), ct.GetExternalId(), ct.GetCanonicalUrl()})
	require.Equal(t, "Archivist Demo", resp.GetDisplay().GetAuthorName())
	require.Equal(t, "Archivist Demo：Testing a self-hosted archive. Notes at https://archive.example.org/notes · ping @harbor_notes_demo",
		resp.GetDisplay().GetSummary())
	require.Len(t, resp.GetMedia(), 2)
	require.Equal(t, "https://pbs.twimg.com/profile_images/1888907060181049344/Xy7pQ2Lm.jpg", resp.GetMedia()[0].GetUrl(), "the avatar without its size suffix")
	require.Equal(t, "avatar", resp.GetMedia()[0].GetPurpose())
	require.Equal(t, "banner", resp.GetMedia()[1].GetPurpose())

	var got []string
	for i, want := range []struct {
		cursor, next string
		n, sources   int
	}{
		{"", "o100", 100, 2},
		{"o100", "o200", 100, 2},
		// The last 50, then one more request finds the end.
		{"o200", "", 50, 3},
	} {
		if i > 0 {
			resp = fetch(t, c, profileRequest("@"+demoHandle, want.cursor, 0))
			require.Nil(t, resp.GetError(), want.cursor)
		}
		require.Len(t, resp.GetRelatedTargets(), want.n, want.cursor)
		require.Equal(t, want.next, resp.GetNextPageCursor(), want.cursor)
		require.Len(t, resp.GetSourceResponses(), want.sources, "the profile and every timeline page, raw")
		for j, rt := range resp.GetRelatedTargets() {
			require.Zero(t, rt.GetRefreshAfterSeconds(), "an archived post is reused")
			k := len(got) + j
			require.Equal(t, time.Unix(int64(1784879920-k*60), 0).UTC(), rt.GetPublishedAt().AsTime(),
				"post %d carries its created_timestamp", k)
		}
		got = append(got, urls(resp)...)
	}
	require.Len(t, got, 250)
	for i, u := range got {
		require.Equal(t, f.postURL(i), u, "newest first, in the timeline's order")
	}
	require.Equal(t, "/2/profile/archivist_demo/statuses?count=100", f.timelineRequests()[0])
}

// By id and by handle: one canonical target, so core files both under one
// collection; by id FxTwitter is asked with its id: form.
func TestFetchProfileByIDAndHandleAgree(t *testing.T) {
	t.Parallel()
	f := newFakeTimeline(t, 3)
	c := profileClient(t, f)
	byHandle := fetch(t, c, profileRequest("@"+demoHandle, "", 0))
	for _, ext := range []string{demoID, "id:" + demoID, demoHandle} {
		resp := fetch(t, c, profileRequest(ext, "", 0))
		require.Nil(t, resp.GetError(), ext)
		require.True(t, proto.Equal(byHandle.GetCanonicalTarget(), resp.GetCanonicalTarget()), ext)
		require.Equal(t, urls(byHandle), urls(resp), ext)
	}
	require.Contains(t, f.requests, "/2/profile/id:"+demoID+"?")
}

// At most 20 upstream pages per Fetch: a timeline of 3-post pages stops
// at 60 posts with the cursor to go on from.
func TestFetchProfileStopsAfterTwentyPages(t *testing.T) {
	t.Parallel()
	f := newFakeTimeline(t, 250)
	f.perPage = 3
	resp := fetch(t, profileClient(t, f), profileRequest("@"+demoHandle, "", 0))
	require.Nil(t, resp.GetError())
	require.Len(t, resp.GetRelatedTargets(), 60)
	require.Equal(t, "o60", resp.GetNextPageCursor())
	require.Len(t, f.timelineRequests(), 20)
	require.Len(t, resp.GetSourceResponses(), 21)
}

// A page failing after progress keeps what was read and the cursor of the
// failed page, so "more" resumes there; failing at once is the error.
func TestFetchProfileTimelineFailsMidway(t *testing.T) {
	t.Parallel()
	f := newFakeTimeline(t, 250)
	f.perPage = 50
	f.failAt[100] = http.StatusBadGateway
	c := profileClient(t, f)
	resp := fetch(t, c, profileRequest("@"+demoHandle, "", 150))
	require.Nil(t, resp.GetError())
	require.Len(t, resp.GetRelatedTargets(), 100)
	require.Equal(t, "o100", resp.GetNextPageCursor())
	require.Len(t, resp.GetSourceResponses(), 3, "the failed page is not kept")

	resp = fetch(t, c, profileRequest("@"+demoHandle, "o100", 150))
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, resp.GetError().GetCode())
	require.True(t, resp.GetError().GetRetryable())
	require.Contains(t, resp.GetError().GetMessage(), "FxTwitter failed (HTTP 502)")
	require.Empty(t, resp.GetRelatedTargets())

	delete(f.failAt, 100)
	resp = fetch(t, c, profileRequest("@"+demoHandle, "o100", 150))
	require.Nil(t, resp.GetError())
	require.Len(t, resp.GetRelatedTargets(), 150)
	require.Equal(t, f.postURL(100), resp.GetRelatedTargets()[0].GetUrl())
}

// Never more than 200 related targets: page_size is capped, and a page
// that would pass 200 is left whole for the next Fetch.
func TestFetchProfileNeverPassesTwoHundred(t *testing.T) {
	t.Parallel()
	f := newFakeTimeline(t, 250)
	c := profileClient(t, f)
	resp := fetch(t, c, profileRequest("@"+demoHandle, "", 1000))
	require.Nil(t, resp.GetError())
	require.Len(t, resp.GetRelatedTargets(), 200)
	require.Equal(t, "o200", resp.GetNextPageCursor())

	f.perPage = 150 // an upstream that ignores count
	resp = fetch(t, c, profileRequest("@"+demoHandle, "", 200))
	require.Nil(t, resp.GetError())
	require.Len(t, resp.GetRelatedTargets(), 150)
	require.Equal(t, "o150", resp.GetNextPageCursor(), "the page that did not fit comes next")
}

// A post repeated on every page (a pinned post) is one target.
func TestFetchProfileDeduplicatesAcrossPages(t *testing.T) {
	t.Parallel()
	f := newFakeTimeline(t, 250)
	f.pinned = true
	resp := fetch(t, profileClient(t, f), profileRequest("@"+demoHandle, "", 150))
	require.Nil(t, resp.GetError())
	got := urls(resp)
	require.Len(t, got, 150)
	seen := map[string]bool{}
	for _, u := range got {
		require.False(t, seen[u], "%s twice", u)
		seen[u] = true
	}
	require.Len(t, f.timelineRequests(), 2)
}

// expand "none" (an automatic capture) reads the profile alone.
func TestFetchProfileWithoutTimeline(t *testing.T) {
	t.Parallel()
	f := newFakeTimeline(t, 250)
	req := profileRequest("@"+demoHandle, "", 0)
	req.Expand = adapterv1.ExpandNone
	resp := fetch(t, profileClient(t, f), req)
	require.Nil(t, resp.GetError())
	require.Equal(t, "profile:"+demoID, resp.GetGraph().GetRootKey())
	require.Empty(t, resp.GetRelatedTargets())
	require.Empty(t, resp.GetNextPageCursor())
	require.Empty(t, f.timelineRequests())
}

// Unknown, suspended and protected accounts fail with what happened.
func TestFetchProfileErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(h.fake.Raw("profile.json"), &doc))
	doc["user"].(map[string]any)["protected"] = true
	protected, err := json.Marshal(doc)
	require.NoError(t, err)
	h.fake.SetOverride("/2/profile/locked_demo", http.StatusOK, "application/json",
		[]byte(strings.Replace(string(protected), `"screen_name":"archivist_demo"`, `"screen_name":"locked_demo"`, 1)))

	for _, tt := range []struct {
		handle, message, reason string
		code                    adapterv1.ErrorCode
	}{
		{"no_such_user_demo", "X account @no_such_user_demo not found", "", adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND},
		{"suspended_demo", "X account @suspended_demo is suspended", "suspended", adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND},
		{"locked_demo", "X account @locked_demo is protected", "", adapterv1.ErrorCode_ERROR_CODE_PRIVATE},
	} {
		resp := fetch(t, h.client, profileRequest("@"+tt.handle, "", 0))
		require.Equal(t, tt.code, resp.GetError().GetCode(), tt.handle)
		require.Contains(t, resp.GetError().GetMessage(), tt.message, tt.handle)
		require.Equal(t, tt.reason, resp.GetError().GetReason(), tt.handle)
		require.False(t, resp.GetError().GetRetryable(), tt.handle)
		require.Nil(t, resp.GetGraph(), tt.handle)
	}
	require.Zero(t, h.fake.Hits("/2/profile/locked_demo/statuses"), "a protected timeline is not asked for")

	req := profileRequest("@locked_demo", "", 0)
	req.Expand = adapterv1.ExpandNone
	resp := fetch(t, h.client, req)
	require.Nil(t, resp.GetError(), "the protected account's public profile is still read")
	require.Contains(t, kittest.EntityData(t, resp, "profile:"+demoID), `"protected":true`)
}

// The recorded fixtures: the profile and its two timeline pages, the
// second one repeating the cursor with no posts (the end).
func TestFetchProfileRecordedPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	resp := fetch(t, h.client, profileRequest("@"+demoHandle, "", 0))
	require.Nil(t, resp.GetError())
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, []string{
		"https://x.com/harbor_notes_demo/status/2080563298927775744",
		"https://x.com/archivist_demo/status/2080429049920507904",
		"https://x.com/archivist_demo/status/2080424850067443712",
	}, urls(resp))
	require.Empty(t, resp.GetNextPageCursor(), "the timeline ended")
	require.Len(t, resp.GetSourceResponses(), 3)
}

// BenchmarkProfileTimeline reads a 1,000-post timeline to its end, 100
// posts a Fetch, over gRPC from a local fake: the adapter's time per
// whole timeline and the upstream requests it takes.
func BenchmarkProfileTimeline(b *testing.B) {
	f := newFakeTimeline(b, 1000)
	c := profileClient(b, f)
	start := len(f.requests)
	runs := 0
	for b.Loop() {
		cursor, n := "", 0
		for {
			resp := fetch(b, c, profileRequest("@"+demoHandle, cursor, 0))
			if resp.GetError() != nil {
				b.Fatal(resp.GetError().GetMessage())
			}
			n += len(resp.GetRelatedTargets())
			if cursor = resp.GetNextPageCursor(); cursor == "" {
				break
			}
		}
		if n != 1000 {
			b.Fatalf("%d posts", n)
		}
		runs++
	}
	f.mu.Lock()
	b.ReportMetric(float64(len(f.requests)-start)/float64(runs), "requests/timeline")
	f.mu.Unlock()
}
