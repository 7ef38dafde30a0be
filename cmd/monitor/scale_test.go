package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// process is a monitor subprocess that announced an address in its logs.
type process struct {
	cmd  *exec.Cmd
	addr string
	done chan struct{}
	// logs is what the process wrote to stderr; read it with logText
	// while it runs.
	mu   sync.Mutex
	logs *bytes.Buffer
}

// logText is what the process has logged so far.
func (p *process) logText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// startProcess runs the test binary as monitor with args and waits for the
// log line msg, whose field key holds the address it serves on.
func startProcess(t *testing.T, env map[string]string, msg, key string, args ...string) *process {
	t.Helper()
	cmd := binary(t, env, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &process{cmd: cmd, logs: &bytes.Buffer{}, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.logs.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == msg {
				addr <- fmt.Sprint(rec[key])
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
	})
	select {
	case p.addr = <-addr:
	case <-p.done:
		t.Fatalf("monitor %s exited early:\n%s", args[0], p.logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("monitor %s did not announce %q", args[0], msg)
	}
	return p
}

type client struct {
	t     *testing.T
	base  string
	token string
}

func (c client) do(method, path string, body any) (int, []byte, http.Header) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	require.NoError(c.t, err)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp.StatusCode, b, resp.Header
}

func (c client) json(method, path string, body any) map[string]any {
	c.t.Helper()
	code, b, _ := c.do(method, path, body)
	require.Less(c.t, code, 300, "%s %s: %d %s", method, path, code, b)
	var m map[string]any
	require.NoError(c.t, json.Unmarshal(b, &m))
	return m
}

// TestScaleModeEndToEnd runs Monitor the way scale mode deploys it: the
// database on PostgreSQL (migrated by the owner, core as monitor_app), media
// on S3, the X adapter as its own process, and two core replicas sharing
// the work. Captures go to either replica; everything is read back through
// the other one.
func TestScaleModeEndToEnd(t *testing.T) {
	t.Parallel()
	requirePostgres(t)
	s3 := testkit.StartS3(t)
	fx := testkit.NewFxTwitter(t)
	ownerURL, appURL := storetest.NewPostgresDatabase(t)
	bucket := testkit.BucketName(t.Name())
	common := map[string]string{
		"MONITOR_BLOB_URL":             "s3://" + bucket + "?endpoint=" + s3.Endpoint,
		"MONITOR_S3_ACCESS_KEY_ID":     s3.AccessKeyID,
		"MONITOR_S3_SECRET_ACCESS_KEY": s3.SecretAccessKey,
		"MONITOR_LOG_LEVEL":            "info",
	}
	env := func(extra ...string) map[string]string {
		m := map[string]string{"MONITOR_DATA_DIR": t.TempDir()}
		for k, v := range common {
			m[k] = v
		}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}

	out, err := binary(t, env("MONITOR_DATABASE_URL", ownerURL, "MONITOR_APP_PASSWORD", storetest.AppPassword), "migrate").CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = binary(t, env(), "storage-init").CombinedOutput()
	require.NoError(t, err, string(out))

	adapter := startProcess(t, env("MONITOR_FXTWITTER_URL", fx.URL()), "adapter serving", "addr", "adapter", "x", "--listen", "127.0.0.1:0")
	core := env("MONITOR_DATABASE_URL", appURL, "MONITOR_ADAPTERS", adapter.addr)
	a := startProcess(t, core, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	b := startProcess(t, core, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")

	admin := env("MONITOR_DATABASE_URL", appURL, "MONITOR_LOG_LEVEL", "warn")
	allowFakeMedia(t, admin)
	for _, name := range []string{"alice", "bob"} {
		_, errOut, code := cli(t, admin, "admin", "tenant", "create", name)
		require.Equal(t, 0, code, errOut)
	}
	tokenOf := func(name string) string {
		out, errOut, code := cli(t, admin, "admin", "token", "create", "--tenant", name)
		require.Equal(t, 0, code, errOut)
		return strings.TrimSpace(out)
	}
	aliceA := client{t, a.addr, tokenOf("alice")}
	aliceB := client{t, b.addr, aliceA.token}
	bobB := client{t, b.addr, tokenOf("bob")}

	wait := func(c client, captureID string) map[string]any {
		deadline := time.Now().Add(60 * time.Second)
		for {
			cv := c.json("GET", "/v1/captures/"+captureID, nil)
			switch cv["state"] {
			case "complete", "partial", "failed":
				return cv
			}
			require.True(t, time.Now().Before(deadline), "capture %s did not finish", captureID)
			time.Sleep(50 * time.Millisecond)
		}
	}

	// Fixture posts and synthetic ones, submitted alternately to the two
	// replicas.
	urls := []string{
		"https://x.com/archivist_demo/status/2078399740166950912",
		"https://x.com/archivist_demo/status/2079251421658238976",
		"https://x.com/archivist_demo/status/2079906847374594048",
		"https://x.com/archivist_demo/status/2080424850067443712",
	}
	for i := range 12 {
		urls = append(urls, fx.AddPost(testkit.SyntheticPost{ID: fmt.Sprintf("6%09d", i), Photos: 2}))
	}
	captures := map[string]string{}
	for i, u := range urls {
		c := aliceA
		if i%2 == 1 {
			c = aliceB
		}
		sub := c.json("POST", "/v1/captures", map[string]string{"url": u})
		captures[sub["capture_id"].(string)] = sub["collection_id"].(string)
	}
	for id, coll := range captures {
		cv := wait(aliceA, id)
		require.Equal(t, "complete", cv["state"], cv["error"])
		// Read through the other replica; media bytes come from S3.
		body := aliceB.json("GET", "/v1/collections/"+coll, nil)
		for _, m := range body["media"].([]any) {
			mm := m.(map[string]any)
			code, bytes, _ := aliceB.do("GET", mm["url"].(string), nil)
			require.Equal(t, http.StatusOK, code)
			sum := sha256.Sum256(bytes)
			require.Equal(t, mm["sha256"], hex.EncodeToString(sum[:]))
		}
	}

	// Bob saves an archived post through replica B: one blob, both charged.
	sub := bobB.json("POST", "/v1/captures", map[string]string{"url": urls[0]})
	require.Equal(t, "complete", sub["state"])
	ua := aliceA.json("GET", "/v1/usage", nil)
	ub := bobB.json("GET", "/v1/usage", nil)
	require.Positive(t, ub["used_bytes"])
	require.Equal(t, float64(0), ua["reserved_bytes"])
	require.Equal(t, ua["used_bytes"], aliceA.json("GET", "/v1/usage", nil)["used_bytes"])

	// Both replicas worked jobs, and no job ran twice.
	db, err := sql.Open("pgx", ownerURL)
	require.NoError(t, err)
	defer db.Close()
	var jobs, reruns, workers int
	require.NoError(t, db.QueryRow(`SELECT count(*),
		count(*) FILTER (WHERE attempt > 1),
		count(DISTINCT attempted_by[array_length(attempted_by, 1)])
		FROM river_job WHERE kind IN ('capture', 'download', 'finalize')`).Scan(&jobs, &reruns, &workers))
	// A capture job for each post (which stores its photos itself), and a
	// download job for the fixture's video and GIF.
	require.GreaterOrEqual(t, jobs, len(urls)+2)
	if reruns > 0 {
		rows, err := db.Query(`SELECT kind, attempt, errors::text FROM river_job WHERE attempt > 1`)
		require.NoError(t, err)
		for rows.Next() {
			var kind, errs string
			var attempt int
			require.NoError(t, rows.Scan(&kind, &attempt, &errs))
			t.Logf("%s attempt %d: %s", kind, attempt, errs)
		}
		rows.Close()
	}
	require.Zero(t, reruns, "no job was attempted twice")
	require.Equal(t, 2, workers, "both replicas took work")
	// River records completions in batches, a moment after the work.
	deadline := time.Now().Add(20 * time.Second)
	for {
		var completed int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM river_job WHERE state = 'completed' AND kind IN ('capture', 'download', 'finalize')`).Scan(&completed))
		if completed == jobs {
			break
		}
		require.True(t, time.Now().Before(deadline), "%d of %d jobs completed", completed, jobs)
		time.Sleep(100 * time.Millisecond)
	}
}
