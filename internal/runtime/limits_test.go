package runtime_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/config"
)

// These tests hold connections the way a hostile or broken client does and
// check that core's HTTP servers let go of them: slow bodies, idle
// keep-alive connections, oversized headers, and that the limits do not cut
// a large media download short.

// shortLimits are limits small enough for a test to outwait.
func shortLimits() config.HTTPLimits {
	return config.HTTPLimits{
		ReadHeaderTimeout: 2 * time.Second,
		ReadTimeout:       600 * time.Millisecond,
		WriteTimeout:      2 * time.Second,
		IdleTimeout:       400 * time.Millisecond,
		MaxHeaderBytes:    config.DefaultHTTPLimits().MaxHeaderBytes,
	}
}

// rawConn is a client connection driven by hand.
type rawConn struct {
	conn net.Conn
	r    *bufio.Reader
	stop chan struct{}
	wg   sync.WaitGroup
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).Dial("tcp", addr)
	require.NoError(t, err)
	rc := &rawConn{conn: conn, r: bufio.NewReader(conn), stop: make(chan struct{})}
	t.Cleanup(func() {
		rc.stopTrickle()
		_ = conn.Close()
	})
	return rc
}

// trickle sends the headers of a POST whose body is announced as 10,000
// bytes, then sends the body one byte every 20 ms, as a slow-loris client
// does, until stopTrickle or a write fails.
func (rc *rawConn) trickle(t *testing.T, path, auth string) {
	t.Helper()
	head := "POST " + path + " HTTP/1.1\r\nHost: monitor.test\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n"
	if auth != "" {
		head += "Authorization: Bearer " + auth + "\r\n"
	}
	_, err := io.WriteString(rc.conn, head+"\r\n")
	require.NoError(t, err)
	rc.wg.Add(1)
	go func() {
		defer rc.wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-rc.stop:
				return
			case <-tick.C:
				if _, err := rc.conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
}

func (rc *rawConn) stopTrickle() {
	select {
	case <-rc.stop:
	default:
		close(rc.stop)
	}
	rc.wg.Wait()
}

// response reads one answer, waiting at most wait, and its body.
func (rc *rawConn) response(t *testing.T, wait time.Duration) (*http.Response, []byte) {
	t.Helper()
	require.NoError(t, rc.conn.SetReadDeadline(time.Now().Add(wait)))
	resp, err := http.ReadResponse(rc.r, nil)
	require.NoError(t, err, "no answer within %s", wait)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return resp, body
}

// requireClosed waits at most wait for the server to close the connection.
func (rc *rawConn) requireClosed(t *testing.T, wait time.Duration) {
	t.Helper()
	require.NoError(t, rc.conn.SetReadDeadline(time.Now().Add(wait)))
	n, err := rc.r.Read(make([]byte, 1))
	require.Zero(t, n)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %s", wait)
	}
	require.True(t, errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET), "closed, not %v", err)
}

func TestRESTAnswersAnUnauthenticatedSlowBodyAtOnce(t *testing.T) {
	cfg := testConfig(t)
	cfg.HTTP.ReadTimeout = 20 * time.Second // far beyond what the test waits
	core := runCore(t, cfg)
	for _, auth := range []string{"", "mon_not-a-real-token"} {
		rc := dialRaw(t, core.Addr())
		start := time.Now()
		rc.trickle(t, "/v1/captures", auth)
		resp, body := rc.response(t, 3*time.Second)
		elapsed := time.Since(start)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		require.Less(t, elapsed, 2*time.Second, "answered without waiting for the body")
		require.True(t, resp.Close, "the answer closes the connection")
		var p map[string]any
		require.NoError(t, json.Unmarshal(body, &p))
		require.Equal(t, "urn:monitor:problem:unauthorized", p["type"])
		rc.requireClosed(t, 2*time.Second)
	}

	// A GET without a body keeps its keep-alive connection.
	req, err := http.NewRequest(http.MethodGet, "http://"+core.Addr()+"/v1/usage", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.False(t, resp.Close)
}

func TestChannelAPIAnswersAnUnauthenticatedSlowBodyAtOnce(t *testing.T) {
	cfg := channelConfig(t, map[string]string{"MONITOR_CHANNEL_ADDR": "127.0.0.1:0", "MONITOR_CHANNEL_SECRET": "s3cret-of-the-channel"})
	cfg.HTTP.ReadTimeout = 20 * time.Second
	core := runCore(t, cfg)
	for _, auth := range []string{"", "not-the-secret"} {
		rc := dialRaw(t, core.ChannelAddr())
		start := time.Now()
		rc.trickle(t, channelapi.PathHello, auth)
		resp, body := rc.response(t, 3*time.Second)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		require.Less(t, time.Since(start), 2*time.Second, "answered without waiting for the body")
		require.True(t, resp.Close, "the answer closes the connection")
		require.Contains(t, string(body), "MONITOR_CHANNEL_SECRET")
		rc.requireClosed(t, 2*time.Second)
	}
}

func TestRESTCutsASlowAuthenticatedBodyAtTheReadLimit(t *testing.T) {
	cfg := testConfig(t)
	cfg.HTTP = shortLimits()
	core := runCore(t, cfg)
	rest := &restCore{base: "http://" + core.Addr(), core: core}
	token := rest.tenant(t, "alice", nil)

	rc := dialRaw(t, core.Addr())
	start := time.Now()
	rc.trickle(t, "/v1/captures", token)
	resp, body := rc.response(t, 5*time.Second)
	elapsed := time.Since(start)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	require.Contains(t, string(body), "request body did not arrive in time")
	require.GreaterOrEqual(t, elapsed, cfg.HTTP.ReadTimeout-100*time.Millisecond, "the body had until the read limit")
	require.Less(t, elapsed, cfg.HTTP.ReadTimeout+2*time.Second, "and not much longer")
	rc.requireClosed(t, 2*time.Second)
	require.Empty(t, rest.do(t, token, "GET", "/v1/collections", nil).json(t)["items"], "nothing was submitted")
}

func TestChannelAPICutsASlowAuthenticatedBodyAtTheReadLimit(t *testing.T) {
	cfg := channelConfig(t, map[string]string{"MONITOR_CHANNEL_ADDR": "127.0.0.1:0", "MONITOR_CHANNEL_SECRET": "s3cret-of-the-channel"})
	cfg.HTTP = shortLimits()
	core := runCore(t, cfg)
	rc := dialRaw(t, core.ChannelAddr())
	start := time.Now()
	rc.trickle(t, channelapi.PathHello, "s3cret-of-the-channel")
	resp, body := rc.response(t, 5*time.Second)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	require.Contains(t, string(body), "request body did not arrive in time")
	require.Less(t, time.Since(start), cfg.HTTP.ReadTimeout+2*time.Second)
	rc.requireClosed(t, 2*time.Second)
}

func TestIdleKeepAliveConnectionsAreClosed(t *testing.T) {
	cfg := channelConfig(t, map[string]string{"MONITOR_CHANNEL_ADDR": "127.0.0.1:0", "MONITOR_CHANNEL_SECRET": "s3cret-of-the-channel"})
	cfg.HTTP = shortLimits()
	core := runCore(t, cfg)
	for _, addr := range []string{core.Addr(), core.ChannelAddr()} {
		rc := dialRaw(t, addr)
		_, err := io.WriteString(rc.conn, "GET /healthz HTTP/1.1\r\nHost: monitor.test\r\n\r\n")
		require.NoError(t, err)
		resp, _ := rc.response(t, 3*time.Second)
		require.False(t, resp.Close, "a keep-alive connection")
		idle := time.Now()
		rc.requireClosed(t, cfg.HTTP.IdleTimeout+2*time.Second)
		require.GreaterOrEqual(t, time.Since(idle), cfg.HTTP.IdleTimeout-100*time.Millisecond, "not before the idle limit")
	}
}

func TestOversizedRequestHeadersAreRefused(t *testing.T) {
	core := runCore(t, testConfig(t))
	req, err := http.NewRequest(http.MethodGet, "http://"+core.Addr()+"/healthz", nil)
	require.NoError(t, err)
	req.Header.Set("X-Padding", strings.Repeat("a", 2*config.DefaultHTTPLimits().MaxHeaderBytes))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
}

// readSlowly reads body in 256 KiB steps with a pause after each, some
// 8 MB/s: once the connection's buffers are full, each of the server's
// writes waits on it for some 30 ms, far less than the write timeout.
func readSlowly(body io.Reader) ([]byte, error) {
	var out []byte
	buf := make([]byte, 256<<10)
	for {
		n, err := io.ReadFull(body, buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		time.Sleep(30 * time.Millisecond) // a slow client, not a synchronisation
	}
}

func TestRESTLargeMediaDownloadOutlastsTheWriteTimeout(t *testing.T) {
	// The file is over three times what a loopback connection buffers
	// (some 10 MB), so the server writes for longer than the write timeout
	// (some 2.7 s at readSlowly's pace). The write timeout leaves each
	// chunk, and the capture's POST before it, two seconds, so a busy
	// machine that stalls a request for a moment does not cut it short.
	// (32 MiB, not more: the capture itself downloads and hashes it under
	// -race first.)
	const size, writeTimeout = 32 << 20, 2 * time.Second
	rc := newRESTCore(t, func(cfg *config.Config) {
		cfg.HTTP.WriteTimeout = writeTimeout
	})
	rc.fx.SetMediaSize(size)
	token := rc.tenant(t, "alice", nil)
	sub, c := rc.capture(t, token, "https://x.com/archivist_demo/status/2079251421658238976")
	require.Equal(t, "complete", c["state"], c["error"])
	coll := rc.do(t, token, "GET", "/v1/collections/"+sub["collection_id"].(string), nil).json(t)
	m := coll["media"].([]any)[0].(map[string]any)
	require.Equal(t, float64(size), m["size"])

	req, err := http.NewRequest(http.MethodGet, rc.base+m["url"].(string), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := readSlowly(resp.Body)
	elapsed := time.Since(start)
	require.NoError(t, err)
	require.Equal(t, size, len(body), "the whole file arrived")
	require.Equal(t, m["sha256"], sha(body))
	require.Greater(t, elapsed, writeTimeout, fmt.Sprintf("the download (%s) took longer than the write timeout", elapsed))
}
