package build_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/web"
)

// fixtureCapsule exports the recorded fixture posts (photos, a video with
// its poster, a quote, a sensitive GIF) and the hand-written note, and
// checks the capsule.
func fixtureCapsule(t *testing.T) (*capsule.Source, *check.Result) {
	t.Helper()
	ctx := context.Background()
	in := capsuletest.NewPipeline(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	in.Capture(t, alice, capsuletest.FixturePosts()...)
	dir := filepath.Join(t.TempDir(), "capsule")
	_, err := export.Export(ctx, in.App, export.Options{TenantID: alice, TenantName: "alice", Out: dir})
	require.NoError(t, err)
	writeHandPost(t, dir)
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { src.Close() })
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "%v", res.Problems)
	return src, res
}

// onSiteLinks lists every address of every page that points into the
// site, as "page: <tag attr=value>".
func onSiteLinks(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		doc, err := html.Parse(bytes.NewReader(b))
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		var visit func(n *html.Node)
		visit = func(n *html.Node) {
			if n.Type == html.ElementNode {
				for _, a := range n.Attr {
					if a.Key != "href" && a.Key != "src" && a.Key != "action" && a.Key != "poster" {
						continue
					}
					u, err := url.Parse(a.Val)
					require.NoError(t, err)
					if u.Scheme != "" || u.Host != "" || strings.HasPrefix(a.Val, "#") {
						continue
					}
					out[fmt.Sprintf("%s: <%s %s=%q>", rel, n.Data, a.Key, a.Val)] = a.Val
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				visit(c)
			}
		}
		visit(doc)
		return nil
	}))
	return out
}

func TestBuildLinksNameFiles(t *testing.T) {
	t.Parallel()
	src, res := fixtureCapsule(t)
	out := filepath.Join(t.TempDir(), "site")
	_, err := build.Build(context.Background(), src, res, build.Options{Out: out})
	require.NoError(t, err)

	links := onSiteLinks(t, out)
	require.Greater(t, len(links), 50)
	for where, v := range links {
		u, _ := url.Parse(v)
		if strings.HasPrefix(where, "search/index.html: <form action=") && v == "" {
			continue // the search page's own form: the page itself
		}
		require.False(t, u.Path == "" || strings.HasSuffix(u.Path, "/"), "%s names a folder, which file:// does not open", where)
	}
	walkLinks(t, out, "/")

	// The search index is a script the search page loads, not a fetch.
	index, err := os.ReadFile(filepath.Join(out, "search-index.js"))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(index, []byte("// ")))
	require.Contains(t, string(index), "window.monitorSearchIndex = [")
	require.Contains(t, string(index), "Timelapse of the tide coming in")
	page, err := os.ReadFile(filepath.Join(out, "search", "index.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `<script src="../search-index.js"></script>`)
	js, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(assetPath(t, "search.js"))))
	require.NoError(t, err)
	require.NotContains(t, string(js), "fetch(")
}

func assetPath(t *testing.T, name string) string {
	t.Helper()
	r, err := web.New()
	require.NoError(t, err)
	for _, a := range r.Assets() {
		if a.Name == name {
			return a.Path
		}
	}
	t.Fatalf("no asset %s", name)
	return ""
}

func TestBuildFeedAndSitemapNeedAFullBaseURL(t *testing.T) {
	t.Parallel()
	src, res := fixtureCapsule(t)
	for _, base := range []string{"", "/archive/"} {
		out := filepath.Join(t.TempDir(), "site")
		st, err := build.Build(context.Background(), src, res, build.Options{Out: out, BaseURL: base})
		require.NoError(t, err, base)
		require.NoFileExists(t, filepath.Join(out, "feed.xml"))
		require.NoFileExists(t, filepath.Join(out, "sitemap.xml"))
		require.Len(t, st.Warnings, 1, base)
		w := st.Warnings[0]
		require.Contains(t, w, "no feed.xml or sitemap.xml written")
		require.Contains(t, w, "--base-url https://")
		if base == "" {
			require.Contains(t, w, "no --base-url was given")
		} else {
			require.Contains(t, w, `--base-url "/archive/" is only a path`)
		}
		home, err := os.ReadFile(filepath.Join(out, "index.html"))
		require.NoError(t, err)
		require.NotContains(t, string(home), "feed.xml", "no page links a feed that is not there")
		robots, err := os.ReadFile(filepath.Join(out, "robots.txt"))
		require.NoError(t, err)
		require.NotContains(t, string(robots), "Sitemap")
	}

	out := filepath.Join(t.TempDir(), "site")
	st, err := build.Build(context.Background(), src, res, build.Options{Out: out, BaseURL: "https://archive.example.org/"})
	require.NoError(t, err)
	require.Empty(t, st.Warnings)
	require.FileExists(t, filepath.Join(out, "feed.xml"))
	require.FileExists(t, filepath.Join(out, "sitemap.xml"))
}

func TestBuildAuthorPageHasProfileHeader(t *testing.T) {
	t.Parallel()
	src, res := fixtureCapsule(t)
	out := filepath.Join(t.TempDir(), "site")
	_, err := build.Build(context.Background(), src, res, build.Options{Out: out})
	require.NoError(t, err)

	b, err := os.ReadFile(filepath.Join(out, "authors", "archivist_demo", "index.html"))
	require.NoError(t, err)
	doc, err := html.Parse(bytes.NewReader(b))
	require.NoError(t, err)
	header := find(doc, func(n *html.Node) bool { return n.Data == "section" && attr(n, "class") == "profile" })
	require.NotNil(t, header, "the author page has a profile header")
	got := strings.Join(strings.Fields(text(header)), " ")
	require.Contains(t, got, "Archivist Demo @archivist_demo")
	require.Contains(t, got, "Testing a self-hosted archive. Notes at https://archive.example.org/notes")
	require.Contains(t, got, "3876 posts")
	require.Contains(t, got, "342 following")
	require.Contains(t, got, "1287 followers")
	for _, class := range []string{"banner", "avatar"} {
		img := find(header, func(n *html.Node) bool { return n.Data == "img" && attr(n, "class") == class })
		require.NotNil(t, img, class)
		require.FileExists(t, filepath.Join(out, "authors", "archivist_demo", filepath.FromSlash(attr(img, "src"))), class)
	}
	// A tag page has no profile.
	b, err = os.ReadFile(filepath.Join(out, "tags", "tides", "index.html"))
	require.NoError(t, err)
	require.NotContains(t, string(b), `class="profile"`)
}

func TestBuildWritesVideoPosters(t *testing.T) {
	t.Parallel()
	src, res := fixtureCapsule(t)
	out := filepath.Join(t.TempDir(), "site")
	_, err := build.Build(context.Background(), src, res, build.Options{Out: out})
	require.NoError(t, err)

	videos := 0
	for _, e := range res.Entries {
		c := e.Collection
		var posters []capsule.Resource
		for _, en := range c.Graph.Entities {
			if en.Key != c.Graph.Root {
				continue
			}
			for _, r := range en.Resources {
				if r.Purpose == "poster" {
					posters = append(posters, r)
				}
			}
		}
		shown := 0
		for _, m := range c.Media {
			if strings.HasPrefix(m.Mime, "video/") {
				shown++
			}
		}
		if shown == 0 {
			require.Empty(t, posters, c.ID)
			continue
		}
		videos++
		require.Len(t, posters, shown, "%s: the capture archived a poster for each video", c.ID)
		for _, p := range posters {
			require.Equal(t, "image", p.Kind)
			require.FileExists(t, filepath.Join(out, filepath.FromSlash(capsule.FilePath(p.SHA256, p.Mime))), "the build writes the poster")
		}
	}
	require.Equal(t, 2, videos, "the video and the GIF")
}

func TestAttachPostersPairsOnlyMatchingCounts(t *testing.T) {
	t.Parallel()
	media := func() []web.Media {
		return []web.Media{{Mime: "image/jpeg"}, {Mime: "video/mp4"}, {Mime: "image/png"}, {Mime: "video/mp4"}}
	}
	m := media()
	web.AttachPosters(m, []string{"a.jpg", "b.jpg"})
	require.Equal(t, []string{"", "a.jpg", "", "b.jpg"}, []string{m[0].Poster, m[1].Poster, m[2].Poster, m[3].Poster})
	m = media()
	web.AttachPosters(m, []string{"a.jpg"})
	for _, x := range m {
		require.Empty(t, x.Poster, "one video lost: no guessing which poster is whose")
	}
}

func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && ok(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

// chromium finds Debian's chromium; without it the browser test skips,
// except in CI, where it must run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; CI needs Debian's chromium (/usr/bin/chromium) for the browser tests")
	}
	t.Skip("skipping the browser test: chromium is not installed (apt-get install chromium)")
	return ""
}

// browser starts chromium for one test.
func browser(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestBuildOpensFromDiskInABrowser(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	src, res := fixtureCapsule(t)
	out := filepath.Join(t.TempDir(), "site")
	_, err := build.Build(context.Background(), src, res, build.Options{Out: out})
	require.NoError(t, err)

	ctx := browser(t, exe)

	home := "file://" + filepath.ToSlash(out) + "/index.html"
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(home), chromedp.WaitVisible(chromedp.CSS("main"))))
	links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("a[href]")).map(a => a.href).filter(h => h.startsWith("file://"))`))
	require.NoError(t, err)
	require.NotEmpty(t, links)
	// Every on-site link of the home page opens a page of the site (a
	// folder address would show a directory listing instead).
	seen := map[string]bool{}
	for _, l := range links {
		l = strings.SplitN(l, "#", 2)[0]
		if ext := path.Ext(strings.SplitN(l, "?", 2)[0]); seen[l] || (ext != "" && ext != ".html") {
			continue // media files open as themselves
		}
		seen[l] = true
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(l)), l)
		page, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("main header, main h1, main article") !== null`))
		require.NoError(t, err, l)
		require.True(t, page, "%s does not open a page of the site", l)
	}

	// Search from the page header, then straight by address.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(home),
		chromedp.SetValue(chromedp.CSS(`header form input[name=q]`), "timelapse tide"),
		chromedp.Submit(chromedp.CSS(`header form input[name=q]`)),
		chromedp.WaitVisible(chromedp.CSS(`#search-results li`)),
	))
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("search-status")))
	require.NoError(t, err)
	require.Equal(t, "1 post", status)
	hits, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#search-results li a")).map(a => a.href)`))
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.True(t, strings.HasPrefix(hits[0], "file://"+filepath.ToSlash(out)+"/c/") && strings.HasSuffix(hits[0], "/index.html"), hits[0])

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate("file://"+filepath.ToSlash(out)+"/search/index.html?q=tide"),
		chromedp.WaitVisible(chromedp.CSS(`#search-results li`)),
	))
	status, err = chromedp.Run(ctx, chromedp.Text(chromedp.ID("search-status")))
	require.NoError(t, err)
	require.Regexp(t, `^[2-9] posts$`, status)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(hits[0]), chromedp.WaitVisible(chromedp.CSS("main"))))
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	require.NoError(t, err)
	require.Contains(t, body, "Timelapse of the tide coming in")
}
