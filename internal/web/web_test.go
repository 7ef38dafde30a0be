package web_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/web"
)

func TestTemplatesParseAndRender(t *testing.T) {
	t.Parallel()
	r, err := web.New()
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, r.Render(&b, "post.html", &web.Page{Site: web.SiteInfo{Title: "Archive"}, Root: "../../",
		Post: &web.Post{Author: web.Author{Name: "A"}, Body: web.PlainHTML("hi"),
			Media: []web.Media{{URL: "files/ab/x.jpg", Kind: "image", Mime: "image/jpeg", Sensitive: true, ID: "0"}}}}))
	require.Contains(t, b.String(), `<input type="checkbox" class="reveal" id="reveal-0">`)
	require.Contains(t, b.String(), `src="../../files/ab/x.jpg"`)
	names := []string{}
	for _, a := range r.Assets() {
		names = append(names, a.Name)
	}
	require.Contains(t, names, "style.css")
	require.Contains(t, names, "app.js")
	require.Contains(t, names, "item.css")
}

func TestTextRendering(t *testing.T) {
	t.Parallel()
	require.Equal(t, `<p>a &lt;b&gt; <a href="https://example.org/x" rel="nofollow noopener noreferrer">https://example.org/x</a>.<br>`+"\n"+`c</p>`,
		string(web.PlainHTML("a <b> https://example.org/x.\nc")))
	require.Equal(t, "<p>one<br>\ntwo</p>\n<p>three</p>", string(web.PlainHTML("one\ntwo\n\nthree")),
		"a blank line starts a paragraph, with no line break between the two")
	md := string(web.MarkdownHTML("![pic](https://example.com/p.png) ![local](files/a.png) <b>raw</b> [x](javascript:alert(1))"))
	require.NotContains(t, md, `src="https://example.com`)
	require.Contains(t, md, `<a href="https://example.com/p.png">pic</a>`)
	require.Contains(t, md, `<img src="files/a.png" alt="local">`)
	require.NotContains(t, md, "<b>raw</b>")
	require.NotContains(t, md, "javascript:")
}

func TestActiveMediaAreOnlyDownloadLinks(t *testing.T) {
	t.Parallel()
	r, err := web.New()
	require.NoError(t, err)
	for _, m := range []web.Media{
		{URL: "files/ab/x.bin", Name: "x.svg", Kind: "image", Mime: "image/svg+xml", ID: "0"},
		{URL: "files/ab/y.bin", Name: "y.html", Kind: "video", Mime: "text/html", ID: "1"},
		{URL: "files/ab/z.bin", Kind: "gif", ID: "2"}, // a type nobody knows
	} {
		var b strings.Builder
		require.NoError(t, r.Render(&b, "post.html", &web.Page{Site: web.SiteInfo{Title: "Archive"},
			Post: &web.Post{Author: web.Author{Name: "A"}, Body: web.PlainHTML("hi"), Media: []web.Media{m}}}))
		page := b.String()
		require.Contains(t, page, `<a class="download" href="`+m.URL+`" download="`+m.Name+`">`, m.Mime)
		for _, inline := range []string{"<img", "<video", "<audio", "<iframe", "<object", "<embed"} {
			require.NotContains(t, page, inline, m.Mime)
		}
	}
}
