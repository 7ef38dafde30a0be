package x_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

type entityView struct {
	Key, Type, ExternalID string
	Resources             []uint32
}

func viewEntities(es []*adapterv1.Entity) []entityView {
	out := make([]entityView, 0, len(es))
	for _, e := range es {
		out = append(out, entityView{e.GetKey(), e.GetType(), e.GetExternalId(), e.GetResourceIndexes()})
	}
	return out
}

// mediaView is what a person (or core's download step) reads of a Media.
type mediaView struct {
	URL       string
	Kind      adapterv1.MediaKind
	Mime      string
	Width     uint32
	Height    uint32
	Duration  uint32
	Alt       string
	Sensitive bool
	CacheKey  string
	Purpose   string
}

func viewMedia(t *testing.T, ms []*adapterv1.Media) []mediaView {
	t.Helper()
	out := make([]mediaView, 0, len(ms))
	for _, m := range ms {
		require.Empty(t, m.GetUnavailableReason(), "every fixture medium is available")
		out = append(out, mediaView{
			URL: m.GetUrl(), Kind: m.GetKind(), Mime: m.GetMime(), Width: m.GetWidth(), Height: m.GetHeight(),
			Duration: m.GetDurationMs(), Alt: m.GetAlt(), Sensitive: m.GetSensitive(), CacheKey: m.GetCacheKey(),
			Purpose: m.GetPurpose(),
		})
	}
	return out
}

const (
	archivistID      = "1455903129074348039"
	archivistProfile = `{"id":"1455903129074348039","handle":"archivist_demo","name":"Archivist Demo",
		"description":"Testing a self-hosted archive. Notes at https://archive.example.org/notes · ping @harbor_notes_demo",
		"avatar_url":"%[1]s/media/pbs.twimg.com/profile_images/1888907060181049344/Xy7pQ2Lm.jpg",
		"banner_url":"%[1]s/media/pbs.twimg.com/profile_banners/1455903129074348039/1739185512",
		"followers":1287,"following":342,"posts":3876,"created_at":"2021-11-03T14:22:10Z","location":"Harbour City",
		"url":"https://x.com/archivist_demo","website":"https://archive.example.org","protected":false}`
)

// archivistResources are the author's avatar (without _200x200) and banner.
func archivistResources(base string) []mediaView {
	avatar := base + "/media/pbs.twimg.com/profile_images/1888907060181049344/Xy7pQ2Lm.jpg"
	banner := base + "/media/pbs.twimg.com/profile_banners/1455903129074348039/1739185512"
	return []mediaView{
		{URL: avatar, Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: "image/jpeg", CacheKey: avatar, Purpose: "avatar"},
		{URL: banner, Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: "image/jpeg", CacheKey: banner, Purpose: "banner"},
	}
}

func TestFetchFixtures(t *testing.T) {
	t.Parallel()
	type want struct {
		fixture   string
		text      string
		summary   string
		published time.Time
		media     func(base string) []mediaView
		entities  []entityView
		relations []string
		postData  string // x.post data of the root, %[1]s is the fake's URL
	}
	tests := map[string]want{
		"2078399740166950912": {
			fixture:   "status-photos.json",
			text:      "Two frames from this morning's walk: fog over the harbour & the old crane. #harbour",
			summary:   "Archivist Demo：Two frames from this morning's walk: fog over the harbour & the old crane. #harbour ⟦image⟧⟦image⟧",
			published: time.Date(2026, 7, 18, 8, 41, 27, 0, time.UTC),
			media: func(base string) []mediaView {
				return append([]mediaView{
					{URL: base + "/media/pbs.twimg.com/media/GwQx7fHa0AAbC1d.jpg?name=orig", Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE,
						Mime: "image/jpeg", Width: 4032, Height: 3024, CacheKey: "x:photo:2078399587459792896:orig",
						Alt: "Fog rolling over a grey harbour at dawn, two moored boats in the foreground"},
					{URL: base + "/media/pbs.twimg.com/media/GwQx7fHa0AEzY9k.jpg?name=orig", Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE,
						Mime: "image/jpeg", Width: 3024, Height: 4032, CacheKey: "x:photo:2078399588604837889:orig"},
				}, archivistResources(base)...)
			},
			entities: []entityView{
				{"post:2078399740166950912", "x.post", "2078399740166950912", []uint32{0, 1}},
				{"profile:" + archivistID, "x.profile", archivistID, []uint32{2, 3}},
			},
			relations: []string{"post:2078399740166950912 -authored_by-> profile:" + archivistID},
			postData: `{"id":"2078399740166950912","url":"https://x.com/archivist_demo/status/2078399740166950912",
				"text":"Two frames from this morning's walk: fog over the harbour & the old crane. #harbour",
				"created_at":"2026-07-18T08:41:27Z","lang":"en","likes":187,"reposts":11,"replies":4,"views":6042,
				"sensitive":false,"source":"Twitter for iPhone","quotes":1,"bookmarks":9,
				"raw_text":"Two frames from this morning's walk: fog over the harbour &amp; the old crane. #harbour https://t.co/Ab12Cd34Ef",
				"display_range":[0,87],"facets":[
					{"type":"hashtag","start":79,"end":87,"original":"harbour"},
					{"type":"media","start":88,"end":111,"display":"pic.x.com/Ab12Cd34Ef","original":"https://t.co/Ab12Cd34Ef",
						"replacement":"https://x.com/archivist_demo/status/2078399740166950912/photo/1"},
					{"type":"media","start":88,"end":111,"display":"pic.x.com/Ab12Cd34Ef","original":"https://t.co/Ab12Cd34Ef",
						"replacement":"https://x.com/archivist_demo/status/2078399740166950912/photo/1"}],
				"media":[{"kind":"photo"},{"kind":"photo"}]}`,
		},
		"2079251421658238976": {
			fixture:   "status-video.json",
			text:      "Timelapse of the tide coming in: 40 minutes in 15 seconds. Shot from the north pier.",
			summary:   "Archivist Demo：Timelapse of the tide coming in: 40 minutes in 15 seconds. Shot from the north pier. ⟦video⟧",
			published: time.Date(2026, 7, 20, 17, 5, 44, 0, time.UTC),
			media: func(base string) []mediaView {
				return append([]mediaView{
					{URL: base + "/media/video.twimg.com/ext_tw_video/2079250786962731008/pu/vid/avc1/1920x1080/kL0mN2oP4qR6sT8u.mp4?tag=12",
						Kind: adapterv1.MediaKind_MEDIA_KIND_VIDEO, Mime: "video/mp4", Width: 1920, Height: 1080, Duration: 15015,
						CacheKey: "x:video:2079250786962731008:1920x1080"},
				}, append(archivistResources(base),
					// The video's thumbnail, its poster: a resource of the post.
					mediaView{URL: base + "/media/pbs.twimg.com/ext_tw_video_thumb/2079250786962731008/pu/img/Wq8eRt5yUi2oPa7s.jpg",
						Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: "image/jpeg", Width: 1920, Height: 1080,
						CacheKey: "x:poster:2079250786962731008", Purpose: "poster"})...)
			},
			entities: []entityView{
				{"post:2079251421658238976", "x.post", "2079251421658238976", []uint32{0, 3}},
				{"profile:" + archivistID, "x.profile", archivistID, []uint32{1, 2}},
			},
			relations: []string{"post:2079251421658238976 -authored_by-> profile:" + archivistID},
			postData: `{"id":"2079251421658238976","url":"https://x.com/archivist_demo/status/2079251421658238976",
				"text":"Timelapse of the tide coming in: 40 minutes in 15 seconds. Shot from the north pier.",
				"created_at":"2026-07-20T17:05:44Z","lang":"en","likes":903,"reposts":64,"replies":12,"views":48213,
				"sensitive":false,"source":"Twitter for Android","quotes":5,"bookmarks":41,
				"raw_text":"Timelapse of the tide coming in: 40 minutes in 15 seconds. Shot from the north pier. https://t.co/Vd56Ef78Gh",
				"display_range":[0,84],"facets":[{"type":"media","start":85,"end":108,"display":"pic.x.com/Vd56Ef78Gh",
					"original":"https://t.co/Vd56Ef78Gh","replacement":"https://x.com/archivist_demo/status/2079251421658238976/video/1"}],
				"media":[{"kind":"video","codec":"h264","bitrate":10368000,"browser_plays":true}]}`,
		},
		"2079906847374594048": {
			fixture:   "status-quote.json",
			text:      "Worth reading in full. Archived a copy (raw JSON + media) just in case.",
			summary:   "Archivist Demo：Worth reading in full. Archived a copy (raw JSON + media) just in case.",
			published: time.Date(2026, 7, 22, 12, 30, 9, 0, time.UTC),
			media: func(base string) []mediaView {
				harborAvatar := base + "/media/pbs.twimg.com/profile_images/1814309216057106432/Hn3vB8qZ.jpg"
				harborBanner := base + "/media/pbs.twimg.com/profile_banners/995952779720409089/1721400000"
				m := []mediaView{
					{URL: base + "/media/pbs.twimg.com/media/GwZk2LmNbAAqR4t.png?name=orig", Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE,
						Mime: "image/png", Width: 1600, Height: 900, Alt: "Table of August high and low tide times",
						CacheKey: "x:photo:2079645344132370434:orig", Purpose: "quoted"},
				}
				m = append(m, archivistResources(base)...)
				return append(m,
					mediaView{URL: harborAvatar, Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: "image/jpeg", CacheKey: harborAvatar, Purpose: "avatar"},
					mediaView{URL: harborBanner, Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: "image/jpeg", CacheKey: harborBanner, Purpose: "banner"},
				)
			},
			entities: []entityView{
				{"post:2079906847374594048", "x.post", "2079906847374594048", nil},
				{"profile:" + archivistID, "x.profile", archivistID, []uint32{1, 2}},
				{"post:2079645815421145088", "x.post", "2079645815421145088", []uint32{0}},
				{"profile:995952779720409089", "x.profile", "995952779720409089", []uint32{3, 4}},
			},
			relations: []string{
				"post:2079906847374594048 -authored_by-> profile:" + archivistID,
				"post:2079645815421145088 -authored_by-> profile:995952779720409089",
				"post:2079906847374594048 -quotes-> post:2079645815421145088",
			},
			postData: `{"id":"2079906847374594048","url":"https://x.com/archivist_demo/status/2079906847374594048",
				"text":"Worth reading in full. Archived a copy (raw JSON + media) just in case.",
				"created_at":"2026-07-22T12:30:09Z","lang":"en","likes":22,"reposts":3,"replies":1,"views":1877,
				"sensitive":false,"source":"Twitter Web App","quote_id":"2079645815421145088","quotes":0,"bookmarks":2,
				"raw_text":"Worth reading in full. Archived a copy (raw JSON + media) just in case.","display_range":[0,71]}`,
		},
		"2080424850067443712": {
			fixture:   "status-sensitive-gif.json",
			text:      "Night shift at the dry dock. Flashing lights warning.",
			summary:   "Archivist Demo：Night shift at the dry dock. Flashing lights warning. ⟦video⟧",
			published: time.Date(2026, 7, 23, 22, 48, 31, 0, time.UTC),
			media: func(base string) []mediaView {
				return append([]mediaView{
					{URL: base + "/media/video.twimg.com/tweet_video/GwdR5tYbQAAx3Kp.mp4", Kind: adapterv1.MediaKind_MEDIA_KIND_GIF,
						Mime: "video/mp4", Width: 498, Height: 280, Sensitive: true, CacheKey: "x:gif:2080424710320889856:498x280"},
				}, append(archivistResources(base),
					mediaView{URL: base + "/media/pbs.twimg.com/tweet_video_thumb/GwdR5tYbQAAx3Kp.jpg", Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE,
						Mime: "image/jpeg", Width: 498, Height: 280, Sensitive: true, CacheKey: "x:poster:2080424710320889856", Purpose: "poster"})...)
			},
			entities: []entityView{
				{"post:2080424850067443712", "x.post", "2080424850067443712", []uint32{0, 3}},
				{"profile:" + archivistID, "x.profile", archivistID, []uint32{1, 2}},
			},
			relations: []string{"post:2080424850067443712 -authored_by-> profile:" + archivistID},
			postData: `{"id":"2080424850067443712","url":"https://x.com/archivist_demo/status/2080424850067443712",
				"text":"Night shift at the dry dock. Flashing lights warning.",
				"created_at":"2026-07-23T22:48:31Z","lang":"en","likes":61,"reposts":5,"replies":7,"views":9120,
				"sensitive":true,"source":"Twitter for iPhone","quotes":2,"bookmarks":3,
				"raw_text":"Night shift at the dry dock. Flashing lights warning. https://t.co/Gf01Hi23Jk","display_range":[0,53],
				"facets":[{"type":"media","start":54,"end":77,"display":"pic.x.com/Gf01Hi23Jk",
					"original":"https://t.co/Gf01Hi23Jk","replacement":"https://x.com/archivist_demo/status/2080424850067443712/photo/1"}],
				"media":[{"kind":"gif","codec":"h264","browser_plays":true}],
				"community_note":{"text":"The clip is from a 2019 safety drill at a different yard, not a recent incident. https://t.co/Zx98Yw76Vu",
					"facets":[{"type":"url","start":81,"end":104,"display":"https://t.co/Zx98Yw76Vu","replacement":"https://news.example.com/2019/yard-safety-drill"}]}}`,
		},
	}

	h := newHarness(t, nil)
	base := h.fake.URL()
	for id, w := range tests {
		t.Run(w.fixture, func(t *testing.T) {
			resp := h.fetchPost(t, id)
			require.Nil(t, resp.GetError())
			kittest.CheckGraph(t, h.schemas, resp)

			require.Equal(t, adapterv1.Visibility_VISIBILITY_PUBLIC, resp.GetVisibility())
			d := resp.GetDisplay()
			require.Equal(t, w.text, d.GetText())
			require.Equal(t, adapterv1.TextKind_TEXT_KIND_PLAIN, d.GetTextKind())
			require.Equal(t, "Archivist Demo", d.GetAuthorName())
			require.Equal(t, w.summary, d.GetSummary())
			require.Equal(t, w.published, d.GetPublishedAt().AsTime())

			require.Equal(t, w.media(base), viewMedia(t, resp.GetMedia()))
			for _, m := range resp.GetMedia() {
				require.NotContains(t, m.GetUrl(), ".m3u8", "never the HLS playlist")
				require.NotRegexp(t, `_(normal|bigger|mini|200x200|400x400)\.`, m.GetUrl(), "avatars at original size")
				// What core would download is there, of the declared type.
				res, err := http.Get(m.GetUrl())
				require.NoError(t, err)
				body, err := io.ReadAll(res.Body)
				_ = res.Body.Close()
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, res.StatusCode, m.GetUrl())
				require.Equal(t, m.GetMime(), http.DetectContentType(body), m.GetUrl())
			}

			g := resp.GetGraph()
			require.Equal(t, "post:"+id, g.GetRootKey())
			require.Equal(t, w.entities, viewEntities(g.GetEntities()))
			require.Equal(t, w.relations, kittest.ViewRelations(g.GetRelations()))
			require.JSONEq(t, w.postData, kittest.EntityData(t, resp, "post:"+id))
			require.JSONEq(t, strings.ReplaceAll(archivistProfile, "%[1]s", base), kittest.EntityData(t, resp, "profile:"+archivistID))

			require.Len(t, resp.GetSourceResponses(), 1)
			src := resp.GetSourceResponses()[0]
			require.Equal(t, h.fake.Raw(w.fixture), src.GetBody(), "raw body byte for byte")
			require.Equal(t, "application/json", src.GetContentType())
			require.Equal(t, base+"/2/status/"+id, src.GetRequestUrl())
			require.Equal(t, adapterv1.Visibility_VISIBILITY_PUBLIC, src.GetVisibility())
			require.EqualValues(t, 200, src.GetStatusCode())

			require.Len(t, resp.GetRelatedTargets(), 1)
			require.Equal(t, "https://x.com/archivist_demo", resp.GetRelatedTargets()[0].GetUrl())
			require.EqualValues(t, 60, resp.GetRelatedTargets()[0].GetRefreshAfterSeconds())
		})
	}

	// Entity data is plain JSON, without HTML escapes.
	resp := h.fetchPost(t, "2078399740166950912")
	require.Contains(t, kittest.EntityData(t, resp, "post:2078399740166950912"), "harbour & the old crane")

	// The quoted post's data and its author.
	resp = h.fetchPost(t, "2079906847374594048")
	require.JSONEq(t, `{"id":"2079645815421145088","url":"https://x.com/harbor_notes_demo/status/2079645815421145088",
		"text":"New tide table for August is up. Spring tides on the 9th and 23rd; mind the causeway.",
		"created_at":"2026-07-21T19:12:55Z","lang":"en","likes":1504,"reposts":220,"replies":31,"views":20311,
		"sensitive":false,"source":"Twitter Web App","quotes":17,"bookmarks":388,
		"raw_text":"New tide table for August is up. Spring tides on the 9th and 23rd; mind the causeway. https://t.co/Tt90Ab12Cd",
		"display_range":[0,85],"facets":[{"type":"media","start":86,"end":109,"display":"pic.x.com/Tt90Ab12Cd",
			"original":"https://t.co/Tt90Ab12Cd","replacement":"https://x.com/harbor_notes_demo/status/2079645815421145088/photo/1"}],
		"media":[{"kind":"photo"}]}`, kittest.EntityData(t, resp, "post:2079645815421145088"))
	require.JSONEq(t, `{"id":"995952779720409089","handle":"harbor_notes_demo","name":"Harbor Notes (demo)",
		"description":"Tide tables, causeway closures and fog reports. Unofficial demo account.",
		"avatar_url":"`+base+`/media/pbs.twimg.com/profile_images/1814309216057106432/Hn3vB8qZ.jpg",
		"banner_url":"`+base+`/media/pbs.twimg.com/profile_banners/995952779720409089/1721400000",
		"followers":20433,"following":118,"posts":12055,"created_at":"2018-05-14T09:03:41Z","location":"Harbour City",
		"url":"https://x.com/harbor_notes_demo","protected":false,
		"verified":true,"verified_type":"individual"}`, kittest.EntityData(t, resp, "profile:995952779720409089"))

	// Every API request carried the adapter's User-Agent.
	for _, r := range h.fake.Requests() {
		if strings.HasPrefix(r.Path, "/2/") {
			require.Equal(t, x.DefaultUserAgent, r.UserAgent, r.Path)
		}
	}
}

func TestFetchUpstreamErrors(t *testing.T) {
	t.Parallel()
	const (
		notFound    = adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND
		private     = adapterv1.ErrorCode_ERROR_CODE_PRIVATE
		unavailable = adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE
		badRequest  = adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST
		limited     = adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED
		bad         = adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE
		tooLarge    = adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE
	)
	const free = "1000000000000000009" // a post id no route knows; overrides use it
	valid := func(base string) string {
		return `{"code":200,"status":{"id":"` + free + `","text":"hi","author":{"id":"1","screen_name":"a","name":"A"}}}`
	}
	tests := []struct {
		name      string
		id        string
		setup     func(h *harness)
		code      adapterv1.ErrorCode
		retryable bool
		after     uint32
		message   string
		reason    string
	}{
		{name: "404 not found", id: "1000000000000000001", code: notFound, message: "post not found or not public"},
		{name: "404 tombstone", id: "2071896524193419264", code: notFound, message: "post not found or not public (deleted)", reason: "deleted"},
		{name: "404 unknown route", id: "42", code: notFound, message: "post not found or not public"},
		{name: "401 private", id: "1000000000000000002", code: private, message: "this post is private (protected account)"},
		{name: "500", id: "1000000000000000003", code: unavailable, retryable: true, message: "FxTwitter failed (HTTP 500)"},
		{name: "400 bad id", id: free, code: badRequest, message: "HTTP 400", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 400, "application/json", h.fake.Raw("errors/status-400-bad-id.json"))
		}},
		{name: "429", id: "2078399740166950912", code: limited, retryable: true, after: 60, message: "slow down",
			setup: func(h *harness) { h.fake.RateLimitNext(1) }},
		{name: "502", id: "2078399740166950912", code: unavailable, retryable: true, message: "HTTP 502",
			setup: func(h *harness) { h.fake.FailNext(1, 502) }},
		{name: "HTML with 200", id: free, code: bad, message: "HTML page instead of JSON", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "text/html; charset=utf-8", []byte("<!doctype html><title>Just a moment...</title>"))
		}},
		{name: "HTML labelled JSON", id: free, code: bad, message: "HTML page", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json", []byte("\n<html><body>error</body></html>"))
		}},
		{name: "malformed JSON", id: free, code: bad, message: "not valid JSON", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json", []byte(`{"code":200,"status":{"id":`))
		}},
		{name: "no status", id: free, code: bad, message: "missing status", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json", []byte(`{"code":200,"message":"OK"}`))
		}},
		{name: "no author", id: free, code: bad, message: "missing status.author", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json", []byte(`{"status":{"id":"`+free+`","text":"hi"}}`))
		}},
		{name: "no ids", id: free, code: bad, message: "missing status.id, status.author.id", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json", []byte(`{"status":{"text":"hi","author":{"screen_name":"a"}}}`))
		}},
		{name: "wrong shape", id: free, code: bad, message: "unexpected shape at status.likes", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json", []byte(`{"status":{"id":"1","likes":"many"}}`))
		}},
		{name: "another post", id: free, code: bad, message: "instead of", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json",
				[]byte(strings.Replace(valid(""), `"id":"`+free, `"id":"7`, 1)))
		}},
		{name: "200 with code 404", id: free, code: notFound, message: "post not found", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json", h.fake.Raw("errors/status-404-notfound.json"))
		}},
		{name: "200 with tombstone", id: free, code: notFound, reason: "deleted", message: "(deleted)", setup: func(h *harness) {
			h.fake.SetOverride("/2/status/"+free, 200, "application/json",
				[]byte(`{"status":{"type":"tombstone","reason":"deleted","id":"`+free+`"},"code":200}`))
		}},
		{name: "over the limit", id: "2078399740166950912", code: tooLarge, message: "larger than the 4 MiB limit",
			setup: func(h *harness) {
				h.fake.SetOverride("/2/status/2078399740166950912", 200, "application/json",
					[]byte(strings.Repeat(" ", 4<<20)+valid("")))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil)
			if tt.setup != nil {
				tt.setup(h)
			}
			resp := h.fetchPost(t, tt.id)
			e := resp.GetError()
			require.NotNil(t, e, "want an error, got %v", resp)
			require.Equal(t, tt.code, e.GetCode(), e.GetMessage())
			require.Equal(t, tt.retryable, e.GetRetryable(), e.GetMessage())
			require.Equal(t, tt.after, e.GetRetryAfterSeconds())
			require.Contains(t, e.GetMessage(), tt.message)
			require.Equal(t, tt.reason, e.GetReason())
			require.Nil(t, resp.GetGraph())
			require.Empty(t, resp.GetSourceResponses())
			require.NotContains(t, e.GetMessage(), "error code: 1015", "no upstream bodies in messages")
			reqs := h.fake.Requests()
			require.NotEmpty(t, reqs)
			require.Equal(t, x.DefaultUserAgent, reqs[len(reqs)-1].UserAgent, "the adapter always identifies itself")
		})
	}

	t.Run("valid override", func(t *testing.T) {
		// The override bodies above fail only for the reason they test.
		t.Parallel()
		h := newHarness(t, nil)
		h.fake.SetOverride("/2/status/"+free, 200, "application/json", []byte(valid("")))
		resp := h.fetchPost(t, free)
		kittest.CheckGraph(t, h.schemas, resp)
		require.Equal(t, "A：hi", resp.GetDisplay().GetSummary())
		// No timestamp in the body: the time comes from the snowflake id.
		require.Equal(t, time.UnixMilli(int64(1000000000000000009>>22)+1288834974657).UTC(),
			resp.GetDisplay().GetPublishedAt().AsTime())
	})
}

func TestFetchSizeLimit(t *testing.T) {
	t.Parallel()
	const id = "1000000000000000009"
	h := newHarness(t, func(o *x.Options) { o.MaxResponseBytes = 1 << 10 })
	// A real fixture is over 1 KiB.
	resp := h.fetchPost(t, "2078399740166950912")
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE, resp.GetError().GetCode())
	require.False(t, resp.GetError().GetRetryable())
	require.Contains(t, resp.GetError().GetMessage(), "1 KiB")

	// Exactly at the limit is fine; one byte more is not.
	body := `{"status":{"id":"` + id + `","text":"hi","author":{"id":"1","screen_name":"a"}}}`
	padded := body + strings.Repeat(" ", 1024-len(body))
	h.fake.SetOverride("/2/status/"+id, 200, "application/json", []byte(padded))
	resp = h.fetchPost(t, id)
	require.Nil(t, resp.GetError())
	require.Equal(t, []byte(padded), resp.GetSourceResponses()[0].GetBody())
	h.fake.SetOverride("/2/status/"+id, 200, "application/json", []byte(padded+" "))
	resp = h.fetchPost(t, id)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE, resp.GetError().GetCode())
}

func TestFetchTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *x.Options) { o.HTTPClient = &http.Client{Timeout: 100 * time.Millisecond} })
	h.fake.Delay(5 * time.Second)
	start := time.Now()
	resp := h.fetchPost(t, "2078399740166950912")
	require.Less(t, time.Since(start), 4*time.Second)
	e := resp.GetError()
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, e.GetCode())
	require.True(t, e.GetRetryable())
	require.Contains(t, e.GetMessage(), "did not answer in time")
}

func TestFetchUnreachable(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := lis.Addr().String()
	require.NoError(t, lis.Close())
	client := kittest.Serve(t, x.New(x.Options{BaseURL: "http://" + addr}))
	resp, err := client.Fetch(context.Background(), &adapterv1.FetchRequest{
		ProviderId: "fxtwitter",
		Target:     &adapterv1.Target{Platform: "x", EntityType: "x.post", ExternalId: "1"},
	})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, resp.GetError().GetCode())
	require.True(t, resp.GetError().GetRetryable())
}

func TestFetchBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ctx := context.Background()
	post := func(id string) *adapterv1.Target {
		return &adapterv1.Target{Platform: "x", EntityType: "x.post", ExternalId: id}
	}
	tests := []struct {
		name    string
		req     *adapterv1.FetchRequest
		code    adapterv1.ErrorCode
		message string
	}{
		{"other provider", &adapterv1.FetchRequest{ProviderId: "x-api", Target: post("1")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `provider "x-api" is not a provider of the X adapter`},
		{"account provider without a credential", &adapterv1.FetchRequest{ProviderId: "x-session", Target: post("1")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a credential of the x-session provider"},
		{"no provider", &adapterv1.FetchRequest{Target: post("1")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a provider"},
		{"other platform", &adapterv1.FetchRequest{ProviderId: "fxtwitter",
			Target: &adapterv1.Target{Platform: "telegram", EntityType: "x.post", ExternalId: "1"}},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `platform "telegram"`},
		{"profile not a handle", &adapterv1.FetchRequest{ProviderId: "fxtwitter",
			Target: &adapterv1.Target{Platform: "x", EntityType: "x.profile", ExternalId: "@no/../status/1"}},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `profile "@no/../status/1" is not an X handle or user id`},
		{"profile bad id", &adapterv1.FetchRequest{ProviderId: "fxtwitter",
			Target: &adapterv1.Target{Platform: "x", EntityType: "x.profile", ExternalId: "id:abc"}},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "is not an X handle or user id"},
		{"profile bad cursor", &adapterv1.FetchRequest{ProviderId: "fxtwitter", PageCursor: "a&count=5",
			Target: &adapterv1.Target{Platform: "x", EntityType: "x.profile", ExternalId: "@archivist_demo"}},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `page cursor "a&count=5" is not one the X adapter gave`},
		{"thread of a profile", &adapterv1.FetchRequest{ProviderId: "fxtwitter", Expand: "thread",
			Target: &adapterv1.Target{Platform: "x", EntityType: "x.profile", ExternalId: "@archivist_demo"}},
			adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, `expand "thread" is not something the X adapter does for an x.profile`},
		{"unknown expand", &adapterv1.FetchRequest{ProviderId: "fxtwitter", Expand: "replies", Target: post("1")},
			adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, `expand "replies"`},
		{"unknown type", &adapterv1.FetchRequest{ProviderId: "fxtwitter",
			Target: &adapterv1.Target{Platform: "x", EntityType: "x.list", ExternalId: "1"}},
			adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, `"x.list"`},
		{"not a number", &adapterv1.FetchRequest{ProviderId: "fxtwitter", Target: post("not-a-number")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `post id "not-a-number" is not a valid X post id`},
		{"path trick", &adapterv1.FetchRequest{ProviderId: "fxtwitter", Target: post("1/../../profile/a")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a valid X post id"},
	}
	for _, tt := range tests {
		resp, err := h.client.Fetch(ctx, tt.req)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.code, resp.GetError().GetCode(), tt.name)
		require.Contains(t, resp.GetError().GetMessage(), tt.message, tt.name)
		require.False(t, resp.GetError().GetRetryable(), tt.name)
	}
	require.Empty(t, h.fake.Requests(), "bad requests never reach FxTwitter")

	_, err := h.client.Fetch(ctx, &adapterv1.FetchRequest{ProviderId: "fxtwitter"})
	require.Equal(t, codes.InvalidArgument, status.Code(err))

	prep, err := h.client.PrepareCredential(ctx, &adapterv1.PrepareCredentialRequest{ProviderId: "fxtwitter"})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, prep.GetError().GetCode(), "fxtwitter takes no credential")
}

// A poll is kept with the post: its choices in order with their votes,
// valid against the x.post schema.
func TestFetchKeepsPoll(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(h.fake.Raw("status-photos.json"), &doc))
	// FxTwitter's poll shape (as in its OpenAPI document and recorded runs).
	doc["status"].(map[string]any)["poll"] = map[string]any{
		"ends_at": "2026-07-19T08:41:27.000Z", "time_left_en": "Final results", "total_votes": 22,
		"choices": []any{
			map[string]any{"label": "Fog", "count": 13, "percentage": 59.1},
			map[string]any{"label": "Sun", "count": 9, "percentage": 40.9},
			map[string]any{"label": "", "count": 0, "percentage": 0},
		},
	}
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	h.fake.SetOverride("/2/status/2078399740166950912", http.StatusOK, "application/json", body)

	resp := h.fetchPost(t, "2078399740166950912")
	require.Nil(t, resp.GetError())
	kittest.CheckGraph(t, h.schemas, resp)
	var data struct {
		Poll json.RawMessage `json:"poll"`
	}
	require.NoError(t, json.Unmarshal([]byte(kittest.EntityData(t, resp, "post:2078399740166950912")), &data))
	require.JSONEq(t, `{"choices":[{"label":"Fog","votes":13,"percentage":59.1},{"label":"Sun","votes":9,"percentage":40.9}],
		"total_votes":22,"ends_at":"2026-07-19T08:41:27Z","ended":true}`, string(data.Poll))
}

// What FxTwitter's OpenAPI document describes beyond text and media, in
// its shapes (no real sample has them): a link card with its image, a
// long-form article with its cover, an embedded YouTube video and a live
// broadcast (links, not downloaded), a repost, a reply with the parent's
// display name, and a video whose only MP4 is HEVC.
func TestFetchKeepsCardsArticlesAndLinks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(h.fake.Raw("status-photos.json"), &doc))
	st := doc["status"].(map[string]any)
	st["card"] = map[string]any{"url": "https://tides.example.org/august", "title": "August tide tables",
		"description": "Every port, every day.", "domain": "tides.example.org", "card_name": "summary_large_image",
		"image": map[string]any{"url": "https://pbs.twimg.com/card_img/1/abc?format=jpg&name=orig", "width": 1200, "height": 628, "alt": "A tide chart"}}
	st["article"] = map[string]any{"id": "1850000000000000001", "title": "Reading a tide table", "preview_text": "High water is not",
		"created_at": "2026-07-01T10:00:00.000Z", "modified_at": "2026-07-02T11:30:00.000Z",
		"cover_media": map[string]any{"id": "c1", "media_key": "3_1", "media_id": "1",
			"media_info": map[string]any{"__typename": "ApiImage", "original_img_url": "https://pbs.twimg.com/media/Cover1.jpg",
				"original_img_width": 1600, "original_img_height": 900, "color_info": map[string]any{"palette": []any{}}}},
		"content":        map[string]any{"blocks": []any{map[string]any{"text": "High water is not the same every day.", "type": "unstyled"}, map[string]any{"text": "  ", "type": "unstyled"}, map[string]any{"text": "Spring tides come with the new moon.", "type": "unstyled"}}},
		"media_entities": []any{}}
	media := st["media"].(map[string]any)
	media["external"] = map[string]any{"type": "video", "url": "https://www.youtube.com/embed/dQw4w9WgXcQ", "thumbnail_url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg", "width": 1280, "height": 720}
	media["broadcast"] = map[string]any{"url": "https://x.com/i/broadcasts/1OdKrBnaEPXKX", "title": "Live from the pier", "state": "ENDED",
		"broadcast_id": "1OdKrBnaEPXKX", "broadcaster": map[string]any{"username": "archivist_demo", "display_name": "Archivist Demo", "id": "1"},
		"thumbnail": map[string]any{"original": map[string]any{"url": "https://pbs.twimg.com/broadcast_thumb/1.jpg"}}}
	hevc := map[string]any{"type": "video", "id": "2078399587459792999", "url": "https://video.twimg.com/amplify_video/9/vid/hevc/1080x1920/h.mp4",
		"width": 1080, "height": 1920, "duration": 3.5, "thumbnail_url": "https://pbs.twimg.com/amplify_video_thumb/9/img/t.jpg",
		"formats": []any{map[string]any{"url": "https://video.twimg.com/amplify_video/9/pl/p.m3u8", "container": "m3u8"},
			map[string]any{"url": "https://video.twimg.com/amplify_video/9/vid/hevc/1080x1920/h.mp4", "container": "mp4", "codec": "hevc", "bitrate": 4000000}}}
	media["all"] = append(media["all"].([]any), hevc)
	media["videos"] = []any{hevc}
	st["reposted_by"] = map[string]any{"id": "783214", "name": "X", "screen_name": "X", "url": "https://x.com/X"}
	st["replying_to"] = map[string]any{"screen_name": "harbor_notes_demo", "status": "2079645815421145088", "display_name": "Harbor Notes (demo)"}
	delete(st, "created_timestamp") // then created_at says when
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	h.fake.SetOverride("/2/status/2078399740166950912", http.StatusOK, "application/json", body)

	resp := h.fetchPost(t, "2078399740166950912")
	require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
	kittest.CheckGraph(t, h.schemas, resp)
	var data struct {
		Card, Article, External, Broadcast, Media json.RawMessage
		RepostedBy                                json.RawMessage `json:"reposted_by"`
		ReplyToName                               string          `json:"reply_to_name"`
		ReplyToID                                 string          `json:"reply_to_id"`
		ReplyToHandle                             string          `json:"reply_to_handle"`
		CreatedAt                                 string          `json:"created_at"`
	}
	require.NoError(t, json.Unmarshal([]byte(kittest.EntityData(t, resp, "post:2078399740166950912")), &data))
	require.JSONEq(t, `{"url":"https://tides.example.org/august","title":"August tide tables","description":"Every port, every day.",
		"domain":"tides.example.org","card_name":"summary_large_image","image_url":"https://pbs.twimg.com/card_img/1/abc?format=jpg&name=orig","image_alt":"A tide chart"}`, string(data.Card))
	require.JSONEq(t, `{"id":"1850000000000000001","title":"Reading a tide table","preview_text":"High water is not",
		"text":"High water is not the same every day.\n\nSpring tides come with the new moon.",
		"created_at":"2026-07-01T10:00:00Z","modified_at":"2026-07-02T11:30:00Z","cover_url":"https://pbs.twimg.com/media/Cover1.jpg"}`, string(data.Article))
	require.JSONEq(t, `{"url":"https://www.youtube.com/embed/dQw4w9WgXcQ","kind":"video","thumbnail_url":"https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg","width":1280,"height":720}`, string(data.External))
	require.JSONEq(t, `{"url":"https://x.com/i/broadcasts/1OdKrBnaEPXKX","id":"1OdKrBnaEPXKX","title":"Live from the pier","state":"ENDED",
		"broadcaster_handle":"archivist_demo","broadcaster_name":"Archivist Demo","thumbnail_url":"https://pbs.twimg.com/broadcast_thumb/1.jpg"}`, string(data.Broadcast))
	require.JSONEq(t, `{"id":"783214","handle":"X","name":"X","url":"https://x.com/X"}`, string(data.RepostedBy))
	require.Equal(t, "Harbor Notes (demo)", data.ReplyToName)
	require.Equal(t, "2079645815421145088", data.ReplyToID)
	require.Equal(t, "harbor_notes_demo", data.ReplyToHandle)
	require.Equal(t, "2026-07-18T08:41:27Z", data.CreatedAt, "from created_at: Sat Jul 18 08:41:27 +0000 2026")
	require.JSONEq(t, `[{"kind":"photo"},{"kind":"photo"},
		{"kind":"video","codec":"hevc","bitrate":4000000,"browser_plays":false}]`, string(data.Media))

	// The card image and the article cover are downloaded as resources of
	// the post; the YouTube video, its thumbnail and the broadcast are not.
	var got []string
	for _, m := range resp.GetMedia() {
		got = append(got, m.GetPurpose()+" "+m.GetUrl())
		require.NotContains(t, m.GetUrl(), "youtube.com")
		require.NotContains(t, m.GetUrl(), "ytimg.com")
		require.NotContains(t, m.GetUrl(), "broadcast")
	}
	require.Contains(t, got, "card https://pbs.twimg.com/card_img/1/abc?format=jpg&name=orig")
	require.Contains(t, got, "article_cover https://pbs.twimg.com/media/Cover1.jpg")
	require.Contains(t, got, " https://video.twimg.com/amplify_video/9/vid/hevc/1080x1920/h.mp4", "the HEVC-only video is kept")
	post := resp.GetGraph().GetEntities()[0]
	var purposes []string
	for _, i := range post.GetResourceIndexes() {
		purposes = append(purposes, resp.GetMedia()[i].GetPurpose())
	}
	require.Equal(t, []string{"", "", "", "poster", "card", "article_cover"}, purposes)

	// The article is the post's text: its title and paragraphs after the post's own words.
	require.Equal(t, "Two frames from this morning's walk: fog over the harbour & the old crane. #harbour\n\nReading a tide table\n\nHigh water is not the same every day.\n\nSpring tides come with the new moon.",
		resp.GetDisplay().GetText())
}
