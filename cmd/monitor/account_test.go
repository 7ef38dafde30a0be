package main

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/testkit"
)

// serveAccountAdapter serves testkit's account adapter over gRPC, as an
// external adapter (MONITOR_ADAPTERS) is, and returns its address.
func serveAccountAdapter(t *testing.T) (*testkit.AccountAdapter, string) {
	t.Helper()
	fake := testkit.NewAccountAdapter()
	ctx, cancel := context.WithCancel(context.Background())
	lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- adapterapi.Serve(ctx, lis, fake, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() { cancel(); <-done })
	return fake, lis.Addr().String()
}

var connectionLine = regexp.MustCompile(`^connection ([0-9a-f-]{36}): `)

func TestAccountCommands(t *testing.T) {
	t.Parallel()
	fake, addr := serveAccountAdapter(t)
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_ADAPTERS": "builtin," + addr,
		"MONITOR_MASTER_KEY": "cli-account-test-master-key-0123456789"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)

	out, errOut, code := cliInput(t, env, "account=1001\nhandle=alice_acct\ntoken=cli-session-one\n",
		"account", "add", "--tenant", "alice", "--adapter", "acct")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^connection [0-9a-f-]{36}: acct/session account 1001 @alice_acct, active, credential revision 1 \(added\)\n$`, out)
	id := connectionLine.FindStringSubmatch(out)[1]
	require.Equal(t, []byte("acct1|1001|alice_acct|cli-session-one"), fake.Checked()[0], "the trailing newline is not the secret's")

	// From a file, the same account: replaced.
	file := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(file, []byte("account=1001\nhandle=alice_acct\ntoken=cli-session-two"), 0o600))
	out, errOut, code = cli(t, env, "account", "add", "--tenant", "alice", "--adapter", "acct", "--secret-file", file)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "connection "+id+": acct/session account 1001 @alice_acct, active, credential revision 2 (credential replaced)\n", out)

	out, errOut, code = cli(t, env, "account", "list", "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	require.Regexp(t, `^ID\s+ADAPTER\s+PROVIDER\s+ACCOUNT\s+HANDLE\s+STATUS\s+REVISION\s+DEFAULT\s+CHECKED$`, lines[0])
	require.Regexp(t, `^`+id+`\s+acct\s+session\s+1001\s+alice_acct\s+active\s+2\s+yes\s+\d{4}-`, lines[1])
	require.NotContains(t, out, "cli-session")

	out, errOut, code = cli(t, env, "account", "check", id, "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "connection "+id+": acct/session account 1001 @alice_acct, active\n", out)

	// A capture through the account, here and now.
	out, errOut, code = cli(t, env, "capture", testkit.AccountPostURL("5"), "--tenant", "alice", "--connection", id, "--wait")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "complete")
	require.Equal(t, []byte("acct1|1001|alice_acct|cli-session-two"), fake.Fetched()[0])
	_, errOut, code = cli(t, env, "capture", testkit.AccountPostURL("5"), "--tenant", "alice", "--connection", "nope")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--connection "nope" is not a connection id`)
	fake.Expire("cli-session-two")
	out, errOut, code = cli(t, env, "account", "check", id, "--tenant", "alice")
	require.Equal(t, 1, code)
	require.Contains(t, out, "reauth_required")
	require.Equal(t, "monitor: the platform refused the credential: the upstream no longer accepts this session; sign in again and add the account anew; add the account again\n", lastLine(errOut)+"\n")

	// Bad input, each with a clear line and exit code.
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"", []string{"account", "add", "--tenant", "alice", "--adapter", "acct"}, 1, "the credential is empty"},
		{"account=1002\nhandle=h", []string{"account", "add", "--tenant", "alice", "--adapter", "acct"}, 1, "the token line is missing"},
		{"account=1002;token=t", []string{"account", "add", "--tenant", "alice", "--adapter", "telegram"}, 1, "this is not a Telegram session"},
		{"account=1002;token=t", []string{"account", "add", "--tenant", "alice", "--adapter", "x"}, 1, "no auth_token or ct0 cookie of x.com found"},
		{"account=1002;token=t", []string{"account", "add", "--tenant", "nobody", "--adapter", "acct"}, 1, "nobody"},
		{"account=1002;token=t", []string{"account", "add", "--tenant", "alice"}, 2, `required flag(s) "adapter" not set`},
		{"", []string{"account", "add", "--tenant", "alice", "--adapter", "acct", "--secret-file", file + ".missing"}, 2, "--secret-file"},
		{"", []string{"account", "check", "not-an-id", "--tenant", "alice"}, 2, `"not-an-id" is not a connection id`},
		{"", []string{"account", "revoke", "0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e", "--tenant", "alice"}, 1, "tenant alice has no connection"},
	} {
		_, errOut, code := cliInput(t, env, tc.stdin, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, lastLine(errOut), tc.want, tc.args)
	}
	noKey := map[string]string{"MONITOR_DATA_DIR": env["MONITOR_DATA_DIR"], "MONITOR_ADAPTERS": env["MONITOR_ADAPTERS"]}
	_, errOut, code = cliInput(t, noKey, "account=1001;token=t", "account", "add", "--tenant", "alice", "--adapter", "acct")
	require.Equal(t, 1, code)
	require.Contains(t, lastLine(errOut), "MONITOR_MASTER_KEY is not set, so this instance cannot keep account credentials")
	wrongKey := map[string]string{"MONITOR_DATA_DIR": env["MONITOR_DATA_DIR"], "MONITOR_ADAPTERS": env["MONITOR_ADAPTERS"],
		"MONITOR_MASTER_KEY": strings.Repeat("w", 32)}
	_, errOut, code = cli(t, wrongKey, "account", "check", id, "--tenant", "alice")
	require.Equal(t, 1, code)
	require.Contains(t, lastLine(errOut), "does not open with this MONITOR_MASTER_KEY")

	out, errOut, code = cli(t, env, "account", "revoke", id, "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "connection "+id+": acct/session account 1001, revoked; its credential is deleted\n", out)
	out, _, code = cli(t, env, "account", "list", "--tenant", "alice", "--adapter", "acct")
	require.Equal(t, 0, code)
	require.Regexp(t, id+`\s+acct\s+session\s+1001\s+alice_acct\s+revoked\s+2\s+-`, out)
	_, errOut, code = cli(t, env, "account", "check", id, "--tenant", "alice")
	require.Equal(t, 1, code)
	require.Contains(t, lastLine(errOut), "is revoked; add the account again")

	out, _, code = cli(t, env, "account", "--help")
	require.Equal(t, 0, code)
	for _, sub := range []string{"add", "list", "check", "revoke"} {
		require.Regexp(t, `(?m)^  `+sub+` +\S`, out)
	}
}
