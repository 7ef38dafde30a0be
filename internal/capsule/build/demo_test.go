package build_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/demo"
)

// The demo archive builds into a site with both profile headers and the
// video's poster.
func TestBuildDemoArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, demo.WriteTo(dir))
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "site")
	st, err := build.Build(ctx, src, res, build.Options{Out: out})
	require.NoError(t, err)
	require.Equal(t, len(res.Entries), st.Collections)
	walkLinks(t, out, "/")

	headers := map[string]string{}
	authors, err := os.ReadDir(filepath.Join(out, "authors"))
	require.NoError(t, err)
	for _, a := range authors {
		if !a.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, "authors", a.Name(), "index.html"))
		require.NoError(t, err)
		doc, err := html.Parse(bytes.NewReader(b))
		require.NoError(t, err)
		if h := find(doc, func(n *html.Node) bool { return n.Data == "section" && attr(n, "class") == "profile" }); h != nil {
			headers[a.Name()] = strings.Join(strings.Fields(text(h)), " ")
		}
	}
	require.Contains(t, headers["monitor_demo"], "Monitor Demo @monitor_demo")
	require.Contains(t, headers["monitor_demo"], "2048 followers")
	var channel string
	for name, h := range headers {
		if strings.Contains(h, "@monitor_demo_tides") {
			channel = name
		}
	}
	require.NotEmpty(t, channel, "the Telegram channel's page has its header: %v", headers)
	require.Contains(t, headers[channel], "3120 subscribers")
	page, err := os.ReadFile(filepath.Join(out, "authors", "monitor_demo", "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `class="banner"`)

	for _, e := range res.Entries {
		for _, en := range e.Collection.Graph.Entities {
			for _, r := range en.Resources {
				if r.Purpose == "poster" {
					require.FileExists(t, filepath.Join(out, filepath.FromSlash(capsule.FilePath(r.SHA256, r.Mime))))
				}
			}
		}
	}
}

// A capsule whose site language is Chinese builds Chinese pages, and its
// search finds Chinese words in the browser.
func TestBuildInChinese(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, demo.WriteTo(dir))
	man := filepath.Join(dir, "monitor.yaml")
	b, err := os.ReadFile(man)
	require.NoError(t, err)
	require.Contains(t, string(b), "language: en\n")
	require.NoError(t, os.WriteFile(man, bytes.Replace(b, []byte("language: en\n"), []byte("language: zh-CN\n"), 1), 0o644))
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "site")
	st, err := build.Build(ctx, src, res, build.Options{Out: out})
	require.NoError(t, err)
	require.Len(t, st.Warnings, 1)

	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		require.NoError(t, err)
		return string(b)
	}
	authors := read("authors/index.html")
	require.Contains(t, authors, `<html lang="zh-CN"`)
	require.Contains(t, authors, "<title>作者 · Monitor demo archive</title>")
	require.Contains(t, read("authors/monitor_demo/index.html"), "<strong>2048</strong> 关注者")
	search := read("search/index.html")
	require.Contains(t, search, `data-msg-one="1 条帖子"`)
	require.Contains(t, read("404.html"), "此地址没有页面。")

	exe := chromium(t)
	bctx := browser(t, exe)
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate("file://"+filepath.ToSlash(out)+"/search/index.html?q="+url.QueryEscape("大潮")),
		chromedp.WaitVisible(chromedp.CSS(`#search-results li`)),
	))
	status, err := chromedp.Run(bctx, chromedp.Text(chromedp.ID("search-status")))
	require.NoError(t, err)
	require.Equal(t, "1 条帖子", status)
}
