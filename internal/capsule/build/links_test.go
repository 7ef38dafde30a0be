package build

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// tokenLinks is fileLinks as it was first written, one html.Token per tag:
// the reference the faster one must match byte for byte.
func tokenLinks(page []byte) ([]byte, error) {
	z := html.NewTokenizer(bytes.NewReader(page))
	var out bytes.Buffer
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if errors.Is(z.Err(), io.EOF) {
				return out.Bytes(), nil
			}
			return nil, z.Err()
		}
		raw := z.Raw()
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			out.Write(raw)
			continue
		}
		kept := append([]byte(nil), raw...)
		tok := z.Token()
		changed := false
		for i, a := range tok.Attr {
			if a.Namespace != "" || !linkAttrs[a.Key] {
				continue
			}
			if v, ok := fileLink(a.Key, a.Val); ok {
				tok.Attr[i].Val = v
				changed = true
			}
		}
		if changed {
			out.WriteString(tok.String())
		} else {
			out.Write(kept)
		}
	}
}

func TestFileLinksMatchesTheTokenRewrite(t *testing.T) {
	t.Parallel()
	pages := []string{
		`<!doctype html><html><head><link rel="stylesheet" href="../style.1a2b.css"></head><body>`,
		`<a href="">self</a><a href="authors/">authors</a><a HREF="Tags/Sea/" Class=x>upper</a>`,
		`<a href="page/2/?q=tide#top">query</a><a href="a%2F">escaped</a><a href="a/&amp;b/">entity</a>`,
		`<img src="files/ab/ab.png" alt="a/"><img src="" alt=""><img src="?x=1"><video poster="p/">`,
		`<form action=""></form><form action="search/"><input name=q></form><a href="#top">frag</a>`,
		`<a href="https://example.org/x/">abs</a><a href="//cdn.example/x/">proto</a><a href='single/' data-x="y/">q</a>`,
		`<svg><a xlink:href="x/">ns</a></svg><a href=unquoted/ title="t">u</a><br/><img src="d/"/>`,
		`<p>text with <b>tags</b> &amp; entities</p><!-- a comment href="x/" --><script>var a = "<a href='x/'>";</script>`,
	}
	for _, p := range pages {
		want, err := tokenLinks([]byte(p))
		require.NoError(t, err)
		var got bytes.Buffer
		require.NoError(t, fileLinks(&got, []byte(p)))
		require.Equal(t, string(want), got.String(), p)
	}
	var got bytes.Buffer
	require.NoError(t, fileLinks(&got, []byte(`<a href="">x</a>`)))
	require.Equal(t, `<a href="index.html">x</a>`, got.String(), "the reference itself rewrites")
}
