package web_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/web"
)

// TestFrameMatchesRender draws static pages of every kind, depth and
// section through a Frame and with Render and wants the same bytes:
// titles and addresses that must be escaped, sites with and without a
// description and a feed, in English and Chinese. The Renderer is new
// each time, so that either may run first.
func TestFrameMatchesRender(t *testing.T) {
	t.Parallel()
	sites := []web.SiteInfo{
		{Title: "Site"},
		{Title: `A "site" & <co> +1`, Description: "Tides & <moons>", Feed: "feed.xml", Language: "zh-CN"},
	}
	titles := []string{"", "Ann: hello", `<script>alert("x")</script> & 'q' + 1`, "潮の満ち引き\x00", "page 2 · of #tag"}
	canonicals := []string{"", "https://example.org/c/1/", `https://example.org/a b/"q"?x=1&y=<2>#f`, "javascript:alert(1)"}
	posts := cardPosts()
	pages := func(site web.SiteInfo, title, canonical string) map[string]*web.Page {
		return map[string]*web.Page{
			"post.html":   {Site: site, Title: title, Canonical: canonical, Root: "../../", Nav: "home", Post: posts[0]},
			"list.html":   {Site: site, Title: title, Canonical: canonical, Root: "../../../../", Nav: "tags", List: &web.PostList{Heading: title, Posts: posts, Page: 2, Pages: 3, Prev: "tags/x/index.html", Next: "tags/x/page/3/index.html"}},
			"terms.html":  {Site: site, Title: title, Canonical: canonical, Root: "../", Nav: "authors", Terms: []web.Link{{Name: "<b>", URL: "authors/b/index.html", Count: 2}}},
			"search.html": {Site: site, Title: title, Canonical: canonical, Root: "../", Nav: "search"},
			"404.html":    {Site: site, Title: title, Root: "/archive/"},
		}
	}
	for _, frameFirst := range []bool{false, true} {
		r, err := web.New()
		require.NoError(t, err)
		used := 0
		for _, site := range sites {
			for _, title := range titles {
				for _, canonical := range canonicals {
					for tmpl, pg := range pages(site, title, canonical) {
						var whole, framed bytes.Buffer
						render := func() { require.NoError(t, r.Render(&whole, tmpl, pg)) }
						if !frameFirst {
							render()
						}
						f, ok, err := r.Frame(pg)
						require.NoError(t, err)
						require.True(t, ok, tmpl)
						require.NoError(t, f.Render(&framed, r, tmpl, pg))
						if frameFirst {
							render()
						}
						require.Equal(t, whole.String(), framed.String(), "%s %q %q", tmpl, title, canonical)
						used++
					}
				}
			}
		}
		require.Equal(t, 2*5*4*5, used)
	}
}

// TestFrameIsOnlyForStaticPages: a live page's layout reads more of the
// page than a frame keeps.
func TestFrameIsOnlyForStaticPages(t *testing.T) {
	t.Parallel()
	r, err := web.New()
	require.NoError(t, err)
	for _, pg := range []*web.Page{
		{Title: "x", Session: &web.Session{CSRF: "c"}},
		{Title: "x", Query: "tide"},
		{Title: "x", Refresh: 2},
		{Title: "x", Theme: "dark"},
	} {
		_, ok := web.FrameKeyOf(pg)
		require.False(t, ok)
		_, ok, err = r.Frame(pg)
		require.NoError(t, err)
		require.False(t, ok)
	}
}
