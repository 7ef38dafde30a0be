package runtime_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// channelConfig is testConfig with more environment.
func channelConfig(t *testing.T, extra map[string]string) *config.Config {
	t.Helper()
	return testcore.Config(t, extra)
}

func hello(t *testing.T, addr, secret string) error {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	_, err := channelapi.NewClient("http://"+addr, secret, &http.Client{Transport: tr}).
		Hello(context.Background(), channelapi.Hello{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
	return err
}

func TestCoreServesTheChannelAPIOnItsAddress(t *testing.T) {
	t.Parallel()
	cfg := channelConfig(t, map[string]string{"MONITOR_CHANNEL_ADDR": "127.0.0.1:0", "MONITOR_CHANNEL_SECRET": "s3cret-of-the-channel"})
	core := runCore(t, cfg)
	addr := core.ChannelAddr()
	require.NotEmpty(t, addr)
	require.NotEqual(t, core.Addr(), addr, "a listener of its own, not the public HTTP one")
	require.Equal(t, "s3cret-of-the-channel", core.ChannelSecret())
	require.NoError(t, hello(t, addr, "s3cret-of-the-channel"))
	require.True(t, channelapi.IsCode(hello(t, addr, "wrong"), channelapi.CodeUnauthorized))
}

func TestCoreRefusesAChannelAddressWithoutASecret(t *testing.T) {
	t.Parallel()
	cfg := channelConfig(t, map[string]string{"MONITOR_CHANNEL_ADDR": "127.0.0.1:0"})
	_, err := runtime.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	require.ErrorContains(t, err, "MONITOR_CHANNEL_SECRET is empty")
}

func TestCoreWithoutChannelsHasNoChannelAPI(t *testing.T) {
	t.Parallel()
	core := runCore(t, testConfig(t))
	require.Empty(t, core.ChannelAddr())
}

func TestCoreOpensALoopbackChannelAPIForAnInProcessBot(t *testing.T) {
	t.Parallel()
	cfg := channelConfig(t, map[string]string{"MONITOR_TELEGRAM_TOKEN": "123:abc"})
	core, err := runtime.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	addr, secret := core.ChannelAddr(), core.ChannelSecret()
	host, _, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", host, "only this process may reach it")
	require.Len(t, secret, 64)
	_, err = hex.DecodeString(secret)
	require.NoError(t, err, "a random hex secret")
	tokenSum := sha256.Sum256([]byte("123:abc"))
	require.NotEqual(t, hex.EncodeToString(tokenSum[:]), secret, "not derived from the bot token")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	require.NoError(t, hello(t, addr, secret))
}
