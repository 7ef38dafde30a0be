package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/check"
)

// activeCapsule writes a capsule with one post whose media are a JPEG, an
// MP4 and three files that run scripts when a browser opens them: an SVG
// (also the author's avatar), an HTML and an XHTML page.
func activeCapsule(t *testing.T) (dir string, files map[string]capsule.Media) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "capsule")
	man, err := capsule.MarshalManifest(&capsule.Manifest{SchemaVersion: 1, Generator: "test", Site: capsule.Site{Title: "Archive"}})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, capsule.ManifestName), man, 0o644))

	files = map[string]capsule.Media{}
	add := func(kind, mime, body string) capsule.Media {
		sum := sha256.Sum256([]byte(body))
		sha := hex.EncodeToString(sum[:])
		m := capsule.Media{File: capsule.FilePath(sha, mime), SHA256: sha, Kind: kind, Mime: mime, Size: int64(len(body))}
		p := filepath.Join(dir, filepath.FromSlash(m.File))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		files[mime] = m
		return m
	}
	svg := add("image", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>`)
	media := []capsule.Media{
		add("image", "image/jpeg", "\xff\xd8\xff\xe0 a photo \xff\xd9"),
		add("video", "video/mp4", "\x00\x00\x00\x20ftypisom a video"),
		svg,
		add("document", "text/html", `<!doctype html><script>alert(document.cookie)</script>`),
		add("image", "application/xhtml+xml", `<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>`),
	}
	saved := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	c := &capsule.Collection{
		ID: "0c8f6b2e-5d1a-4c3b-9e7f-2a1b3c4d5e6f", Platform: "notes", Kind: "note", ExternalID: "7", Visibility: "public",
		SavedAt: saved, Author: capsule.Author{Name: "Drawer"}, TextKind: "plain", Text: "Look at these.", Media: media,
		Graph: capsule.Graph{Root: "post", Entities: []capsule.Entity{
			{Key: "post", Type: "notes.post", ExternalID: "7", Data: []byte(`{}`)},
			{Key: "author", Type: "notes.profile", ExternalID: "drawer", Data: []byte(`{"name":"Drawer"}`),
				Resources: []capsule.Resource{{Purpose: "avatar", File: svg.File, SHA256: svg.SHA256, Kind: "image", Mime: svg.Mime, Size: svg.Size}}},
		}, Relations: []capsule.Relation{{From: "post", Relation: "authored_by", To: "author"}}},
	}
	b, err := capsule.MarshalCollection(c)
	require.NoError(t, err)
	p := filepath.Join(dir, filepath.FromSlash(capsule.CollectionPath(c)))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return dir, files
}

func TestBuildLinksActiveMediaAsDownloads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, files := activeCapsule(t)
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "%v", res.Problems)
	out := filepath.Join(t.TempDir(), "site")
	_, err = build.Build(ctx, src, res, build.Options{Out: out})
	require.NoError(t, err)

	pageFile := filepath.Join(out, "c", "0c8f6b2e-5d1a-4c3b-9e7f-2a1b3c4d5e6f", "index.html")
	page, err := os.ReadFile(pageFile)
	require.NoError(t, err)
	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)

	// Every element that names a file, by the file it names.
	uses := map[string][]*html.Node{}
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, key := range []string{"src", "href", "data", "poster"} {
				if v := attr(n, key); strings.Contains(v, "files/") {
					uses[v[strings.Index(v, "files/"):]] = append(uses[v[strings.Index(v, "files/"):]], n)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)

	for _, mime := range []string{"image/svg+xml", "text/html", "application/xhtml+xml"} {
		m := files[mime]
		ext := map[string]string{"image/svg+xml": "svg", "text/html": "html", "application/xhtml+xml": "xhtml"}[mime]
		bin := "files/" + m.SHA256[:2] + "/" + m.SHA256 + ".bin"
		if m.File != bin { // capsules already name an HTML file .bin
			require.Empty(t, uses[m.File], "%s is not on the site under its own extension, which a host would serve as itself", mime)
			require.NoFileExists(t, filepath.Join(out, filepath.FromSlash(m.File)))
		}
		nodes := uses[bin]
		require.Len(t, nodes, 1, "%s is linked once, as a download", mime)
		a := nodes[0]
		require.Equal(t, "a", a.Data, "%s is never shown inline (<img>, <video>, <iframe>, <object>)", mime)
		require.Equal(t, m.SHA256+"."+ext, attr(a, "download"), "the download keeps the file's type in its name")
		require.Contains(t, text(a), "Download "+m.SHA256+"."+ext)

		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(bin)))
		require.NoError(t, err)
		require.Equal(t, m.Size, int64(len(got)), "the bytes are there to download")
	}
	require.NotContains(t, string(page), `class="avatar"`, "an SVG avatar is not shown")

	for mime, tag := range map[string]string{"image/jpeg": "img", "video/mp4": "video"} {
		m := files[mime]
		var tags []string
		for _, n := range uses[m.File] {
			tags = append(tags, n.Data)
		}
		require.Contains(t, tags, tag, "%s is still shown inline", mime)
		require.FileExists(t, filepath.Join(out, filepath.FromSlash(m.File)))
	}
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
