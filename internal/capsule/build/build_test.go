package build_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/monitorhq/monitor/internal/capsule/build"
)

func TestBuildSite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The fixture posts and a hand-written post with tags, Markdown and an
	// image from another host that must not be loaded (disk_test.go).
	src, res := fixtureCapsule(t)

	out := filepath.Join(t.TempDir(), "site")
	st, err := build.Build(ctx, src, res, build.Options{Out: out, BaseURL: "https://archive.example.org/alice/", PageSize: 2})
	require.NoError(t, err)
	require.Equal(t, 5, st.Collections)

	for _, e := range res.Entries {
		require.FileExists(t, filepath.Join(out, "c", e.Collection.ID, "index.html"))
	}
	for _, f := range []string{"index.html", "page/2/index.html", "page/3/index.html", "authors/index.html", "tags/index.html",
		"tags/tides/index.html", "search/index.html", "search.json", "404.html", "robots.txt", "feed.xml", "sitemap.xml"} {
		require.FileExists(t, filepath.Join(out, f))
	}
	walkLinks(t, out, "/alice/")

	var feed struct {
		XMLName xml.Name
		Entries []struct {
			ID   string `xml:"id"`
			Link struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
		} `xml:"entry"`
	}
	parseXML(t, filepath.Join(out, "feed.xml"), &feed)
	require.Equal(t, "feed", feed.XMLName.Local)
	require.Len(t, feed.Entries, 5)
	require.True(t, strings.HasPrefix(feed.Entries[0].Link.Href, "https://archive.example.org/alice/c/"))
	var sm struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	parseXML(t, filepath.Join(out, "sitemap.xml"), &sm)
	require.Greater(t, len(sm.URLs), 5)
	for _, u := range sm.URLs {
		require.True(t, strings.HasPrefix(u.Loc, "https://archive.example.org/alice/"), u.Loc)
		local := strings.TrimPrefix(u.Loc, "https://archive.example.org/alice/")
		require.FileExists(t, filepath.Join(out, filepath.FromSlash(local), "index.html"))
	}
	robots, err := os.ReadFile(filepath.Join(out, "robots.txt"))
	require.NoError(t, err)
	require.Contains(t, string(robots), "Sitemap: https://archive.example.org/alice/sitemap.xml")

	var index []map[string]string
	b, err := os.ReadFile(filepath.Join(out, "search.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &index))
	require.Len(t, index, 5)

	// The sensitive GIF is blurred behind a reveal control.
	gif, err := os.ReadFile(filepath.Join(out, "c", "f1d1c43f-0f2e-4b0e-9e8c-1f8e6e0d1a2b", "index.html"))
	require.NoError(t, err)
	require.NotContains(t, string(gif), `src="https://example.com`)
	require.Contains(t, string(gif), `href="https://example.com/remote.png"`, "a remote image becomes a link")
	sensitive := false
	for _, e := range res.Entries {
		if e.Collection.Sensitive {
			page, err := os.ReadFile(filepath.Join(out, "c", e.Collection.ID, "index.html"))
			require.NoError(t, err)
			require.Contains(t, string(page), `class="sensitive"`)
			sensitive = true
		}
	}
	require.True(t, sensitive, "a fixture is sensitive")

	// Building again replaces the earlier build; a foreign folder is refused.
	_, err = build.Build(ctx, src, res, build.Options{Out: out})
	require.NoError(t, err)
	foreign := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("x"), 0o600))
	_, err = build.Build(ctx, src, res, build.Options{Out: foreign})
	require.ErrorContains(t, err, "is not empty and is not an earlier build")
}

func writeHandPost(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, "collections", "notes", "2026", "2026-08-01-6e0d1a2b.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(`---
id: f1d1c43f-0f2e-4b0e-9e8c-1f8e6e0d1a2b
platform: notes
kind: note
external_id: "1"
visibility: public
saved_at: 2026-08-01T10:00:00Z
published_at: 2026-08-01T09:00:00Z
author: {name: Hand Writer}
tags: [tides, Harbour]
text_kind: markdown
---
# Spring tides

See ![the chart](https://example.com/remote.png) and <script>alert(1)</script> **mind the causeway**.
`), 0o644))
}

func parseXML(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(b, v), file)
}

// walkLinks checks every page: each address on this site resolves to a
// file, and nothing is loaded from another host.
func walkLinks(t *testing.T, root, basePath string) {
	t.Helper()
	pages := 0
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		pages++
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NotContains(t, string(b), "<script>alert", p)
		doc, err := html.Parse(bytes.NewReader(b))
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		var visit func(n *html.Node)
		visit = func(n *html.Node) {
			if n.Type == html.ElementNode {
				for _, a := range n.Attr {
					if a.Key != "href" && a.Key != "src" && a.Key != "data-index" {
						continue
					}
					u, err := url.Parse(a.Val)
					require.NoError(t, err)
					if u.Scheme != "" || u.Host != "" {
						// Other hosts: only as links people follow.
						require.True(t, n.Data == "a" || (n.Data == "link" && (attr(n, "rel") == "canonical" || attr(n, "rel") == "alternate")),
							"%s: <%s %s=%q> loads from another host", rel, n.Data, a.Key, a.Val)
						continue
					}
					if n.Data == "form" || a.Val == "" {
						continue
					}
					target := u.Path
					if strings.HasPrefix(target, "/") {
						require.True(t, strings.HasPrefix(target, basePath), "%s: %q is outside the site", rel, a.Val)
						target = strings.TrimPrefix(target, basePath) // 404.html: from the base path
					} else {
						target = path.Join(path.Dir(filepath.ToSlash(rel)), target)
					}
					if strings.HasSuffix(u.Path, "/") || target == "." {
						target = path.Join(target, "index.html")
					}
					_, err = os.Stat(filepath.Join(root, filepath.FromSlash(target)))
					require.NoError(t, err, "%s: <%s %s=%q> leads nowhere", rel, n.Data, a.Key, a.Val)
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				visit(c)
			}
		}
		visit(doc)
		return nil
	}))
	require.Greater(t, pages, 10)
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
