package runtime_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// restCore is a running core on the embedded default with the X adapter
// talking to a fake FxTwitter; tests drive it over HTTP only.
type restCore struct {
	base string
	fx   *testkit.FxTwitter
	core *testcore.Running
}

func newRESTCore(t *testing.T, opts ...func(*config.Config)) *restCore {
	t.Helper()
	fx := testkit.NewFxTwitter(t)
	cfg := testConfig(t)
	cfg.FxTwitterURL = fx.URL()
	for _, o := range opts {
		o(cfg)
	}
	core := runCore(t, cfg)
	return &restCore{base: "http://" + core.Addr(), fx: fx, core: core}
}

// tenant creates a tenant with a token, as `monitor admin` does.
func (rc *restCore) tenant(t *testing.T, name string, quota *int64) string {
	t.Helper()
	_, err := rc.core.App().CreateTenant(context.Background(), "test", name, quota)
	require.NoError(t, err)
	token, _, err := rc.core.App().CreateToken(context.Background(), "test", name, "", false)
	require.NoError(t, err)
	return token
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.body, &m), string(a.body))
	return m
}

func (rc *restCore) do(t *testing.T, token, method, path string, body any, headers ...string) answer {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, rc.base+path, r)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

// capture submits a link and waits until its capture ends.
func (rc *restCore) capture(t *testing.T, token, url string, headers ...string) (submitted, final map[string]any) {
	t.Helper()
	a := rc.do(t, token, "POST", "/v1/captures", map[string]string{"url": url}, headers...)
	require.Equal(t, http.StatusAccepted, a.status, string(a.body))
	submitted = a.json(t)
	id := submitted["capture_id"].(string)
	rc.core.WaitEnded(t, uuid.MustParse(id))
	c := rc.do(t, token, "GET", "/v1/captures/"+id, nil)
	require.Equal(t, http.StatusOK, c.status, string(c.body))
	final = c.json(t)
	require.Contains(t, []any{"complete", "partial", "failed"}, final["state"], "an ended capture reads as ended")
	return submitted, final
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestRESTCapturesEachFixture(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	token := rc.tenant(t, "alice", nil)
	cases := []struct {
		url    string
		media  int
		kind   string
		verify func(t *testing.T, coll map[string]any)
	}{
		{"https://x.com/archivist_demo/status/2078399740166950912", 2, "image", nil},
		{"https://x.com/archivist_demo/status/2079251421658238976", 1, "video", func(t *testing.T, coll map[string]any) {
			m := coll["media"].([]any)[0].(map[string]any)
			want := rc.fx.MediaBytes(rc.fx.MediaURL("https://video.twimg.com/ext_tw_video/2079250786962731008/pu/vid/avc1/1920x1080/kL0mN2oP4qR6sT8u.mp4?tag=12"))
			got := rc.do(t, token, "GET", m["url"].(string), nil)
			require.Equal(t, http.StatusOK, got.status)
			require.Equal(t, want, got.body, "the 10368k MP4 is the one stored, byte for byte")
			require.Equal(t, "video/mp4", got.header.Get("Content-Type"))
		}},
		{"https://x.com/archivist_demo/status/2079906847374594048", -1, "", func(t *testing.T, coll map[string]any) {
			g := coll["graph"].(map[string]any)
			var rels []string
			for _, r := range g["relations"].([]any) {
				rels = append(rels, r.(map[string]any)["relation"].(string))
			}
			require.Contains(t, rels, "quotes")
			require.Contains(t, rels, "authored_by")
		}},
		{"https://x.com/archivist_demo/status/2080424850067443712", 1, "gif", func(t *testing.T, coll map[string]any) {
			require.Equal(t, true, coll["media"].([]any)[0].(map[string]any)["sensitive"])
		}},
	}
	for _, tc := range cases {
		t.Run(tc.url[strings.LastIndex(tc.url, "/")+1:], func(t *testing.T) {
			sub, c := rc.capture(t, token, tc.url)
			require.Equal(t, "complete", c["state"], c["error"])
			coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil)
			require.Equal(t, http.StatusOK, coll.status, string(coll.body))
			body := coll.json(t)
			require.Equal(t, c["revision_id"], body["revision_id"])
			require.NotEmpty(t, body["text"])
			require.NotEmpty(t, body["summary"])
			require.Equal(t, "public", body["visibility"])
			media := body["media"].([]any)
			if tc.media >= 0 {
				require.Len(t, media, tc.media)
			}
			for _, m := range media {
				mm := m.(map[string]any)
				if tc.kind != "" {
					require.Equal(t, tc.kind, mm["kind"])
				}
				got := rc.do(t, token, "GET", mm["url"].(string), nil)
				require.Equal(t, http.StatusOK, got.status)
				require.Equal(t, mm["sha256"], sha(got.body))
				require.Equal(t, fmt.Sprint(mm["size"]), got.header.Get("Content-Length"))
				require.Equal(t, `"`+mm["sha256"].(string)+`"`, got.header.Get("ETag"))
			}
			if tc.verify != nil {
				tc.verify(t, body)
			}
		})
	}

	list := rc.do(t, token, "GET", "/v1/collections?limit=3", nil)
	require.Equal(t, http.StatusOK, list.status)
	page := list.json(t)
	require.Len(t, page["items"].([]any), 3)
	require.Equal(t, "2080424850067443712", page["items"].([]any)[0].(map[string]any)["external_id"], "newest save first")
	next := rc.do(t, token, "GET", "/v1/collections?limit=3&cursor="+page["next_cursor"].(string), nil)
	require.Equal(t, http.StatusOK, next.status)
	rest := next.json(t)
	require.Len(t, rest["items"].([]any), 1)
	require.Equal(t, "", rest["next_cursor"])
}

func TestRESTSharingQuotaAndErrors(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	alice := rc.tenant(t, "alice", nil)
	bob := rc.tenant(t, "bob", nil)
	const post = "https://x.com/archivist_demo/status/2078399740166950912"

	sa, ca := rc.capture(t, alice, post, "Idempotency-Key", "alice-1")
	require.Equal(t, "complete", ca["state"])
	again := rc.do(t, alice, "POST", "/v1/captures", map[string]string{"url": post}, "Idempotency-Key", "alice-1")
	require.Equal(t, http.StatusAccepted, again.status)
	require.Equal(t, sa["submission_id"], again.json(t)["submission_id"], "same key, same submission")
	reused := rc.do(t, alice, "POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2079251421658238976"}, "Idempotency-Key", "alice-1")
	require.Equal(t, http.StatusUnprocessableEntity, reused.status)
	require.Equal(t, "urn:monitor:problem:idempotency-key-reused", reused.json(t)["type"])

	sb, cb := rc.capture(t, bob, "https://twitter.com/archivist_demo/status/2078399740166950912?s=46")
	require.Equal(t, sa["collection_id"], sb["collection_id"])
	require.Equal(t, "complete", cb["state"])
	ua := rc.do(t, alice, "GET", "/v1/usage", nil).json(t)
	ub := rc.do(t, bob, "GET", "/v1/usage", nil).json(t)
	require.Equal(t, ua["used_bytes"], ub["used_bytes"], "both are charged")
	require.Equal(t, float64(0), ub["reserved_bytes"])

	// A tenant whose quota is smaller than the post: 403, nothing saved.
	used := int64(ua["used_bytes"].(float64))
	small := rc.tenant(t, "small", &used)
	q := rc.do(t, small, "POST", "/v1/captures", map[string]string{"url": post})
	require.Equal(t, http.StatusForbidden, q.status, string(q.body))
	require.Equal(t, "application/problem+json", q.header.Get("Content-Type"))
	qp := q.json(t)
	require.Equal(t, "urn:monitor:problem:quota-exceeded", qp["type"])
	require.Equal(t, float64(used), qp["quota_bytes"])
	require.Equal(t, float64(0), qp["used_bytes"])
	us := rc.do(t, small, "GET", "/v1/usage", nil).json(t)
	require.Equal(t, float64(0), us["used_bytes"])
	require.Equal(t, float64(0), us["reserved_bytes"])
	require.Empty(t, rc.do(t, small, "GET", "/v1/collections", nil).json(t)["items"])

	// Bob deletes his reference; alice still has hers.
	id := sb["collection_id"].(string)
	require.Equal(t, http.StatusNoContent, rc.do(t, bob, "DELETE", "/v1/collections/"+id, nil).status)
	require.Equal(t, http.StatusNotFound, rc.do(t, bob, "GET", "/v1/collections/"+id, nil).status)
	require.Equal(t, http.StatusOK, rc.do(t, alice, "GET", "/v1/collections/"+id, nil).status)

	// Refresh with an unchanged upstream: no new revision.
	rf := rc.do(t, alice, "POST", "/v1/collections/"+id+"/refresh", nil)
	require.Equal(t, http.StatusAccepted, rf.status, string(rf.body))
	revs := rc.do(t, alice, "GET", "/v1/collections/"+id+"/revisions", nil).json(t)
	require.Len(t, revs["items"].([]any), 1)

	// Upstream 404: failed with the reason.
	_, cf := rc.capture(t, alice, "https://x.com/archivist_demo/status/1000000000000000001")
	require.Equal(t, "failed", cf["state"])
	require.Contains(t, cf["error"], "post not found or not public")

	// Links nobody handles, bad bodies, no token.
	bad := rc.do(t, alice, "POST", "/v1/captures", map[string]string{"url": "https://example.com/x"})
	require.Equal(t, http.StatusUnprocessableEntity, bad.status)
	require.Equal(t, "urn:monitor:problem:unsupported-link", bad.json(t)["type"])
	require.Equal(t, http.StatusBadRequest, rc.do(t, alice, "POST", "/v1/captures", map[string]string{"link": post}).status)
	noauth := rc.do(t, "", "GET", "/v1/collections", nil)
	require.Equal(t, http.StatusUnauthorized, noauth.status)
	require.Equal(t, "Bearer", noauth.header.Get("WWW-Authenticate"))
	require.Equal(t, http.StatusUnauthorized, rc.do(t, "mon_not-a-real-token", "GET", "/v1/usage", nil).status)
	require.Equal(t, http.StatusNotFound, rc.do(t, bob, "GET", "/v1/captures/"+rf.json(t)["capture_id"].(string), nil).status,
		"only submitters see a capture")

	adapters := rc.do(t, alice, "GET", "/v1/adapters", nil).json(t)
	var ids []any
	for _, a := range adapters["items"].([]any) {
		ids = append(ids, a.(map[string]any)["id"])
	}
	require.Equal(t, []any{"telegram", "x"}, ids, "the built-in adapters, by id")
}

func TestRESTMediaRangesAndCaching(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	token := rc.tenant(t, "alice", nil)
	sub, c := rc.capture(t, token, "https://x.com/archivist_demo/status/2078399740166950912")
	require.Equal(t, "complete", c["state"])
	coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil).json(t)
	m := coll["media"].([]any)[0].(map[string]any)
	url := m["url"].(string)
	whole := rc.do(t, token, "GET", url, nil)
	require.Equal(t, "bytes", whole.header.Get("Accept-Ranges"))

	part := rc.do(t, token, "GET", url, nil, "Range", "bytes=10-19")
	require.Equal(t, http.StatusPartialContent, part.status)
	require.Equal(t, whole.body[10:20], part.body)
	require.Equal(t, fmt.Sprintf("bytes 10-19/%d", len(whole.body)), part.header.Get("Content-Range"))

	tail := rc.do(t, token, "GET", url, nil, "Range", "bytes=-5")
	require.Equal(t, http.StatusPartialContent, tail.status)
	require.Equal(t, whole.body[len(whole.body)-5:], tail.body)

	far := rc.do(t, token, "GET", url, nil, "Range", fmt.Sprintf("bytes=%d-", len(whole.body)+10))
	require.Equal(t, http.StatusRequestedRangeNotSatisfiable, far.status)

	cached := rc.do(t, token, "GET", url, nil, "If-None-Match", whole.header.Get("ETag"))
	require.Equal(t, http.StatusNotModified, cached.status)

	other := rc.tenant(t, "bob", nil)
	require.Equal(t, http.StatusNotFound, rc.do(t, other, "GET", url, nil).status, "media only for tenants who saved it")
}

func TestRESTAdminAndLimits(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	ctx := context.Background()
	user := rc.tenant(t, "alice", nil)
	_, err := rc.core.App().CreateTenant(ctx, "test", "ops", nil)
	require.NoError(t, err)
	adminToken, _, err := rc.core.App().CreateToken(ctx, "test", "ops", "console", true)
	require.NoError(t, err)

	forbidden := rc.do(t, user, "GET", "/v1/admin/tenants", nil)
	require.Equal(t, http.StatusForbidden, forbidden.status)
	require.Equal(t, "urn:monitor:problem:forbidden", forbidden.json(t)["type"])

	list := rc.do(t, adminToken, "GET", "/v1/admin/tenants", nil)
	require.Equal(t, http.StatusOK, list.status, string(list.body))
	require.Len(t, list.json(t)["items"].([]any), 2)

	patched := rc.do(t, adminToken, "PATCH", "/v1/admin/tenants/alice", map[string]any{
		"limits": map[string]int{"submit_interval_seconds": 60, "daily_limit": 50, "concurrent_limit": 2}})
	require.Equal(t, http.StatusOK, patched.status, string(patched.body))

	first := rc.do(t, user, "POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2078399740166950912"})
	require.Equal(t, http.StatusAccepted, first.status, string(first.body))
	second := rc.do(t, user, "POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2079251421658238976"})
	require.Equal(t, http.StatusTooManyRequests, second.status, string(second.body))
	p := second.json(t)
	require.Equal(t, "urn:monitor:problem:limit-exceeded", p["type"])
	require.Equal(t, "interval", p["limit"])
	require.Equal(t, float64(60), p["max"])
	require.NotEmpty(t, p["reset_at"])
	require.NotEmpty(t, second.header.Get("Retry-After"))

	disabled := rc.do(t, adminToken, "PATCH", "/v1/admin/tenants/alice", map[string]any{"status": "disabled"})
	require.Equal(t, http.StatusOK, disabled.status)
	refused := rc.do(t, user, "GET", "/v1/usage", nil)
	require.Equal(t, http.StatusForbidden, refused.status, "a disabled tenant's tokens stop working")
	require.Equal(t, "urn:monitor:problem:tenant-not-enabled", refused.json(t)["type"])
	require.Equal(t, "disabled", refused.json(t)["limit"])
	require.Equal(t, "this account has been disabled by an administrator", refused.json(t)["detail"])

	audit := rc.do(t, adminToken, "GET", "/v1/admin/audit?limit=10", nil)
	require.Equal(t, http.StatusOK, audit.status)
	var actions []string
	for _, e := range audit.json(t)["items"].([]any) {
		actions = append(actions, e.(map[string]any)["action"].(string))
	}
	require.Contains(t, actions, "tenant.limits")
	require.Contains(t, actions, "tenant.status")
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	a := rc.do(t, "", "GET", "/metrics", nil)
	require.Equal(t, http.StatusOK, a.status)
	body := string(a.body)
	require.Contains(t, body, "go_goroutines ")
	require.Contains(t, body, "monitor_adapters_online 2\n", "the built-in X and Telegram adapters")
	require.Contains(t, body, "monitor_build_info{")
}
