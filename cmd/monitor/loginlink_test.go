package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

func TestAdminLoginLink(t *testing.T) {
	t.Parallel()
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_LOG_LEVEL": "warn", "MONITOR_HTTP_ADDR": "127.0.0.1:8181"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)

	out, errOut, code := cli(t, env, "admin", "login-link", "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^http://127\.0\.0\.1:8181/login/[A-Za-z0-9_-]{43}\n$`, out)
	token := strings.TrimSpace(out[strings.LastIndex(out, "/")+1:])

	// The link signs a browser in once.
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil)
	require.NoError(t, err)
	o, err := runtime.OpenOffline(context.Background(), cfg, slog.New(slog.DiscardHandler), runtime.OfflineOptions{})
	require.NoError(t, err)
	_, s, err := o.App().RedeemLoginLink(context.Background(), token, app.WebClient{})
	require.NoError(t, err)
	require.Equal(t, "alice", s.TenantName)
	require.False(t, s.Admin)
	_, _, err = o.App().RedeemLoginLink(context.Background(), token, app.WebClient{})
	require.ErrorIs(t, err, app.ErrLoginLinkUsed)
	require.NoError(t, o.Close())

	_, errOut, code = cli(t, env, "admin", "config", "set", "web_base_url", "https://monitor.example.org/")
	require.Equal(t, 0, code, errOut)
	out, errOut, code = cli(t, env, "admin", "login-link", "--tenant", "alice", "--admin", "--ttl", "3d")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^https://monitor\.example\.org/login/[A-Za-z0-9_-]{43}\n$`, out)

	_, errOut, code = cli(t, env, "admin", "login-link", "--tenant", "bob")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: no tenant named \"bob\"; create it with `monitor admin tenant create bob`\n", errOut)
	_, errOut, code = cli(t, env, "admin", "login-link", "--tenant", "alice", "--ttl", "10s")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "a sign-in link works from 1 minute to 7 days")
	_, errOut, code = cli(t, env, "admin", "login-link", "--tenant", "alice", "--ttl", "soon")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--ttl "soon": not a duration`)
	_, errOut, code = cli(t, env, "admin", "login-link")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `required flag(s) "tenant" not set`)

	out, _, code = cli(t, env, "admin", "login-link", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "The link works once")
	require.Contains(t, out, "expires after --ttl")
}

// `monitor admin tenant set NAME --admin` marks an operator, whose mark
// `show` prints; without the flag it says what to set.
func TestAdminTenantSetAdmin(t *testing.T) {
	t.Parallel()
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_LOG_LEVEL": "warn"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)

	out, errOut, code := cli(t, env, "admin", "tenant", "set", "alice", "--admin")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "tenant alice admin: true\n", out)
	out, _, code = cli(t, env, "admin", "tenant", "show", "alice")
	require.Equal(t, 0, code)
	require.Contains(t, out, "admin:      true\n")
	out, errOut, code = cli(t, env, "admin", "tenant", "set", "alice", "--admin=false")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "tenant alice admin: false\n", out)

	_, errOut, code = cli(t, env, "admin", "tenant", "set", "alice")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "say what to set: --admin or --admin=false")
	_, errOut, code = cli(t, env, "admin", "tenant", "set", "bob", "--admin")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `no tenant named "bob"`)
}
