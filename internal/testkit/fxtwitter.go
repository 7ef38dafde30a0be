package testkit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultMediaSize is the size of generated media bodies.
const DefaultMediaSize = 64 << 10

// fxNotFoundFixture answers paths no route knows.
const fxNotFoundFixture = "errors/route-404.json"

// mediaHosts are the upstream media hosts whose absolute URLs the fake
// rewrites to its own /media/<host>/ paths.
func mediaHosts() []string { return []string{"pbs.twimg.com", "video.twimg.com"} }

// FxTwitter is a fake FxTwitter API and twimg media host on an httptest
// server. It serves the recorded fixtures of testdata/fxtwitter by
// their routes.json, generated media under /media/<host>/<path>, and faults
// a test asks for. All methods are safe for concurrent use.
type FxTwitter struct {
	t   testing.TB
	srv *httptest.Server

	// Read-only after NewFxTwitter.
	fixtures  map[string][]byte // by slash path relative to the fixtures dir, rewritten
	routes    []fxRoute
	noUA      fxRoute
	rateLimit fxRoute

	mu          sync.Mutex
	hits        map[string]int
	requests    []FxRequest
	rateLimitN  int
	failN       int
	failStatus  int
	mediaFailN  int
	mediaStatus int
	delay       time.Duration
	mediaDelay  time.Duration
	overrides   map[string]fxOverride
	mediaSize   int
	retryAfter  string
	mediaFail   map[string]int // media path → status, every time
	bodies      mediaBodies
	// held counts media requests Delay is holding now; heldChanged is
	// closed (and replaced) whenever it changes.
	held        int
	heldChanged chan struct{}
	// timelines are the synthetic timelines by statuses path (AddTimeline).
	timelines map[string]*fxTimeline
}

// FxRequest is one request the fake received.
type FxRequest struct {
	Method    string
	Path      string
	RawQuery  string
	UserAgent string
}

// fxRoute is one entry of routes.json. Query nil: any query matches.
type fxRoute struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   map[string]string `json:"query"`
	Status  int               `json:"status"`
	File    string            `json:"file"`
	Headers map[string]string `json:"headers"`
}

type fxOverride struct {
	status      int
	contentType string
	body        []byte
}

// NewFxTwitter starts a fake FxTwitter for the test; it is closed when the
// test ends.
//
// Routing: a request without a User-Agent gets the 401 fixture, like the
// real API. Otherwise faults come first (RateLimitNext, FailNext,
// SetOverride), then routes.json by path; a route with a "query" object
// matches when the request's values of the query keys the routes of that
// path name are exactly the route's (other parameters, such as count, are
// ignored); a route without one matches any query. Unknown paths get the
// route-404 fixture.
func NewFxTwitter(t testing.TB) *FxTwitter {
	t.Helper()
	f := &FxTwitter{
		t:           t,
		hits:        map[string]int{},
		overrides:   map[string]fxOverride{},
		mediaSize:   DefaultMediaSize,
		heldChanged: make(chan struct{}),
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serveHTTP))
	f.load(FixturesDir(t, "fxtwitter"), "http://"+f.srv.Listener.Addr().String())
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

// load reads every fixture, rewriting media URLs to base, and the routes.
func (f *FxTwitter) load(dir, base string) {
	f.t.Helper()
	f.fixtures = map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f.fixtures[filepath.ToSlash(rel)] = rewriteMediaURLs(b, base)
		return nil
	})
	if err != nil {
		f.t.Fatalf("testkit: read fxtwitter fixtures: %v", err)
	}
	var table struct {
		Routes []fxRoute `json:"routes"`
	}
	if err := json.Unmarshal(f.fixtures["routes.json"], &table); err != nil {
		f.t.Fatalf("testkit: fxtwitter routes.json: %v", err)
	}
	for _, r := range table.Routes {
		if _, ok := f.fixtures[r.File]; !ok {
			f.t.Fatalf("testkit: fxtwitter route %s %s names missing fixture %q", r.Method, r.Path, r.File)
		}
		switch {
		case strings.HasPrefix(r.Path, "/"):
			f.routes = append(f.routes, r)
		case r.Status == http.StatusUnauthorized:
			f.noUA = r // "(any, when User-Agent header is absent)"
		case r.Status == http.StatusTooManyRequests:
			f.rateLimit = r // "(any, simulated rate limit ...)"
		}
	}
	if f.noUA.File == "" || f.rateLimit.File == "" {
		f.t.Fatalf("testkit: fxtwitter routes.json lacks the missing-User-Agent or the rate-limit route")
	}
	if _, ok := f.fixtures[fxNotFoundFixture]; !ok {
		f.t.Fatalf("testkit: fxtwitter fixture %s is missing", fxNotFoundFixture)
	}
}

// rewriteMediaURLs points absolute twimg URLs at the fake's /media/ paths,
// in plain and in JSON-escaped (https:\/\/) form.
func rewriteMediaURLs(b []byte, base string) []byte {
	escapedBase := strings.ReplaceAll(base, "/", `\/`)
	for _, h := range mediaHosts() {
		b = bytes.ReplaceAll(b, []byte("https://"+h), []byte(base+"/media/"+h))
		b = bytes.ReplaceAll(b, []byte(`https:\/\/`+h), []byte(escapedBase+`\/media\/`+h))
	}
	return b
}

// URL is the fake's base URL, for x.Options.BaseURL.
func (f *FxTwitter) URL() string { return f.srv.URL }

// Raw returns a fixture as the fake serves it (media URLs rewritten), by its
// path relative to the fixtures directory, e.g. "status-photos.json" or
// "errors/status-500.json". It fails the test for an unknown name.
func (f *FxTwitter) Raw(name string) []byte {
	f.t.Helper()
	b, ok := f.fixtures[name]
	if !ok {
		f.t.Fatalf("testkit: no fxtwitter fixture %q", name)
	}
	return bytes.Clone(b)
}

// MediaURL rewrites an upstream media URL (https://pbs.twimg.com/...) the
// way the fake rewrites fixtures.
func (f *FxTwitter) MediaURL(upstream string) string {
	return string(rewriteMediaURLs([]byte(upstream), f.srv.URL))
}

// Hits counts the requests for a path ("/2/status/1" or
// "/media/pbs.twimg.com/media/a.jpg"); a full URL counts its path.
func (f *FxTwitter) Hits(p string) int {
	if u, err := url.Parse(p); err == nil && u.Scheme != "" {
		p = u.Path
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[p]
}

// Requests returns every request received so far, in order.
func (f *FxTwitter) Requests() []FxRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]FxRequest(nil), f.requests...)
}

// RateLimitNext makes the next n API requests answer the 429 fixture with
// its headers (Retry-After: 60).
func (f *FxTwitter) RateLimitNext(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rateLimitN = n
}

// SetRetryAfter replaces the Retry-After value of simulated rate limits
// ("" restores the fixture's 60), so tests need not wait a minute; media
// requests failed with 429 send it too.
func (f *FxTwitter) SetRetryAfter(v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retryAfter = v
}

// FailMediaPath makes every request for one media path (as served, e.g.
// "/media/pbs.twimg.com/media/x.jpg") answer status; 0 stops it.
func (f *FxTwitter) FailMediaPath(p string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mediaFail == nil {
		f.mediaFail = map[string]int{}
	}
	if status == 0 {
		delete(f.mediaFail, p)
		return
	}
	f.mediaFail[p] = status
}

// FailNext makes the next n API requests answer status with FxTwitter's
// error body ({"status":null,...,"code":status}).
func (f *FxTwitter) FailNext(n, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failN, f.failStatus = n, status
}

// FailMediaNext makes the next n media requests answer status with an
// empty body.
func (f *FxTwitter) FailMediaNext(n, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mediaFailN, f.mediaStatus = n, status
}

// Delay holds every later request for d before answering (0: no delay). A
// request whose client gives up is dropped.
func (f *FxTwitter) Delay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// DelayMedia holds every later media request for d (0: as Delay says),
// while the API answers as Delay says.
func (f *FxTwitter) DelayMedia(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mediaDelay = d
}

func (f *FxTwitter) addHeld(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held += n
	close(f.heldChanged)
	f.heldChanged = make(chan struct{})
}

// WaitMediaHeld waits until Delay holds at least n media requests at once,
// that is until n downloads are waiting on the media host, or fails the
// test after 30 s.
func (f *FxTwitter) WaitMediaHeld(t testing.TB, n int) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		held, changed := f.held, f.heldChanged
		f.mu.Unlock()
		if held >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("testkit: %d media requests held by the fake FxTwitter, want %d", held, n)
		}
	}
}

// SetOverride serves body with status and contentType for an API path
// (query ignored) instead of its route, e.g. an HTML error page, malformed
// JSON or an oversize body.
func (f *FxTwitter) SetOverride(p string, status int, contentType string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.overrides[p] = fxOverride{status: status, contentType: contentType, body: bytes.Clone(body)}
}

// ClearOverride removes the override of a path.
func (f *FxTwitter) ClearOverride(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.overrides, p)
}

// SetMediaSize sets the size of later generated media bodies (at least the
// format's header).
func (f *FxTwitter) SetMediaSize(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mediaSize = n
}

// MediaBytes returns the body the fake serves for a media URL or path
// ("/media/pbs.twimg.com/media/a.jpg?name=orig") at the current media size,
// so a test can compare what was downloaded.
func (f *FxTwitter) MediaBytes(mediaURL string) []byte {
	f.t.Helper()
	u, err := url.Parse(mediaURL)
	if err != nil {
		f.t.Fatalf("testkit: media URL %q: %v", mediaURL, err)
	}
	f.mu.Lock()
	size := f.mediaSize
	f.mu.Unlock()
	body, _ := f.media(u.Path, u.Query().Get("format"), size)
	return body
}

func (f *FxTwitter) serveHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.hits[r.URL.Path]++
	f.requests = append(f.requests, FxRequest{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, UserAgent: r.UserAgent(),
	})
	delay := f.delay
	media := strings.HasPrefix(r.URL.Path, "/media/")
	if media && f.mediaDelay > 0 {
		delay = f.mediaDelay
	}
	f.mu.Unlock()

	if delay > 0 {
		if media {
			f.addHeld(1)
		}
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-r.Context().Done():
		}
		timer.Stop()
		if media {
			f.addHeld(-1)
		}
		if r.Context().Err() != nil {
			return
		}
	}
	if strings.HasPrefix(r.URL.Path, "/media/") {
		f.serveMedia(w, r)
		return
	}
	f.serveAPI(w, r)
}

func (f *FxTwitter) serveAPI(w http.ResponseWriter, r *http.Request) {
	if r.UserAgent() == "" {
		f.writeRoute(w, f.noUA)
		return
	}
	f.mu.Lock()
	var (
		rateLimited = f.rateLimitN > 0
		failStatus  int
	)
	override, overridden := f.overrides[r.URL.Path]
	retryAfter := f.retryAfter
	switch {
	case rateLimited:
		f.rateLimitN--
	case f.failN > 0:
		f.failN--
		failStatus = f.failStatus
	}
	f.mu.Unlock()

	switch {
	case rateLimited && retryAfter != "":
		h := jsonHeaders(f.rateLimit.Headers)
		h["Retry-After"] = retryAfter
		writeBody(w, f.rateLimit.Status, h, f.fixtures[f.rateLimit.File])
	case rateLimited:
		f.writeRoute(w, f.rateLimit)
	case failStatus != 0:
		body := []byte(`{"status":null,"thread":null,"author":null,"code":` + strconv.Itoa(failStatus) + `}`)
		writeBody(w, failStatus, jsonHeaders(nil), body)
	case overridden:
		writeBody(w, override.status, map[string]string{"Content-Type": override.contentType}, override.body)
	default:
		if f.serveTimeline(w, r) {
			return
		}
		if route, ok := f.match(r); ok {
			f.writeRoute(w, route)
			return
		}
		writeBody(w, http.StatusNotFound, jsonHeaders(nil), f.fixtures[fxNotFoundFixture])
	}
}

// match finds the route of a GET request (see NewFxTwitter for the query
// rule).
func (f *FxTwitter) match(r *http.Request) (fxRoute, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return fxRoute{}, false
	}
	keys := map[string]bool{}
	for _, rt := range f.routes {
		if rt.Path == r.URL.Path {
			for k := range rt.Query {
				keys[k] = true
			}
		}
	}
	q := r.URL.Query()
	for _, rt := range f.routes {
		if rt.Path != r.URL.Path {
			continue
		}
		if rt.Query == nil {
			return rt, true
		}
		ok := true
		for k := range keys {
			want, named := rt.Query[k]
			if named != q.Has(k) || (named && q.Get(k) != want) {
				ok = false
				break
			}
		}
		if ok {
			return rt, true
		}
	}
	return fxRoute{}, false
}

func (f *FxTwitter) writeRoute(w http.ResponseWriter, rt fxRoute) {
	writeBody(w, rt.Status, jsonHeaders(rt.Headers), f.fixtures[rt.File])
}

// jsonHeaders are the fixture note's headers (JSON, CORS *) with a route's
// own on top.
func jsonHeaders(extra map[string]string) map[string]string {
	h := map[string]string{
		"Content-Type":                "application/json",
		"Access-Control-Allow-Origin": "*",
	}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

func writeBody(w http.ResponseWriter, status int, headers map[string]string, body []byte) {
	for k, v := range headers {
		if v != "" {
			w.Header().Set(k, v)
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// serveMedia answers /media/<host>/<path> with generated bytes (Range and
// HEAD work through http.ServeContent).
func (f *FxTwitter) serveMedia(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	size := f.mediaSize
	failStatus, retryAfter := 0, f.retryAfter
	if f.mediaFailN > 0 {
		f.mediaFailN--
		failStatus = f.mediaStatus
	}
	if st, ok := f.mediaFail[r.URL.Path]; ok {
		failStatus = st
	}
	f.mu.Unlock()
	if failStatus != 0 {
		if failStatus == http.StatusTooManyRequests && retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		writeBody(w, failStatus, nil, nil)
		return
	}
	host, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/media/"), "/")
	if !ok || host == "" || rest == "" {
		http.NotFound(w, r)
		return
	}
	body, contentType := f.media(r.URL.Path, r.URL.Query().Get("format"), size)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "max-age=604800")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// media is the body served for a media path at a size, built once.
func (f *FxTwitter) media(p, format string, size int) ([]byte, string) {
	return f.bodies.get(p, format, size, func() ([]byte, string) { return generateMedia(p, format, size) })
}

// generateMedia makes size deterministic bytes for a media path, with a
// valid header for its type: JPEG (JFIF ... FFD9), PNG (signature, IHDR,
// a private chunk, IEND) or MP4 (ftyp isom, mdat). The type comes from the
// format parameter or extension; video.twimg.com defaults to MP4, other
// hosts to JPEG.
func generateMedia(p, format string, size int) ([]byte, string) {
	if format == "" {
		format = strings.TrimPrefix(strings.ToLower(path.Ext(p)), ".")
	}
	if format == "" && strings.HasPrefix(p, "/media/video.twimg.com/") {
		format = "mp4"
	}
	switch format {
	case "png":
		return generatePNG(p, size), "image/png"
	case "mp4":
		return generateMP4(p, size), "video/mp4"
	}
	return generateJPEG(p, size), "image/jpeg"
}

// filler returns n bytes derived from seed (SHA-256 in counter mode). It
// writes into one buffer and reuses one input: the media tests serve bodies
// of 51 MB, which the race detector makes slow to build byte by byte.
func filler(seed string, n int) []byte {
	out := make([]byte, n+sha256.Size)
	in := append([]byte(seed), make([]byte, 8)...)
	ctr := in[len(seed):]
	h := sha256.New()
	for i, off := uint64(0), 0; off < n; i, off = i+1, off+sha256.Size {
		binary.BigEndian.PutUint64(ctr, i)
		h.Reset()
		h.Write(in)
		h.Sum(out[off:off])
	}
	return out[:n]
}

func generateJPEG(seed string, size int) []byte {
	head := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00}
	tail := []byte{0xFF, 0xD9}
	fill := filler(seed, max(size-len(head)-len(tail), 0))
	// Keep the filler free of markers: 0xFF becomes 0xFE.
	for rest := fill; ; {
		i := bytes.IndexByte(rest, 0xFF)
		if i < 0 {
			break
		}
		rest[i] = 0xFE
		rest = rest[i+1:]
	}
	return append(append(head, fill...), tail...)
}

func generatePNG(seed string, size int) []byte {
	chunk := func(typ string, data []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		b = append(b, typ...)
		b = append(b, data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, 1) // width
	ihdr = binary.BigEndian.AppendUint32(ihdr, 1) // height
	ihdr = append(ihdr, 8, 2, 0, 0, 0)            // 8-bit RGB, no interlace
	b := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
	const overhead = 8 + 25 + 12 + 12 // signature, IHDR, filler chunk, IEND
	b = append(b, chunk("fiLl", filler(seed, max(size-overhead, 0)))...)
	return append(b, chunk("IEND", nil)...)
}

func generateMP4(seed string, size int) []byte {
	b := binary.BigEndian.AppendUint32(nil, 32)
	b = append(b, "ftypisom"...)
	b = binary.BigEndian.AppendUint32(b, 0x200)
	b = append(b, "isomiso2avc1mp41"...)
	n := max(size-len(b)-8, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(n+8))
	b = append(b, "mdat"...)
	return append(b, filler(seed, n)...)
}
