package runtime_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"testing"

	"github.com/stretchr/testify/require"
)

// activeFiles are what a hostile media host may claim a post's photos are:
// documents that run scripts when a browser opens them from our origin.
func activeFiles() map[string]struct{ contentType, body string } {
	return map[string]struct{ contentType, body string }{
		"/m/drawing.svg": {"image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>`},
		"/m/page.html":   {"text/html; charset=utf-8", `<!doctype html><script>alert(document.cookie)</script>`},
		"/m/page.xhtml":  {"application/xhtml+xml", `<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>`},
	}
}

// activePost serves a post whose photos are the active files, from a media
// host of its own, and returns the post's link.
func activePost(t *testing.T, rc *restCore) string {
	t.Helper()
	files := activeFiles()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f.contentType)
		_, _ = w.Write([]byte(f.body))
	}))
	t.Cleanup(host.Close)

	var doc map[string]any
	require.NoError(t, json.Unmarshal(rc.fx.Raw("status-photos.json"), &doc))
	const id = "3000000000000000001"
	st := doc["status"].(map[string]any)
	st["id"], st["url"] = id, "https://x.com/archivist_demo/status/"+id
	var photos []any
	for _, p := range []string{"/m/drawing.svg", "/m/page.html", "/m/page.xhtml"} {
		photos = append(photos, map[string]any{"type": "photo", "id": id + path.Ext(p), "url": host.URL + p, "width": 100, "height": 100})
	}
	st["media"] = map[string]any{"all": photos, "photos": photos}
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	rc.fx.SetOverride("/2/status/"+id, http.StatusOK, "application/json", body)
	return "https://x.com/archivist_demo/status/" + id
}

// requireGuarded checks the headers every media answer carries.
func requireGuarded(t *testing.T, a answer, what string) {
	t.Helper()
	require.Equal(t, "nosniff", a.header.Get("X-Content-Type-Options"), what)
	require.Equal(t, "sandbox; default-src 'none'", a.header.Get("Content-Security-Policy"), what)
}

func TestRESTServesActiveMediaAsDownloads(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	token := rc.tenant(t, "alice", nil)
	sub, c := rc.capture(t, token, activePost(t, rc))
	require.Equal(t, "complete", c["state"], c["error"])
	coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil).json(t)
	media := coll["media"].([]any)
	require.Len(t, media, 3)

	exts := map[string]string{"image/svg+xml": "svg", "text/html; charset=utf-8": "html", "application/xhtml+xml": "xhtml"}
	for _, m := range media {
		mm := m.(map[string]any)
		mime, url, sum := mm["mime"].(string), mm["url"].(string), mm["sha256"].(string)
		ext, ok := exts[mime]
		require.True(t, ok, "the upstream type is kept in the record: %q", mime)

		got := rc.do(t, token, "GET", url, nil)
		require.Equal(t, http.StatusOK, got.status, mime)
		require.Equal(t, "application/octet-stream", got.header.Get("Content-Type"), "%s is never served as itself", mime)
		require.Equal(t, `attachment; filename=`+sum+`.`+ext, got.header.Get("Content-Disposition"), mime)
		requireGuarded(t, got, mime)
		require.Equal(t, sum, sha(got.body), "the bytes are unchanged")

		head := rc.do(t, token, "HEAD", url, nil)
		require.Equal(t, http.StatusOK, head.status)
		require.Equal(t, "application/octet-stream", head.header.Get("Content-Type"))
		require.Contains(t, head.header.Get("Content-Disposition"), "attachment")
		requireGuarded(t, head, "HEAD "+mime)

		part := rc.do(t, token, "GET", url, nil, "Range", "bytes=0-9")
		require.Equal(t, http.StatusPartialContent, part.status)
		require.Equal(t, "application/octet-stream", part.header.Get("Content-Type"))
		require.Contains(t, part.header.Get("Content-Disposition"), "attachment")
		requireGuarded(t, part, "206 "+mime)

		cached := rc.do(t, token, "GET", url, nil, "If-None-Match", got.header.Get("ETag"))
		require.Equal(t, http.StatusNotModified, cached.status)
		requireGuarded(t, cached, "304 "+mime)
	}
}

func TestRESTServesPhotosAndVideosInline(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	token := rc.tenant(t, "alice", nil)
	for post, want := range map[string]string{
		"https://x.com/archivist_demo/status/2078399740166950912": "image/jpeg",
		"https://x.com/archivist_demo/status/2079251421658238976": "video/mp4",
	} {
		sub, c := rc.capture(t, token, post)
		require.Equal(t, "complete", c["state"], c["error"])
		coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil).json(t)
		url := coll["media"].([]any)[0].(map[string]any)["url"].(string)

		got := rc.do(t, token, "GET", url, nil)
		require.Equal(t, http.StatusOK, got.status)
		require.Equal(t, want, got.header.Get("Content-Type"))
		require.Empty(t, got.header.Get("Content-Disposition"), "%s is shown inline", want)
		requireGuarded(t, got, want)
		part := rc.do(t, token, "GET", url, nil, "Range", "bytes=0-9")
		require.Equal(t, http.StatusPartialContent, part.status)
		require.Equal(t, want, part.header.Get("Content-Type"))
		requireGuarded(t, part, "206 "+want)
		head := rc.do(t, token, "HEAD", url, nil)
		require.Equal(t, want, head.header.Get("Content-Type"))
		requireGuarded(t, head, "HEAD "+want)
		cached := rc.do(t, token, "GET", url, nil, "If-None-Match", got.header.Get("ETag"))
		require.Equal(t, http.StatusNotModified, cached.status)
		requireGuarded(t, cached, "304 "+want)
	}
}
