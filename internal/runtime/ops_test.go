package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// A serving core samples itself from the start and writes snapshots into
// its data directory.
func TestServeSamplesMetricsAndSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := testcore.Config(t, nil)
	r := testcore.Run(t, cfg)

	deadline := time.Now().Add(testcore.WaitTimeout)
	for {
		s, err := r.App().SystemMetrics(ctx, time.Hour, app.DayBucket)
		require.NoError(t, err)
		if g, ok := s.Latest(app.MetricGoroutines); ok {
			require.Positive(t, g)
			rss, ok := s.Latest(app.MetricRSS)
			require.True(t, ok, "RSS is measured on Linux")
			require.Positive(t, rss)
			db, ok := s.Latest(app.MetricDB)
			require.True(t, ok)
			require.Positive(t, db)
			break
		}
		require.True(t, time.Now().Before(deadline), "no metric sample within %s of the start", testcore.WaitTimeout)
		time.Sleep(50 * time.Millisecond)
	}

	snap, err := r.App().SnapshotNow(ctx, "admin-test")
	require.NoError(t, err)
	p, err := r.App().SnapshotPath(ctx, snap.Name)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(cfg.DataDir, "backups", snap.Name), p)
	info, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, snap.Size, info.Size())
}

// A failing readiness check reaches the operators' webhook, signed, once,
// and so does its recovery.
func TestReadinessFailureIsNotifiedByWebhook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const secret = "runtime-hook-secret-0123"
	got := make(chan app.WebhookBody, 8)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if r.Header.Get(app.SignatureHeader) != app.Sign(secret, raw) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var b app.WebhookBody
		_ = json.Unmarshal(raw, &b)
		got <- b
	}))
	t.Cleanup(hook.Close)
	cfg := testcore.Config(t, map[string]string{"MONITOR_MASTER_KEY": "runtime-test-master-key-0123456789"})
	r := testcore.Run(t, cfg)
	for k, v := range map[string]string{"notify_webhook_url": hook.URL, "notify_webhook_secret": secret} {
		_, err := r.App().SetSetting(ctx, "admin-test", k, v)
		require.NoError(t, err)
	}
	next := func() app.WebhookBody {
		t.Helper()
		select {
		case b := <-got:
			return b
		case <-time.After(testcore.WaitTimeout):
			t.Fatal("the webhook heard nothing")
		}
		return app.WebhookBody{}
	}

	base := "http://" + r.Addr()
	objects := filepath.Join(cfg.DataDir, "objects")
	require.NoError(t, os.RemoveAll(objects))
	require.NoError(t, os.WriteFile(objects, []byte("in the way"), 0o600))
	code, _ := getStatus(t, base+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	b := next()
	require.Equal(t, app.NotifyEvent, b.Type)
	require.Equal(t, app.EventReadinessBlob, b.Key)

	require.NoError(t, os.Remove(objects))
	require.NoError(t, os.MkdirAll(objects, 0o750))
	code, _ = getStatus(t, base+"/readyz")
	require.Equal(t, http.StatusOK, code)
	b = next()
	require.Equal(t, app.NotifyRecovery, b.Type)
	require.Equal(t, app.EventReadinessBlob, b.Key)
}
