package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// `monitor account join` asks, `monitor admin join` decides: refused
// while account_join_enabled is off, then pending, approved and joined
// against gotd's test server; a denial and a bad id say what happened.
func TestCLIJoinByInvite(t *testing.T) {
	t.Parallel()
	fake := testkit.NewTelegram(t)
	fake.AddInvite("HarbourInvite01", testkit.FakeInvite{Channel: &tg.Channel{ID: 5550001, AccessHash: 5, Title: "Harbour Watch", Broadcast: true}})
	fake.AddInvite("OtherInvite01", testkit.FakeInvite{Channel: &tg.Channel{ID: 5550002, AccessHash: 6, Title: "Other", Broadcast: true}})
	dir := t.TempDir()
	keys, session := filepath.Join(dir, "dc.pem"), filepath.Join(dir, "session.json")
	require.NoError(t, os.WriteFile(keys, fake.KeysPEM(), 0o600))
	require.NoError(t, os.WriteFile(session, fake.Session(t), 0o600))
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_MASTER_KEY": "cli-account-test-master-key-0123456789",
		"MONITOR_TELEGRAM_APP_ID": "1", "MONITOR_TELEGRAM_APP_HASH": "test-hash",
		"MONITOR_TELEGRAM_DC_ADDR": fake.Addr(), "MONITOR_TELEGRAM_DC_KEYS": keys}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	out, errOut, code := cli(t, env, "account", "add", "--tenant", "alice", "--adapter", "telegram", "--secret-file", session)
	require.Equal(t, 0, code, errOut)
	conn := regexp.MustCompile(`connection ([0-9a-f-]{36})`).FindStringSubmatch(out)[1]

	_, errOut, code = cli(t, env, "account", "join", "--tenant", "alice", "--connection", conn, "https://t.me/+HarbourInvite01")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "monitor admin config set account_join_enabled true")

	_, errOut, code = cli(t, env, "admin", "config", "set", "account_join_enabled", "true")
	require.Equal(t, 0, code, errOut)
	out, errOut, code = cli(t, env, "account", "join", "--tenant", "alice", "--connection", conn, "https://t.me/+HarbourInvite01")
	require.Equal(t, 0, code, errOut)
	m := regexp.MustCompile(`^join request ([0-9a-f-]{36}): Harbour Watch, pending; an operator decides`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	id := m[1]

	out, errOut, code = cli(t, env, "admin", "join", "list", "--state", "pending")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, id)
	require.Contains(t, out, "Harbour Watch")

	out, errOut, code = cli(t, env, "admin", "join", "approve", id)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "joined Harbour Watch; the tenant archives https://t.me/c/5550001 through connection "+conn)
	require.True(t, fake.Member(5550001))

	out, errOut, code = cli(t, env, "account", "joins", "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, id+`\s+`+conn+`\s+Harbour Watch\s+joined\s+https://t.me/c/5550001`, out)

	// Denied with a reason.
	out, _, code = cli(t, env, "account", "join", "--tenant", "alice", "--connection", conn, "t.me/joinchat/OtherInvite01")
	require.Equal(t, 0, code)
	other := regexp.MustCompile(`join request ([0-9a-f-]{36})`).FindStringSubmatch(out)[1]
	out, errOut, code = cli(t, env, "admin", "join", "deny", other, "--reason", "not a source we archive")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "denied: not a source we archive")
	require.False(t, fake.Member(5550002))

	// Bad input.
	_, errOut, code = cli(t, env, "admin", "join", "approve", "nope")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, `join request id "nope" is not a UUID`)
	_, errOut, code = cli(t, env, "account", "join", "--tenant", "alice", "--connection", conn, "https://t.me/durov")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "not a Telegram invite link")
	_, errOut, code = cli(t, env, "account", "join", "--tenant", "alice", "--connection", "x1", "https://t.me/+HarbourInvite01")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "is not a connection id")
}
