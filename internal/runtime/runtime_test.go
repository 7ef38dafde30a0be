package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testConfig(t *testing.T) *config.Config {
	t.Helper()
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_HTTP_ADDR": "127.0.0.1:0"}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil)
	require.NoError(t, err)
	return cfg
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
