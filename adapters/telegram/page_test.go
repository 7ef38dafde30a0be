package telegram

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// textOf converts an HTML fragment the way a message text is converted.
func textOf(t *testing.T, fragment string) (string, string) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<div class="tgme_widget_message_text">` + fragment + `</div>`))
	require.NoError(t, err)
	return renderText(doc.Find(".tgme_widget_message_text").First(), &url.URL{Scheme: "https", Host: "t.me", Path: "/s/tidewatch_demo"})
}

func TestRenderText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, plain, md string
	}{
		{"plain", "High water 14:52", "High water 14:52", "High water 14:52"},
		{"line breaks", "a<br/>b<br><br/>c", "a\nb\n\nc", "a\nb\n\nc"},
		{"bold and italic", "<b>Storm</b> and <i>fog</i>", "Storm and fog", "**Storm** and _fog_"},
		{"spaces stay outside emphasis", "<b>Storm </b>warning", "Storm warning", "**Storm** warning"},
		{"empty bold", "a<b> </b>b", "a b", "a b"},
		{"strong em", "<strong>x</strong><em>y</em>", "xy", "**x**_y_"},
		{"strike and underline", "<s>14:25</s> <u>14:52</u>", "14:25 14:52", "~~14:25~~ 14:52"},
		{"code", "run <code>tide --now</code>", "run tide --now", "run `tide --now`"},
		{"code with backtick", "<code>a`b</code>", "a`b", "`` a`b ``"},
		{"pre", "before<pre>line 1\nline 2</pre>after", "before\nline 1\nline 2\nafter", "before\n```\nline 1\nline 2\n```\nafter"},
		{"blockquote", "Quote:<blockquote>first<br/>second</blockquote>end", "Quote:\nfirst\nsecond\nend", "Quote:\n> first\n> second\n\nend"},
		{"link", `<a href="https://tides.example.org/a?x=1&amp;y=2">table</a>`, "table", "[table](https://tides.example.org/a?x=1&y=2)"},
		{"autolink", `<a href="https://a.example/x?y=1&amp;z=2">https://a.example/x?y=1&amp;z=2</a>`, "https://a.example/x?y=1&z=2", "<https://a.example/x?y=1&z=2>"},
		{"link with parens", `<a href="https://en.example.org/wiki/Tide_(sea)">wiki</a>`, "wiki", "[wiki](https://en.example.org/wiki/Tide_%28sea%29)"},
		{"hashtag", `<a href="?q=%23fog">#fog</a>`, "#fog", "[#fog](https://t.me/s/tidewatch_demo?q=%23fog)"},
		{"mention", `<a href="https://t.me/harbour_radio">@harbour_radio</a>`, "@harbour_radio", `[@harbour\_radio](https://t.me/harbour_radio)`},
		{"unsafe link", `<a href="javascript:alert(1)">click</a>`, "click", "click"},
		{"tg link", `<a href="tg://resolve?domain=a">open</a>`, "open", "open"},
		{"emoji", `back <i class="emoji" style="background-image:url('//telegram.org/img/emoji/40/F09F8EA5.png')"><b>🎥</b></i>`, "back 🎥", "back 🎥"},
		{"custom emoji", `<tg-emoji emoji-id="5368324170671202286"><i class="emoji" style=""><b>👍</b></i></tg-emoji>`, "👍", "👍"},
		{"spoiler", `<tg-spoiler>hidden</tg-spoiler> <span class="tg-spoiler">also</span>`, "hidden also", "hidden also"},
		{"entities", "Fish &amp; chips &#33; 200&nbsp;m &lt;3", "Fish & chips ! 200\u00a0m <3", "Fish & chips ! 200\u00a0m \\<3"},
		{"markdown characters", "2*3 = 6 and a_b [x]", "2*3 = 6 and a_b [x]", `2\*3 = 6 and a\_b \[x\]`},
		{"source newlines", "one\ntwo", "one two", "one two"},
		{"nested text div (album)", `<div class="tgme_widget_message_text">inner <b>bold</b></div>`, "inner bold", "inner **bold**"},
		{"scripts dropped", "a<script>alert(1)</script>b", "ab", "ab"},
		{"trailing space per line", "a   <br/>b  ", "a\nb", "a\nb"},
		// Markup re-indented by an editor shows as a browser shows it.
		{"re-indented runs", "first\n        line\t\t and   more", "first line and more", "first line and more"},
		{"indent after a break", "a<br/>\n    b<br>\n\n   <br/>  c", "a\nb\n\nc", "a\nb\n\nc"},
		{"space across elements", "<b>Bold\n   </b>\n   <i> italic</i>", "Bold italic", "**Bold** _italic_"},
		{"leading indent", "\n      text\n   ", "text", "text"},
		{"no-break spaces stay", "a&nbsp;&nbsp; \n b", "a\u00a0\u00a0 b", "a\u00a0\u00a0 b"},
		{"pre keeps its spaces", "code:<pre>  x\n    y</pre>", "code:\n  x\n    y", "code:\n```\n  x\n    y\n```"},
		{"tg-emoji in re-indented text", "ok\n  <tg-emoji emoji-id=\"1\"><i class=\"emoji\"><b>🔥</b></i></tg-emoji>\n  done", "ok 🔥 done", "ok 🔥 done"},
	}
	for _, tt := range tests {
		plain, md := textOf(t, tt.in)
		require.Equal(t, tt.plain, plain, tt.name)
		require.Equal(t, tt.md, md, tt.name)
	}
}

func TestRenderTextDeepNesting(t *testing.T) {
	t.Parallel()
	// Deeper than the converter follows (the text beyond is dropped)...
	deep := strings.Repeat("<b>", 400) + "x" + strings.Repeat("</b>", 400)
	plain, md := textOf(t, "start "+deep+" end")
	require.Equal(t, "start end", plain)
	require.True(t, utf8.ValidString(md))
	// ... and deeper than the HTML parser accepts: no post at all, which
	// Fetch answers as a page it could not read.
	pg := parsePage([]byte(`<div class="tgme_widget_message" data-post="tidewatch_demo/1">` + strings.Repeat("<div>", 600)))
	require.Empty(t, pg.posts)
}

func TestParseCount(t *testing.T) {
	t.Parallel()
	ok := map[string]int64{"2": 2, "958": 958, "1,234": 1234, "1.2K": 1200, "436.6K": 436600, "12K": 12000,
		"3.1M": 3100000, "27.4K": 27400, " 5 ": 5, "1.5B": 1500000000}
	for in, want := range ok {
		n, good := parseCount(in)
		require.True(t, good, in)
		require.Equal(t, want, n, in)
	}
	for _, in := range []string{"", "K", "-1", "1e9", "NaN", "Inf", "0x10", "views", "1.2.3K", "99999999999999999999"} {
		_, good := parseCount(in)
		require.False(t, good, in)
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint32{"0:06": 6000, "12:41": 761000, "1:02:03": 3723000, " 0:15 ": 15000,
		"": 0, "15": 0, "a:b": 0, "1:2:3:4": 0, "-1:00": 0, "99999:00": 0} {
		require.Equal(t, want, parseDuration(in), in)
	}
}

func TestStyleURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"width:450px;background-image:url('https://cdn4.cdn-telegram.org/file/a.jpg')": "https://cdn4.cdn-telegram.org/file/a.jpg",
		`background-image:url("https://cdn/x.jpg")`:                                    "https://cdn/x.jpg",
		"background-image: url(https://cdn/x.jpg) ; width:1px":                         "https://cdn/x.jpg",
		"BACKGROUND-IMAGE:URL('//cdn/y.png')":                                          "//cdn/y.png",
		"width:450px":                                                                  "",
		"background-image:url('unterminated":                                           "",
		"background-image:none":                                                        "",
		"ǅ background-image:url('x')":                                                  "x",
	} {
		require.Equal(t, want, styleURL(in), in)
	}
	require.Equal(t, "https://cdn/y.png", mediaURL("//cdn/y.png"))
	for _, bad := range []string{"", "javascript:alert(1)", "/file/a.jpg", "data:image/png;base64,AAAA", "file:///etc/passwd"} {
		require.Empty(t, mediaURL(bad), bad)
	}
}

func TestParseView(t *testing.T) {
	t.Parallel()
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	require.Equal(t, viewInfo{channelID: -1001591537674}, parseView(enc(`{"c":-1591537674,"p":16,"t":1677228733,"h":"x"}`)))
	require.Equal(t, viewInfo{channelID: -1001591537674, grouped: true}, parseView(enc(`{"c":-1591537674,"p":"84g","t":1}`)))
	require.Equal(t, viewInfo{channelID: -1001591537674, grouped: true},
		parseView(base64.URLEncoding.EncodeToString([]byte(`{"c":-1591537674,"p":"84g"}`))), "padded")
	for _, bad := range []string{"", "!!!", enc("not json"), enc(`{"c":"x","p":[1]}`), enc(`{"c":5}`), enc(`{"c":-99999999999999}`)} {
		require.Equal(t, viewInfo{}, parseView(bad), bad)
	}
}

func TestTmeLink(t *testing.T) {
	t.Parallel()
	type link struct {
		ch string
		id int64
		ok bool
	}
	for in, want := range map[string]link{
		"https://t.me/tidewatch_demo/102?single": {"tidewatch_demo", 102, true},
		"https://t.me/TideWatch_Demo":            {"tidewatch_demo", 0, true},
		"https://t.me/s/tidewatch_demo/7":        {"tidewatch_demo", 7, true},
		"https://telegram.me/harbour_radio/5581": {"harbour_radio", 5581, true},
		"https://example.com/tidewatch_demo/1":   {},
		"https://t.me/c/1874921563/120":          {},
		"https://t.me/tidewatch_demo/abc":        {},
		"https://t.me/tidewatch_demo/1/2":        {},
		"tg://resolve?domain=tidewatch_demo":     {},
		"":                                       {},
	} {
		ch, id, ok := tmeLink(in)
		require.Equal(t, want, link{ch, id, ok}, in)
	}
}

// A post element that lacks what every post has is refused whole.
func TestParseMessageShape(t *testing.T) {
	t.Parallel()
	const (
		date   = `<a class="tgme_widget_message_date" href="https://t.me/tidewatch_demo/1"><time datetime="2026-01-05T07:42:10+00:00"></time></a>`
		member = `<a class="tgme_widget_message_photo_wrap grouped_media_wrap" href="https://t.me/tidewatch_demo/%s?single" style="background-image:url('https://cdn/a.jpg')"></a>`
	)
	post := func(attrs, bubble string) string {
		return `<div class="tgme_widget_message" ` + attrs + `>` + bubble + `</div>`
	}
	album := func(members ...string) string {
		return `<div class="tgme_widget_message_grouped_wrap"><div class="tgme_widget_message_grouped_layer">` + strings.Join(members, "") + `</div></div>`
	}
	m := func(id string) string { return strings.Replace(member, "%s", id, 1) }
	tests := []struct {
		name, html, err string
	}{
		{"ok", post(`data-post="tidewatch_demo/1"`, `<div class="tgme_widget_message_bubble">`+date+`</div>`), ""},
		{"bad data-post", post(`data-post="tidewatch_demo"`, `<div class="tgme_widget_message_bubble">`+date+`</div>`), "is not <channel>/<id>"},
		{"id past int64", post(`data-post="tidewatch_demo/9223372036854775808"`, `<div class="tgme_widget_message_bubble">`+date+`</div>`), "is not <channel>/<id>"},
		{"no bubble", post(`data-post="tidewatch_demo/1"`, date), "no message bubble"},
		{"no time", post(`data-post="tidewatch_demo/1"`, `<div class="tgme_widget_message_bubble">text</div>`), "no time[datetime]"},
		{"bad time", post(`data-post="tidewatch_demo/1"`, `<div class="tgme_widget_message_bubble"><a class="tgme_widget_message_date"><time datetime="yesterday"></time></a></div>`), "is not a date"},
		{"album member without link", post(`data-post="tidewatch_demo/1"`, `<div class="tgme_widget_message_bubble">`+
			album(m("1"), `<a class="tgme_widget_message_photo_wrap grouped_media_wrap" style="background-image:url('https://cdn/b.jpg')"></a>`)+date+`</div>`), "album member 2 has no message link"},
		{"album member twice", post(`data-post="tidewatch_demo/1"`, `<div class="tgme_widget_message_bubble">`+album(m("1"), m("1"))+date+`</div>`), "repeats message 1"},
		{"empty album", post(`data-post="tidewatch_demo/1"`, `<div class="tgme_widget_message_bubble">`+album()+date+`</div>`), "the album has no members"},
	}
	for _, tt := range tests {
		pg := parsePage([]byte(tt.html))
		require.Len(t, pg.posts, 1, tt.name)
		msg, err := parseMessage(pg.posts[0])
		if tt.err == "" {
			require.NoError(t, err, tt.name)
			require.NotNil(t, msg)
			continue
		}
		require.ErrorIs(t, err, errShape, tt.name)
		require.Contains(t, err.Error(), tt.err, tt.name)
		require.Nil(t, msg, tt.name)
	}
}

// fuzzSchemas are the entity schemas compiled the way core compiles them.
var fuzzSchemas = sync.OnceValue(func() map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	for name, text := range map[string]string{EntityTypeMessage: messageSchema, EntityTypeChannel: channelSchema} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			panic(err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		if err := c.AddResource("urn:monitor:entity:"+name, doc); err != nil {
			panic(err)
		}
		out[name] = c.MustCompile("urn:monitor:entity:" + name)
	}
	return out
})

// checkWire fails when a built answer would not reach core intact: data
// that breaks its schema, resources outside the media, or a message
// protobuf cannot encode.
func checkWire(t *testing.T, out *adapterv1.FetchResponse) {
	t.Helper()
	for _, e := range out.GetGraph().GetEntities() {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(e.GetDataJson()))
		if err != nil {
			t.Fatalf("%s: data is not JSON: %v", e.GetKey(), err)
		}
		if err := fuzzSchemas()[e.GetType()].Validate(inst); err != nil {
			t.Fatalf("%s breaks its schema: %v\n%s", e.GetKey(), err, e.GetDataJson())
		}
		for _, i := range e.GetResourceIndexes() {
			if int(i) >= len(out.GetMedia()) {
				t.Fatalf("%s: resource %d of %d media", e.GetKey(), i, len(out.GetMedia()))
			}
		}
	}
	if _, err := proto.Marshal(out); err != nil {
		t.Fatalf("the answer does not encode: %v", err)
	}
}

// FuzzParsePage: the parser never panics on arbitrary input, and what it
// accepts is well formed: positive ids, valid usernames, UTF-8 text, only
// http(s) media addresses, an album's members with distinct ids.
func FuzzParsePage(f *testing.F) {
	f.Add([]byte(`<div class="tgme_widget_message" data-post="tidewatch_demo/1"><div class="tgme_widget_message_bubble">` +
		`<div class="tgme_widget_message_text"><b>x</b><br/><a href="?q=%23a">#a</a></div>` +
		`<a class="tgme_widget_message_date"><time datetime="2026-01-05T07:42:10+00:00"></time></a></div></div>`))
	f.Add([]byte(`<div class="tgme_widget_message_error">Post not found</div>`))
	f.Add([]byte(`<section class="tgme_channel_info"><div class="tgme_channel_info_header_username"><a href="https://t.me/abcd">@abcd</a></div>` +
		`<div class="tgme_channel_info_counter"><span class="counter_value">1.2K</span><span class="counter_type">subscribers</span></div></section>`))
	f.Add([]byte(`<div class="tgme_widget_message" data-post="a/1" data-view="eyJjIjotMSwicCI6IjFnIn0"><div class="tgme_widget_message_grouped_wrap">` +
		`<a class="grouped_media_wrap tgme_widget_message_video_player not_supported" href="https://t.me/abcd/2?single"></a></div></div>`))
	f.Add([]byte("<i class=emoji><b>\xff</b></i><blockquote><pre>`</pre></blockquote>"))
	f.Add([]byte(`<div class="tgme_widget_message" data-post="abcd/1"><div class="tgme_widget_message_bubble">` +
		"<div class=\"tgme_widget_message_owner_name\">\xc3</div><span class=\"tgme_widget_message_views\">\xff1K</span>" +
		"<a class=\"tgme_widget_message_photo_wrap\" style=\"background-image:url('https://cdn/\xfe.jpg')\"></a>" +
		`<a class="tgme_widget_message_date"><time datetime="2026-01-05T07:42:10+00:00"></time></a></div></div>`))
	// The real pages (read where they lie; none when absent): whole
	// message blocks as they are, inner fragments also inside a block.
	for _, page := range testkit.RealFixturesSeeds(f, "tme/any2feed", ".html") {
		f.Add(page)
		if !bytes.Contains(page, []byte("data-post=")) {
			f.Add([]byte(`<div class="tgme_widget_message" data-post="any2feed_demo/7"><div class="tgme_widget_message_bubble">` +
				string(page) + `<a class="tgme_widget_message_date"><time datetime="2023-02-28T08:48:01+00:00"></time></a></div></div>`))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		pg := parsePage(body)
		for _, s := range pg.posts {
			m, err := parseMessage(s)
			if err != nil {
				if m != nil {
					t.Fatalf("a refused post came back: %+v", m)
				}
				continue
			}
			if m.id <= 0 || !validUsername(m.channel) || m.channel != strings.ToLower(m.channel) {
				t.Fatalf("post %q/%d", m.channel, m.id)
			}
			seen := map[int64]bool{}
			for _, it := range m.media {
				if it.messageID <= 0 {
					t.Fatalf("media with id %d", it.messageID)
				}
				if m.album && seen[it.messageID] {
					t.Fatalf("album member %d twice", it.messageID)
				}
				seen[it.messageID] = true
				for _, u := range []string{it.url, it.thumbURL, it.previewURL} {
					if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
						t.Fatalf("media address %q", u)
					}
				}
				if it.url == "" && it.unavailable == "" {
					t.Fatalf("media without address or reason: %+v", it)
				}
			}
			if lp := m.preview; lp != nil {
				for _, u := range []string{lp.imageURL, lp.videoURL} {
					if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
						t.Fatalf("link preview address %q", u)
					}
				}
			}
			for _, it := range m.media {
				if it.previewData != "" && !strings.HasPrefix(it.previewData, "data:image/") {
					t.Fatalf("inline preview %q", it.previewData)
				}
			}
			if m.album && len(m.media) == 0 {
				t.Fatal("an album without members")
			}
			// The graph builds for whatever parses, passes core's schema
			// checks and goes over the wire (protobuf needs valid UTF-8).
			out, err := buildMessage(m, m.id)
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			checkWire(t, out)
		}
		if c := pg.channel; c != nil {
			if c.username != "" && !validUsername(c.username) {
				t.Fatalf("channel %q", c.username)
			}
			if c.username != "" {
				out, err := buildChannel(c)
				if err != nil {
					t.Fatalf("build channel: %v", err)
				}
				checkWire(t, out)
			}
		}
	})
}

// bubblePost is a post of tidewatch_demo/1 whose bubble holds bubble.
func bubblePost(t *testing.T, bubble string) *message {
	t.Helper()
	pg := parsePage([]byte(`<div class="tgme_widget_message" data-post="tidewatch_demo/1"><div class="tgme_widget_message_bubble">` + bubble +
		`<div class="tgme_widget_message_footer"><a class="tgme_widget_message_date"><time datetime="2026-01-05T07:42:10+00:00"></time></a></div></div></div>`))
	require.Len(t, pg.posts, 1)
	m, err := parseMessage(pg.posts[0])
	require.NoError(t, err)
	return m
}

// Media shapes the saved samples do not show: Telegram's 2024 wrappers,
// video stickers, animated stickers with a linked preview, and what a
// page may lack.
func TestParseMediaShapes(t *testing.T) {
	t.Parallel()
	const cdn = "https://cdn4.cdn-telegram.org/file/"
	oneMedia := func(inner string) string {
		return `<div class="media_supported_cont"><div class="tgme_widget_message_one_media js-message_media"><div class="media_supported_cont">` +
			inner + `</div></div></div>`
	}
	tgs := func(sources string) string {
		return `<div class="tgme_widget_message_sticker_wrap media_supported_cont"><div class="tgme_widget_message_tgsticker_wrap">` +
			`<picture class="tgme_widget_message_tgsticker js-tgsticker_image">` + sources + `</picture></div></div>`
	}
	tests := []struct {
		name, bubble, text string
		media              []mediaItem
		album              bool
	}{
		{"2024 one media: photo with its caption", oneMedia(`<a class="tgme_widget_message_photo_wrap" href="https://t.me/tidewatch_demo/1" ` +
			`style="background-image:url('` + cdn + `p.jpg')"></a><div class="tgme_widget_message_text js-message_text" dir="auto">High water
			   at <b>14:52</b></div>`),
			"High water at 14:52", []mediaItem{{messageID: 1, kind: kindPhoto, url: cdn + "p.jpg"}}, false},
		{"2024 one media: album", oneMedia(`<div class="tgme_widget_message_grouped_wrap"><div class="tgme_widget_message_grouped"><div class="tgme_widget_message_grouped_layer">`+
			`<a class="tgme_widget_message_photo_wrap grouped_media_wrap" href="https://t.me/tidewatch_demo/1?single" style="background-image:url('`+cdn+`a.jpg')"></a>`+
			`<a class="tgme_widget_message_photo_wrap grouped_media_wrap" href="https://t.me/tidewatch_demo/2?single" style="background-image:url('`+cdn+`b.jpg')"></a>`+
			`</div></div></div>`) + `<div class="tgme_widget_message_text">Two <tg-emoji emoji-id="5368324170671202286"><i class="emoji"><b>🌊</b></i></tg-emoji></div>`,
			"Two 🌊", []mediaItem{{messageID: 1, kind: kindPhoto, url: cdn + "a.jpg"}, {messageID: 2, kind: kindPhoto, url: cdn + "b.jpg"}}, true},
		{"2024 one media: round video", oneMedia(`<div class="tgme_widget_message_roundvideo_player js-message_roundvideo_player">` +
			`<div class="tgme_widget_message_roundvideo_wrap"><i class="tgme_widget_message_roundvideo_thumb" style="background-image:url('` + cdn + `r.jpg')"></i>` +
			`<video class="tgme_widget_message_roundvideo" src="` + cdn + `r.mp4?token=t"></video></div>` +
			`<time class="tgme_widget_message_roundvideo_duration">1:05</time></div>`),
			"", []mediaItem{{messageID: 1, kind: kindRoundVideo, url: cdn + "r.mp4?token=t", thumbURL: cdn + "r.jpg", durationMS: 65000}}, false},
		{"video sticker", `<div class="tgme_widget_message_sticker_wrap media_supported_cont"><div class="tgme_widget_message_videosticker_wrap">` +
			`<div class="tgme_widget_message_videosticker js-videosticker"><video class="js-videosticker_video" src="` + cdn + `s.webm?token=v">` +
			`<img src="` + cdn + `s.webp"></video></div></div></div>`,
			"", []mediaItem{{messageID: 1, kind: kindSticker, format: stickerWebM, url: cdn + "s.webm?token=v", previewURL: cdn + "s.webp"}}, false},
		{"animated sticker with a linked preview", tgs(`<source type="application/x-tgsticker" srcset="` + cdn + `a.tgs?token=x">` +
			`<source type="image/svg+xml" srcset="data:image/svg+xml;base64,PHN2Zy8+"><source type="image/webp" srcset="` + cdn + `a.webp 1x, ` + cdn + `a2.webp 2x">`),
			"", []mediaItem{{messageID: 1, kind: kindSticker, format: stickerTGS, url: cdn + "a.tgs?token=x", previewURL: cdn + "a.webp"}}, false},
		{"animated sticker, inline preview only", tgs(`<source type="application/x-tgsticker" srcset="` + cdn + `a.tgs">` +
			`<source type="image/svg+xml" srcset="DATA:image/SVG+xml;base64,PHN2Zy8+">`),
			"", []mediaItem{{messageID: 1, kind: kindSticker, format: stickerTGS, url: cdn + "a.tgs", previewData: "data:image/svg+xml;base64,PHN2Zy8+"}}, false},
		{"animated sticker: no .tgs, a preview that is not an image", tgs(`<source type="image/svg+xml" srcset="data:text/html;base64,PHNjcmlwdD4=">` +
			`<source type="image/png" srcset="data:image/png;base64,@@@"><img src="javascript:alert(1)">`),
			"", []mediaItem{{messageID: 1, kind: kindSticker, format: stickerTGS, unavailable: fmt.Sprintf(reasonNotShown, "sticker")}}, false},
		{"animated sticker: an inline preview too long to keep", tgs(`<source type="application/x-tgsticker" srcset="` + cdn + `a.tgs">` +
			`<source type="image/svg+xml" srcset="data:image/svg+xml;base64,` + strings.Repeat("A", maxInlineImage) + `">`),
			"", []mediaItem{{messageID: 1, kind: kindSticker, format: stickerTGS, url: cdn + "a.tgs"}}, false},
		{"sticker the page gives nothing of", `<div class="tgme_widget_message_sticker_wrap"></div>`,
			"", []mediaItem{{messageID: 1, kind: kindSticker, unavailable: fmt.Sprintf(reasonNotShown, "sticker")}}, false},
	}
	for _, tt := range tests {
		m := bubblePost(t, tt.bubble)
		require.Equal(t, tt.text, m.text, tt.name)
		require.Equal(t, tt.media, m.media, tt.name)
		require.Equal(t, tt.album, m.album, tt.name)
		out, err := buildMessage(m, 1)
		require.NoError(t, err, tt.name)
		checkWire(t, out)
	}
}

// An animated sticker is archived as a file with its still preview beside
// it, so a reader sees the sticker, not "unavailable".
func TestStickerMedia(t *testing.T) {
	t.Parallel()
	m := bubblePost(t, `<div class="tgme_widget_message_sticker_wrap"><picture class="tgme_widget_message_tgsticker">`+
		`<source type="application/x-tgsticker" srcset="https://cdn/a.tgs"><source type="image/webp" srcset="https://cdn/a.webp"></picture></div>`)
	out, err := buildMessage(m, 1)
	require.NoError(t, err)
	var got []string
	for _, md := range out.GetMedia() {
		got = append(got, fmt.Sprintf("%s %s %s %s %q", md.GetKind(), md.GetMime(), md.GetUrl(), md.GetPurpose(), md.GetUnavailableReason()))
	}
	require.Equal(t, []string{
		`MEDIA_KIND_DOCUMENT application/x-tgsticker https://cdn/a.tgs  ""`,
		`MEDIA_KIND_IMAGE image/webp https://cdn/a.webp sticker_preview ""`,
	}, got)
	root := out.GetGraph().GetEntities()[0]
	require.Equal(t, []uint32{0, 1}, root.GetResourceIndexes(), "the file and its preview belong to the message")
	require.Contains(t, root.GetDataJson(), `"media":[{"message_id":1,"kind":"sticker","format":"tgs"}]`)
	require.Equal(t, "@tidewatch_demo：⟦image⟧", out.GetDisplay().GetSummary())
}

func ptr[T any](v T) *T { return &v }

// The voters of a poll are printed in the footer, not inside the poll.
func TestPollVoters(t *testing.T) {
	t.Parallel()
	const pollHTML = `<div class="tgme_widget_message_poll js-poll"><div class="tgme_widget_message_poll_question">Fog
		tomorrow?</div><div class="tgme_widget_message_poll_type">Anonymous Quiz</div>` +
		`<div class="tgme_widget_message_poll_option"><div class="tgme_widget_message_poll_option_percent">100%</div>` +
		`<div class="tgme_widget_message_poll_option_text">Yes</div></div></div>`
	for voters, want := range map[string]*int64{"1.2K": ptr(int64(1200)), "7": ptr(int64(7)), "many": nil} {
		m := bubblePost(t, pollHTML+`<div class="tgme_widget_message_footer"><span class="tgme_widget_message_voters">`+voters+`</span></div>`)
		require.NotNil(t, m.poll)
		require.Equal(t, &poll{question: "Fog tomorrow?", kind: "Anonymous Quiz", voters: voters, votersCount: want,
			options: []pollOption{{text: "Yes", percent: ptr(int64(100))}}}, m.poll, voters)
		out, err := buildMessage(m, 1)
		require.NoError(t, err)
		checkWire(t, out)
		require.Equal(t, "@tidewatch_demo：Fog tomorrow?", out.GetDisplay().GetSummary())
	}
}

// A link preview's video player may give only its still frame and length.
func TestLinkPreviewVideoWithoutAddress(t *testing.T) {
	t.Parallel()
	m := bubblePost(t, `<a class="tgme_widget_message_link_preview" href="https://t.me/harbour_radio/5">`+
		`<div class="link_preview_video_player"><i class="link_preview_video_thumb" style="background-image:url('https://cdn/f.jpg')"></i>`+
		`<div class="link_preview_video_wrap"></div><time class="message_video_duration">0:42</time></div>`+
		`<div class="link_preview_title">Harbour</div></a>`)
	require.Equal(t, &linkPreview{url: "https://t.me/harbour_radio/5", title: "Harbour", imageURL: "https://cdn/f.jpg", videoDurationMS: 42000}, m.preview)
	require.Empty(t, m.media, "the preview's player is not the post's video")
	out, err := buildMessage(m, 1)
	require.NoError(t, err)
	checkWire(t, out)
	require.Len(t, out.GetMedia(), 1)
	require.Equal(t, "link_preview", out.GetMedia()[0].GetPurpose())
	require.Contains(t, out.GetGraph().GetEntities()[0].GetDataJson(),
		`"link_preview":{"url":"https://t.me/harbour_radio/5","title":"Harbour","image_url":"https://cdn/f.jpg","video":true,"video_duration_ms":42000}`)
}
