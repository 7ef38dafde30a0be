package web_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/web"
)

// The graphs below have the shapes the adapters write (adapters/x and
// adapters/telegram fetch.go, their schemas, and the fixtures in
// internal/testkit/testdata); the tests read the page as a person would.

func data(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// renderItem draws a post page for a graph and returns its document.
func renderItem(t *testing.T, lang string, g *web.Graph, media []web.Media) *goquery.Document {
	t.Helper()
	r, err := web.New()
	require.NoError(t, err)
	post := &web.Post{ID: "c1", Body: web.PlainHTML("fallback body"), Media: media, Author: web.Author{Name: "Fallback Author"},
		Saved: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)}
	post.Entity = web.BuildEntity(g, media)
	var b strings.Builder
	require.NoError(t, r.Render(&b, "post.html", &web.Page{Root: "/", Lang: lang, Post: post}))
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	require.NoError(t, err)
	return doc
}

func text(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

func TestXPostRenderer(t *testing.T) {
	t.Parallel()
	g := &web.Graph{
		Root: "post:2079906847374594048",
		Entities: []web.GraphEntity{
			{Key: "post:2079906847374594048", Type: "x.post", Data: data(t, map[string]any{
				"id": "2079906847374594048", "url": "https://x.com/archivist_demo/status/2079906847374594048",
				"text": "Tide tables for the week, with the chart.", "created_at": "2026-11-28T09:30:00Z",
				"likes": 1234, "reposts": 56, "replies": 7, "views": 98765, "bookmarks": 2, "sensitive": false,
				"quote_id": "2078399740166950912", "reply_to_id": "2071896524193419264", "reply_to_handle": "harbour_master",
				"poll": map[string]any{"total_votes": 200, "ended": true, "ends_at": "2026-11-29T09:30:00Z", "choices": []any{
					map[string]any{"label": "Spring tide", "votes": 125, "percentage": 62.5},
					map[string]any{"label": "Neap tide", "votes": 75, "percentage": 37.5}}},
				"community": map[string]any{"name": "Tide Watchers", "url": "https://x.com/i/communities/1"},
				"card":      map[string]any{"url": "https://tides.example.org/week", "title": "This week's tides", "domain": "tides.example.org"},
			}), Resources: []web.Resource{
				{Purpose: "", Kind: "video", Mime: "video/mp4", URL: "v1/media/vid"},
				{Purpose: "poster", Kind: "image", Mime: "image/jpeg", URL: "v1/media/poster"},
			}},
			{Key: "profile:995952779720409089", Type: "x.profile", Data: data(t, map[string]any{
				"id": "995952779720409089", "handle": "archivist_demo", "name": "Archivist Demo", "url": "https://x.com/archivist_demo"}),
				Resources: []web.Resource{{Purpose: "avatar", Kind: "image", Mime: "image/jpeg", URL: "v1/media/avatar"}}},
			{Key: "post:2078399740166950912", Type: "x.post", Data: data(t, map[string]any{
				"id": "2078399740166950912", "url": "https://x.com/tidewatch/status/2078399740166950912", "text": "Low tide at 06:12."}),
				Resources: []web.Resource{{Purpose: "quoted", Kind: "image", Mime: "image/jpeg", URL: "v1/media/quoted"}}},
			{Key: "profile:1455903129074348039", Type: "x.profile", Data: data(t, map[string]any{
				"id": "1455903129074348039", "handle": "tidewatch", "name": "Tide Watch"})},
		},
		Relations: []web.GraphRelation{
			{From: "post:2079906847374594048", Relation: "authored_by", To: "profile:995952779720409089"},
			{From: "post:2079906847374594048", Relation: "quotes", To: "post:2078399740166950912"},
			{From: "post:2078399740166950912", Relation: "authored_by", To: "profile:1455903129074348039"},
		},
	}
	doc := renderItem(t, web.LangEnglish, g, []web.Media{{URL: "v1/media/vid", Kind: "video", Mime: "video/mp4", ID: "0"}})
	head := doc.Find(".entity-x-post").First().Find(".entity-head").First()
	require.Equal(t, "Archivist Demo @archivist_demo", text(head.Find("h1")))
	require.Equal(t, "/v1/media/avatar", head.Find("img.avatar").AttrOr("src", ""))
	require.Equal(t, "Archivist Demo's avatar", head.Find("img.avatar").AttrOr("alt", ""))
	require.Equal(t, "https://x.com/archivist_demo/status/2079906847374594048", head.Find("a.original").AttrOr("href", ""))
	require.Equal(t, "Tide tables for the week, with the chart.", text(doc.Find(".entity-x-post > .text").First()))

	reply := doc.Find(".context.reply a")
	require.Equal(t, "@harbour_master", text(reply))
	require.Equal(t, "https://x.com/harbour_master/status/2071896524193419264", reply.AttrOr("href", ""))
	require.Equal(t, "Posted in the community Tide Watchers", text(doc.Find(".context.community")))

	video := doc.Find(".entity-x-post > .gallery video")
	require.Equal(t, 1, video.Length())
	require.Equal(t, "/v1/media/vid", video.AttrOr("src", ""))
	require.Equal(t, "/v1/media/poster", video.AttrOr("poster", ""), "the poster resource is the video's poster")
	require.Equal(t, "metadata", video.AttrOr("preload", ""))

	var options []string
	doc.Find(".poll li").Each(func(_ int, li *goquery.Selection) {
		options = append(options, text(li.Find(".option"))+" "+text(li.Find(".pct"))+" "+li.Find("meter").AttrOr("value", ""))
	})
	require.Equal(t, []string{"Spring tide ✓ 63% 63", "Neap tide 38% 38"}, options, "the ended poll marks its leading answer")
	require.Equal(t, "Spring tide ✓", text(doc.Find(".poll li.lead .option")))
	require.Equal(t, "200 votes · Final results", text(doc.Find(".poll .meta")))

	card := doc.Find("a.link-card")
	require.Equal(t, "https://tides.example.org/week", card.AttrOr("href", ""))
	require.Contains(t, text(card), "This week's tides")

	q := doc.Find("blockquote.quoted")
	require.Equal(t, "Tide Watch @tidewatch", text(q.Find("p.name")))
	require.Equal(t, "Low tide at 06:12.", text(q.Find(".text")))
	require.Equal(t, "/v1/media/quoted", q.Find("img").AttrOr("src", ""))

	var counts []string
	doc.Find(".entity-x-post").First().ChildrenFiltered("ul.counts").Find("li").Each(func(_ int, li *goquery.Selection) { counts = append(counts, text(li)) })
	require.Equal(t, []string{"7 replies", "56 reposts", "1,234 likes", "2 bookmarks", "98,765 views"}, counts)
	require.Zero(t, doc.Find(".entity-fallback").Length())

	// In Chinese, the same page says it in Chinese.
	zh := renderItem(t, web.LangChinese, g, []web.Media{{URL: "v1/media/vid", Kind: "video", Mime: "video/mp4", ID: "0"}})
	require.Equal(t, "zh-CN", zh.Find("html").AttrOr("lang", ""))
	require.Contains(t, text(zh.Find(".context.reply")), "回复 @harbour_master")
	require.Contains(t, text(zh.Find("ul.counts").First()), "1,234 喜欢")
	require.Equal(t, "打开原文", text(zh.Find("a.original").First()))
}

func TestXPostSensitiveMediaAreVeiled(t *testing.T) {
	t.Parallel()
	g := &web.Graph{Root: "post:1", Entities: []web.GraphEntity{{Key: "post:1", Type: "x.post",
		Data: data(t, map[string]any{"id": "1", "text": "gif", "sensitive": true})}}}
	doc := renderItem(t, web.LangEnglish, g, []web.Media{{URL: "v1/media/a", Kind: "image", Mime: "image/jpeg", ID: "0"}})
	s := doc.Find(".sensitive")
	require.Equal(t, 1, s.Length(), "the post is marked sensitive, so its media are")
	require.Equal(t, "reveal-0", s.Find("input.reveal").AttrOr("id", ""))
	require.Equal(t, "Sensitive media · click to show", text(s.Find("label.veil")))
	require.Equal(t, "Image 1 of 1", s.Find("img").AttrOr("alt", ""), "an image without alt text still has one")
	require.Equal(t, "/v1/media/a", s.Find("a.full").AttrOr("href", ""), "the image opens full size")
}

func TestXProfileRenderer(t *testing.T) {
	t.Parallel()
	g := &web.Graph{
		Root: "profile:995952779720409089",
		Entities: []web.GraphEntity{
			{Key: "profile:995952779720409089", Type: "x.profile", Data: data(t, map[string]any{
				"id": "995952779720409089", "handle": "archivist_demo", "name": "Archivist Demo",
				"description": "Keeping tide tables since 2011.", "followers": 12345, "following": 321, "posts": 4567,
				"location": "Harbour town", "website": "https://tides.example.org", "url": "https://x.com/archivist_demo",
				"verified": true, "verified_type": "organization"}),
				Resources: []web.Resource{
					{Purpose: "avatar", Kind: "image", Mime: "image/jpeg", URL: "v1/media/avatar"},
					{Purpose: "banner", Kind: "image", Mime: "image/jpeg", URL: "v1/media/banner"}}},
			{Key: "post:5", Type: "x.post", Data: data(t, map[string]any{"id": "5", "text": "High tide at noon.", "likes": 3})},
		},
		Relations: []web.GraphRelation{{From: "post:5", Relation: "authored_by", To: "profile:995952779720409089"}},
	}
	doc := renderItem(t, web.LangEnglish, g, nil)
	p := doc.Find(".entity-x-profile")
	require.Equal(t, "/v1/media/banner", p.Find("img.banner").AttrOr("src", ""))
	require.Equal(t, "/v1/media/avatar", p.Find(".profile-head img.avatar").AttrOr("src", ""))
	require.Equal(t, "Archivist Demo ✓", text(p.Find("h1")))
	require.True(t, p.Find("h1 .verified").HasClass("organization"), "a gold check mark")
	require.Equal(t, "@archivist_demo", text(p.Find(".profile-head .handle")))
	require.Equal(t, "Keeping tide tables since 2011.", text(p.Find(".bio")))
	require.Contains(t, text(p.Find(".location")), "Harbour town")
	var counts []string
	p.ChildrenFiltered("ul.counts").Find("li").Each(func(_ int, li *goquery.Selection) { counts = append(counts, text(li)) })
	require.Equal(t, []string{"4,567 posts", "321 following", "12,345 followers"}, counts)
	posts := p.Find(".profile-posts article")
	require.Equal(t, 1, posts.Length(), "the profile's post in the graph is listed")
	require.Equal(t, "High tide at noon.", text(posts.Find(".text")))
	require.Equal(t, "Archivist Demo ✓ @archivist_demo", text(posts.Find("p.name")))
}

func tgMessageGraph(t *testing.T) *web.Graph {
	return &web.Graph{
		Root: "message:tidewatch_demo/101",
		Entities: []web.GraphEntity{
			{Key: "message:tidewatch_demo/101", Type: "telegram.message", Data: data(t, map[string]any{
				"id": 101, "channel": "tidewatch_demo", "url": "https://t.me/tidewatch_demo/101",
				"text": "三张照片：涨潮、退潮、月亮。", "published_at": "2026-11-20T06:00:00Z", "edited": true,
				"author_name": "Tidewatch Demo", "views": 1200, "views_text": "1.2K", "album_id": 101,
				"media": []any{map[string]any{"message_id": 101, "kind": "photo"}, map[string]any{"message_id": 102, "kind": "photo"},
					map[string]any{"message_id": 103, "kind": "photo"}},
				"forwarded_from": map[string]any{"name": "Harbour News", "url": "https://t.me/harbour_news/7", "channel": "harbour_news", "message_id": 7},
				"reply_to":       map[string]any{"channel": "tidewatch_demo", "message_id": 99, "url": "https://t.me/tidewatch_demo/99", "author_name": "Tidewatch Demo", "text": "Yesterday's chart"},
				"link_preview":   map[string]any{"url": "https://tides.example.org/", "site_name": "Tides", "title": "Tide tables", "description": "Every port, every day."},
				"poll": map[string]any{"question": "Best tide?", "type": "Anonymous poll", "voters": "42 votes",
					"options": []any{map[string]any{"text": "High", "percent": 70}, map[string]any{"text": "Low", "percent": 30}}},
			}), Resources: []web.Resource{{Purpose: "link_preview", Kind: "image", Mime: "image/jpeg", URL: "v1/media/lp"}}},
			{Key: "channel:tidewatch_demo", Type: "telegram.channel", Data: data(t, map[string]any{
				"username": "tidewatch_demo", "url": "https://t.me/tidewatch_demo", "title": "Tidewatch Demo"}),
				Resources: []web.Resource{{Purpose: "avatar", Kind: "image", Mime: "image/jpeg", URL: "v1/media/chavatar"}}},
		},
		Relations: []web.GraphRelation{{From: "message:tidewatch_demo/101", Relation: "posted_in", To: "channel:tidewatch_demo"}},
	}
}

func TestTelegramPostRenderer(t *testing.T) {
	t.Parallel()
	album := []web.Media{
		{URL: "v1/media/p1", Kind: "image", Mime: "image/jpeg", Alt: "", ID: "0"},
		{URL: "v1/media/p2", Kind: "image", Mime: "image/jpeg", ID: "1"},
		{URL: "v1/media/p3", Kind: "image", Mime: "image/jpeg", ID: "2"},
	}
	doc := renderItem(t, web.LangEnglish, tgMessageGraph(t), album)
	e := doc.Find(".entity-telegram-post")
	require.Equal(t, "Tidewatch Demo @tidewatch_demo", text(e.Find("h1")))
	require.Equal(t, "/v1/media/chavatar", e.Find(".entity-head img.avatar").AttrOr("src", ""), "the channel's photo")
	require.Contains(t, text(e.Find(".entity-head .meta")), "20 Nov 2026 06:00 UTC · edited")
	require.Equal(t, "三张照片：涨潮、退潮、月亮。", text(e.Find(".text").First()))
	var order []string
	e.Find(".gallery.album img").Each(func(_ int, img *goquery.Selection) { order = append(order, img.AttrOr("src", "")) })
	require.Equal(t, []string{"/v1/media/p1", "/v1/media/p2", "/v1/media/p3"}, order, "the album in its stored order")
	require.Equal(t, "Image 2 of 3", e.Find(".gallery img").Eq(1).AttrOr("alt", ""))
	require.Equal(t, "Forwarded from Harbour News", text(e.Find(".context.forwarded")))
	require.Equal(t, "https://t.me/harbour_news/7", e.Find(".context.forwarded a").AttrOr("href", ""))
	require.Contains(t, text(e.Find(".context.reply")), "Replying to @tidewatch_demo")
	require.Equal(t, "Yesterday's chart", text(e.Find(".reply-text")))
	require.Equal(t, "/v1/media/lp", e.Find("a.link-card img").AttrOr("src", ""))
	require.Contains(t, text(e.Find("a.link-card")), "Tide tables")
	require.Equal(t, "1,200 views", text(e.Find("ul.counts")))
	var options []string
	e.Find(".poll li").Each(func(_ int, li *goquery.Selection) {
		options = append(options, text(li.Find(".option"))+" "+text(li.Find(".pct"))+" "+li.Find("meter").AttrOr("value", ""))
	})
	require.Equal(t, []string{"High 70% 70", "Low 30% 30"}, options)
	require.Equal(t, "Anonymous poll · 42 votes", text(e.Find(".poll .meta")), "voters as printed, without a count read from them")

	// Voters read as a number are counted as people, in the reader's language.
	g := tgMessageGraph(t)
	var m map[string]any
	require.NoError(t, json.Unmarshal(g.Entities[0].Data, &m))
	m["poll"].(map[string]any)["voters"], m["poll"].(map[string]any)["voters_count"] = "1.2K", 1200
	g.Entities[0].Data = data(t, m)
	for lang, want := range map[string]string{web.LangEnglish: "1,200 voters · Anonymous poll", web.LangChinese: "1,200 人投票 · Anonymous poll"} {
		doc := renderItem(t, lang, g, album)
		require.Equal(t, want, text(doc.Find(".entity-telegram-post .poll .meta")), lang)
	}
}

func TestTelegramChannelRenderer(t *testing.T) {
	t.Parallel()
	g := &web.Graph{Root: "channel:tidewatch_demo", Entities: []web.GraphEntity{{Key: "channel:tidewatch_demo", Type: "telegram.channel",
		Data: data(t, map[string]any{"username": "tidewatch_demo", "url": "https://t.me/tidewatch_demo", "title": "Tidewatch Demo",
			"description": "Tide tables, daily.", "subscribers": 15300, "photos": 120, "verified": true}),
		Resources: []web.Resource{{Purpose: "avatar", Kind: "image", Mime: "image/jpeg", URL: "v1/media/chavatar"}}}}}
	doc := renderItem(t, web.LangChinese, g, nil)
	e := doc.Find(".entity-telegram-channel")
	require.Equal(t, "Tidewatch Demo ✓", text(e.Find("h1")))
	require.Equal(t, "@tidewatch_demo", text(e.Find(".handle")))
	require.Equal(t, "/v1/media/chavatar", e.Find("img.avatar").AttrOr("src", ""))
	require.Equal(t, "Tide tables, daily.", text(e.Find(".bio")))
	var counts []string
	e.Find("ul.counts li").Each(func(_ int, li *goquery.Selection) { counts = append(counts, text(li)) })
	require.Equal(t, []string{"15,300 订阅者", "120 照片"}, counts)
}

func TestUnknownTypeFallsBack(t *testing.T) {
	t.Parallel()
	g := &web.Graph{Root: "thing:1", Entities: []web.GraphEntity{{Key: "thing:1", Type: "mastodon.status", Data: data(t, map[string]any{"x": 1})}}}
	require.Nil(t, web.BuildEntity(g, nil))
	doc := renderItem(t, web.LangEnglish, g, []web.Media{{URL: "v1/media/a", Kind: "image", Mime: "image/jpeg", Alt: "A gull", ID: "0"}})
	e := doc.Find(".entity-fallback")
	require.Equal(t, 1, e.Length())
	require.Equal(t, "Fallback Author", text(e.Find("h1")))
	require.Equal(t, "fallback body", text(e.Find(".text")))
	require.Equal(t, "A gull", e.Find("img").AttrOr("alt", ""))
	require.Nil(t, web.BuildEntity(nil, nil), "no graph: the fallback")
}

func TestPostersPairOnlyWhenEveryVideoHasOne(t *testing.T) {
	t.Parallel()
	g := &web.Graph{Root: "post:1", Entities: []web.GraphEntity{{Key: "post:1", Type: "x.post", Data: data(t, map[string]any{"id": "1", "text": ""}),
		Resources: []web.Resource{{Purpose: "poster", Kind: "image", Mime: "image/jpeg", URL: "v1/media/p"}}}}}
	two := []web.Media{{URL: "v1/media/a", Kind: "video", Mime: "video/mp4"}, {URL: "v1/media/b", Kind: "gif", Mime: "video/mp4"}}
	e := web.BuildEntity(g, two)
	require.Empty(t, e.Media[0].Poster, "one poster for two videos pairs nothing rather than the wrong still")
	require.Empty(t, e.Media[1].Poster)
	one := web.BuildEntity(g, two[:1])
	require.Equal(t, "v1/media/p", one.Media[0].Poster)
	require.Empty(t, two[0].Poster, "the caller's media are not changed")
}
