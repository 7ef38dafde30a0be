package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAdminConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "warn"}

	out, errOut, code := cli(t, env, "admin", "config", "list")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^KEY +VALUE +DEFAULT +SET +RESTART\n`, out)
	require.Regexp(t, regexp.MustCompile(`(?m)^timezone +UTC +UTC +no +no$`), out)
	require.Regexp(t, regexp.MustCompile(`(?m)^telegram_token +- +- +no +yes$`), out)

	out, errOut, code = cli(t, env, "admin", "config", "get", "timezone")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "UTC\n", out)

	out, errOut, code = cli(t, env, "admin", "config", "set", "timezone", "Asia/Shanghai")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "Asia/Shanghai\n", out)
	out, _, _ = cli(t, env, "admin", "config", "get", "timezone")
	require.Equal(t, "Asia/Shanghai\n", out)
	out, errOut, code = cli(t, env, "admin", "config", "set", "timezone", "default")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "UTC\n", out)

	_, errOut, code = cli(t, env, "admin", "config", "set", "timezone", "Mars/Olympus")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: setting timezone=\"Mars/Olympus\": must be an IANA timezone name such as UTC or Asia/Shanghai\n", errOut)
	_, errOut, code = cli(t, env, "admin", "config", "get", "colour")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `monitor: no setting named "colour"; settings: `)
	_, errOut, code = cli(t, env, "admin", "config", "set", "timezone")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "needs KEY and VALUE")

	// The audit log has the changes, by the CLI.
	out, errOut, code = cli(t, env, "admin", "audit")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, regexp.MustCompile(`(?m)^\S+ +cli +config\.set +timezone `), out)
}

func TestAdminConfigSecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "warn"}
	const token = "123456789:AAEhBOweik9ad9r3uWk_6gSqYvLmC8T1aHk"

	_, errOut, code := cli(t, env, "admin", "config", "set", "telegram_token", token)
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: set MONITOR_MASTER_KEY to store secret settings such as telegram_token\n", errOut)

	env["MONITOR_MASTER_KEY"] = "0123456789abcdef0123456789abcdef"
	out, errOut, code := cli(t, env, "admin", "config", "set", "telegram_token", token)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "<redacted>\n", out)
	out, _, _ = cli(t, env, "admin", "config", "get", "telegram_token")
	require.Equal(t, "<redacted>\n", out)
	out, _, _ = cli(t, env, "admin", "config", "list")
	require.Regexp(t, regexp.MustCompile(`(?m)^telegram_token +<redacted> +- +yes +yes$`), out)
	out, _, _ = cli(t, env, "admin", "audit")
	require.NotContains(t, out, token[10:])

	// Stored encrypted: the token is nowhere in the database files.
	for _, name := range []string{"monitor.db", "monitor.db-wal"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			require.False(t, bytes.Contains(b, []byte(token[10:])), name)
		}
	}
}

func TestAdminEventsAndErrors(t *testing.T) {
	t.Parallel()
	dir, env := migrated(t)
	env["MONITOR_LOG_LEVEL"] = "warn"

	out, errOut, code := cli(t, env, "admin", "events")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "KEY", strings.Fields(out)[0])
	require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 1, "no events yet")

	execSQL(t, dir, `INSERT INTO events (id, key, severity, message, count, first_at, last_at, status, created_at, updated_at)
		VALUES ('0196a7d0-0000-7000-8000-000000000001', 'adapter.offline.x', 'error', 'adapter x does not answer its health check', 3,
		'2026-03-01 10:00:00+00:00', '2026-03-01 10:05:00+00:00', 'open', '2026-03-01 10:00:00+00:00', '2026-03-01 10:05:00+00:00')`)
	out, errOut, code = cli(t, env, "admin", "events")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, regexp.MustCompile(`(?m)^adapter\.offline\.x +error +open +3 +2026-03-01T10:00:00Z +2026-03-01T10:05:00Z +adapter x does not answer its health check$`), out)

	out, errOut, code = cli(t, env, "admin", "events", "resolve", "adapter.offline.x")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "adapter.offline.x resolved\n", out)
	out, _, _ = cli(t, env, "admin", "events")
	require.NotContains(t, out, "adapter.offline.x")
	out, _, _ = cli(t, env, "admin", "events", "--all")
	require.Regexp(t, regexp.MustCompile(`(?m)^adapter\.offline\.x +error +resolved +3 `), out)
	_, errOut, code = cli(t, env, "admin", "events", "resolve", "no.such.event")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: no event with key \"no.such.event\"\n", errOut)

	execSQL(t, dir, `INSERT INTO error_logs (id, source, code, stage, severity, message, detail, context_json, capture_id, created_at) VALUES
		('0196a7d0-0000-7000-8000-000000000002', 'capture', 'not_found', 'fetch', 'error', 'capture failed', 'the post is gone', '{}',
		 '0196a7d0-0000-7000-8000-0000000000aa', '2026-03-01 10:00:00+00:00'),
		('0196a7d0-0000-7000-8000-000000000003', 'download', '', 'download', 'error', 'media download failed', 'the media host answered 404', '{}',
		 NULL, '2026-03-01 11:00:00+00:00')`)
	out, errOut, code = cli(t, env, "admin", "errors")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	require.Regexp(t, `^AT +SOURCE +STAGE +CODE +SEVERITY +MESSAGE +CAPTURE +DETAIL$`, lines[0])
	require.Regexp(t, `^2026-03-01T11:00:00Z +download +download +- +error +media download failed +- +the media host answered 404$`, lines[1])
	out, errOut, code = cli(t, env, "admin", "errors", "--source", "capture", "--limit", "5")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, regexp.MustCompile(`(?m)^2026-03-01T10:00:00Z +capture +fetch +not_found +error +capture failed +0196a7d0-0000-7000-8000-0000000000aa +the post is gone$`), out)
	require.NotContains(t, out, "download")
	_, errOut, code = cli(t, env, "admin", "errors", "--limit", "0")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: limit must be from 1 to 1000\n", errOut)
}

func TestAdminOpsHelp(t *testing.T) {
	t.Parallel()
	out, _, code := cli(t, nil, "admin", "--help")
	require.Equal(t, 0, code)
	for _, c := range []string{"config", "events", "errors"} {
		require.Regexp(t, regexp.MustCompile(`(?m)^  `+c+` +\S.*$`), out)
	}
	for _, args := range [][]string{{"admin", "config", "set", "--help"}, {"admin", "events", "resolve", "--help"}, {"admin", "errors", "--help"}} {
		out, _, code := cli(t, nil, args...)
		require.Equal(t, 0, code, args)
		require.Contains(t, out, "Usage:", args)
	}
}
