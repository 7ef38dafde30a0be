package kit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := map[string]uint32{
		"":                              60,
		"60":                            60,
		" 5 ":                           5,
		"0":                             1,
		"-3":                            1,
		"99999999999":                   86400,
		"soon":                          60,
		"Wed, 01 Jul 2026 12:02:00 GMT": 120,
		"Wed, 01 Jul 2026 11:00:00 GMT": 1,
	}
	for in, want := range tests {
		require.Equal(t, want, kit.RetryAfter(in, now), "%q", in)
	}
}

func upstream(base string, maxBytes int64) *kit.Upstream {
	return &kit.Upstream{Name: "Demo", BaseURL: base, Client: &http.Client{Timeout: 5 * time.Second},
		UserAgent: "kit-test/1", MaxBytes: maxBytes, Body: "Demo's answer", Header: http.Header{"Accept": {"text/plain"}}}
}

// TestReadLimitWithoutContentLength covers a chunked answer, where only
// the bounded read can notice the size.
func TestReadLimitWithoutContentLength(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for range 4 {
			_, _ = w.Write([]byte(strings.Repeat(" ", 512)))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	_, e := upstream(srv.URL, 2047).Get(context.Background(), "/2/status/1")
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE, e.GetCode())
	require.Equal(t, "Demo's answer is larger than the 2047 bytes limit; it was not kept", e.GetMessage())
	resp, e := upstream(srv.URL, 2048).Get(context.Background(), "/2/status/1")
	require.Nil(t, e)
	require.Len(t, resp.Body, 2048)
}

func TestGetSendsHeadersAndKeepsTheSource(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(r.UserAgent() + "|" + r.Header.Get("Accept") + "|" + r.URL.RequestURI()))
	}))
	t.Cleanup(srv.Close)
	resp, e := upstream(srv.URL, 1<<10).Get(context.Background(), "/a?b=1")
	require.Nil(t, e)
	src := resp.Source()
	require.Equal(t, "kit-test/1|text/plain|/a?b=1", string(src.GetBody()))
	require.Equal(t, srv.URL+"/a?b=1", src.GetRequestUrl())
	require.Equal(t, "text/plain", src.GetContentType())
	require.EqualValues(t, 200, src.GetStatusCode())
	require.Equal(t, adapterv1.Visibility_VISIBILITY_PUBLIC, src.GetVisibility())
}

func TestStatusError(t *testing.T) {
	t.Parallel()
	u := upstream("http://127.0.0.1:1", 1)
	u.Unreadable = "could not read this post: "
	tests := []struct {
		status    int
		code      adapterv1.ErrorCode
		retryable bool
		message   string
	}{
		{200, adapterv1.ErrorCode_ERROR_CODE_UNSPECIFIED, false, ""},
		{429, adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, true, "Demo asked us to slow down; the capture will be retried"},
		{503, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, true, "Demo failed (HTTP 503); try again later"},
		{403, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, true, "Demo failed (HTTP 403); try again later"},
		{418, adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, false, "could not read this post: Demo answered with unexpected HTTP status 418"},
	}
	for _, tt := range tests {
		e := u.StatusError(tt.status, http.Header{"Retry-After": {"7"}})
		require.Equal(t, tt.code, e.GetCode(), tt.status)
		require.Equal(t, tt.retryable, e.GetRetryable(), tt.status)
		require.Equal(t, tt.message, e.GetMessage(), tt.status)
	}
	require.EqualValues(t, 7, u.StatusError(429, http.Header{"Retry-After": {"7"}}).GetRetryAfterSeconds())
}

func TestSameHostRedirects(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("elsewhere")) }))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			http.Redirect(w, r, "/away", http.StatusFound)
		}
	}))
	t.Cleanup(srv.Close)
	u := upstream(srv.URL, 1<<10)
	u.Client.CheckRedirect = kit.SameHostRedirects(3)
	u.Unreadable = "could not read this post: "
	_, e := u.Get(context.Background(), "/start")
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, e.GetCode())
	require.Equal(t, "could not read this post: Demo redirected to another site", e.GetMessage())
	resp, e := u.Get(context.Background(), "/loop")
	require.Nil(t, e)
	require.Equal(t, http.StatusFound, resp.StatusCode, "the last redirect is answered, not followed")
}

func TestSummary(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Ann：a b c ⟦video⟧⟦image⟧", kit.Summary("Ann", "a\n\nb \r\n c\n", kit.MarkerVideo+kit.MarkerImage))
	require.Equal(t, "Ann：⟦file⟧", kit.Summary("Ann", " \n ", kit.MarkerFile))
	require.Equal(t, "Ann：just text", kit.Summary("Ann", "just text", ""))
	require.Equal(t, "one two", kit.FoldLines("one\u2028two"))
}

func TestGraphKeepsTheFirstOfAKey(t *testing.T) {
	t.Parallel()
	var g kit.Graph
	idx := g.AddMedia(&adapterv1.Media{Url: "a"}, &adapterv1.Media{Url: "b"})
	require.Equal(t, []uint32{0, 1}, idx)
	require.NoError(t, g.AddEntity("post:1", "demo.post", "1", map[string]string{"text": "fish & chips"}, idx))
	require.NoError(t, g.AddEntity("post:1", "demo.post", "1", map[string]string{"text": "other"}, nil))
	require.True(t, g.Has("post:1"))
	g.Relate("post:1", "quotes", "post:1")
	p := g.Proto("post:1")
	require.Len(t, p.GetEntities(), 1)
	require.Equal(t, `{"text":"fish & chips"}`, p.GetEntities()[0].GetDataJson())
	require.Equal(t, "post:1", p.GetRootKey())
	require.Len(t, p.GetRelations(), 1)
}
