package web_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/web"
)

// cardPosts are posts that use every place of the card the root goes,
// and text that must stay escaped: an avatar, an author page, media of
// each kind (one sensitive, one a download), tags, and markup in names.
func cardPosts() []*web.Post {
	date := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	return []*web.Post{
		{ID: "a", URL: "c/a/index.html", Date: date, Body: web.PlainHTML("Hello <b>there</b> https://example.org/x?y=1&z=2"),
			Author: web.Author{Name: `Ann "<script>"`, Handle: "ann", URL: "authors/ann/index.html", Avatar: "media/aa/avatar.jpg"},
			Media: []web.Media{
				{URL: "media/bb/b.jpg", Kind: "image", Mime: "image/jpeg", Alt: `a "cat" & <dog>`, Width: 10, Height: 20, ID: "0"},
				{URL: "media/cc/c.mp4", Kind: "video", Mime: "video/mp4", Poster: "media/dd/d.jpg", Sensitive: true, ID: "1"},
				{URL: "media/ee/e.bin", Name: "e.svg", Kind: "image", Mime: "image/svg+xml", ID: "2"},
				{URL: "media/ff/f.mp3", Kind: "audio", Mime: "audio/mpeg", ID: "3"},
			},
			Tags: []web.Link{{Name: "go&<x>", URL: "tags/go-x/index.html"}, {Name: "中文", URL: "tags/中文/index.html"}}},
		{ID: "b", URL: "c/b/index.html", Date: date, Body: web.MarkdownHTML("a [relative](notes/) link and `code`"),
			Author: web.Author{Name: "No page"}},
	}
}

// TestCardIsTheBytesOfTheTemplate draws list pages at every depth the
// static build has, once with the posts (the template renders each card)
// and once with their cards rendered beforehand, and wants the same bytes;
// the Renderer is new each time, so that either may run first.
func TestCardIsTheBytesOfTheTemplate(t *testing.T) {
	t.Parallel()
	for _, cardsFirst := range []bool{false, true} {
		r, err := web.New()
		require.NoError(t, err)
		posts := cardPosts()
		var cards []web.PostCard
		renderCards := func() {
			for _, p := range posts {
				c, err := r.Card(p)
				require.NoError(t, err)
				cards = append(cards, c)
			}
		}
		if cardsFirst {
			renderCards()
		}
		for _, root := range []string{"", "../", "../../", "../../../../"} {
			page := func(withCards bool) string {
				pg := &web.Page{Site: web.SiteInfo{Title: "Site"}, Root: root, Nav: "home", List: &web.PostList{Posts: posts, Page: 1, Pages: 1}}
				if withCards {
					if cards == nil {
						renderCards()
					}
					for _, c := range cards {
						h, ok := c.HTML(root)
						require.True(t, ok, root)
						pg.List.Cards = append(pg.List.Cards, h)
					}
				}
				var b bytes.Buffer
				require.NoError(t, r.Render(&b, "list.html", pg))
				return b.String()
			}
			want := page(false)
			require.Contains(t, want, `src="`+root+`media/bb/b.jpg"`)
			require.Contains(t, want, "&lt;dog&gt;")
			require.Equal(t, want, page(true), "root %q", root)
		}
	}
}

// TestCardRefusesARootItCannotTake: an absolute root (404.html's) may be
// changed by the URL normaliser, so the card says to render it with the
// page instead.
func TestCardRefusesARootItCannotTake(t *testing.T) {
	t.Parallel()
	r, err := web.New()
	require.NoError(t, err)
	c, err := r.Card(cardPosts()[0])
	require.NoError(t, err)
	for _, root := range []string{"/", "/archive/", "..", "../x/", "https://example.org/"} {
		_, ok := c.HTML(root)
		require.False(t, ok, root)
	}
	var zero web.PostCard
	_, ok := zero.HTML("")
	require.False(t, ok, "a card never rendered")
	h, ok := c.HTML("../")
	require.True(t, ok)
	require.True(t, strings.HasPrefix(string(h), "\n<article class=\"card\">"))
	require.Contains(t, string(h), `href="../c/a/index.html"`)
}
