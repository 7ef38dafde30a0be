package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// A `monitor serve` killed (SIGKILL) while its capture job waits on the
// upstream leaves that job marked running; the next `monitor serve` on the data
// dir hands it back at start and the capture completes, well within a
// minute rather than River's hour. The time it took is logged.
func TestServeKilledMidCaptureRecovers(t *testing.T) {
	t.Parallel()
	fx, env, token := killSetup(t)

	first := startProcess(t, env, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	fx.Delay(time.Hour) // the upstream holds every request
	alice := client{t, first.addr, token}
	sub := alice.json("POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2078399740166950912"})
	id := sub["capture_id"].(string)
	for deadline := time.Now().Add(30 * time.Second); fx.Hits("/2/status/2078399740166950912") == 0; time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the capture never asked the upstream")
	}
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	<-first.done
	fx.Delay(0)

	// The same data dir, a new process.
	started := time.Now()
	second := startProcess(t, env, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	alice.base = second.addr
	var state string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		state = alice.json("GET", "/v1/captures/"+id, nil)["state"].(string)
		if state == "complete" || state == "partial" || state == "failed" {
			break
		}
	}
	took := time.Since(started)
	require.Equal(t, "complete", state, "the killed process's capture ends complete:\n%s", second.logText())
	require.Contains(t, second.logText(), "handed back jobs that a stopped process left running")
	t.Logf("complete %s after the second start", took.Round(time.Millisecond))
}

// A `monitor serve` killed while its capture job downloads the post's
// photos leaves the capture downloading and its job running; the next
// start hands the job back, which gives the photos to download jobs, and
// the capture completes with both photos.
func TestServeKilledMidDownloadRecovers(t *testing.T) {
	t.Parallel()
	fx, env, token := killSetup(t)

	first := startProcess(t, env, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	fx.DelayMedia(time.Hour) // the media host holds every request
	alice := client{t, first.addr, token}
	sub := alice.json("POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2078399740166950912"})
	id := sub["capture_id"].(string)
	fx.WaitMediaHeld(t, 1)
	require.Equal(t, "downloading", alice.json("GET", "/v1/captures/"+id, nil)["state"])
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	<-first.done
	fx.DelayMedia(0)

	second := startProcess(t, env, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	alice.base = second.addr
	var got map[string]any
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		got = alice.json("GET", "/v1/captures/"+id, nil)
		if s := got["state"]; s == "complete" || s == "partial" || s == "failed" {
			break
		}
	}
	require.Equal(t, "complete", got["state"], "the killed process's capture ends complete:\n%s", second.logText())
	coll := alice.json("GET", "/v1/collections/"+got["collection_id"].(string), nil)
	require.Len(t, coll["media"], 2, "both photos are stored")
}

// killSetup is a data dir with the tenant alice, whose token it returns,
// and the fake FxTwitter its processes fetch from.
func killSetup(t *testing.T) (*testkit.FxTwitter, map[string]string, string) {
	t.Helper()
	fx := testkit.NewFxTwitter(t)
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_FXTWITTER_URL": fx.URL()}
	allowFakeMedia(t, env)
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	out, errOut, code := cli(t, env, "admin", "token", "create", "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	return fx, env, strings.TrimSpace(out)
}
