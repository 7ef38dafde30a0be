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

// get fetches url from the fake, with a User-Agent unless ua is "-".
func get(t *testing.T, url, ua string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	require.NoError(t, err)
	if ua == "-" {
		req.Header.Set("User-Agent", "") // Go's client then sends none
	} else {
		req.Header.Set("User-Agent", ua)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

func TestFxTwitterRoutes(t *testing.T) {
	t.Parallel()
	f := testkit.NewFxTwitter(t)

	tests := []struct {
		path    string
		status  int
		fixture string
	}{
		{"/2/status/2078399740166950912", 200, "status-photos.json"},
		{"/2/status/2079251421658238976", 200, "status-video.json"},
		{"/2/status/2079906847374594048?lang=en", 200, "status-quote.json"},
		{"/2/status/2080424850067443712", 200, "status-sensitive-gif.json"},
		{"/2/profile/archivist_demo", 200, "profile.json"},
		{"/2/profile/archivist_demo/statuses", 200, "timeline-page1.json"},
		{"/2/profile/archivist_demo/statuses?count=100", 200, "timeline-page1.json"},
		{"/2/profile/archivist_demo/statuses?count=100&cursor=DAABCgABHUwq4mP__-wKAAIcnXNRYhbgcAgAAwAAAAIAAA", 200, "timeline-page2-end.json"},
		{"/2/profile/archivist_demo/statuses?cursor=unknown", 404, "errors/route-404.json"},
		{"/2/status/1000000000000000001", 404, "errors/status-404-notfound.json"},
		{"/2/status/2071896524193419264", 404, "errors/status-404-tombstone-deleted.json"},
		{"/2/status/1000000000000000002", 401, "errors/status-401-private.json"},
		{"/2/status/1000000000000000003", 500, "errors/status-500.json"},
		{"/2/status/not-a-number", 400, "errors/status-400-bad-id.json"},
		{"/2/profile/suspended_demo", 404, "errors/profile-404-suspended.json"},
		{"/2/profile/no_such_user_demo/statuses", 404, "errors/timeline-404.json"},
		{"/nope/nope/nope", 404, "errors/route-404.json"},
		{"/2/status/42", 404, "errors/route-404.json"},
	}
	for _, tt := range tests {
		resp, body := get(t, f.URL()+tt.path, "test/1")
		require.Equal(t, tt.status, resp.StatusCode, tt.path)
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"), tt.path)
		require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"), tt.path)
		require.Equal(t, string(f.Raw(tt.fixture)), string(body), tt.path)
	}

	resp, body := get(t, f.URL()+"/2/status/2078399740166950912", "-")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, f.Raw("errors/missing-user-agent-401.json"), body)
	reqs := f.Requests()
	require.Equal(t, "", reqs[len(reqs)-1].UserAgent)
	require.Equal(t, 2, f.Hits("/2/status/2078399740166950912"))
}

func TestFxTwitterRewritesMediaURLs(t *testing.T) {
	t.Parallel()
	f := testkit.NewFxTwitter(t)
	raw := string(f.Raw("status-photos.json"))
	require.NotContains(t, raw, "https://pbs.twimg.com")
	require.Contains(t, raw, `"url":"`+f.URL()+`/media/pbs.twimg.com/media/GwQx7fHa0AAbC1d.jpg?name=orig"`)
	require.NotContains(t, string(f.Raw("status-video.json")), "https://video.twimg.com")
	// Everything else is byte for byte the recorded fixture.
	require.Contains(t, raw, `"mosaic":{"type":"mosaic_photo","formats":{"jpeg":"https://mosaic.fxtwitter.com/jpeg/`)
	require.Equal(t, f.URL()+"/media/video.twimg.com/tweet_video/a.mp4",
		f.MediaURL("https://video.twimg.com/tweet_video/a.mp4"))
}

func TestFxTwitterMedia(t *testing.T) {
	t.Parallel()
	f := testkit.NewFxTwitter(t)
	tests := []struct {
		path, mime string
		prefix     []byte
		at         int
	}{
		{"/media/pbs.twimg.com/media/GwQx7fHa0AAbC1d.jpg?name=orig", "image/jpeg", []byte("\xFF\xD8\xFF\xE0\x00\x10JFIF"), 0},
		{"/media/pbs.twimg.com/media/GwZk2LmNbAAqR4t.png?name=orig", "image/png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), 0},
		{"/media/video.twimg.com/tweet_video/GwdR5tYbQAAx3Kp.mp4", "video/mp4", []byte("ftypisom"), 4},
		{"/media/pbs.twimg.com/profile_banners/1455903129074348039/1739185512", "image/jpeg", []byte("\xFF\xD8\xFF"), 0},
	}
	for _, tt := range tests {
		resp, body := get(t, f.URL()+tt.path, "test/1")
		require.Equal(t, http.StatusOK, resp.StatusCode, tt.path)
		require.Equal(t, tt.mime, resp.Header.Get("Content-Type"), tt.path)
		require.Equal(t, tt.mime, http.DetectContentType(body), tt.path)
		require.Len(t, body, testkit.DefaultMediaSize, tt.path)
		require.Equal(t, "65536", resp.Header.Get("Content-Length"), tt.path)
		require.Equal(t, tt.prefix, body[tt.at:tt.at+len(tt.prefix)], tt.path)
		require.Equal(t, f.MediaBytes(tt.path), body, tt.path)
		if tt.mime == "image/jpeg" {
			require.Equal(t, []byte{0xFF, 0xD9}, body[len(body)-2:], tt.path)
		}
		_, again := get(t, f.URL()+tt.path, "test/1")
		require.Equal(t, body, again, "deterministic")
		require.Equal(t, 2, f.Hits(f.URL()+tt.path), tt.path)
	}
	f.SetMediaSize(1000)
	_, body := get(t, f.URL()+"/media/pbs.twimg.com/media/x.png", "test/1")
	require.Len(t, body, 1000)

	f.FailMediaNext(1, http.StatusBadGateway)
	resp, _ := get(t, f.URL()+"/media/pbs.twimg.com/media/x.png", "test/1")
	require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	resp, _ = get(t, f.URL()+"/media/pbs.twimg.com/media/x.png", "test/1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestFxTwitterFaults(t *testing.T) {
	t.Parallel()
	f := testkit.NewFxTwitter(t)
	photos := f.URL() + "/2/status/2078399740166950912"

	f.RateLimitNext(2)
	for range 2 {
		resp, body := get(t, photos, "test/1")
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		require.Equal(t, "60", resp.Header.Get("Retry-After"))
		require.Equal(t, "text/plain; charset=UTF-8", resp.Header.Get("Content-Type"))
		require.Equal(t, "error code: 1015", string(body))
	}
	resp, _ := get(t, photos, "test/1")
	require.Equal(t, http.StatusOK, resp.StatusCode)

	f.FailNext(1, http.StatusServiceUnavailable)
	resp, body := get(t, photos, "test/1")
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.JSONEq(t, `{"status":null,"thread":null,"author":null,"code":503}`, string(body))

	f.SetOverride("/2/status/2078399740166950912", http.StatusOK, "text/html", []byte("<html>oops</html>"))
	resp, body = get(t, photos+"?x=1", "test/1")
	require.Equal(t, "text/html", resp.Header.Get("Content-Type"))
	require.Equal(t, "<html>oops</html>", string(body))
	f.ClearOverride("/2/status/2078399740166950912")
	_, body = get(t, photos, "test/1")
	require.Equal(t, f.Raw("status-photos.json"), body)

	f.Delay(time.Second)
	client := &http.Client{Timeout: 50 * time.Millisecond}
	req, err := http.NewRequest(http.MethodGet, photos, nil)
	require.NoError(t, err)
	req.Header.Set("User-Agent", "test/1")
	_, err = client.Do(req)
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "Timeout") || strings.Contains(err.Error(), "deadline"), err.Error())
	f.Delay(0)
	resp, _ = get(t, photos, "test/1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestFixturesDirFromEnv(t *testing.T) {
	dir := testkit.FixturesDir(t, "fxtwitter")
	t.Setenv(testkit.FixturesEnv, dir)
	require.Equal(t, dir, testkit.FixturesDir(t, "fxtwitter"))
}
