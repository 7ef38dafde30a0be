package runtime_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// newTelegramRESTCore is newRESTCore with the built-in Telegram adapter
// talking to a fake t.me as well.
func newTelegramRESTCore(t *testing.T) (*restCore, *testkit.Tme) {
	t.Helper()
	fx := testkit.NewFxTwitter(t)
	tme := testkit.NewTme(t)
	cfg := testConfig(t)
	cfg.FxTwitterURL = fx.URL()
	cfg.TmeURL = tme.URL()
	core := runCore(t, cfg)
	return &restCore{base: "http://" + core.Addr(), fx: fx, core: core}, tme
}

// The album 101–104 of the fake (photo, video, photo, video), as the
// fake serves its members.
var tmeAlbum = []string{
	"https://cdn4.cdn-telegram.org/file/a101Hx7Qp2Lm9Vb4Nc8Ws1Ke5Rt3Yd6Uf0Zg2Ji8Oa4Ps1Dh7Fk3Gl9Xz5Cv.jpg",
	"https://cdn4.cdn-telegram.org/file/b1027e4d9c2a6f8e1b3d5c7a9e0f2d4c6b.mp4?token=Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2Mm3Nn4Oo5Pp6Qq7Rr8Ss9Tt0Uu1Vv2Ww3Xx4",
	"https://cdn5.cdn-telegram.org/file/c103Lq8Rw3Zx6Vn1Mb4Kc7Jd0He2Gf5Fs9Da3Sp6Ao8Iu1Yt4Tr7Ee0Ww2Qq.jpg",
	"https://cdn4.telesco.pe/file/d1049a8b7c6d5e4f3a2b1c0d9e8f7a6b5c.mp4?token=Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn7Mm6Ll5Kk4Jj3Ii2Hh1Gg0Ff9Ee8Dd7Cc6",
}

// rootData returns the data of the graph's root entity of a collection.
func rootData(t *testing.T, coll map[string]any) map[string]any {
	t.Helper()
	g := coll["graph"].(map[string]any)
	for _, e := range g["entities"].([]any) {
		em := e.(map[string]any)
		if em["key"] == g["root"] {
			return em["data"].(map[string]any)
		}
	}
	t.Fatalf("no root entity in %v", g)
	return nil
}

// An album link, here a later member's ?single link, is archived as one
// album: every member in order, each with its own message id, stored byte
// for byte.
func TestRESTTelegramAlbum(t *testing.T) {
	t.Parallel()
	rc, tme := newTelegramRESTCore(t)
	token := rc.tenant(t, "alice", nil)

	_, c := rc.capture(t, token, "https://t.me/tidewatch_demo/102?single")
	require.Equal(t, "complete", c["state"], c["error"])
	coll := rc.do(t, token, "GET", "/v1/collections/"+c["collection_id"].(string), nil)
	require.Equal(t, http.StatusOK, coll.status, string(coll.body))
	body := coll.json(t)
	require.Equal(t, "telegram", body["platform"])
	require.Equal(t, "telegram.message", body["entity_type"])
	require.Equal(t, "Tide Watch 🌊", body["author_name"])
	require.Equal(t, "Tide Watch 🌊：Spring tide, 9 January: the causeway at 06:10, 06:40, 07:05 and 07:30. "+
		"Photos @harbour_radio, video by our readers 🙂 [图片][视频][图片][视频]", body["summary"],
		"without Accept-Language the media markers are Chinese, as REST always answered")
	// The stored summary is locale-neutral; the answer renders its media
	// markers in the language asked for.
	for _, tc := range []struct{ accept, markers string }{
		{"en-US,en;q=0.9", "[photo][video][photo][video]"},
		{"zh-CN,zh;q=0.9,en;q=0.5", "[图片][视频][图片][视频]"},
		{"fr", "[photo][video][photo][video]"},
	} {
		for _, path := range []string{"/v1/collections/" + c["collection_id"].(string), "/v1/collections", "/v1/revisions/" + c["revision_id"].(string)} {
			got := rc.do(t, token, "GET", path, nil, "Accept-Language", tc.accept)
			require.Equal(t, http.StatusOK, got.status, string(got.body))
			v := got.json(t)
			if items, ok := v["items"].([]any); ok {
				v = items[0].(map[string]any)
			}
			require.Equal(t, "Tide Watch 🌊：Spring tide, 9 January: the causeway at 06:10, 06:40, 07:05 and 07:30. "+
				"Photos @harbour_radio, video by our readers 🙂 "+tc.markers, v["summary"], "%s with Accept-Language %q", path, tc.accept)
		}
	}
	require.Equal(t, "2026-01-09T07:35:28Z", body["published_at"])

	media := body["media"].([]any)
	require.Len(t, media, 4)
	for i, kind := range []string{"image", "video", "image", "video"} {
		m := media[i].(map[string]any)
		require.Equal(t, kind, m["kind"], i)
		got := rc.do(t, token, "GET", m["url"].(string), nil)
		require.Equal(t, http.StatusOK, got.status)
		require.Equal(t, tme.MediaBytes(tme.MediaURL(tmeAlbum[i])), got.body, "member %d stored byte for byte", i)
		require.Equal(t, m["sha256"], sha(got.body))
	}

	g := body["graph"].(map[string]any)
	require.Equal(t, "message:tidewatch_demo/101", g["root"], "the album is its first message")
	data := rootData(t, body)
	require.EqualValues(t, 101, data["album_id"])
	var ids []float64
	for _, m := range data["media"].([]any) {
		ids = append(ids, m.(map[string]any)["message_id"].(float64))
	}
	require.Equal(t, []float64{101, 102, 103, 104}, ids)

	// The first message's own link is the same album, stored once.
	sub2, c2 := rc.capture(t, token, "https://t.me/tidewatch_demo/101")
	require.Equal(t, "complete", c2["state"], c2["error"])
	body2 := rc.do(t, token, "GET", "/v1/collections/"+sub2["collection_id"].(string), nil).json(t)
	for i := range media {
		require.Equal(t, media[i].(map[string]any)["sha256"], body2["media"].([]any)[i].(map[string]any)["sha256"])
	}
	// The member's link was archived as the album: one collection.
	require.Equal(t, c["collection_id"], sub2["collection_id"])
	list := rc.do(t, token, "GET", "/v1/collections", nil).json(t)
	require.Len(t, list["items"], 1)

	adapters := rc.do(t, token, "GET", "/v1/adapters", nil).json(t)
	var names []string
	for _, a := range adapters["items"].([]any) {
		names = append(names, a.(map[string]any)["id"].(string))
	}
	require.Contains(t, names, "telegram")
	require.Contains(t, names, "x")
}

// Single media, a too-big video (partial, with the reason), forwards and
// replies as relations, and the raw pages kept.
func TestRESTTelegramPosts(t *testing.T) {
	t.Parallel()
	rc, _ := newTelegramRESTCore(t)
	token := rc.tenant(t, "alice", nil)
	cases := []struct {
		url, state, kind string
		media            int
		verify           func(t *testing.T, c, coll map[string]any)
	}{
		{"https://t.me/tidewatch_demo/120", "complete", "image", 1, nil},
		{"https://telegram.me/TideWatch_Demo/121?embed=1", "complete", "video", 1, nil},
		{"https://t.me/s/tidewatch_demo/123", "complete", "gif", 1, nil},
		{"https://t.me/tidewatch_demo/131", "complete", "audio", 1, nil},
		{"https://t.me/tidewatch_demo/122", "partial", "", 0, func(t *testing.T, c, coll map[string]any) {
			require.Contains(t, c["error"], "media is too big")
			// The thumbnail stays with the message.
			var purposes []string
			for _, e := range coll["graph"].(map[string]any)["entities"].([]any) {
				for _, r := range nilSlice(e.(map[string]any)["resources"]) {
					purposes = append(purposes, r.(map[string]any)["purpose"].(string))
				}
			}
			require.Contains(t, purposes, "thumbnail")
		}},
		{"https://t.me/tidewatch_demo/130", "partial", "", 0, func(t *testing.T, c, coll map[string]any) {
			require.Contains(t, c["error"], "does not offer files for download")
			require.Equal(t, "January tide table (PDF). Times are local; heights in metres.", coll["text"])
		}},
		{"https://t.me/tidewatch_demo/140?comment=12", "complete", "", 0, func(t *testing.T, _, coll map[string]any) {
			require.Contains(t, relations(coll), "message:tidewatch_demo/140 -forwarded_from-> message:harbour_radio/5581")
		}},
		{"https://t.me/tidewatch_demo/141", "complete", "", 0, func(t *testing.T, _, coll map[string]any) {
			require.Contains(t, relations(coll), "message:tidewatch_demo/141 -replies_to-> message:tidewatch_demo/120")
		}},
		{"https://t.me/tidewatch_demo/142", "complete", "", 0, func(t *testing.T, _, coll map[string]any) {
			d := rootData(t, coll)
			require.Equal(t, true, d["edited"])
			require.Equal(t, "Jonas Reed", d["signature"])
		}},
		{"https://t.me/tidewatch_demo/143", "complete", "", 0, func(t *testing.T, _, coll map[string]any) {
			d := rootData(t, coll)
			require.Equal(t, "https://cams.example.org/view?cam=north-pier&quality=hd&lang=en",
				d["link_preview"].(map[string]any)["url"], "&amp; decoded")
			require.Contains(t, coll["text"], "🎥 ✅")
		}},
		{"https://t.me/tidewatch_demo", "complete", "", 0, func(t *testing.T, _, coll map[string]any) {
			require.Equal(t, "telegram.channel", coll["entity_type"])
			require.EqualValues(t, 27400, rootData(t, coll)["subscribers"])
		}},
	}
	for _, tc := range cases {
		t.Run(strings.TrimPrefix(tc.url, "https://"), func(t *testing.T) {
			sub, c := rc.capture(t, token, tc.url)
			require.Equal(t, tc.state, c["state"], c["error"])
			coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil)
			require.Equal(t, http.StatusOK, coll.status, string(coll.body))
			body := coll.json(t)
			require.NotEmpty(t, body["summary"])
			require.Equal(t, "public", body["visibility"])
			media := body["media"].([]any)
			require.Len(t, media, tc.media)
			for _, m := range media {
				require.Equal(t, tc.kind, m.(map[string]any)["kind"])
			}
			if tc.verify != nil {
				tc.verify(t, c, body)
			}
		})
	}
}

// "Post not found" and a page of another shape end the capture failed,
// with no revision: never a half-saved post. Links Telegram's web preview
// cannot serve are refused at submit.
func TestRESTTelegramFailures(t *testing.T) {
	t.Parallel()
	rc, tme := newTelegramRESTCore(t)
	token := rc.tenant(t, "alice", nil)

	sub, c := rc.capture(t, token, "https://t.me/tidewatch_demo/999")
	require.Equal(t, "failed", c["state"])
	require.Contains(t, c["error"], "post not found")
	coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil).json(t)
	require.Nil(t, coll["revision_id"])

	tme.SetOverride("/tidewatch_demo/120", 200, "text/html; charset=utf-8",
		[]byte(`<!doctype html><html><body><div class="tgme_post_v2" data-id="120">Fog over the north pier</div></body></html>`))
	sub, c = rc.capture(t, token, "https://t.me/tidewatch_demo/120")
	require.Equal(t, "failed", c["state"])
	require.Contains(t, c["error"], "could not read this post")
	coll = rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil).json(t)
	require.Nil(t, coll["revision_id"])
	require.Empty(t, coll["media"])
	require.Nil(t, coll["graph"])
	usage := rc.do(t, token, "GET", "/v1/usage", nil).json(t)
	require.Equal(t, float64(0), usage["reserved_bytes"])

	for url, code := range map[string]string{
		"https://t.me/c/1874921563/120":                    "needs_account",
		"https://t.me/+AbCdEf123":                          "unsupported",
		"https://t.me/joinchat/AbCdEf123":                  "unsupported",
		"https://t.me/ab/1":                                "invalid_url",
		"https://t.me/tidewatch_demo/99999999999999999999": "invalid_url",
	} {
		a := rc.do(t, token, "POST", "/v1/captures", map[string]string{"url": url})
		require.Equal(t, http.StatusUnprocessableEntity, a.status, url)
		var p struct{ Type, Code, Detail string }
		require.NoError(t, json.Unmarshal(a.body, &p))
		require.Equal(t, "urn:monitor:problem:unsupported-link", p.Type, url)
		require.Equal(t, code, p.Code, url)
		require.Contains(t, p.Detail, "adapter telegram: ", url)
	}
}

func relations(coll map[string]any) []string {
	var out []string
	for _, r := range coll["graph"].(map[string]any)["relations"].([]any) {
		rm := r.(map[string]any)
		out = append(out, rm["from"].(string)+" -"+rm["relation"].(string)+"-> "+rm["to"].(string))
	}
	return out
}

func nilSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
