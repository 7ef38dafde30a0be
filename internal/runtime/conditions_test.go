package runtime_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// TestReadinessEvents: a failing readiness check opens an event for
// operators, and passing again resolves it.
func TestReadinessEvents(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	core := runCore(t, cfg)
	base := "http://" + core.Addr()
	events := func(status string) []app.EventView {
		t.Helper()
		ev, err := core.App().Events(context.Background(), status, 100)
		require.NoError(t, err)
		return ev
	}

	objects := filepath.Join(cfg.DataDir, "objects")
	require.NoError(t, os.RemoveAll(objects))
	require.NoError(t, os.WriteFile(objects, []byte("in the way"), 0o600))
	code, _ := getStatus(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	var found bool
	for _, e := range events(app.EventOpen) {
		if e.Key == app.EventReadinessBlob {
			found = true
			require.Equal(t, app.SeverityError, e.Severity)
			require.Contains(t, e.Message, "the blob store failed the readiness check")
		}
	}
	require.True(t, found, "readiness.blob is open")

	require.NoError(t, os.Remove(objects))
	require.NoError(t, os.MkdirAll(objects, 0o750))
	code, _ = getStatus(t, base+"/readyz")
	require.Equal(t, http.StatusOK, code)
	deadline := time.Now().Add(10 * time.Second)
	for {
		open := false
		for _, e := range events(app.EventOpen) {
			open = open || e.Key == app.EventReadinessBlob
		}
		if !open {
			break
		}
		require.True(t, time.Now().Before(deadline), "readiness.blob was not resolved")
		time.Sleep(20 * time.Millisecond)
	}
	all := events("all")
	require.Len(t, all, 1, "nothing else happened: %v", all)
	require.Equal(t, app.EventResolved, all[0].Status)
}
