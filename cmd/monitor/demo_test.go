package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// demoServer is `monitor serve --demo` running as its own process.
type demoServer struct {
	cmd  *exec.Cmd
	base string
	link string

	mu   sync.Mutex
	logs strings.Builder
	done chan struct{}
}

// startDemo starts serve --demo on dir and waits for its sign-in line.
func startDemo(t *testing.T, dir string) *demoServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	s := &demoServer{base: "http://" + addr, done: make(chan struct{})}
	s.cmd = binary(t, map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "info"}, "serve", "--demo", "--http-addr", addr)
	stdout, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := s.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	go func() {
		defer close(s.done)
		b, _ := io.ReadAll(stderr)
		s.mu.Lock()
		s.logs.Write(b)
		s.mu.Unlock()
	}()
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case s.link = <-line:
	case <-time.After(60 * time.Second):
		t.Fatal("serve --demo printed no sign-in link within 60 s")
	}
	require.Regexp(t, `^Open `+regexp.QuoteMeta(s.base)+`/login/[A-Za-z0-9_-]{20,}$`, s.link, "one line, in English, with the link")
	s.link = strings.TrimPrefix(s.link, "Open ")
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		require.True(t, time.Now().Before(deadline), "serve --demo never became ready")
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// stop sends SIGTERM and waits for the process, returning its logs.
func (s *demoServer) stop(t *testing.T) string {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	<-s.done
	require.NoError(t, s.cmd.Wait())
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// demoCollections lists the demo tenant's collections through REST.
func demoCollections(t *testing.T, base, token string) []map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/v1/collections?limit=100", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var page struct {
		Items []map[string]any `json:"items"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	return page.Items
}

func TestServeDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "error"}

	// An empty data dir: the demo tenant with the sample archive.
	s := startDemo(t, dir)
	token, errOut, code := cli(t, env, "admin", "token", "create", "--tenant", "demo")
	require.Equal(t, 0, code, errOut)
	items := demoCollections(t, s.base, strings.TrimSpace(token))
	require.GreaterOrEqual(t, len(items), 14)
	var texts []string
	for _, it := range items {
		texts = append(texts, it["summary"].(string))
	}
	all := strings.Join(texts, "\n")
	require.Contains(t, all, "Monitor Demo：Low tide in four pictures")
	require.Contains(t, all, "今天的大潮把防波堤都淹没了")
	require.Contains(t, all, "Tide Watch Demo 潮汐观察")
	// The printed link signs a browser in to the demo tenant, once; the
	// session reads the same archive.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(s.link)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/", resp.Header.Get("Location"))
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "monitor_session" {
			session = c
		}
	}
	require.NotNil(t, session, "the link sets the session cookie")
	req, err := http.NewRequest(http.MethodGet, s.base+"/v1/collections?limit=100", nil)
	require.NoError(t, err)
	req.AddCookie(session)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	var page struct {
		Items []map[string]any `json:"items"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	resp.Body.Close()
	require.Len(t, page.Items, len(items))
	resp, err = noRedirect.Get(s.link)
	require.NoError(t, err)
	resp.Body.Close()
	require.NotEqual(t, http.StatusSeeOther, resp.StatusCode, "the link works once")

	first := s.link
	logs := s.stop(t)
	require.Contains(t, logs, `"msg":"demo archive imported"`)

	// Again: a fresh link, nothing imported.
	s = startDemo(t, dir)
	require.NotEqual(t, first, s.link)
	require.Len(t, demoCollections(t, s.base, strings.TrimSpace(token)), len(items))
	logs = s.stop(t)
	require.NotContains(t, logs, "demo archive imported")

	// A data dir with another archive is refused and left as it was.
	other := t.TempDir()
	oenv := map[string]string{"MONITOR_DATA_DIR": other, "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code = cli(t, oenv, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	out, errOut, code := cli(t, oenv, "serve", "--demo", "--http-addr", "127.0.0.1:0")
	require.NotEqual(t, 0, code)
	require.Empty(t, out, "no link for a refused demo")
	require.Contains(t, lastLine(errOut), `serve --demo needs an empty data dir: this data dir already holds an archive (tenants alice) and no "demo" tenant`)
	out, errOut, code = cli(t, oenv, "admin", "tenant", "list")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "demo")
}
