package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// `monitor account add --adapter telegram` signs in in the terminal: the
// phone number, the login code and the 2FA password, against gotd's test
// server (MONITOR_TELEGRAM_DC_ADDR/KEYS); the session it makes goes to
// core as an opaque secret and is never printed.
func TestAccountTelegramSignIn(t *testing.T) {
	t.Parallel()
	fake := testkit.NewTelegram(t)
	fake.SetSignIn(t, "+15550001111", "24680", "correct horse battery staple")
	keys := filepath.Join(t.TempDir(), "dc.pem")
	require.NoError(t, os.WriteFile(keys, fake.KeysPEM(), 0o600))
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_MASTER_KEY": "cli-account-test-master-key-0123456789",
		"MONITOR_TELEGRAM_APP_ID": "1", "MONITOR_TELEGRAM_APP_HASH": "test-hash",
		"MONITOR_TELEGRAM_DC_ADDR": fake.Addr(), "MONITOR_TELEGRAM_DC_KEYS": keys}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)

	fake.Fail(tg.UsersGetUsersRequestTypeID, testkit.ErrAuthKeyUnregistered) // the new session is signed out
	out, errOut, code := cliInput(t, env, "+15550001111\n24680\ncorrect horse battery staple\n",
		"account", "add", "--tenant", "alice", "--adapter", "telegram", "--sign-in")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^connection [0-9a-f-]{36}: telegram/mtproto account 5001 @spore_reader, active, credential revision 1 \(added\)\n$`, out)
	require.Contains(t, errOut, "Phone number")
	require.Contains(t, errOut, "Login code")
	require.Contains(t, errOut, "Two-step verification password")
	require.NotContains(t, errOut+out, "correct horse")

	// A wrong code: refused, nothing added.
	fake.Fail(tg.UsersGetUsersRequestTypeID, testkit.ErrAuthKeyUnregistered)
	_, errOut, code = cliInput(t, env, "+15550001111\n11111\n", "account", "add", "--tenant", "alice", "--adapter", "telegram", "--sign-in")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "login code")

	// --sign-in is Telegram's.
	_, errOut, code = cliInput(t, env, "", "account", "add", "--tenant", "alice", "--adapter", "x", "--sign-in")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "--sign-in is for --adapter telegram")

	// Without app credentials the sign-in says what to set.
	delete(env, "MONITOR_TELEGRAM_APP_ID")
	_, errOut, code = cliInput(t, env, "+15550001111\n", "account", "add", "--tenant", "alice", "--adapter", "telegram", "--sign-in")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "MONITOR_TELEGRAM_APP_ID")
}
