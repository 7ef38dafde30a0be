package build

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsulegen"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/demo"
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
		// What the scan handles alone, and what it leaves to the tokenizer.
		`<!doctype html><title>a <a href="x/"> b</title><script>var s = '<a href="y/">';</script><textarea>z/</textarea><a href>v</a>`,
		`<a href="x/" title="it's <b>" data-n="1">q</a><img src="d/"/><a class="c" href="../c/0193-ab_c~d/">c</a><h2 id="t">t</h2>`,
		`<a href="x/?q=1">q</a><a href="x%20y/">e</a><a href="/abs/">a</a><form action=""><input name=q required></form>`,
		`<a href="x/" title="a &amp; b">entity beside a link</a><my-el href="x/">custom</my-el><a href="x/"title="t">tight</a>`,
		`<script><!-- <script> href="x/" </script> --></script><a href="y/">after</a><style>a{}</style ><a href="z/">z</a>`,
		`<title>a </TITLE><a href="x/">in</a></title><a href="y/">y</a><script>var s = "</p>";</script><a href="z/">z</a>`,
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

// Every page of two built sites (the demo archive and a generated one),
// with their links turned back into folders as the templates write them,
// comes out of fileLinks as out of the tokenizer, and the scan alone
// handles nearly all of them.
func TestFileLinksOfBuiltPagesMatchTheTokenRewrite(t *testing.T) {
	t.Parallel()
	demoDir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, demo.WriteTo(demoDir))
	genDir := filepath.Join(t.TempDir(), "generated")
	require.NoError(t, capsulegen.Capsule(genDir, 60))
	pages, scanned := 0, 0
	for _, dir := range []string{demoDir, genDir} {
		for p, page := range folderPages(t, dir, "https://example.org/archive/") {
			want, err := tokenLinks(page)
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, fileLinks(&got, page))
			require.Equal(t, string(want), got.String(), p)
			pages++
			var scan bytes.Buffer
			if scanLinks(&scan, page) {
				scanned++
			}
		}
	}
	t.Logf("%d of %d pages scanned", scanned, pages)
	require.Greater(t, pages, 100)
	require.GreaterOrEqual(t, scanned, pages*9/10, "pages the scan handled alone, of %d", pages)
}

// folderPages builds the capsule in dir and returns its HTML pages by
// path, with their links turned back into folders as the templates write
// them.
func folderPages(tb testing.TB, dir, baseURL string) map[string][]byte {
	tb.Helper()
	ctx := context.Background()
	src, err := capsule.Open(dir)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = src.Close() })
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(tb, err)
	out := filepath.Join(tb.TempDir(), "site")
	_, err = Build(ctx, src, res, Options{Out: out, BaseURL: baseURL})
	require.NoError(tb, err)
	pages := map[string][]byte{}
	require.NoError(tb, filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		built, err := os.ReadFile(p)
		pages[p] = bytes.ReplaceAll(built, []byte(`index.html"`), []byte(`"`))
		return err
	}))
	return pages
}

// BenchmarkFileLinks rewrites the pages of a generated site as the
// templates write them (folder links), with fileLinks and, for the same
// pages in the same run, with the tokenizer alone (tokenizeLinks).
func BenchmarkFileLinks(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "generated")
	require.NoError(b, capsulegen.Capsule(dir, 200))
	var pages [][]byte
	for _, page := range folderPages(b, dir, "") {
		pages = append(pages, page)
	}
	for _, bc := range []struct {
		name string
		f    func(*bytes.Buffer, []byte) error
	}{{"scan", fileLinks}, {"tokenizer", tokenizeLinks}} {
		b.Run(bc.name, func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				for _, p := range pages {
					out.Reset()
					if err := bc.f(&out, p); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(pages)), "µs/page")
		})
	}
}
