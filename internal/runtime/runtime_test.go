package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testConfig(t *testing.T) *config.Config {
	t.Helper()
	return testcore.Config(t, nil)
}

// runCore runs a core (testcore.Run) until the test ends.
func runCore(t *testing.T, cfg *config.Config) *testcore.Running {
	t.Helper()
	return testcore.Run(t, cfg)
}

func getStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var body struct {
		Status any    `json:"status"`
		Detail string `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(b, &body))
	return resp.StatusCode, body.Detail
}

func TestCoreServesAndStops(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	core, err := runtime.Open(ctx, cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()

	base := "http://" + core.Addr()
	code, _ := getStatus(t, base+"/readyz")
	require.Equal(t, http.StatusOK, code)

	// Take the media store away: readiness must say so.
	objects := filepath.Join(cfg.DataDir, "objects")
	require.NoError(t, os.RemoveAll(objects))
	require.NoError(t, os.WriteFile(objects, []byte("in the way"), 0o600))
	code, detail := getStatus(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, detail, "blob store:")
	code, _ = getStatus(t, base+"/healthz")
	require.Equal(t, http.StatusOK, code, "the process is still alive")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(runtime.StopTimeout + 2*time.Second):
		t.Fatal("core did not stop in time")
	}
	http.DefaultClient.CloseIdleConnections()
}

func TestOpenStoreMigratesEmbeddedDefaultOnce(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	for range 2 {
		st, err := runtime.OpenStore(ctx, cfg, log)
		require.NoError(t, err)
		require.NoError(t, st.Verify(ctx))
		require.NoError(t, st.Close())
	}
}

func TestCoreReachesBuiltinAdapterOverGRPC(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	cfg := testConfig(t)
	cfg.FxTwitterURL = fx.URL()
	ctx, cancel := context.WithCancel(context.Background())
	core, err := runtime.Open(ctx, cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()

	reg := core.Adapters()
	a, ok := reg.Get("x")
	require.True(t, ok, "the built-in X adapter is registered")
	require.True(t, a.Online())
	require.Equal(t, "X", a.Describe().GetDisplayName())

	res, err := reg.Resolve(ctx, "https://twitter.com/archivist_demo/status/2078399740166950912/photo/1?s=20")
	require.NoError(t, err)
	require.Equal(t, "x", res.Adapter)
	require.Equal(t, "fxtwitter", res.Provider)
	require.Equal(t, "https://x.com/archivist_demo/status/2078399740166950912", res.Target.GetCanonicalUrl())

	resp, err := reg.Fetch(ctx, res.Adapter, &adapterv1.FetchRequest{Target: res.Target, ProviderId: res.Provider})
	require.NoError(t, err, "a fixture post passes the registry's graph validation")
	require.NotEmpty(t, resp.GetMedia())
	require.Equal(t, fx.Raw("status-photos.json"), resp.GetSourceResponses()[0].GetBody())

	_, err = reg.Resolve(ctx, "https://x.com.evil.example/a/status/1")
	require.ErrorIs(t, err, adapterapi.ErrNoAdapter)
}

func TestCoreUsesExternalAdapters(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	lis, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	actx, stopAdapter := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- adapterapi.Serve(actx, lis, x.New(x.Options{BaseURL: fx.URL()}), slog.New(slog.DiscardHandler))
	}()
	defer func() { stopAdapter(); require.NoError(t, <-served) }()

	cfg := testConfig(t)
	cfg.Adapters = config.Adapters{Addrs: []string{lis.Addr().String()}}
	core, err := runtime.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()

	require.Len(t, core.Adapters().Adapters(), 1)
	res, err := core.Adapters().Resolve(ctx, "https://x.com/archivist_demo")
	require.NoError(t, err)
	require.Equal(t, "x.profile", res.Target.GetEntityType())
	require.True(t, res.Collection)
}
