package build_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
