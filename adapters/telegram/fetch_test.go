package telegram_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

const ch = "tidewatch_demo"

// CDN addresses of the fixtures, before the fake rewrites them.
const (
	avatarCDN = "https://cdn1.telegram-cdn.org/file/Vq3yJ0bXcN4m8T2kLr7uWpZs5AeHdGfQ1iOo9BnCx6Yt0MvKjS3lRw8PaUe4DhIgz.jpg"
	photo120  = "https://cdn4.cdn-telegram.org/file/kQ2bH7xW9mVnT4cR1sYp0LzUa8gEjF3dOiK6qNwBtMhX5yZrAeGc2vJuPl7oSfD1Iw.jpg"
	video121  = "https://cdn4.cdn-telegram.org/file/8f1c2ad94be7305a61d2c8e0f9b3a4d7.mp4?token=Xq3H0dKmT9vYpL2sR8wZ1cB5nF7gJ4uE6aQiOeWtUrIyMkNbVcXzAs1Df0Gh9Lj8Pk7Oi6Uy5Tr4Ee3Ww2Qq1Aa0Zz"
	thumb122  = "https://cdn4.cdn-telegram.org/file/t122ThumbPz8LmQ3vR6nX1kWc9YbS4dT7fJ0gH2aE5uKo.jpg"
	// Still frames of the shown videos: their posters.
	thumb121   = "https://cdn4.cdn-telegram.org/file/t121ThumbR7vN2kLq9XbW4mZs0PcYd8HjF1uGe6Ta3Oi5Kw.jpg"
	thumb123   = "https://cdn4.cdn-telegram.org/file/t123ThumbBq4Wn7Xc1Vz5Mr8Ks2Lp6Ja9Hd3Gf0De7Cu.jpg"
	thumb102   = "https://cdn4.cdn-telegram.org/file/t102ThumbUa5Ys8Tc1Rv4Qw7Px0On3Mk6Lj9Ih2Hg5Gf.jpg"
	thumb104   = "https://cdn4.telesco.pe/file/t104ThumbEd8Dc1Cb4Ba7Az0Zy3Yx6Xw9Wv2Vu5Ut8Ts.jpg"
	gif123     = "https://cdn4.cdn-telegram.org/file/c0ffee12ab34cd56ef7890a1b2c3d4e5.mp4?token=Gf5Hn2Jk8Lm1Pq4Rs7Tv0Wx3Yz6Ab9Cd2Ef5Gh8Ij1Kl4Mn7Op0Qr3St6Uv9Wx2Yz5"
	voice131   = "https://cdn5.cdn-telegram.org/file/e131f00d5a6b7c8d9e0f1a2b3c4d5e6f7a.ogg?token=Vo1Ic2Em3Es4Sa5Ge6To7Ke8Nx9Yz0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
	preview143 = "https://cdn4.telesco.pe/file/lp143Img9Kd2Jf5Hg8Gs1Fa4Dq7Sw0Ae3Rz6Tx9Yc2Uv5Ib.jpg"
	album101   = "https://cdn4.cdn-telegram.org/file/a101Hx7Qp2Lm9Vb4Nc8Ws1Ke5Rt3Yd6Uf0Zg2Ji8Oa4Ps1Dh7Fk3Gl9Xz5Cv.jpg"
	album102   = "https://cdn4.cdn-telegram.org/file/b1027e4d9c2a6f8e1b3d5c7a9e0f2d4c6b.mp4?token=Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2Mm3Nn4Oo5Pp6Qq7Rr8Ss9Tt0Uu1Vv2Ww3Xx4"
	album103   = "https://cdn5.cdn-telegram.org/file/c103Lq8Rw3Zx6Vn1Mb4Kc7Jd0He2Gf5Fs9Da3Sp6Ao8Iu1Yt4Tr7Ee0Ww2Qq.jpg"
	album104   = "https://cdn4.telesco.pe/file/d1049a8b7c6d5e4f3a2b1c0d9e8f7a6b5c.mp4?token=Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn7Mm6Ll5Kk4Jj3Ii2Hh1Gg0Ff9Ee8Dd7Cc6"
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
	URL         string
	Kind        adapterv1.MediaKind
	Mime        string
	Duration    uint32
	Alt         string
	Purpose     string
	Unavailable string
}

// viewMedia also checks that no medium has a cache key: the CDN addresses
// are signed and change, so they identify nothing across captures.
func viewMedia(t *testing.T, ms []*adapterv1.Media) []mediaView {
	t.Helper()
	out := make([]mediaView, 0, len(ms))
	for _, m := range ms {
		require.Empty(t, m.GetCacheKey(), m.GetUrl())
		out = append(out, mediaView{URL: m.GetUrl(), Kind: m.GetKind(), Mime: m.GetMime(), Duration: m.GetDurationMs(),
			Alt: m.GetAlt(), Purpose: m.GetPurpose(), Unavailable: m.GetUnavailableReason()})
	}
	return out
}

var (
	image = adapterv1.MediaKind_MEDIA_KIND_IMAGE
	video = adapterv1.MediaKind_MEDIA_KIND_VIDEO
)

const (
	title       = "Tide Watch 🌊"
	channelData = `{"username":"tidewatch_demo","url":"https://t.me/tidewatch_demo","id":-1001874921563,"title":"Tide Watch 🌊","avatar_url":"%[1]s"}`
	postedIn    = " -posted_in-> channel:tidewatch_demo"
	tooBig      = "media is too big for Telegram's web preview; open the post in Telegram"
)

func TestFetchFixtures(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	avatar := h.fake.MediaURL(avatarCDN)
	avatarMedia := mediaView{URL: avatar, Kind: image, Mime: "image/jpeg", Purpose: "avatar"}
	type want struct {
		fixture   string
		text      string
		summary   string
		published time.Time
		media     []mediaView
		entities  []entityView
		relations []string
		data      string // the root message's data
	}
	msg := func(id string) string { return "message:tidewatch_demo/" + id }
	chEntity := func(res uint32) entityView {
		return entityView{"channel:tidewatch_demo", "telegram.channel", "tidewatch_demo", []uint32{res}}
	}
	tests := map[int]want{
		120: {
			fixture:   "embed-photo.html",
			text:      "Fog over the north pier at 07:40 — visibility under 200\u00a0m. #fog #harbour",
			summary:   title + "：Fog over the north pier at 07:40 — visibility under 200\u00a0m. #fog #harbour ⟦image⟧",
			published: time.Date(2026, 1, 5, 7, 42, 10, 0, time.UTC),
			media:     []mediaView{{URL: h.fake.MediaURL(photo120), Kind: image, Mime: "image/jpeg"}, avatarMedia},
			entities:  []entityView{{msg("120"), "telegram.message", "tidewatch_demo/120", []uint32{0}}, chEntity(1)},
			relations: []string{msg("120") + postedIn},
			data: `{"id":120,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/120",
				"text":"Fog over the north pier at 07:40 — visibility under 200\u00a0m. #fog #harbour",
				"text_markdown":"Fog over the north pier at 07:40 — visibility under 200\u00a0m. [#fog](https://t.me/s/tidewatch_demo?q=%23fog) [#harbour](https://t.me/s/tidewatch_demo?q=%23harbour)",
				"published_at":"2026-01-05T07:42:10Z","edited":false,"author_name":"Tide Watch 🌊","views":1200,"views_text":"1.2K",
				"media":[{"message_id":120,"kind":"photo"}]}`,
		},
		121: {
			fixture:   "embed-video.html",
			text:      "Timelapse: the tide coming in over 40 minutes.\n\nShot from the north pier.",
			summary:   title + "：Timelapse: the tide coming in over 40 minutes. Shot from the north pier. ⟦video⟧",
			published: time.Date(2026, 1, 5, 8, 50, 3, 0, time.UTC),
			media: []mediaView{{URL: h.fake.MediaURL(video121), Kind: video, Mime: "video/mp4", Duration: 15000}, avatarMedia,
				{URL: h.fake.MediaURL(thumb121), Kind: image, Mime: "image/jpeg", Purpose: "poster"}},
			entities:  []entityView{{msg("121"), "telegram.message", "tidewatch_demo/121", []uint32{0, 2}}, chEntity(1)},
			relations: []string{msg("121") + postedIn},
			data: `{"id":121,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/121",
				"text":"Timelapse: the tide coming in over 40 minutes.\n\nShot from the north pier.",
				"text_markdown":"Timelapse: the tide coming in over 40 minutes.\n\nShot from the **north pier**.",
				"published_at":"2026-01-05T08:50:03Z","edited":false,"author_name":"Tide Watch 🌊","views":3100000,"views_text":"3.1M",
				"media":[{"message_id":121,"kind":"video","duration_ms":15000}]}`,
		},
		122: {
			fixture:   "embed-video-too-big.html",
			text:      "Full recording of the storm surge briefing (12 min).",
			summary:   title + "：Full recording of the storm surge briefing (12 min). ⟦video⟧",
			published: time.Date(2026, 1, 5, 10, 2, 44, 0, time.UTC),
			media: []mediaView{
				{Kind: video, Mime: "video/mp4", Duration: 761000, Unavailable: tooBig},
				{URL: h.fake.MediaURL(thumb122), Kind: image, Mime: "image/jpeg", Purpose: "thumbnail"},
				avatarMedia,
			},
			entities:  []entityView{{msg("122"), "telegram.message", "tidewatch_demo/122", []uint32{0, 1}}, chEntity(2)},
			relations: []string{msg("122") + postedIn},
			data: `{"id":122,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/122",
				"text":"Full recording of the storm surge briefing (12 min).",
				"published_at":"2026-01-05T10:02:44Z","edited":false,"author_name":"Tide Watch 🌊","views":436600,"views_text":"436.6K",
				"media":[{"message_id":122,"kind":"video","duration_ms":761000,"unavailable_reason":"` + tooBig + `"}]}`,
		},
		123: {
			fixture:   "embed-gif.html",
			summary:   title + "：⟦video⟧",
			published: time.Date(2026, 1, 5, 10, 15, 20, 0, time.UTC),
			media: []mediaView{{URL: h.fake.MediaURL(gif123), Kind: adapterv1.MediaKind_MEDIA_KIND_GIF, Mime: "video/mp4", Duration: 3000}, avatarMedia,
				{URL: h.fake.MediaURL(thumb123), Kind: image, Mime: "image/jpeg", Purpose: "poster"}},
			entities:  []entityView{{msg("123"), "telegram.message", "tidewatch_demo/123", []uint32{0, 2}}, chEntity(1)},
			relations: []string{msg("123") + postedIn},
			data: `{"id":123,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/123","text":"",
				"published_at":"2026-01-05T10:15:20Z","edited":false,"author_name":"Tide Watch 🌊","views":958,"views_text":"958",
				"media":[{"message_id":123,"kind":"gif","duration_ms":3000}]}`,
		},
		130: {
			fixture:   "embed-document.html",
			text:      "January tide table (PDF). Times are local; heights in metres.",
			summary:   title + "：January tide table (PDF). Times are local; heights in metres. ⟦file⟧",
			published: time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC),
			media: []mediaView{{Kind: adapterv1.MediaKind_MEDIA_KIND_DOCUMENT, Alt: "tide-table-2026-01.pdf",
				Unavailable: "Telegram's web preview does not offer files for download; this one (tide-table-2026-01.pdf) needs a Telegram account connection"},
				avatarMedia},
			entities:  []entityView{{msg("130"), "telegram.message", "tidewatch_demo/130", []uint32{0}}, chEntity(1)},
			relations: []string{msg("130") + postedIn},
			data: `{"id":130,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/130",
				"text":"January tide table (PDF). Times are local; heights in metres.",
				"published_at":"2026-01-10T09:00:00Z","edited":false,"author_name":"Tide Watch 🌊","views":5800,"views_text":"5.8K",
				"media":[{"message_id":130,"kind":"document","title":"tide-table-2026-01.pdf","size":"2.4 MB",
				"unavailable_reason":"Telegram's web preview does not offer files for download; this one (tide-table-2026-01.pdf) needs a Telegram account connection"}]}`,
		},
		131: {
			fixture:   "embed-voice.html",
			summary:   title + "：⟦audio⟧",
			published: time.Date(2026, 1, 10, 9, 20, 0, 0, time.UTC),
			media:     []mediaView{{URL: h.fake.MediaURL(voice131), Kind: adapterv1.MediaKind_MEDIA_KIND_AUDIO, Mime: "audio/ogg", Duration: 42000}, avatarMedia},
			entities:  []entityView{{msg("131"), "telegram.message", "tidewatch_demo/131", []uint32{0}}, chEntity(1)},
			relations: []string{msg("131") + postedIn},
			data: `{"id":131,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/131","text":"",
				"published_at":"2026-01-10T09:20:00Z","edited":false,"author_name":"Tide Watch 🌊","views":2100,"views_text":"2.1K",
				"media":[{"message_id":131,"kind":"voice","duration_ms":42000}]}`,
		},
		140: {
			fixture:   "embed-forwarded.html",
			text:      "Storm warning for the outer harbour from 18:00 until Sunday morning. Small craft stay in.",
			summary:   title + "：Storm warning for the outer harbour from 18:00 until Sunday morning. Small craft stay in.",
			published: time.Date(2026, 1, 11, 15, 4, 5, 0, time.UTC),
			media:     []mediaView{avatarMedia},
			entities: []entityView{
				{msg("140"), "telegram.message", "tidewatch_demo/140", nil},
				chEntity(0),
				{"channel:harbour_radio", "telegram.channel", "harbour_radio", nil},
				{"message:harbour_radio/5581", "telegram.message", "harbour_radio/5581", nil},
			},
			relations: []string{
				msg("140") + postedIn,
				"message:harbour_radio/5581 -posted_in-> channel:harbour_radio",
				msg("140") + " -forwarded_from-> message:harbour_radio/5581",
			},
			data: `{"id":140,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/140",
				"text":"Storm warning for the outer harbour from 18:00 until Sunday morning. Small craft stay in.",
				"text_markdown":"**Storm warning** for the outer harbour from 18:00 until Sunday morning. Small craft stay in.",
				"published_at":"2026-01-11T15:04:05Z","edited":false,"author_name":"Tide Watch 🌊","views":12000,"views_text":"12K",
				"forwarded_from":{"name":"Harbour Radio","author":"Mira K.","url":"https://t.me/harbour_radio/5581","channel":"harbour_radio","message_id":5581}}`,
		},
		141: {
			fixture:   "embed-reply.html",
			text:      "Update: the fog lifted at 09:15, the pilot boats are out again.",
			summary:   title + "：Update: the fog lifted at 09:15, the pilot boats are out again.",
			published: time.Date(2026, 1, 11, 9, 16, 0, 0, time.UTC),
			media:     []mediaView{avatarMedia},
			entities: []entityView{
				{msg("141"), "telegram.message", "tidewatch_demo/141", nil},
				chEntity(0),
				{msg("120"), "telegram.message", "tidewatch_demo/120", nil},
			},
			relations: []string{msg("141") + postedIn, msg("120") + postedIn, msg("141") + " -replies_to-> " + msg("120")},
			data: `{"id":141,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/141",
				"text":"Update: the fog lifted at 09:15, the pilot boats are out again.",
				"published_at":"2026-01-11T09:16:00Z","edited":false,"author_name":"Tide Watch 🌊","views":880,"views_text":"880",
				"reply_to":{"channel":"tidewatch_demo","message_id":120,"url":"https://t.me/tidewatch_demo/120","author_name":"Tide Watch 🌊",
				"text":"Fog over the north pier at 07:40 — visibility under 200 m. #fog #harbour"}}`,
		},
		142: {
			fixture:   "embed-signed-edited.html",
			text:      "Correction: high water on Friday is at 14:52, not 14:25.\nThanks to everyone who wrote in! Full table: tides.example.org",
			summary:   title + "：Correction: high water on Friday is at 14:52, not 14:25. Thanks to everyone who wrote in! Full table: tides.example.org",
			published: time.Date(2026, 1, 12, 11, 30, 0, 0, time.UTC),
			media:     []mediaView{avatarMedia},
			entities:  []entityView{{msg("142"), "telegram.message", "tidewatch_demo/142", nil}, chEntity(0)},
			relations: []string{msg("142") + postedIn},
			data: `{"id":142,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/142",
				"text":"Correction: high water on Friday is at 14:52, not 14:25.\nThanks to everyone who wrote in! Full table: tides.example.org",
				"text_markdown":"**Correction:** high water on Friday is at _14:52_, not 14:25.\nThanks to everyone who wrote in! Full table: [tides.example.org](https://tides.example.org/north-pier?from=2026-01-01&to=2026-01-31)",
				"published_at":"2026-01-12T11:30:00Z","edited":true,"signature":"Jonas Reed","author_name":"Tide Watch 🌊",
				"views":4400,"views_text":"4.4K"}`,
		},
		143: {
			fixture:   "embed-link-preview.html",
			text:      "Harbour webcam is back 🎥 ✅\nhttps://cams.example.org/view?cam=north-pier&quality=hd&lang=en\nFish & chips stand reopens too.",
			summary:   title + "：Harbour webcam is back 🎥 ✅ https://cams.example.org/view?cam=north-pier&quality=hd&lang=en Fish & chips stand reopens too.",
			published: time.Date(2026, 1, 12, 18, 45, 0, 0, time.UTC),
			media:     []mediaView{{URL: h.fake.MediaURL(preview143), Kind: image, Mime: "image/jpeg", Purpose: "link_preview"}, avatarMedia},
			entities:  []entityView{{msg("143"), "telegram.message", "tidewatch_demo/143", []uint32{0}}, chEntity(1)},
			relations: []string{msg("143") + postedIn},
			data: `{"id":143,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/143",
				"text":"Harbour webcam is back 🎥 ✅\nhttps://cams.example.org/view?cam=north-pier&quality=hd&lang=en\nFish & chips stand reopens too.",
				"text_markdown":"Harbour webcam is back 🎥 ✅\n<https://cams.example.org/view?cam=north-pier&quality=hd&lang=en>\nFish & chips stand reopens too.",
				"published_at":"2026-01-12T18:45:00Z","edited":false,"author_name":"Tide Watch 🌊","views":2,"views_text":"2",
				"link_preview":{"url":"https://cams.example.org/view?cam=north-pier&quality=hd&lang=en","site_name":"Harbour Cams",
				"title":"North pier — live","description":"Live view of the north pier & the outer harbour, updated every 30 seconds.",
				"image_url":"` + h.fake.MediaURL(preview143) + `"}}`,
		},
		101: {
			fixture:   "embed-album.html",
			text:      "Spring tide, 9 January: the causeway at 06:10, 06:40, 07:05 and 07:30.\nPhotos @harbour_radio, video by our readers 🙂",
			summary:   title + "：Spring tide, 9 January: the causeway at 06:10, 06:40, 07:05 and 07:30. Photos @harbour_radio, video by our readers 🙂 ⟦image⟧⟦video⟧⟦image⟧⟦video⟧",
			published: time.Date(2026, 1, 9, 7, 35, 28, 0, time.UTC),
			media: append(albumMedia(h), avatarMedia,
				// The album's two videos' posters, in the videos' order.
				mediaView{URL: h.fake.MediaURL(thumb102), Kind: image, Mime: "image/jpeg", Purpose: "poster"},
				mediaView{URL: h.fake.MediaURL(thumb104), Kind: image, Mime: "image/jpeg", Purpose: "poster"}),
			entities:  []entityView{{msg("101"), "telegram.message", "tidewatch_demo/101", []uint32{0, 1, 2, 3, 5, 6}}, chEntity(4)},
			relations: []string{msg("101") + postedIn},
			data:      albumData,
		},
	}

	for id, w := range tests {
		t.Run(w.fixture, func(t *testing.T) {
			resp := h.fetchMessage(t, ch, id)
			require.Nil(t, resp.GetError())
			kittest.CheckGraph(t, h.schemas, resp)
			require.Nil(t, resp.GetCanonicalTarget(), "the target is the post's own identity")

			require.Equal(t, adapterv1.Visibility_VISIBILITY_PUBLIC, resp.GetVisibility())
			d := resp.GetDisplay()
			require.Equal(t, w.text, d.GetText())
			require.Equal(t, adapterv1.TextKind_TEXT_KIND_PLAIN, d.GetTextKind())
			require.Equal(t, title, d.GetAuthorName())
			require.Equal(t, w.summary, d.GetSummary())
			require.Equal(t, w.published, d.GetPublishedAt().AsTime())

			require.Equal(t, w.media, viewMedia(t, resp.GetMedia()))
			for _, m := range resp.GetMedia() {
				if m.GetUrl() == "" {
					continue
				}
				// What core would download is there, of the declared type.
				res, err := http.Get(m.GetUrl())
				require.NoError(t, err)
				body, err := io.ReadAll(res.Body)
				_ = res.Body.Close()
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, res.StatusCode, m.GetUrl())
				sniffed := http.DetectContentType(body)
				if m.GetMime() == "audio/ogg" {
					require.Equal(t, "application/ogg", sniffed)
				} else {
					require.Equal(t, m.GetMime(), sniffed, m.GetUrl())
				}
			}

			g := resp.GetGraph()
			require.Equal(t, "message:tidewatch_demo/"+strconv.Itoa(id), g.GetRootKey())
			require.Equal(t, w.entities, viewEntities(g.GetEntities()))
			require.Equal(t, w.relations, kittest.ViewRelations(g.GetRelations()))
			require.JSONEq(t, w.data, kittest.EntityData(t, resp, g.GetRootKey()))
			require.JSONEq(t, strings.ReplaceAll(channelData, "%[1]s", avatar), kittest.EntityData(t, resp, "channel:tidewatch_demo"))

			require.Len(t, resp.GetSourceResponses(), 1)
			src := resp.GetSourceResponses()[0]
			require.Equal(t, h.fake.Raw(w.fixture), src.GetBody(), "raw page byte for byte")
			require.Equal(t, "text/html; charset=utf-8", src.GetContentType())
			require.Equal(t, h.fake.URL()+"/tidewatch_demo/"+strconv.Itoa(id)+"?embed=1&mode=tme", src.GetRequestUrl())
			require.Equal(t, adapterv1.Visibility_VISIBILITY_PUBLIC, src.GetVisibility())
			require.EqualValues(t, 200, src.GetStatusCode())
			require.Empty(t, resp.GetRelatedTargets())
		})
	}

	// The stubs of forwarded and replied-to messages say what their header
	// showed, marked as previews.
	resp := h.fetchMessage(t, ch, 140)
	require.JSONEq(t, `{"id":5581,"channel":"harbour_radio","url":"https://t.me/harbour_radio/5581","preview":true,"signature":"Mira K."}`,
		kittest.EntityData(t, resp, "message:harbour_radio/5581"))
	require.JSONEq(t, `{"username":"harbour_radio","url":"https://t.me/harbour_radio","preview":true,"title":"Harbour Radio"}`,
		kittest.EntityData(t, resp, "channel:harbour_radio"))
	resp = h.fetchMessage(t, ch, 141)
	require.JSONEq(t, `{"id":120,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/120","preview":true,
		"text":"Fog over the north pier at 07:40 — visibility under 200 m. #fog #harbour","author_name":"Tide Watch 🌊"}`,
		kittest.EntityData(t, resp, "message:tidewatch_demo/120"))

	// Every page request carried the adapter's User-Agent; only embeds
	// were asked for (no album here needed t.me/s).
	for _, r := range h.fake.Requests() {
		if strings.HasPrefix(r.Path, "/media/") {
			continue
		}
		require.Equal(t, telegram.DefaultUserAgent, r.UserAgent, r.Path)
		require.Equal(t, "embed=1&mode=tme", r.RawQuery, r.Path)
	}
}

// albumMedia is the album 101–104 in order: photo, video, photo, video.
func albumMedia(h *harness) []mediaView {
	return []mediaView{
		{URL: h.fake.MediaURL(album101), Kind: image, Mime: "image/jpeg"},
		{URL: h.fake.MediaURL(album102), Kind: video, Mime: "video/mp4", Duration: 8000},
		{URL: h.fake.MediaURL(album103), Kind: image, Mime: "image/jpeg"},
		{URL: h.fake.MediaURL(album104), Kind: video, Mime: "video/mp4", Duration: 21000},
	}
}

const albumData = `{"id":101,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/101",
	"text":"Spring tide, 9 January: the causeway at 06:10, 06:40, 07:05 and 07:30.\nPhotos @harbour_radio, video by our readers 🙂",
	"text_markdown":"Spring tide, 9 January: the causeway at 06:10, 06:40, 07:05 and 07:30.\nPhotos [@harbour\\_radio](https://t.me/harbour_radio), video by our readers 🙂",
	"published_at":"2026-01-09T07:35:28Z","edited":false,"author_name":"Tide Watch 🌊","views":27400,"views_text":"27.4K","album_id":101,
	"media":[{"message_id":101,"kind":"photo"},{"message_id":102,"kind":"video","duration_ms":8000},
	{"message_id":103,"kind":"photo"},{"message_id":104,"kind":"video","duration_ms":21000}]}`

// Every member of an album answers with the whole album, in order, as the
// album's first message: later members through t.me/s, since their embed
// shows them alone.
func TestFetchAlbumFromAnyMember(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for _, id := range []int{101, 102, 103, 104} {
		resp := h.fetchMessage(t, ch, id)
		require.Nil(t, resp.GetError(), id)
		kittest.CheckGraph(t, h.schemas, resp)
		require.Equal(t, albumMedia(h), viewMedia(t, resp.GetMedia()[:4]), id)
		require.Equal(t, "message:tidewatch_demo/101", resp.GetGraph().GetRootKey(), id)
		require.JSONEq(t, albumData, kittest.EntityData(t, resp, "message:tidewatch_demo/101"), id)
		if id == 101 {
			require.Nil(t, resp.GetCanonicalTarget())
			require.Len(t, resp.GetSourceResponses(), 1)
			continue
		}
		require.Equal(t, (&adapterv1.Target{Platform: "telegram", EntityType: "telegram.message", ObjectScope: ch,
			ExternalId: "tidewatch_demo/101", CanonicalUrl: "https://t.me/tidewatch_demo/101"}).String(),
			resp.GetCanonicalTarget().String(), id)
		srcs := resp.GetSourceResponses()
		require.Len(t, srcs, 2, "the embed and the channel page are both kept")
		require.Equal(t, h.fake.URL()+"/tidewatch_demo/"+strconv.Itoa(id)+"?embed=1&mode=tme", srcs[0].GetRequestUrl())
		require.Equal(t, h.fake.URL()+"/s/tidewatch_demo?before="+strconv.Itoa(id+10), srcs[1].GetRequestUrl())
		require.Equal(t, h.fake.Raw("s-tidewatch_demo.html"), srcs[1].GetBody())
	}
	require.Equal(t, 3, h.fake.Hits("/s/tidewatch_demo"), "one channel page per later member")
}

// An embed that shows the whole album under a later member's data-post
// answers with the album at once.
func TestFetchAlbumEmbedOfLaterMember(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	page := strings.Replace(string(h.fake.Raw("embed-album.html")), `data-post="tidewatch_demo/101"`, `data-post="tidewatch_demo/103"`, 1)
	h.fake.SetOverride("/tidewatch_demo/103", 200, "text/html; charset=utf-8", []byte(page))
	resp := h.fetchMessage(t, ch, 103)
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, "message:tidewatch_demo/101", resp.GetGraph().GetRootKey())
	require.Equal(t, "tidewatch_demo/101", resp.GetCanonicalTarget().GetExternalId())
	require.Len(t, resp.GetSourceResponses(), 1)
	require.Zero(t, h.fake.Hits("/s/tidewatch_demo"))
}

// A later member whose album t.me/s does not show (a channel without a
// web preview) is kept with what the embed shows and an unavailable
// placeholder, so the capture ends partial rather than silently short.
func TestFetchAlbumNotOnChannelPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.fake.SetOverride("/s/tidewatch_demo", 200, "text/html; charset=utf-8", h.fake.Raw("s-no-posts.html"))
	resp := h.fetchMessage(t, ch, 103)
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, []mediaView{
		{URL: h.fake.MediaURL(album103), Kind: image, Mime: "image/jpeg"},
		{Kind: adapterv1.MediaKind_MEDIA_KIND_DOCUMENT, Alt: "album",
			Unavailable: "the other members of this album could not be read from Telegram's web preview"},
	}, viewMedia(t, resp.GetMedia()[:2]))
	require.Equal(t, "message:tidewatch_demo/103", resp.GetGraph().GetRootKey())
	require.Nil(t, resp.GetCanonicalTarget())
	require.Contains(t, kittest.EntityData(t, resp, "message:tidewatch_demo/103"), `"album_incomplete":true`)
	require.Len(t, resp.GetSourceResponses(), 2)
	require.Equal(t, title+"：⟦image⟧", resp.GetDisplay().GetSummary(), "the placeholder is no medium")

	// The channel page failing now is worth retrying.
	h.fake.ClearOverride("/s/tidewatch_demo")
	h.fake.SetOverride("/s/tidewatch_demo", 502, "text/html", []byte("bad gateway"))
	resp = h.fetchMessage(t, ch, 103)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, resp.GetError().GetCode())
	require.True(t, resp.GetError().GetRetryable())
}

func TestFetchChannel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	resp := h.fetchChannel(t, ch)
	kittest.CheckGraph(t, h.schemas, resp)
	avatar := h.fake.MediaURL(avatarCDN)
	require.Equal(t, []mediaView{{URL: avatar, Kind: image, Mime: "image/jpeg", Purpose: "avatar"}}, viewMedia(t, resp.GetMedia()))
	require.Equal(t, "channel:tidewatch_demo", resp.GetGraph().GetRootKey())
	require.JSONEq(t, `{"username":"tidewatch_demo","url":"https://t.me/tidewatch_demo","id":-1001874921563,"title":"Tide Watch 🌊",
		"description":"Tides, fog and harbour news from the north pier. Not official.\nTips: @tidewatch_tips",
		"description_markdown":"Tides, fog and harbour news from the north pier. **Not official.**\nTips: [@tidewatch\\_tips](https://t.me/tidewatch_tips)",
		"avatar_url":"`+avatar+`","verified":true,"subscribers":27400,"photos":1300,"videos":214,"files":96,"links":51}`,
		kittest.EntityData(t, resp, "channel:tidewatch_demo"))
	d := resp.GetDisplay()
	require.Equal(t, title, d.GetAuthorName())
	require.Equal(t, title+"：Tides, fog and harbour news from the north pier. Not official. Tips: @tidewatch_tips", d.GetSummary())
	require.Nil(t, d.GetPublishedAt())
	require.Equal(t, h.fake.URL()+"/s/tidewatch_demo", resp.GetSourceResponses()[0].GetRequestUrl())
	// Its posts, newest first; the album 101–104 is one post under 101.
	var posts []string
	for _, rt := range resp.GetRelatedTargets() {
		require.Zero(t, rt.GetRefreshAfterSeconds())
		posts = append(posts, rt.GetUrl())
	}
	require.Equal(t, []string{"https://t.me/tidewatch_demo/105", "https://t.me/tidewatch_demo/101", "https://t.me/tidewatch_demo/100"}, posts)
	// The page links to older posts; the fake answers the same page for
	// them, which adds nothing and ends the collection.
	require.Len(t, resp.GetSourceResponses(), 2)
	require.Equal(t, h.fake.URL()+"/s/tidewatch_demo?before=100", resp.GetSourceResponses()[1].GetRequestUrl())
	require.Empty(t, resp.GetNextPageCursor())

	// A channel without posts still has its header.
	resp = h.fetchChannel(t, "quiet_harbour")
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, "channel:quiet_harbour", resp.GetGraph().GetRootKey())

	// A user, a bot or a channel without a web preview: t.me redirects to
	// its contact page.
	resp = h.fetchChannel(t, "nobody_here")
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, resp.GetError().GetCode())
	require.Contains(t, resp.GetError().GetMessage(), "@nobody_here is not a public channel")
	require.False(t, resp.GetError().GetRetryable())
}

func TestFetchUpstreamErrors(t *testing.T) {
	t.Parallel()
	const (
		notFound    = adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND
		unavailable = adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE
		limited     = adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED
		bad         = adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE
		tooLarge    = adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE
		html        = "text/html; charset=utf-8"
		unreadable  = "could not read this post"
	)
	override := func(body string) func(h *harness) {
		return func(h *harness) { h.fake.SetOverride("/tidewatch_demo/120", 200, html, []byte(body)) }
	}
	photoPage := func(h *harness) string { return string(h.fake.Raw("embed-photo.html")) }
	tests := []struct {
		name      string
		id        int
		setup     func(h *harness)
		code      adapterv1.ErrorCode
		retryable bool
		after     uint32
		message   string
		reason    string
	}{
		{name: "post not found", id: 999, code: notFound, reason: "Post not found",
			message: "post not found: it was deleted, or the channel is private or does not exist"},
		{name: "HTTP 404", id: 120, code: notFound, message: "post not found",
			setup: func(h *harness) {
				h.fake.SetOverride("/tidewatch_demo/120", 404, html, []byte("<html>Not Found</html>"))
			}},
		{name: "429", id: 120, code: limited, retryable: true, after: 60, message: "slow down",
			setup: func(h *harness) { h.fake.RateLimitNext(1) }},
		{name: "429 with delay", id: 120, code: limited, retryable: true, after: 7, message: "slow down",
			setup: func(h *harness) { h.fake.SetRetryAfter("7"); h.fake.RateLimitNext(1) }},
		{name: "500", id: 120, code: unavailable, retryable: true, message: "t.me failed (HTTP 500)",
			setup: func(h *harness) { h.fake.FailNext(1, 500) }},
		{name: "502", id: 120, code: unavailable, retryable: true, message: "HTTP 502",
			setup: func(h *harness) { h.fake.FailNext(1, 502) }},
		{name: "403", id: 120, code: unavailable, retryable: true, message: "HTTP 403",
			setup: func(h *harness) { h.fake.FailNext(1, 403) }},
		{name: "418", id: 120, code: bad, message: "unexpected HTTP status 418",
			setup: func(h *harness) { h.fake.FailNext(1, 418) }},
		{name: "a page of another shape", id: 120, code: bad, message: unreadable + ": t.me's page has an unexpected shape (no post in the page)",
			setup: override(`<!doctype html><html><body><div class="tgme_post_v2"><article data-id="120">Fog</article></div></body></html>`)},
		{name: "JSON", id: 120, code: bad, message: unreadable, setup: override(`{"ok":true,"post":{"id":120}}`)},
		{name: "empty", id: 120, code: bad, message: unreadable, setup: override(``)},
		{name: "no time", id: 120, code: bad, message: unreadable + ": t.me's page has an unexpected shape (the post has no time[datetime])",
			setup: func(h *harness) {
				h.fake.SetOverride("/tidewatch_demo/120", 200, html, []byte(strings.Replace(photoPage(h), "<time datetime=", "<span data-time=", 1)))
			}},
		{name: "no bubble", id: 120, code: bad, message: "no message bubble",
			setup: func(h *harness) {
				h.fake.SetOverride("/tidewatch_demo/120", 200, html, []byte(strings.ReplaceAll(photoPage(h), "tgme_widget_message_bubble", "tgme_widget_message_box")))
			}},
		{name: "another post", id: 120, code: bad, message: `t.me answered with post "tidewatch_demo/7" instead of tidewatch_demo/120`,
			setup: func(h *harness) {
				h.fake.SetOverride("/tidewatch_demo/120", 200, html, []byte(strings.Replace(photoPage(h), `data-post="tidewatch_demo/120"`, `data-post="tidewatch_demo/7"`, 1)))
			}},
		{name: "another channel", id: 120, code: bad, message: "instead of",
			setup: func(h *harness) {
				h.fake.SetOverride("/tidewatch_demo/120", 200, html, []byte(strings.Replace(photoPage(h), `data-post="tidewatch_demo/120"`, `data-post="harbour_radio/120"`, 1)))
			}},
		{name: "album member without id", id: 101, code: bad, message: "album member 3 has no message link",
			setup: func(h *harness) {
				h.fake.SetOverride("/tidewatch_demo/101", 200, html, []byte(strings.Replace(string(h.fake.Raw("embed-album.html")),
					`href="https://t.me/tidewatch_demo/103?single"`, `href="#"`, 1)))
			}},
		{name: "over the limit", id: 120, code: tooLarge, message: "larger than the 4 MiB limit",
			setup: func(h *harness) {
				h.fake.SetOverride("/tidewatch_demo/120", 200, html, []byte(photoPage(h)+strings.Repeat(" ", 4<<20)))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil)
			if tt.setup != nil {
				tt.setup(h)
			}
			resp := h.fetchMessage(t, ch, tt.id)
			e := resp.GetError()
			require.NotNil(t, e, "want an error, got %v", resp)
			require.Equal(t, tt.code, e.GetCode(), e.GetMessage())
			require.Equal(t, tt.retryable, e.GetRetryable(), e.GetMessage())
			require.Equal(t, tt.after, e.GetRetryAfterSeconds())
			require.Contains(t, e.GetMessage(), tt.message)
			require.Equal(t, tt.reason, e.GetReason())
			require.Nil(t, resp.GetGraph(), "never a half-saved post")
			require.Empty(t, resp.GetMedia())
			require.Empty(t, resp.GetSourceResponses())
			reqs := h.fake.Requests()
			require.NotEmpty(t, reqs)
			require.Equal(t, telegram.DefaultUserAgent, reqs[len(reqs)-1].UserAgent, "the adapter always identifies itself")
		})
	}
}

func TestFetchSizeLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *telegram.Options) { o.MaxResponseBytes = 1 << 10 })
	resp := h.fetchMessage(t, ch, 120) // the fixture is over 1 KiB
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE, resp.GetError().GetCode())
	require.False(t, resp.GetError().GetRetryable())
	require.Contains(t, resp.GetError().GetMessage(), "1 KiB")

	// Exactly at the limit is read; one byte more is not.
	h = newHarness(t, func(o *telegram.Options) { o.MaxResponseBytes = int64(len(h.fake.Raw("embed-photo.html"))) })
	require.Nil(t, h.fetchMessage(t, ch, 120).GetError())
	h.fake.SetOverride("/tidewatch_demo/120", 200, "text/html", append(h.fake.Raw("embed-photo.html"), ' '))
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE, h.fetchMessage(t, ch, 120).GetError().GetCode())
}

func TestFetchTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *telegram.Options) { o.HTTPClient = &http.Client{Timeout: 100 * time.Millisecond} })
	h.fake.Delay(5 * time.Second)
	start := time.Now()
	resp := h.fetchMessage(t, ch, 120)
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
	client := kittest.Serve(t, telegram.New(telegram.Options{BaseURL: "http://" + addr + "/"}))
	resp, err := client.Fetch(context.Background(), &adapterv1.FetchRequest{
		ProviderId: "tme-public",
		Target:     &adapterv1.Target{Platform: "telegram", EntityType: "telegram.message", ExternalId: "tidewatch_demo/1"},
	})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, resp.GetError().GetCode())
	require.True(t, resp.GetError().GetRetryable())
}

// The default client follows t.me's own redirects but never one to
// another host.
func TestFetchForeignRedirect(t *testing.T) {
	t.Parallel()
	srv := http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://evil.example/", http.StatusFound)
	})}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { _ = srv.Close() })
	client := kittest.Serve(t, telegram.New(telegram.Options{BaseURL: "http://" + lis.Addr().String()}))
	resp, err := client.Fetch(context.Background(), &adapterv1.FetchRequest{
		ProviderId: "tme-public",
		Target:     &adapterv1.Target{Platform: "telegram", EntityType: "telegram.message", ExternalId: "tidewatch_demo/1"},
	})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, resp.GetError().GetCode())
	require.Contains(t, resp.GetError().GetMessage(), "redirected to another site")
	require.False(t, resp.GetError().GetRetryable())
}

func TestFetchBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ctx := context.Background()
	message := func(ext string) *adapterv1.Target {
		return &adapterv1.Target{Platform: "telegram", EntityType: "telegram.message", ExternalId: ext}
	}
	tests := []struct {
		name    string
		req     *adapterv1.FetchRequest
		code    adapterv1.ErrorCode
		message string
	}{
		{"other provider", &adapterv1.FetchRequest{ProviderId: "x-session", Target: message("tidewatch_demo/1")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `provider "x-session" is not a provider of the Telegram adapter`},
		{"no app credentials", &adapterv1.FetchRequest{ProviderId: "mtproto", Target: message("tidewatch_demo/1")},
			adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, "MONITOR_TELEGRAM_APP_ID"},
		{"private channel without an account", &adapterv1.FetchRequest{ProviderId: "tme-public", Target: message("c/1234/5")},
			adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT, "private channel"},
		{"no provider", &adapterv1.FetchRequest{Target: message("tidewatch_demo/1")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a provider"},
		{"other platform", &adapterv1.FetchRequest{ProviderId: "tme-public",
			Target: &adapterv1.Target{Platform: "x", EntityType: "telegram.message", ExternalId: "tidewatch_demo/1"}},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `platform "x"`},
		{"unknown type", &adapterv1.FetchRequest{ProviderId: "tme-public",
			Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.story", ExternalId: "a"}},
			adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, `"telegram.story"`},
		{"no channel", &adapterv1.FetchRequest{ProviderId: "tme-public", Target: message("120")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, `message id "120" is not <channel>/<id>`},
		{"bad id", &adapterv1.FetchRequest{ProviderId: "tme-public", Target: message("tidewatch_demo/0")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "is not <channel>/<id>"},
		{"id past int64", &adapterv1.FetchRequest{ProviderId: "tme-public", Target: message("tidewatch_demo/9223372036854775808")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "is not <channel>/<id>"},
		{"path trick", &adapterv1.FetchRequest{ProviderId: "tme-public", Target: message("tidewatch_demo/1/../../s/x")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "is not <channel>/<id>"},
		{"bad username", &adapterv1.FetchRequest{ProviderId: "tme-public", Target: message("../1")},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "is not <channel>/<id>"},
		{"scope mismatch", &adapterv1.FetchRequest{ProviderId: "tme-public",
			Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.message", ObjectScope: "harbour_radio", ExternalId: "tidewatch_demo/1"}},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "does not match"},
		{"bad channel", &adapterv1.FetchRequest{ProviderId: "tme-public",
			Target: &adapterv1.Target{Platform: "telegram", EntityType: "telegram.channel", ExternalId: "s/../x"}},
			adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a valid Telegram username"},
	}
	for _, tt := range tests {
		resp, err := h.client.Fetch(ctx, tt.req)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.code, resp.GetError().GetCode(), tt.name)
		require.Contains(t, resp.GetError().GetMessage(), tt.message, tt.name)
		require.False(t, resp.GetError().GetRetryable(), tt.name)
	}
	require.Empty(t, h.fake.Requests(), "bad requests never reach t.me")

	_, err := h.client.Fetch(ctx, &adapterv1.FetchRequest{ProviderId: "tme-public"})
	require.Equal(t, codes.InvalidArgument, status.Code(err))
	prep, err := h.client.PrepareCredential(ctx, &adapterv1.PrepareCredentialRequest{ProviderId: "tme-public"})
	require.NoError(t, err)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, prep.GetError().GetCode(), "tme-public takes no account")
}
