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
			Media: []web.Media{{URL: "files/ab/x.jpg", Kind: "image", Sensitive: true, ID: "0"}}}}))
	require.Contains(t, b.String(), `<input type="checkbox" class="reveal" id="reveal-0">`)
	require.Contains(t, b.String(), `src="../../files/ab/x.jpg"`)
	require.Len(t, r.Assets(), 2)
}

func TestTextRendering(t *testing.T) {
	t.Parallel()
	require.Equal(t, `<p>a &lt;b&gt; <a href="https://example.org/x" rel="nofollow noopener noreferrer">https://example.org/x</a>.<br>`+"\n"+`c</p>`,
		string(web.PlainHTML("a <b> https://example.org/x.\nc")))
	md := string(web.MarkdownHTML("![pic](https://example.com/p.png) ![local](files/a.png) <b>raw</b> [x](javascript:alert(1))"))
	require.NotContains(t, md, `src="https://example.com`)
	require.Contains(t, md, `<a href="https://example.com/p.png">pic</a>`)
	require.Contains(t, md, `<img src="files/a.png" alt="local">`)
	require.NotContains(t, md, "<b>raw</b>")
	require.NotContains(t, md, "javascript:")
}
