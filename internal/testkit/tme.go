package testkit

import (
	"bytes"
	"embed"
	"encoding/binary"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The t.me fixtures: HTML written from the documented structure of the
// embed and t.me/s pages (testdata/tme/STRUCTURE.md). Media and
// avatars point at Telegram's CDN hosts, which the fake rewrites to its own
// /media/<host>/ paths.
//
//go:embed testdata/tme/*.html
var tmeFixtures embed.FS

// Fixture names of pages the fake serves when no route matches.
const (
	// TmeNotFoundFixture is the embed of a post that does not exist.
	TmeNotFoundFixture = "embed-not-found.html"
	// tmePageFixture is t.me's generic page (a user, or a channel without
	// a web preview): no message and no channel history.
	tmePageFixture = "page-tgme.html"
)

// tmeEmbeds maps "<channel>/<id>" (lowercase) to the fixture its
// ?embed=1 page serves. Unknown posts get TmeNotFoundFixture.
func tmeEmbeds() map[string]string {
	return map[string]string{
		"tidewatch_demo/101": "embed-album.html",
		"tidewatch_demo/102": "embed-album-102.html",
		"tidewatch_demo/103": "embed-album-103.html",
		"tidewatch_demo/104": "embed-album-104.html",
		"tidewatch_demo/120": "embed-photo.html",
		"tidewatch_demo/121": "embed-video.html",
		"tidewatch_demo/122": "embed-video-too-big.html",
		"tidewatch_demo/123": "embed-gif.html",
		"tidewatch_demo/130": "embed-document.html",
		"tidewatch_demo/131": "embed-voice.html",
		"tidewatch_demo/140": "embed-forwarded.html",
		"tidewatch_demo/141": "embed-reply.html",
		"tidewatch_demo/142": "embed-signed-edited.html",
		"tidewatch_demo/143": "embed-link-preview.html",
	}
}

// TmeFixturePosts lists the posts ("<channel>/<id>") the fake serves an
// embed page for, sorted.
func TmeFixturePosts() []string { return slices.Sorted(maps.Keys(tmeEmbeds())) }

// TmeFixtureChannels lists the channels the fake serves a t.me/s page for,
// sorted.
func TmeFixtureChannels() []string { return slices.Sorted(maps.Keys(tmeChannels())) }

// tmeChannels maps a channel (lowercase) to its t.me/s page. Other
// channels redirect to t.me/<channel>, t.me's generic page, as t.me does
// for users and channels without a web preview.
func tmeChannels() map[string]string {
	return map[string]string{
		"tidewatch_demo": "s-tidewatch_demo.html",
		"quiet_harbour":  "s-no-posts.html",
	}
}

// tmeMediaHosts are the CDN hosts whose URLs the fake rewrites to
// /media/<host>/<path>.
func tmeMediaHosts() []string {
	return []string{"cdn1.telegram-cdn.org", "cdn4.cdn-telegram.org", "cdn5.cdn-telegram.org", "cdn4.telesco.pe"}
}

// Tme is a fake t.me (Telegram's public web preview) and Telegram media
// CDN on an httptest server. It serves post embeds at
// /<channel>/<id>?embed=1, channel pages at /s/<channel>, generated media
// at /media/<host>/<path> (videos and voice notes only with their ?token=,
// like the real signed CDN URLs), and faults a test asks for. All methods
// are safe for concurrent use.
type Tme struct {
	t   testing.TB
	srv *httptest.Server

	pages map[string][]byte // fixture name → body, media URLs rewritten

	mu         sync.Mutex
	hits       map[string]int
	requests   []TmeRequest
	rateLimitN int
	retryAfter string
	failN      int
	failStatus int
	delay      time.Duration
	overrides  map[string]fxOverride
	mediaSize  int
	mediaFail  map[string]int
	bodies     mediaBodies
	// channels are the synthetic channels by lowercase name (AddChannel).
	channels map[string]*tmeChannel
}

// TmeRequest is one request the fake received.
type TmeRequest struct {
	Method    string
	Path      string
	RawQuery  string
	UserAgent string
}

// NewTme starts a fake t.me for the test; it is closed when the test ends.
func NewTme(t testing.TB) *Tme {
	t.Helper()
	f := &Tme{
		t:         t,
		hits:      map[string]int{},
		overrides: map[string]fxOverride{},
		mediaSize: DefaultMediaSize,
		mediaFail: map[string]int{},
		pages:     map[string][]byte{},
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serveHTTP))
	base := "http://" + f.srv.Listener.Addr().String()
	entries, err := tmeFixtures.ReadDir("testdata/tme")
	if err != nil {
		t.Fatalf("testkit: t.me fixtures: %v", err)
	}
	for _, e := range entries {
		b, err := tmeFixtures.ReadFile("testdata/tme/" + e.Name())
		if err != nil {
			t.Fatalf("testkit: t.me fixture %s: %v", e.Name(), err)
		}
		f.pages[e.Name()] = rewriteTmeMedia(b, base)
	}
	for _, name := range append(mapValues(tmeEmbeds()), append(mapValues(tmeChannels()), TmeNotFoundFixture, tmePageFixture)...) {
		if _, ok := f.pages[name]; !ok {
			t.Fatalf("testkit: t.me route names missing fixture %q", name)
		}
	}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// rewriteTmeMedia points absolute CDN URLs at the fake's /media/ paths.
func rewriteTmeMedia(b []byte, base string) []byte {
	for _, h := range tmeMediaHosts() {
		b = bytes.ReplaceAll(b, []byte("https://"+h+"/"), []byte(base+"/media/"+h+"/"))
	}
	return b
}

// URL is the fake's base URL, for telegram.Options.BaseURL or
// MONITOR_TME_URL.
func (f *Tme) URL() string { return f.srv.URL }

// Raw returns a fixture as the fake serves it (media URLs rewritten), e.g.
// "embed-photo.html". It fails the test for an unknown name.
func (f *Tme) Raw(name string) []byte {
	f.t.Helper()
	b, ok := f.pages[name]
	if !ok {
		f.t.Fatalf("testkit: no t.me fixture %q", name)
	}
	return bytes.Clone(b)
}

// MediaURL rewrites an upstream CDN URL the way the fake rewrites
// fixtures.
func (f *Tme) MediaURL(upstream string) string {
	return string(rewriteTmeMedia([]byte(upstream), f.srv.URL))
}

// MediaBytes returns the body the fake serves for a media URL or path at
// the current media size.
func (f *Tme) MediaBytes(mediaURL string) []byte {
	f.t.Helper()
	u, err := url.Parse(mediaURL)
	if err != nil {
		f.t.Fatalf("testkit: media URL %q: %v", mediaURL, err)
	}
	f.mu.Lock()
	size := f.mediaSize
	f.mu.Unlock()
	body, _ := f.media(u.Path, size)
	return body
}

// Hits counts the requests for a path ("/tidewatch_demo/120" or a media
// path); a full URL counts its path.
func (f *Tme) Hits(p string) int {
	if u, err := url.Parse(p); err == nil && u.Scheme != "" {
		p = u.Path
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[p]
}

// Requests returns every request received so far, in order.
func (f *Tme) Requests() []TmeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]TmeRequest(nil), f.requests...)
}

// RateLimitNext makes the next n page requests answer 429 with
// Retry-After (60 unless SetRetryAfter says otherwise).
func (f *Tme) RateLimitNext(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rateLimitN = n
}

// SetRetryAfter replaces the Retry-After value of simulated rate limits.
func (f *Tme) SetRetryAfter(v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retryAfter = v
}

// FailNext makes the next n page requests answer status with a short
// HTML error page.
func (f *Tme) FailNext(n, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failN, f.failStatus = n, status
}

// Delay holds every later request for d before answering (0: no delay).
func (f *Tme) Delay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// SetOverride serves body with status and contentType for a page path
// (query ignored, e.g. "/tidewatch_demo/120" or "/s/tidewatch_demo")
// instead of its fixture: a page of another shape, an error page, an
// oversize body. Media URLs in body are rewritten like the fixtures'.
func (f *Tme) SetOverride(p string, status int, contentType string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.overrides[p] = fxOverride{status: status, contentType: contentType, body: rewriteTmeMedia(bytes.Clone(body), f.srv.URL)}
}

// ClearOverride removes the override of a path.
func (f *Tme) ClearOverride(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.overrides, p)
}

// SetMediaSize sets the size of later generated media bodies.
func (f *Tme) SetMediaSize(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mediaSize = n
}

// FailMediaPath makes every request for one media path answer status; 0
// stops it.
func (f *Tme) FailMediaPath(p string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if status == 0 {
		delete(f.mediaFail, p)
		return
	}
	f.mediaFail[p] = status
}

func (f *Tme) serveHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.hits[r.URL.Path]++
	f.requests = append(f.requests, TmeRequest{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, UserAgent: r.UserAgent()})
	delay := f.delay
	f.mu.Unlock()
	if delay > 0 {
		timer := time.NewTimer(delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
	}
	if strings.HasPrefix(r.URL.Path, "/media/") {
		f.serveMedia(w, r)
		return
	}
	f.servePage(w, r)
}

const htmlType = "text/html; charset=utf-8"

func (f *Tme) servePage(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	rateLimited := f.rateLimitN > 0
	failStatus := 0
	switch {
	case rateLimited:
		f.rateLimitN--
	case f.failN > 0:
		f.failN--
		failStatus = f.failStatus
	}
	retryAfter := f.retryAfter
	override, overridden := f.overrides[r.URL.Path]
	f.mu.Unlock()

	switch {
	case rateLimited:
		if retryAfter == "" {
			retryAfter = "60"
		}
		writeBody(w, http.StatusTooManyRequests, map[string]string{"Content-Type": htmlType, "Retry-After": retryAfter},
			[]byte("<html><body><h1>Too Many Requests</h1></body></html>"))
		return
	case failStatus != 0:
		writeBody(w, failStatus, map[string]string{"Content-Type": htmlType},
			[]byte("<html><head><title>"+strconv.Itoa(failStatus)+"</title></head><body><center><h1>"+strconv.Itoa(failStatus)+
				"</h1></center><hr><center>nginx</center></body></html>"))
		return
	case overridden:
		writeBody(w, override.status, map[string]string{"Content-Type": override.contentType}, override.body)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeBody(w, http.StatusMethodNotAllowed, nil, nil)
		return
	}

	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if f.serveChannel(w, r, segs) {
		return
	}
	switch {
	case len(segs) == 2 && segs[0] == "s":
		ch := strings.ToLower(segs[1])
		if name, ok := tmeChannels()[ch]; ok {
			f.writePage(w, name)
			return
		}
		// t.me sends users and channels without a preview to their page.
		http.Redirect(w, r, "/"+segs[1], http.StatusFound)
	case len(segs) == 2 && r.URL.Query().Get("embed") == "1":
		name, ok := tmeEmbeds()[strings.ToLower(segs[0])+"/"+segs[1]]
		if !ok {
			name = TmeNotFoundFixture // t.me answers 200 with its error widget
		}
		f.writePage(w, name)
	case len(segs) == 1 && segs[0] != "" || len(segs) == 2:
		f.writePage(w, tmePageFixture)
	default:
		writeBody(w, http.StatusNotFound, map[string]string{"Content-Type": htmlType}, []byte("<html><body>Not Found</body></html>"))
	}
}

func (f *Tme) writePage(w http.ResponseWriter, name string) {
	writeBody(w, http.StatusOK, map[string]string{"Content-Type": htmlType, "Cache-Control": "no-store"}, f.pages[name])
}

// serveMedia answers /media/<host>/<path> with generated bytes. Videos and
// voice notes need their ?token= (the CDN signs them); without one the
// answer is 403, as for an expired link.
func (f *Tme) serveMedia(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	size := f.mediaSize
	failStatus := f.mediaFail[r.URL.Path]
	f.mu.Unlock()
	if failStatus != 0 {
		writeBody(w, failStatus, nil, nil)
		return
	}
	host, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/media/"), "/")
	if !ok || host == "" || rest == "" {
		http.NotFound(w, r)
		return
	}
	switch strings.ToLower(path.Ext(r.URL.Path)) {
	case ".mp4", ".ogg", ".oga":
		if r.URL.Query().Get("token") == "" {
			writeBody(w, http.StatusForbidden, nil, nil)
			return
		}
	}
	body, contentType := f.media(r.URL.Path, size)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "max-age=2592000")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// media is the body served for a media path at a size, built once.
func (f *Tme) media(p string, size int) ([]byte, string) {
	return f.bodies.get(p, "", size, func() ([]byte, string) { return generateTmeMedia(p, size) })
}

// generateTmeMedia is generateMedia plus the formats only Telegram
// serves: Ogg (voice notes) and WebP (stickers).
func generateTmeMedia(p string, size int) ([]byte, string) {
	switch strings.ToLower(path.Ext(p)) {
	case ".ogg", ".oga":
		return generateOgg(p, size), "audio/ogg"
	case ".webp":
		return generateWebP(p, size), "image/webp"
	}
	return generateMedia(p, "", size)
}

func generateOgg(seed string, size int) []byte {
	head := []byte("OggS\x00\x02")
	return append(head, filler(seed, max(size-len(head), 0))...)
}

func generateWebP(seed string, size int) []byte {
	n := max(size-20, 0)
	b := []byte("RIFF")
	b = binary.LittleEndian.AppendUint32(b, uint32(n+12))
	b = append(b, "WEBPVP8 "...)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	return append(b, filler(seed, n)...)
}
