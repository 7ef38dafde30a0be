package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The item page in a real browser (Debian's chromium, headless): a video
// plays from /v1/media with Range under the session cookie, an album
// shows in order, a sensitive image stays blurred until its label is
// clicked. With MONITOR_SCREENSHOTS set, screenshots of the item page
// (light, dark, 390 px, Chinese) are written there.

const chromiumPath = "/usr/bin/chromium"

// itemBrowser starts a headless chromium for the test, or skips it when
// chromium is missing (fails under CI=true).
func itemBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is required in CI: %v", err)
		}
		t.Skipf("no chromium at %s", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath), chromedp.NoSandbox,
		chromedp.Headless, chromedp.WindowSize(1100, 900), chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(cancelCtx)
	require.NoError(t, chromedp.Do(ctx)) // start the browser on a context without a deadline
	return ctx
}

// upstream serves what the fake FxTwitter's posts point at: real JPEGs
// (one colour each, so an album's order shows) and a real H.264 MP4.
func upstream(t *testing.T) *httptest.Server {
	t.Helper()
	video, err := os.ReadFile(filepath.Join("testdata", "tiny.mp4"))
	require.NoError(t, err)
	colours := map[string]color.RGBA{
		"one": {0xd9, 0x4f, 0x3d, 0xff}, "two": {0x3d, 0x9a, 0x5b, 0xff}, "three": {0x3d, 0x6f, 0xd9, 0xff},
		"poster": {0x44, 0x44, 0x44, 0xff}, "gull": {0xe0, 0xc0, 0x60, 0xff},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".jpg")
		if name == "tiny.mp4" {
			w.Header().Set("Content-Type", "video/mp4")
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(video))
			return
		}
		c, ok := colours[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		img := image.NewRGBA(image.Rect(0, 0, 480, 320))
		for y := 0; y < 320; y++ {
			for x := 0; x < 480; x++ {
				img.Set(x, y, c)
				if (x/40+y/40)%2 == 0 { // a pattern, so a blur is visible
					img.Set(x, y, color.RGBA{c.R / 2, c.G / 2, c.B / 2, 0xff})
				}
			}
		}
		var b bytes.Buffer
		require.NoError(t, jpeg.Encode(&b, img, nil))
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(b.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// servePost makes the fake FxTwitter answer for a post id with the photos
// fixture's shape, this text and these media.
func servePost(t *testing.T, c *testcore.Core, id, text string, sensitive bool, media ...map[string]any) string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(c.FX.Raw("status-photos.json"), &doc))
	st := doc["status"].(map[string]any)
	st["id"], st["url"], st["text"] = id, "https://x.com/archivist_demo/status/"+id, text
	st["raw_text"] = map[string]any{"text": text, "facets": []any{}}
	st["possibly_sensitive"] = sensitive
	var photos, videos []any
	all := make([]any, 0, len(media))
	for _, m := range media {
		all = append(all, m)
		if m["type"] == "photo" {
			photos = append(photos, m)
		} else {
			videos = append(videos, m)
		}
	}
	st["media"] = map[string]any{"all": all, "photos": photos, "videos": videos}
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	c.FX.SetOverride("/2/status/"+id, http.StatusOK, "application/json", body)
	return "https://x.com/archivist_demo/status/" + id
}

func photo(up *httptest.Server, name, alt string) map[string]any {
	return map[string]any{"type": "photo", "id": "1" + fmt.Sprint(len(name)), "url": up.URL + "/" + name + ".jpg", "width": 480, "height": 320, "altText": alt}
}

func TestItemPageInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := itemBrowser(t)
	c := testcore.New(t, testcore.Options{})
	s := newItemSite(t, c, "alice")
	up := upstream(t)

	albumURL := servePost(t, c, "3000000000000000001", "Three frames of the tide coming in: low, rising, high. 潮水三张。", false,
		photo(up, "one", "Low tide"), photo(up, "two", "Rising"), photo(up, "three", "High tide"))
	videoURL := servePost(t, c, "3000000000000000002", "Two seconds of test pattern.", false, map[string]any{
		"type": "video", "id": "3000000000000000099", "url": up.URL + "/tiny.mp4", "width": 320, "height": 180, "duration": 2.0,
		"thumbnail_url": up.URL + "/poster.jpg", "format": "video/mp4",
		"variants": []any{map[string]any{"content_type": "video/mp4", "bitrate": 200000, "url": up.URL + "/tiny.mp4"}},
	})
	sensitiveURL := servePost(t, c, "3000000000000000003", "A gull, marked sensitive.", true, photo(up, "gull", "A gull"))
	album, video, sensitive := s.save(t, albumURL), s.save(t, videoURL), s.save(t, sensitiveURL)

	run := func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		require.NoError(t, chromedp.Do(tctx, actions...))
	}
	eval := func(js string, out any) {
		t.Helper()
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		raw, err := chromedp.Run(tctx, chromedp.Evaluate[[]byte](js))
		require.NoError(t, err, js)
		require.NoError(t, json.Unmarshal(raw, out), string(raw))
	}
	// Sign in as a person does: open a login link (it sets the cookie).
	run(chromedp.Navigate(s.loginLink(t)))
	var here string
	eval(`location.pathname`, &here)
	require.Equal(t, "/", here, "the login link signs in and goes to the library")

	// The video: its metadata loads from /v1/media (a Range request).
	run(chromedp.Navigate(s.srv.URL+"/c/"+video.String()), chromedp.WaitVisible(chromedp.CSS("video")))
	var src string
	eval(`document.querySelector("video").getAttribute("src")`, &src)
	require.True(t, strings.HasPrefix(src, "/v1/media/"), src)
	var state int
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	_, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.querySelector("video").readyState >= 1`, chromedp.WithPollingInterval(50*time.Millisecond)))
	cancel()
	require.NoError(t, err, "the video's metadata loads")
	eval(`document.querySelector("video").readyState`, &state)
	require.GreaterOrEqual(t, state, 1)
	var duration float64
	eval(`document.querySelector("video").duration`, &duration)
	require.InDelta(t, 2.0, duration, 0.3, "the browser read the real file's duration")
	require.Equal(t, "metadata", attr(t, eval, "video", "preload"))
	require.True(t, strings.HasPrefix(attr(t, eval, "video", "poster"), "/v1/media/"), "the archived thumbnail is the poster")
	shoot(t, ctx, run, "item-video")

	// The album: three images, in the stored order, each loaded.
	run(chromedp.Navigate(s.srv.URL+"/c/"+album.String()), chromedp.WaitVisible(chromedp.CSS(".gallery.album")))
	v, err := c.App.Collection(context.Background(), s.tenant, album)
	require.NoError(t, err)
	require.Len(t, v.Media, 3)
	var imgs []struct {
		Src    string `json:"src"`
		Alt    string `json:"alt"`
		Loaded bool   `json:"loaded"`
	}
	tctx, cancel = context.WithTimeout(ctx, 20*time.Second)
	_, err = chromedp.Run(tctx, chromedp.Poll[bool](`[...document.querySelectorAll(".gallery.album img")].every(i => i.complete && i.naturalWidth > 0)`))
	cancel()
	require.NoError(t, err, "every album image loads")
	eval(`[...document.querySelectorAll(".gallery.album img")].map(i => ({src: i.getAttribute("src"), alt: i.alt, loaded: i.naturalWidth > 0}))`, &imgs)
	require.Len(t, imgs, 3)
	for i, m := range v.Media {
		require.Equal(t, "/v1/media/"+m.SHA256, imgs[i].Src, "album position %d", i)
		require.True(t, imgs[i].Loaded)
	}
	require.Equal(t, []string{"Low tide", "Rising", "High tide"}, []string{imgs[0].Alt, imgs[1].Alt, imgs[2].Alt}, "the order the post shows them")
	shoot(t, ctx, run, "item-light")
	run(media("dark"))
	shoot(t, ctx, run, "item-dark")
	run(media(""), chromedp.EmulateViewport(390, 844))
	shoot(t, ctx, run, "item-390")
	var overflow bool
	eval(`document.documentElement.scrollWidth > window.innerWidth`, &overflow)
	require.False(t, overflow, "nothing wider than a 390 px screen")
	run(chromedp.EmulateViewport(1100, 900))

	// The sensitive image: blurred until its label is clicked, no script.
	run(chromedp.Navigate(s.srv.URL+"/c/"+sensitive.String()), chromedp.WaitVisible(chromedp.CSS(".sensitive label.veil")))
	var filter string
	eval(`getComputedStyle(document.querySelector(".sensitive img")).filter`, &filter)
	require.Contains(t, filter, "blur", "blurred before the click")
	var caption string
	eval(`getComputedStyle(document.querySelector(".sensitive figcaption")).visibility`, &caption)
	require.Equal(t, "hidden", caption, "its caption is hidden with it")
	shoot(t, ctx, run, "item-sensitive")

	// By keyboard: Tab reaches the reveal control, its label shows the
	// focus, and Space shows the image.
	focused := false
	for range 40 {
		run(chromedp.KeyEvent("\t"))
		eval(`document.activeElement.classList.contains("reveal")`, &focused)
		if focused {
			break
		}
	}
	require.True(t, focused, "Tab reaches the reveal control")
	var outline string
	eval(`getComputedStyle(document.querySelector(".sensitive .veil")).outlineStyle`, &outline)
	require.Equal(t, "solid", outline, "the focused control is visible")
	run(chromedp.KeyEvent(" "))
	eval(`getComputedStyle(document.querySelector(".sensitive img")).filter`, &filter)
	require.Equal(t, "none", filter, "Space shows it")

	// By mouse, after a reload: a click on the label.
	run(chromedp.Navigate(s.srv.URL+"/c/"+sensitive.String()), chromedp.WaitVisible(chromedp.CSS(".sensitive label.veil")))
	eval(`getComputedStyle(document.querySelector(".sensitive img")).filter`, &filter)
	require.Contains(t, filter, "blur")
	run(chromedp.Click(chromedp.CSS(".sensitive label.veil")))
	eval(`getComputedStyle(document.querySelector(".sensitive img")).filter`, &filter)
	require.Equal(t, "none", filter, "shown after the click")
	eval(`getComputedStyle(document.querySelector(".sensitive figcaption")).visibility`, &caption)
	require.Equal(t, "visible", caption)
	var scripts int
	eval(`document.scripts.length`, &scripts)
	require.Zero(t, scripts, "the item page needs no script")

	// In Chinese.
	run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": "zh-CN"}})
		return err
	}), chromedp.Navigate(s.srv.URL+"/c/"+album.String()), chromedp.WaitVisible(chromedp.CSS(".revisions")))
	var heading string
	eval(`document.querySelector(".revisions h2").textContent`, &heading)
	require.Equal(t, "版本", heading)
	shoot(t, ctx, run, "item-zh")

	// The post is edited upstream and refreshed: the diff page marks the
	// changed words, and a changed Chinese character alone.
	servePost(t, c, "3000000000000000001", "Three frames of the tide going out: high, falling, low. 退水三张。", false,
		photo(up, "one", "Low tide"), photo(up, "two", "Rising"), photo(up, "three", "High tide"))
	res, err := c.App.Refresh(context.Background(), s.tenant, album, "")
	require.NoError(t, err)
	require.Equal(t, "complete", c.WaitCapture(t, s.tenant, res.CaptureID).State)
	run(chromedp.Navigate(s.srv.URL+"/c/"+album.String()), chromedp.WaitVisible(chromedp.CSS("form.diff-form")))
	run(chromedp.Click(chromedp.CSS("form.diff-form button")), chromedp.WaitVisible(chromedp.CSS(".diff")))
	var dels, inss []string
	eval(`[...document.querySelectorAll(".diff del")].map(e => e.textContent)`, &dels)
	eval(`[...document.querySelectorAll(".diff ins")].map(e => e.textContent)`, &inss)
	require.Equal(t, []string{"coming in: low, rising, high. 潮"}, dels)
	require.Equal(t, []string{"going out: high, falling, low. 退"}, inss)
	var kept string
	eval(`document.querySelector(".diff").textContent`, &kept)
	require.Contains(t, kept, "水三张。", "the Chinese characters that stayed are not marked")
	shoot(t, ctx, run, "item-diff-zh")
}

func attr(t *testing.T, eval func(string, any), sel, name string) string {
	t.Helper()
	var v string
	eval(fmt.Sprintf(`document.querySelector(%q).getAttribute(%q)`, sel, name), &v)
	return v
}

// media emulates a colour scheme ("" : the default).
func media(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		p := emulation.SetEmulatedMediaParams{}
		if scheme != "" {
			p.Features = []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}
		}
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, p)
		return err
	})
}

// shoot writes a full-page screenshot to MONITOR_SCREENSHOTS/name.png.
func shoot(t *testing.T, ctx context.Context, _ func(...chromedp.Action[chromedp.Void]), name string) {
	t.Helper()
	dir := os.Getenv("MONITOR_SCREENSHOTS")
	if dir == "" {
		return
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}
