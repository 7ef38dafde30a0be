package main

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/adapterapi"
)

func TestAdapterCommandServesX(t *testing.T) {
	t.Parallel()
	cmd := binary(t, map[string]string{"MONITOR_FXTWITTER_URL": "http://127.0.0.1:9"}, "adapter", "x", "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "adapter serving" {
				addr <- rec.Addr
			}
		}
		close(addr)
	}()
	var a string
	select {
	case a = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("monitor adapter x did not announce its address")
	}
	require.NotEmpty(t, a, "monitor adapter x exited early")

	reg, err := adapterapi.Dial(context.Background(), []string{a}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	x, ok := reg.Get("x")
	require.True(t, ok)
	require.Contains(t, x.Describe().GetHosts(), "x.com")
	reg.CheckHealth(context.Background())
	require.True(t, x.Online())
	reg.Close()

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "adapter must exit 0 after SIGTERM")
	case <-time.After(10 * time.Second):
		t.Fatal("adapter did not stop after SIGTERM")
	}
	for range addr {
	}
}

func TestAdapterCommandBadInput(t *testing.T) {
	t.Parallel()
	_, errOut, code := cli(t, nil, "adapter", "mastodon")
	require.Equal(t, 2, code)
	require.Equal(t, "monitor: no built-in adapter \"mastodon\"; built-in adapters: x, telegram\n", errOut)

	_, errOut, code = cli(t, nil, "adapter")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "needs the adapter NAME (x, telegram)")

	_, errOut, code = cli(t, nil, "adapter", "x", "--listen", "nowhere")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "monitor: adapter x: cannot listen on --listen nowhere")
}
