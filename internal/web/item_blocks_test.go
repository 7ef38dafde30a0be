package web_test

import (
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/web"
)

// The blocks of issue 21 on the item page, from graphs in the shapes the
// X and Telegram adapters write (adapters/x/schemas/x.post.json,
// adapters/telegram/schemas/telegram.message.json): facets as links, a
// community note, an article, an embedded video and a broadcast kept as
// links, a repost, a quoted post that is gone and why, a video only some
// browsers play, a running poll, and Telegram round videos as circles.

func xBlocksGraph(t *testing.T, extra map[string]any) *web.Graph {
	d := map[string]any{
		"id": "1841206275088290279", "url": "https://x.com/DivineDropbear/status/1841206275088290279",
		"text":     "Cockatoo &amp; breeze \n@fred_od_photo #birds",
		"raw_text": "Cockatoo &amp; breeze \n@fred_od_photo #birds https://t.co/AbCdEf https://t.co/RoMxHhAo9X",
		// "Cockatoo &amp; breeze \n" is 23 code points.
		"display_range": []int{0, 64},
		"facets": []any{
			map[string]any{"type": "mention", "start": 23, "end": 37, "original": "fred_od_photo", "id": "490232734"},
			map[string]any{"type": "hashtag", "start": 38, "end": 44, "original": "birds"},
			map[string]any{"type": "url", "start": 45, "end": 64, "original": "https://t.co/AbCdEf", "replacement": "https://birds.example.org/cockatoo", "display": "birds.example.org/cockatoo"},
			map[string]any{"type": "media", "start": 65, "end": 88, "original": "https://t.co/RoMxHhAo9X"},
		},
		"created_at": "2024-10-01T19:59:18Z", "quotes": 1, "bookmarks": 7, "likes": 296, "replies": 2, "reposts": 68, "views": 4186,
		"sensitive": false, "quote_id": "991888",
		"quote_unavailable": map[string]any{"id": "991888", "url": "https://x.com/i/status/991888", "reason": "suspended", "message": "This post is from a suspended account"},
		"reposted_by":       map[string]any{"handle": "X", "name": "X", "url": "https://x.com/X"},
		"media":             []any{map[string]any{"kind": "video", "codec": "hevc", "bitrate": 4000000, "browser_plays": false}},
		"poll": map[string]any{"total_votes": 10, "ended": false, "ends_at": "2026-12-03T10:00:00Z", "choices": []any{
			map[string]any{"label": "Yes", "votes": 7, "percentage": 70}, map[string]any{"label": "No", "votes": 3}}},
		"community_note": map[string]any{"text": "Filmed in 2019 elsewhere. https://t.co/Zx98Yw76Vu",
			"facets": []any{map[string]any{"type": "url", "start": 26, "end": 49, "display": "https://t.co/Zx98Yw76Vu", "replacement": "https://news.example.com/drill"}}},
		"article":   map[string]any{"id": "1850000000000000001", "title": "Reading a tide table", "text": "High water is not the same every day.\n\nSpring tides come with the new moon."},
		"external":  map[string]any{"url": "https://www.youtube.com/embed/dQw4w9WgXcQ", "kind": "video", "thumbnail_url": "https://i.ytimg.com/vi/x/hq.jpg"},
		"broadcast": map[string]any{"url": "https://x.com/i/broadcasts/1OdKrBnaEPXKX", "title": "Live from the pier", "state": "ENDED", "broadcaster_name": "Archivist Demo"},
	}
	for k, v := range extra {
		d[k] = v
	}
	return &web.Graph{
		Root: "post:1841206275088290279",
		Entities: []web.GraphEntity{
			{Key: "post:1841206275088290279", Type: "x.post", Data: data(t, d), Resources: []web.Resource{
				{Purpose: "", Kind: "video", Mime: "video/mp4", URL: "v1/media/vid"},
				{Purpose: "article_cover", Kind: "image", Mime: "image/jpeg", URL: "v1/media/cover"},
			}},
			{Key: "profile:974067190386147329", Type: "x.profile", Data: data(t, map[string]any{
				"id": "974067190386147329", "handle": "DivineDropbear", "name": "Tranquility Found", "verified": true, "verified_type": "individual"})},
		},
		Relations: []web.GraphRelation{{From: "post:1841206275088290279", Relation: "authored_by", To: "profile:974067190386147329"}},
	}
}

func TestXPostBlocks(t *testing.T) {
	t.Parallel()
	media := []web.Media{{URL: "v1/media/vid", Kind: "video", Mime: "video/mp4", ID: "0"}}
	doc := renderItem(t, web.LangEnglish, xBlocksGraph(t, nil), media)
	post := doc.Find(".entity-x-post").First()

	require.Equal(t, "Tranquility Found ✓ @DivineDropbear", text(post.Find("h1.name")), "the author's check mark")
	require.Equal(t, "Reposted by @X · X", text(post.Find(".context.reposted")))

	body := post.ChildrenFiltered(".text")
	require.Equal(t, "Cockatoo & breeze @fred_od_photo #birds birds.example.org/cockatoo", text(body), "X's &amp; is an ampersand; the media link is not shown")
	links := map[string]string{}
	body.Find("a").Each(func(_ int, a *goquery.Selection) { links[text(a)] = a.AttrOr("href", "") })
	require.Equal(t, map[string]string{
		"@fred_od_photo":             "https://x.com/fred_od_photo",
		"#birds":                     "https://x.com/hashtag/birds",
		"birds.example.org/cockatoo": "https://birds.example.org/cockatoo",
	}, links)
	require.Equal(t, 1, body.Find("br").Length(), "the line break before the mention stays")

	require.Equal(t, "This video is HEVC, which some browsers cannot play; it is kept as X served it.", text(post.Find(".gallery .codec")))

	var opts []string
	post.Find(".poll li").Each(func(_ int, li *goquery.Selection) {
		opts = append(opts, text(li.Find(".option"))+" "+text(li.Find(".pct")))
	})
	require.Equal(t, []string{"Yes 70%", "No 30%"}, opts, "a choice without a percentage gets it from its votes")
	require.Zero(t, post.Find(".poll li.lead").Length(), "a running poll has no winner yet")
	require.Contains(t, text(post.Find(".poll .meta")), "10 votes · End of voting: ")
	require.Equal(t, "2026-12-03T10:00:00Z", post.Find(".poll .meta time").AttrOr("datetime", ""))

	note := post.Find("aside.community-note")
	require.Equal(t, "Community note", text(note.Find(".note-title")))
	require.Equal(t, "Filmed in 2019 elsewhere. news.example.com/drill", text(note.Find(".text")))
	require.Equal(t, "https://news.example.com/drill", note.Find("a").AttrOr("href", ""))

	art := post.Find("section.article")
	require.Equal(t, "/v1/media/cover", art.Find("img.cover").AttrOr("src", ""))
	require.Equal(t, "Reading a tide table", text(art.Find("h2")))
	require.Equal(t, "https://x.com/i/article/1850000000000000001", art.Find("h2 a").AttrOr("href", ""))
	require.Equal(t, 2, art.Find(".text p").Length(), "the article's paragraphs")
	require.Zero(t, art.Find(".text br").Length(), "no line break between paragraphs")

	ext := post.Find("a.link-card.external")
	require.Equal(t, "https://www.youtube.com/embed/dQw4w9WgXcQ", ext.AttrOr("href", ""))
	require.Contains(t, text(ext), "Embedded video · youtube.com")
	require.Contains(t, text(ext), "not downloaded")
	require.Zero(t, ext.Find("img").Length(), "no image from another host")

	bc := post.Find("a.link-card.broadcast")
	require.Equal(t, "https://x.com/i/broadcasts/1OdKrBnaEPXKX", bc.AttrOr("href", ""))
	require.Contains(t, text(bc), "Live broadcast (ended) · Archivist Demo")
	require.Contains(t, text(bc), "Live from the pier")

	gone := post.Find("blockquote.quoted.gone")
	require.Equal(t, "The quoted post is from a suspended account.", text(gone.Find(".gone-reason")))
	require.Equal(t, "X said: “This post is from a suspended account”", text(gone.Find("p.meta").First()))
	require.Equal(t, "https://x.com/i/status/991888", gone.Find("a").AttrOr("href", ""))

	var counts []string
	post.ChildrenFiltered("ul.counts").Find("li").Each(func(_ int, li *goquery.Selection) { counts = append(counts, text(li)) })
	require.Equal(t, []string{"2 replies", "68 reposts", "1 quotes", "296 likes", "7 bookmarks", "4,186 views"}, counts)

	// Every reason FxTwitter gives reads as a sentence, in both languages.
	for reason, want := range map[string][2]string{
		"deleted":     {"The quoted post was deleted.", "引用的帖子已被删除。"},
		"private":     {"The quoted post is from a protected account.", "引用的帖子来自受保护的账号。"},
		"blocked":     {"The quoted post's author blocks the account that read it.", "引用帖子的作者屏蔽了读取它的账号。"},
		"unavailable": {"The quoted post is unavailable.", "引用的帖子不可用。"},
		"gremlins":    {"The quoted post is unavailable.", "引用的帖子不可用。"},
	} {
		g := xBlocksGraph(t, map[string]any{"quote_unavailable": map[string]any{"reason": reason}})
		require.Equal(t, want[0], text(renderItem(t, web.LangEnglish, g, media).Find(".quoted.gone .gone-reason")), reason)
		require.Equal(t, want[1], text(renderItem(t, web.LangChinese, g, media).Find(".quoted.gone .gone-reason")), reason)
	}

	zh := renderItem(t, web.LangChinese, xBlocksGraph(t, nil), media)
	require.Equal(t, "社区笔记", text(zh.Find(".community-note .note-title")))
	require.Equal(t, "转帖者 @X · X", text(zh.Find(".context.reposted")))
	require.Contains(t, text(zh.Find(".poll .meta")), "10 票 · 投票截止：")
	require.Contains(t, text(zh.Find("a.link-card.external")), "嵌入的视频")
	require.Contains(t, text(zh.Find("a.link-card.broadcast")), "直播（已结束）")
	require.Equal(t, "引用的帖子来自已被封禁的账号。", text(zh.Find(".quoted.gone .gone-reason")))
	require.Contains(t, text(zh.Find(".gallery .codec")), "HEVC 编码")
	require.Contains(t, text(zh.Find("ul.counts")), "1 引用")

	// Without raw_text (older revisions) the plain text is shown as it was.
	old := renderItem(t, web.LangEnglish, xBlocksGraph(t, map[string]any{"raw_text": "", "display_range": nil, "facets": nil}), media)
	require.Equal(t, "Cockatoo &amp; breeze @fred_od_photo #birds", text(old.Find(".entity-x-post > .text").First()))
}

func TestTelegramRoundVideoIsACircle(t *testing.T) {
	t.Parallel()
	g := &web.Graph{Root: "message:tidewatch_demo/140", Entities: []web.GraphEntity{{Key: "message:tidewatch_demo/140", Type: "telegram.message",
		Data: data(t, map[string]any{"id": 140, "channel": "tidewatch_demo", "url": "https://t.me/tidewatch_demo/140", "author_name": "Tidewatch Demo",
			"media": []any{
				map[string]any{"message_id": 140, "kind": "round_video", "duration_ms": 12400},
				map[string]any{"message_id": 140, "kind": "voice", "duration_ms": 65000},
				map[string]any{"message_id": 140, "kind": "document", "title": "tides-2026.pdf", "size": "2.4 MB"},
			}})}}}
	media := []web.Media{
		{URL: "v1/media/round", Kind: "video", Mime: "video/mp4", ID: "0"},
		{URL: "v1/media/voice", Kind: "audio", Mime: "audio/ogg", ID: "1"},
		{URL: "v1/media/doc", Kind: "document", Mime: "application/pdf", ID: "2"},
	}
	for _, lang := range []string{web.LangEnglish, web.LangChinese} {
		doc := renderItem(t, lang, g, media)
		figs := doc.Find(".entity-telegram-post .gallery figure")
		require.Equal(t, 3, figs.Length())
		round := figs.Eq(0)
		require.True(t, round.HasClass("media-round"), lang)
		require.Equal(t, "/v1/media/round", round.Find("video.round").AttrOr("src", ""))
		require.Equal(t, map[string]string{web.LangEnglish: "Round video", web.LangChinese: "圆形视频"}[lang], round.Find("video").AttrOr("aria-label", ""))
		require.Equal(t, "0:12", text(round.Find(".detail")))
		require.Equal(t, "1:05", text(figs.Eq(1).Find(".detail")), "a voice message's length")
		require.Equal(t, "tides-2026.pdf · 2.4 MB", text(figs.Eq(2).Find(".detail")), "a document's name and size")
		require.False(t, figs.Eq(1).HasClass("media-round"))
	}
	// Records that do not match the shown media pair nothing.
	doc := renderItem(t, web.LangEnglish, g, media[:1])
	require.False(t, doc.Find(".gallery figure").HasClass("media-round"))
}

// Paragraphs of a text with facets stay paragraphs, without a line break
// between them; a facet out of range is drawn as plain text.
func TestXPostFacetParagraphs(t *testing.T) {
	t.Parallel()
	g := xBlocksGraph(t, map[string]any{"raw_text": "One #a\n\nTwo", "display_range": []int{0, 11},
		"facets": []any{map[string]any{"type": "hashtag", "start": 4, "end": 6, "original": "a"},
			map[string]any{"type": "url", "start": 9, "end": 40, "replacement": "https://x.example/"}}})
	body := renderItem(t, web.LangEnglish, g, nil).Find(".entity-x-post > .text").First()
	require.Equal(t, 2, body.Find("p").Length())
	require.Zero(t, body.Find("br").Length())
	require.Equal(t, "One #a", text(body.Find("p").First()))
	require.Equal(t, "https://x.com/hashtag/a", body.Find("a.hashtag").AttrOr("href", ""))
	require.Equal(t, 1, body.Find("a").Length(), "the facet past the end of the text is left out")
}

// X counts offsets in code points, not UTF-16 units (FxTwitter's answers
// do, whatever its OpenAPI document says): a hashtag after two emoji
// starts two places after them.
func TestXPostFacetsCountCodePoints(t *testing.T) {
	t.Parallel()
	g := xBlocksGraph(t, map[string]any{"raw_text": "Ship? 🚀💭\n#starcitizen", "display_range": []int{0, 21},
		"facets": []any{map[string]any{"type": "hashtag", "start": 9, "end": 21, "original": "starcitizen"}}})
	body := renderItem(t, web.LangEnglish, g, nil).Find(".entity-x-post > .text").First()
	require.Equal(t, "#starcitizen", text(body.Find("a.hashtag")))
	require.Equal(t, "Ship? 🚀💭 #starcitizen", text(body))
}
