package testkit_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// tmeGet fetches url from the fake t.me without following redirects.
func tmeGet(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("User-Agent", "testkit-test")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

func TestTmeRoutes(t *testing.T) {
	t.Parallel()
	f := testkit.NewTme(t)
	tests := []struct {
		path    string
		status  int
		fixture string
	}{
		{"/tidewatch_demo/120?embed=1&mode=tme", 200, "embed-photo.html"},
		{"/TideWatch_Demo/120?embed=1", 200, "embed-photo.html"},
		{"/tidewatch_demo/101?embed=1&mode=tme", 200, "embed-album.html"},
		{"/tidewatch_demo/102?embed=1&mode=tme", 200, "embed-album-102.html"},
		{"/tidewatch_demo/999?embed=1&mode=tme", 200, testkit.TmeNotFoundFixture},
		{"/nobody_here/1?embed=1", 200, testkit.TmeNotFoundFixture},
		{"/s/tidewatch_demo", 200, "s-tidewatch_demo.html"},
		{"/s/tidewatch_demo?before=112", 200, "s-tidewatch_demo.html"},
		{"/s/quiet_harbour", 200, "s-no-posts.html"},
		{"/tidewatch_demo", 200, "page-tgme.html"},
		{"/tidewatch_demo/120", 200, "page-tgme.html"},
	}
	for _, tt := range tests {
		resp, body := tmeGet(t, f.URL()+tt.path)
		require.Equal(t, tt.status, resp.StatusCode, tt.path)
		require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"), tt.path)
		require.Equal(t, f.Raw(tt.fixture), body, tt.path)
	}

	// Channels without a t.me/s page go to their contact page, as on t.me.
	resp, _ := tmeGet(t, f.URL()+"/s/nobody_here")
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.Equal(t, "/nobody_here", resp.Header.Get("Location"))

	resp, _ = tmeGet(t, f.URL()+"/a/b/c")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, 2, f.Hits("/tidewatch_demo/120"))
	require.Equal(t, "testkit-test", f.Requests()[0].UserAgent)
}

func TestTmeMedia(t *testing.T) {
	t.Parallel()
	f := testkit.NewTme(t)
	page := string(f.Raw("embed-video.html"))
	require.NotContains(t, page, "https://cdn4.cdn-telegram.org/", "CDN addresses point at the fake")
	video := f.MediaURL("https://cdn4.cdn-telegram.org/file/8f1c2ad94be7305a61d2c8e0f9b3a4d7.mp4?token=Xq3H0dKmT9vYpL2sR8wZ1cB5nF7gJ4uE6aQiOeWtUrIyMkNbVcXzAs1Df0Gh9Lj8Pk7Oi6Uy5Tr4Ee3Ww2Qq1Aa0Zz")
	require.Contains(t, page, video)
	require.True(t, strings.HasPrefix(video, f.URL()+"/media/cdn4.cdn-telegram.org/file/"))

	resp, body := tmeGet(t, video)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "video/mp4", http.DetectContentType(body))
	require.Equal(t, f.MediaBytes(video), body)
	require.Len(t, body, testkit.DefaultMediaSize)

	// Signed media need their token, like the CDN's expiring links.
	resp, _ = tmeGet(t, strings.Split(video, "?")[0])
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	for u, want := range map[string]string{
		"https://cdn4.telesco.pe/file/a.jpg":               "image/jpeg",
		"https://cdn5.cdn-telegram.org/file/v.ogg?token=x": "application/ogg",
		"https://cdn1.telegram-cdn.org/file/s.webp":        "image/webp",
	} {
		resp, body := tmeGet(t, f.MediaURL(u))
		require.Equal(t, http.StatusOK, resp.StatusCode, u)
		require.Equal(t, want, http.DetectContentType(body), u)
	}

	f.SetMediaSize(1000)
	_, body = tmeGet(t, video)
	require.Len(t, body, 1000)
	f.FailMediaPath(strings.TrimPrefix(strings.Split(video, "?")[0], f.URL()), 404)
	resp, _ = tmeGet(t, video)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestTmeFaults(t *testing.T) {
	t.Parallel()
	f := testkit.NewTme(t)
	post := f.URL() + "/tidewatch_demo/120?embed=1"

	f.RateLimitNext(1)
	resp, _ := tmeGet(t, post)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Equal(t, "60", resp.Header.Get("Retry-After"))
	f.SetRetryAfter("2")
	f.RateLimitNext(1)
	resp, _ = tmeGet(t, post)
	require.Equal(t, "2", resp.Header.Get("Retry-After"))

	f.FailNext(2, 502)
	for range 2 {
		resp, _ = tmeGet(t, post)
		require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	}
	resp, _ = tmeGet(t, post)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	f.SetOverride("/tidewatch_demo/120", 200, "text/html", []byte(`<img src="https://cdn4.telesco.pe/file/x.jpg">`))
	_, body := tmeGet(t, post)
	require.Equal(t, `<img src="`+f.URL()+`/media/cdn4.telesco.pe/file/x.jpg">`, string(body), "overrides are rewritten too")
	f.ClearOverride("/tidewatch_demo/120")
	_, body = tmeGet(t, post)
	require.Equal(t, f.Raw("embed-photo.html"), body)

	f.Delay(50 * time.Millisecond)
	start := time.Now()
	tmeGet(t, post)
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
}
