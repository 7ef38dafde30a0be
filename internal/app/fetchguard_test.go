package app_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// refusedHint ends the error of a media address that is not public.
const refusedHint = "; Monitor fetches media only from public addresses (an operator can allow it with fetch_allow_hosts)"

// mediaHost is a media host on a loopback address that counts the requests
// reaching it.
type mediaHost struct {
	*httptest.Server
	hits atomic.Int32
}

func newMediaHost(t *testing.T, listen string, h http.HandlerFunc) *mediaHost {
	t.Helper()
	m := &mediaHost{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.hits.Add(1)
		h(w, r)
	}))
	lis, err := net.Listen("tcp", listen)
	require.NoError(t, err)
	srv.Listener = lis
	srv.Start()
	t.Cleanup(srv.Close)
	m.Server = srv
	return m
}

func (m *mediaHost) port() string { return strconv.Itoa(m.Listener.Addr().(*net.TCPAddr).Port) }

func serveVideo(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "video/mp4")
	_, _ = w.Write([]byte("\x00\x00\x00\x18ftypmp42 not really a video"))
}

// mediaRequests counts the requests for media the fake FxTwitter received.
func mediaRequests(fx *testkit.FxTwitter) int {
	n := 0
	for _, r := range fx.Requests() {
		if strings.HasPrefix(r.Path, "/media/") {
			n++
		}
	}
	return n
}

func TestMediaOnAPrivateAddressIsNeverFetched(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		// The default: nothing allowed, only public addresses are fetched.
		_, err := p.app.SetSetting(ctx, "test", "fetch_allow_hosts", "default")
		require.NoError(t, err)

		// The fixture's photos, avatar and banner are served by the fake on
		// 127.0.0.1: the upstream answer names a loopback address.
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StatePartial, c.State, c.Error)
		require.Contains(t, c.Error, "#1 (image): media host 127.0.0.1 is a private address (loopback, 127.0.0.0/8)"+refusedHint)
		require.NotContains(t, c.Error, "gave up after", "a refusal is not retried")
		require.Zero(t, mediaRequests(p.fx), "no media request reached the private address")
		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.NotEmpty(t, coll.Text, "the text is archived")
		require.Empty(t, coll.Media)

		// A host name that resolves to a loopback address is refused on the
		// address dialled (DNS rebinding cannot pass).
		private := newMediaHost(t, "127.0.0.1:0", serveVideo)
		post := p.fx.AddPost(testkit.SyntheticPost{ID: "7100000000000000001", VideoURL: "http://localhost:" + private.port() + "/v.mp4", NoAvatar: true})
		_, c = p.capture(t, alice, post)
		require.Equal(t, app.StatePartial, c.State, c.Error)
		require.Regexp(t, `#1 \(video\): media host localhost resolves to (127\.0\.0\.1|::1), a private address \(loopback, [^)]+\)`, c.Error)
		require.Contains(t, c.Error, refusedHint)
		require.Zero(t, private.hits.Load())

		// The operator allows the fakes' address: the same post now
		// archives whole, at once (no wait for the setting's cache).
		_, err = p.app.SetSetting(ctx, "test", "fetch_allow_hosts", "127.0.0.1")
		require.NoError(t, err)
		ref, err := p.app.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		c = p.wait(t, alice, ref.CaptureID)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		require.Positive(t, mediaRequests(p.fx))
	})
}

func TestMediaRedirectsAreCheckedEachHop(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) { // fetch_allow_hosts=127.0.0.1
		alice := p.tenant(t, "alice", nil)
		private := newMediaHost(t, "127.0.0.2:0", serveVideo)
		var hops *mediaHost
		hops = newMediaHost(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
			switch path := r.URL.Path; {
			case path == "/to-private":
				http.Redirect(w, r, private.URL+"/v.mp4", http.StatusFound)
			case path == "/to-file":
				http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
			case strings.HasPrefix(path, "/chain/"): // /chain/<k>: k more redirects
				k, _ := strconv.Atoi(strings.TrimPrefix(path, "/chain/"))
				if k == 0 {
					serveVideo(w, r)
					return
				}
				http.Redirect(w, r, fmt.Sprintf("%s/chain/%d", hops.URL, k-1), http.StatusFound)
			default:
				http.NotFound(w, r)
			}
		})
		capture := func(id, path string) app.CaptureView {
			t.Helper()
			post := p.fx.AddPost(testkit.SyntheticPost{ID: id, VideoURL: hops.URL + path, NoAvatar: true})
			_, c := p.capture(t, alice, post)
			return c
		}

		c := capture("7200000000000000001", "/to-private")
		require.Equal(t, app.StatePartial, c.State, c.Error)
		require.Contains(t, c.Error, "#1 (video): media host 127.0.0.2 is a private address (loopback, 127.0.0.0/8)"+refusedHint)
		require.Zero(t, private.hits.Load(), "the redirect's private target was never contacted")

		c = capture("7200000000000000002", "/to-file")
		require.Equal(t, app.StatePartial, c.State, c.Error)
		require.Contains(t, c.Error, "#1 (video): the media host redirected to a file: address; Monitor fetches media only over http and https")

		c = capture("7200000000000000003", "/chain/6")
		require.Equal(t, app.StatePartial, c.State, c.Error)
		require.Contains(t, c.Error, "#1 (video): the media host redirected more than 5 times; Monitor follows at most 5 redirects")

		c = capture("7200000000000000004", "/chain/5")
		require.Equal(t, app.StateComplete, c.State, c.Error)
	})
}

func TestFetchAllowHostsSetting(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		v, err := a.Setting(ctx, "fetch_allow_hosts")
		require.NoError(t, err)
		require.Empty(t, v.Value, "empty by default: only public addresses")
		require.False(t, v.Restart, "applies without a restart")

		_, err = a.SetSetting(ctx, app.ActorCLI, "fetch_allow_hosts", "127.0.0.1:8080")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.Contains(t, err.Error(), `setting fetch_allow_hosts="127.0.0.1:8080": "127.0.0.1:8080" is not a host name, IP address or CIDR range; list them comma-separated without scheme or port, such as 127.0.0.1, 10.0.0.0/8, minio.internal`)

		_, err = a.SetSetting(ctx, app.ActorCLI, "fetch_allow_hosts", "127.0.0.1, 10.0.0.0/8, minio.internal")
		require.NoError(t, err)
		s, err := a.Settings(ctx)
		require.NoError(t, err)
		require.False(t, s.FetchAllowHosts.IsZero())
	})
}
