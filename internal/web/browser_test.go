package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/runtime"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// findChromium finds the browser the browser tests drive: Debian's
// chromium (or MONITOR_CHROMIUM). Without it they skip, except under
// CI=true or MONITOR_REQUIRE_BROWSER=1, where they fail.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("MONITOR_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "browser tests need Debian's chromium at /usr/bin/chromium: run scripts/test (it installs it as root) or `sudo apt-get install chromium`"
	if os.Getenv("CI") == "true" || os.Getenv("MONITOR_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// live is a whole core (testcore.Run: HTTP, REST, web, adapters on the
// fake FxTwitter and t.me) that browsers visit.
type live struct {
	*testcore.Running
	base string
	// fx is the fake FxTwitter the core reads.
	fx *testkit.FxTwitter
}

func newLive(t *testing.T, opts ...runtime.Option) *live {
	t.Helper()
	fx, tme := testkit.NewFxTwitter(t), testkit.NewTme(t)
	r := testcore.Run(t, testcore.Config(t, map[string]string{"MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_TME_URL": tme.URL()}), opts...)
	return &live{Running: r, base: "http://" + r.Addr(), fx: fx}
}

// archive captures link for the tenant and waits until it ends.
func (l *live) archive(t *testing.T, tenant uuid.UUID, link string) app.SubmitResult {
	t.Helper()
	res, err := l.App().Submit(context.Background(), app.SubmitRequest{TenantID: tenant, URL: link})
	require.NoError(t, err)
	l.WaitEnded(t, res.CaptureID)
	return res
}

// loginLink is a fresh one-use sign-in path for the tenant.
func (l *live) loginLink(t *testing.T, tenant string, ttl time.Duration) string {
	t.Helper()
	link, _, err := l.App().CreateLoginLink(context.Background(), "test", tenant, false, ttl)
	require.NoError(t, err)
	i := strings.Index(link, "/login/")
	require.GreaterOrEqual(t, i, 0, link)
	return link[i:]
}

// browser is one headless chromium with its own profile.
type browser struct {
	ctx context.Context
	t   *testing.T
}

// actionTimeout bounds one step of a browser test. It only bounds a hang:
// a step takes well under a second alone, but a CI run once took over 30 s
// for one while the whole suite ran beside it on two cores.
const actionTimeout = 60 * time.Second

// browserTests bounds how many tests drive browsers at once: a chromium
// takes a core to start, and the package's tests run four at a time.
var browserTests = struct {
	slots chan struct{}
	held  sync.Map // *testing.T → true: the test holds a slot
}{slots: make(chan struct{}, 2)}

// holdBrowserSlot waits for a slot for t's browsers, held until t ends.
func holdBrowserSlot(t *testing.T) {
	if _, held := browserTests.held.LoadOrStore(t, true); held {
		return
	}
	browserTests.slots <- struct{}{}
	t.Cleanup(func() { <-browserTests.slots; browserTests.held.Delete(t) })
}

// newBrowser starts chromium speaking lang, with a viewport w×h.
func newBrowser(t *testing.T, lang string, w, h int) *browser {
	t.Helper()
	holdBrowserSlot(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("lang", lang),
		chromedp.Flag("accept-lang", lang),
		chromedp.WindowSize(w, h),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first call starts the browser, on a context without a timeout.
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	b := &browser{ctx: ctx, t: t}
	b.call(func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": lang}})
		return err
	})
	b.do(chromedp.EmulateViewport(int64(w), int64(h)))
	return b
}

// call runs f with a step's timeout.
func (b *browser) call(f func(ctx context.Context) error) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, actionTimeout)
	defer cancel()
	require.NoError(b.t, f(ctx))
}

// do runs steps in order.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	b.call(func(ctx context.Context) error { return chromedp.Do(ctx, steps...) })
}

// get runs one action and returns its value.
func runGet[T any](b *browser, a chromedp.Action[T]) T {
	b.t.Helper()
	var v T
	b.call(func(ctx context.Context) (err error) { v, err = chromedp.Run(ctx, a); return err })
	return v
}

// text is the page's visible text.
func (b *browser) text() string { b.t.Helper(); return runGet(b, chromedp.Text(chromedp.CSS("body"))) }

// attr is an attribute of the first element matching css.
func (b *browser) attr(css, name string) string {
	b.t.Helper()
	return runGet(b, chromedp.AttributeValue(chromedp.CSS(css), name)).Value
}

// eval evaluates a JavaScript expression, awaiting a promise.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	return runGet(b, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// fetch runs a fetch from the page and returns its status: what a script
// on the page could try with the browser's cookie.
func (b *browser) fetch(method, url, body string, headers map[string]string) int {
	b.t.Helper()
	if headers == nil {
		headers = map[string]string{}
	}
	h, _ := json.Marshal(headers)
	return eval[int](b, fmt.Sprintf(`fetch(%q, {method: %q, body: %s, headers: %s, credentials: "include", redirect: "manual"}).then(r => r.status)`,
		url, method, jsBody(method, body), h))
}

func jsBody(method, body string) string {
	if method == http.MethodGet {
		return "undefined"
	}
	q, _ := json.Marshal(body)
	return string(q)
}

// screenshot saves the page as name.png in MONITOR_SCREENSHOTS (none
// when it is not set).
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("MONITOR_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := runGet(b, chromedp.FullScreenshot(100)) // 100: PNG, not JPEG
	require.NoError(b.t, os.MkdirAll(dir, 0o755))
	require.NoError(b.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// signIn opens a login link and lands on the library.
func (b *browser) signIn(l *live, tenant string) {
	b.t.Helper()
	b.do(chromedp.Navigate(l.base+l.loginLink(b.t, tenant, 0)), chromedp.WaitVisible(chromedp.CSS("form.capture")))
	require.Equal(b.t, l.base+"/", runGet(b, chromedp.Location()))
}

func TestBrowser(t *testing.T) {
	findChromium(t)
	l := newLive(t)
	ctx := context.Background()
	alice, err := l.App().CreateTenant(ctx, "test", "alice", nil)
	require.NoError(t, err)
	_, err = l.App().CreateTenant(ctx, "test", "bob", nil)
	require.NoError(t, err)
	photos := l.archive(t, alice.ID, photosPost)
	video := l.archive(t, alice.ID, videoPost)
	quote := l.archive(t, alice.ID, quotePost)
	l.archive(t, alice.ID, gonePost)
	rep, err := l.App().ImportCollections(ctx, alice.ID, []app.ImportCollection{privatePost()}, app.ImportOptions{})
	require.NoError(t, err)
	require.Len(t, rep.Created, 1)
	private := rep.Created[0].ID

	pv, err := l.App().Collection(ctx, alice.ID, photos.CollectionID)
	require.NoError(t, err)
	vv, err := l.App().Collection(ctx, alice.ID, video.CollectionID)
	require.NoError(t, err)

	t.Run("library", func(t *testing.T) {
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "alice")
		text := b.text()
		require.Contains(t, text, firstLine(pv.Text))
		require.Contains(t, text, firstLine(vv.Text))
		require.Contains(t, text, "alice's private draft")
		require.Contains(t, text, "Capture failed")
		require.Equal(t, "en", b.attr("html", "lang"))
		// Thumbnails and avatars load from this server's /v1/media with the
		// session cookie. (The fake FxTwitter's images are valid headers
		// around filler, so the browser fetches but cannot draw them.)
		media := eval[int](b, `Promise.all(Array.from(document.querySelectorAll("ol.library img")).map(i => { i.loading = "eager"; return i.decode().catch(() => null); })).then(() =>
			performance.getEntriesByType("resource").filter(e => e.name.includes("/v1/media/") && e.responseStatus === 200).length)`)
		require.Greater(t, media, 0, "archived media are served to the signed-in browser")
		foreign := eval[int](b, `performance.getEntriesByType("resource").filter(e => !e.name.startsWith(location.origin)).length`)
		require.Zero(t, foreign, "nothing is loaded from another host")
		b.screenshot("library-light")

		// Keyboard: j moves to the first card, j again to the second, o opens it.
		b.do(chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
		current := b.attr("ol.library > li.card.current", "data-href")
		require.True(t, strings.HasPrefix(current, "/c/"), current)
		b.do(chromedp.KeyEvent("k"))
		require.Equal(t, b.attr("ol.library > li.card:first-child", "data-href"), b.attr("ol.library > li.card.current", "data-href"))
		b.do(chromedp.KeyEvent("?"))
		require.True(t, eval[bool](b, `document.getElementById("keys").open`), "? shows the shortcuts")
		b.do(chromedp.KeyEvent("\x1b"))
		require.False(t, eval[bool](b, `document.getElementById("keys").open`), "Escape closes them")
		b.do(chromedp.KeyEvent("/"))
		require.Equal(t, "q", eval[string](b, `document.activeElement.name`), "/ focuses search")

		// The list layout, without JS needed: a link, remembered.
		b.do(chromedp.Click(chromedp.CSS(`.layout-toggle a:nth-child(2)`)), chromedp.WaitVisible(chromedp.CSS("ol.library.list")))
		b.do(chromedp.Navigate(l.base+"/"), chromedp.WaitVisible(chromedp.CSS("ol.library.list")))
		b.do(chromedp.Navigate(l.base+"/?view=grid"), chromedp.WaitVisible(chromedp.CSS("ol.library.grid")))
	})

	t.Run("dark", func(t *testing.T) {
		require.NoError(t, l.App().SetWebPreferences(ctx, alice.ID, app.WebPreferences{Theme: "dark"}))
		defer func() { _ = l.App().SetWebPreferences(ctx, alice.ID, app.WebPreferences{}) }()
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "alice")
		require.Equal(t, "dark", b.attr("html", "data-theme"))
		require.Equal(t, "rgb(19, 20, 23)", eval[string](b, `getComputedStyle(document.body).backgroundColor`))
		b.screenshot("library-dark")
	})

	t.Run("mobile", func(t *testing.T) {
		b := newBrowser(t, "en-US", 390, 844)
		b.signIn(l, "alice")
		require.LessOrEqual(t, eval[int](b, `document.documentElement.scrollWidth`), eval[int](b, `document.documentElement.clientWidth`), "no horizontal scroll at 390 px")
		b.screenshot("library-390")
	})

	t.Run("chinese", func(t *testing.T) {
		b := newBrowser(t, "zh-CN", 1280, 900)
		b.signIn(l, "alice")
		require.Equal(t, "zh-CN", b.attr("html", "lang"))
		text := b.text()
		require.Contains(t, text, "存档链接")
		require.Contains(t, text, "采集失败")
		b.screenshot("library-zh")
	})

	t.Run("delete-undo-refresh", func(t *testing.T) {
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "alice")
		item := quote.CollectionID.String()
		card := `li.card[data-href="/c/` + item + `"]`
		// Refused without the CSRF token and from another origin.
		require.Equal(t, http.StatusForbidden, b.fetch(http.MethodPost, "/c/"+item+"/delete", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}))
		csrf := b.attr(`form.capture input[name=csrf]`, "value")
		require.NotEmpty(t, csrf)
		foreign := httpPost(t, l.base+"/c/"+item+"/delete", "csrf="+csrf, b.cookie(), "http://evil.example")
		require.Equal(t, http.StatusForbidden, foreign, "a foreign Origin is refused")
		b.do(chromedp.Navigate(l.base+"/"), chromedp.WaitVisible(chromedp.CSS(card)))

		// Delete, then Undo.
		b.do(chromedp.Click(chromedp.CSS(card+` form[action$="/delete"] button`)), chromedp.WaitVisible(chromedp.ID("notice")))
		require.NotContains(t, b.outerHTML(), `data-href="/c/`+item+`"`)
		require.Contains(t, b.text(), "Removed from your library.")
		b.do(chromedp.Click(chromedp.CSS(`#notice button`)), chromedp.WaitVisible(chromedp.CSS(card)))
		require.Contains(t, b.text(), "Put back in your library.")

		// Refresh goes to the live capture page, which ends with a link.
		b.do(chromedp.Click(chromedp.CSS(card+` form[action$="/refresh"] button`)),
			chromedp.WaitVisible(chromedp.CSS(`a.button[href="/c/`+item+`"]`)))
		require.Contains(t, b.text(), "Open the archived post")
	})

	t.Run("submit", func(t *testing.T) {
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "bob")
		b.do(chromedp.SendKeys(chromedp.ID("capture-url"), photosPost), chromedp.Submit(chromedp.ID("capture-url")),
			chromedp.WaitVisible(chromedp.CSS(`a.button[href^="/c/"]`)))
		b.do(chromedp.Navigate(l.base+"/"), chromedp.SendKeys(chromedp.ID("capture-url"), "https://example.org/nothing"),
			chromedp.Submit(chromedp.ID("capture-url")), chromedp.WaitVisible(chromedp.ID("capture-error")))
		require.Contains(t, b.text(), "cannot be archived")
	})

	t.Run("tenants", func(t *testing.T) {
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "bob")
		// bob saved the photos post (submit above) but never the video,
		// and alice's private post is not his.
		for _, id := range []uuid.UUID{private, video.CollectionID} {
			require.Equal(t, http.StatusNotFound, b.fetch(http.MethodGet, "/c/"+id.String(), "", nil), id)
			require.Equal(t, http.StatusNotFound, b.fetch(http.MethodGet, "/v1/collections/"+id.String(), "", nil), id)
		}
		require.NotContains(t, b.text(), "alice's private draft")
	})

	t.Run("pages", func(t *testing.T) {
		for _, size := range []struct {
			name string
			w, h int
		}{{"", 1280, 900}, {"-390", 390, 844}} {
			b := newBrowser(t, "en-US", size.w, size.h)
			b.signIn(l, "alice")
			b.do(chromedp.Navigate(l.base+"/tokens"), chromedp.SendKeys(chromedp.ID("token-name"), "laptop"),
				chromedp.Submit(chromedp.ID("token-name")), chromedp.WaitVisible(chromedp.CSS("code.secret")))
			b.screenshot("tokens" + size.name)
			for _, page := range []string{"usage", "sessions", "settings", "captures/" + photos.CaptureID.String()} {
				b.do(chromedp.Navigate(l.base+"/"+page), chromedp.WaitVisible(chromedp.CSS("main h1")))
				require.LessOrEqual(t, eval[int](b, `document.documentElement.scrollWidth`), eval[int](b, `document.documentElement.clientWidth`),
					"no horizontal scroll on /%s at %d px", page, size.w)
				b.screenshot(strings.ReplaceAll(strings.Split(page, "/")[0], "captures", "capture") + size.name)
			}
		}
	})

	t.Run("sessions-and-links", func(t *testing.T) {
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "alice")
		b.do(chromedp.Navigate(l.base+"/sessions"), chromedp.WaitVisible(chromedp.CSS("table.sessions")))
		require.Contains(t, b.text(), "This browser")

		used := l.loginLink(t, "alice", 0)
		b.do(chromedp.Navigate(l.base+used), chromedp.WaitVisible(chromedp.CSS("body")))
		fresh := newBrowser(t, "en-US", 1280, 900)
		fresh.do(chromedp.Navigate(l.base+used), chromedp.WaitReady(chromedp.CSS("body")))
		require.Contains(t, fresh.text(), "already used")
		expired := l.loginLink(t, "alice", 15*time.Minute)
		l.Clock.Advance(16 * time.Minute)
		fresh.do(chromedp.Navigate(l.base+expired), chromedp.WaitReady(chromedp.CSS("body")))
		require.Contains(t, fresh.text(), "expired")
	})
}

func (b *browser) outerHTML() string {
	b.t.Helper()
	return runGet(b, chromedp.OuterHTML(chromedp.CSS("html")))
}

// cookie is the browser's session cookie, as a Cookie header value.
func (b *browser) cookie() string {
	b.t.Helper()
	var res network.GetCookiesResult
	b.call(func(ctx context.Context) (err error) {
		res, err = chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
		return err
	})
	for _, c := range res.Cookies {
		if c.Name == "monitor_session" {
			return c.Name + "=" + c.Value
		}
	}
	b.t.Fatal("no session cookie")
	return ""
}

// httpPost sends a form as another site would make the browser send it:
// the session cookie, the right CSRF token, a foreign Origin.
func httpPost(t *testing.T, u, body, cookie, origin string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", cookie)
	req.Header.Set("Origin", origin)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	r := []rune(line)
	return string(r[:min(len(r), 30)])
}

// privatePost is a text-only private post imported for alice.
func privatePost() app.ImportCollection {
	saved := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	return app.ImportCollection{
		ID: uuid.Must(uuid.NewV7()), Platform: "x", EntityType: "x.post", ExternalID: "2000000000000000001",
		SourceURL: "https://x.com/archivist_demo/status/2000000000000000001", Visibility: "private", SavedAt: saved,
		Label: "collections/x/private.md",
		Revisions: []app.ImportRevision{{CapturedAt: saved, Text: "alice's private draft", Summary: "Archivist Demo：alice's private draft",
			AuthorName: "Archivist Demo", Graph: app.ImportGraph{Root: "post:1", Entities: []app.ImportEntity{{
				Key: "post:1", Type: "x.post", ExternalID: "2000000000000000001", Data: json.RawMessage(`{"id":"2000000000000000001","text":"alice's private draft"}`),
			}}}}},
	}
}
