package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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

// qrScanner is the terminal of `account add --qr` with a phone in front
// of it: once the n-th login link is printed, it scans it.
type qrScanner struct {
	fake   *testkit.Telegram
	scanAt int
	mu     sync.Mutex
	buf    bytes.Buffer
	seen   int
	errs   chan error
}

func (s *qrScanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	for _, m := range regexp.MustCompile(`tg://login\?token=[A-Za-z0-9_=-]+`).FindAllString(s.buf.String(), -1)[s.seen:] {
		s.seen++
		if s.seen == s.scanAt {
			go func() { s.errs <- s.fake.ScanQR(m) }()
		}
	}
	return len(p), nil
}

func (s *qrScanner) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// `monitor account add --adapter telegram --qr` prints a QR code (and its
// link) in the terminal, waits for the scan, asks the 2FA password after
// it, and adds the session like the phone sign-in; a code nobody scans
// ends with a clear error, and --qr needs the app credentials.
func TestAccountTelegramQR(t *testing.T) {
	t.Parallel()
	fake := testkit.NewTelegram(t)
	fake.SetSignIn(t, "", "", "correct horse battery staple")
	keys := filepath.Join(t.TempDir(), "dc.pem")
	require.NoError(t, os.WriteFile(keys, fake.KeysPEM(), 0o600))
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_MASTER_KEY": "cli-account-test-master-key-0123456789",
		"MONITOR_TELEGRAM_APP_ID": "1", "MONITOR_TELEGRAM_APP_HASH": "test-hash",
		"MONITOR_TELEGRAM_DC_ADDR": fake.Addr(), "MONITOR_TELEGRAM_DC_KEYS": keys}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	term := &qrScanner{fake: fake, scanAt: 1, errs: make(chan error, 1)}
	code = run(ctx, []string{"account", "add", "--tenant", "alice", "--adapter", "telegram", "--qr"}, lookup,
		strings.NewReader("correct horse battery staple\n"), &out, term)
	require.Equal(t, 0, code, term.String())
	require.NoError(t, <-term.errs)
	require.Regexp(t, `^connection [0-9a-f-]{36}: telegram/mtproto account 5001 @spore_reader, active, credential revision 1 \(added\)\n$`, out.String())
	require.Contains(t, term.String(), "Scan this QR code")
	require.Contains(t, term.String(), "Link Desktop Device")
	require.Contains(t, term.String(), "█▀")
	require.Contains(t, term.String(), "Two-step verification password")
	require.NotContains(t, term.String()+out.String(), "correct horse")

	// Nobody scans: each expired code is replaced, then the wait ends.
	fake.SetQRLogin(2 * time.Second)
	out.Reset()
	term = &qrScanner{fake: fake}
	code = run(ctx, []string{"account", "add", "--tenant", "alice", "--adapter", "telegram", "--qr", "--qr-wait", "3s"}, lookup,
		strings.NewReader(""), &out, term)
	require.NotEqual(t, 0, code)
	require.Contains(t, lastLine(term.String()), "no QR code was scanned in time")
	require.GreaterOrEqual(t, term.seen, 2, term.String())

	// --qr is Telegram's, and makes its own session.
	_, errOut, code = cli(t, env, "account", "add", "--tenant", "alice", "--adapter", "x", "--qr")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "--qr is for --adapter telegram")
	_, errOut, code = cli(t, env, "account", "add", "--tenant", "alice", "--adapter", "telegram", "--qr", "--secret-file", keys)
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "leave out --secret-file")
	out2, _, code := cli(t, env, "account", "add", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out2, "--qr")
	require.Contains(t, out2, "Link Desktop Device")

	// Without app credentials --qr says what to set.
	delete(env, "MONITOR_TELEGRAM_APP_HASH")
	_, errOut, code = cli(t, env, "account", "add", "--tenant", "alice", "--adapter", "telegram", "--qr")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "MONITOR_TELEGRAM_APP_ID")
}
