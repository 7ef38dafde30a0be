package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/monitorhq/monitor/internal/testkit"
)

// asBinary makes the test binary act as `monitor` when re-executed by a test
// that needs a real process (signals, SIGKILL).
const asBinary = "MONITOR_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(asBinary) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// cli runs one command line in-process with exactly the given environment.
func cli(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	// A command that should fail but serves instead ends after a minute.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code = run(ctx, args, lookup, nil, &out, &errOut)
	return out.String(), errOut.String(), code
}

// cliInput is cli with stdin.
func cliInput(t *testing.T, env map[string]string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code = run(ctx, args, lookup, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// allowFakeMedia lets the instance of env download media from the test's
// fakes on 127.0.0.1, as an operator would allow a private media host:
// `monitor admin config set fetch_allow_hosts 127.0.0.1`.
func allowFakeMedia(t testing.TB, env map[string]string) {
	t.Helper()
	var out, errOut bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if code := run(context.Background(), []string{"admin", "config", "set", "fetch_allow_hosts", testkit.FetchAllowHosts}, lookup, nil, &out, &errOut); code != 0 {
		t.Fatalf("admin config set fetch_allow_hosts: exit %d: %s", code, errOut.String())
	}
}

// lastLine is the last line of s: the one-line error after any logs.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestHelpListsEveryCommand(t *testing.T) {
	t.Parallel()
	out, _, code := cli(t, nil, "--help")
	require.Equal(t, 0, code)
	for _, c := range []string{"serve", "migrate", "storage-init", "adapter", "capture", "admin", "version"} {
		require.Regexp(t, regexp.MustCompile(`(?m)^  `+c+` +\S.*$`), out)
	}
	for _, args := range [][]string{
		{"serve", "--help"}, {"migrate", "--help"}, {"admin", "tenant", "create", "--help"}, {"admin", "token", "create", "--help"},
	} {
		out, _, code := cli(t, nil, args...)
		require.Equal(t, 0, code, args)
		require.Contains(t, out, "Usage:", args)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	out, _, code := cli(t, nil, "version")
	require.Equal(t, 0, code)
	require.Regexp(t, `^monitor \S+ \(commit \S+\)\n$`, out)
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	_, errOut, code := cli(t, nil, "admin", "tenant", "create")
	require.Equal(t, 2, code)
	require.Equal(t, "monitor: monitor admin tenant create needs NAME (see `monitor admin tenant create --help`)\n", errOut)

	_, errOut, code = cli(t, nil, "serve", "--no-such-flag")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "unknown flag: --no-such-flag")

	_, errOut, code = cli(t, map[string]string{"MONITOR_DATA_DIR": t.TempDir()}, "admin", "tenant", "create", "x", "--quota", "lots")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--quota "lots": must be a whole number of bytes`)
}

func TestPrintConfig(t *testing.T) {
	t.Parallel()
	out, _, code := cli(t, map[string]string{"MONITOR_TELEGRAM_TOKEN": "123:secret", "MONITOR_DATA_DIR": "/srv/m"}, "serve", "--print-config", "--http-addr", ":9090")
	require.Equal(t, 0, code)
	require.Contains(t, out, "MONITOR_HTTP_ADDR=:9090\t# flag\n")
	require.Contains(t, out, "MONITOR_DATABASE_URL=sqlite:///srv/m/monitor.db\t# default\n")
	require.Contains(t, out, "MONITOR_TELEGRAM_TOKEN=<redacted>\t# env\n")
	require.NotContains(t, out, "123:secret")
}

func TestAdminTenantAndToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "warn"}

	out, errOut, code := cli(t, env, "admin", "tenant", "create", "alice", "--quota", "10GiB")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\n$`, out)

	_, errOut, code = cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: tenant \"alice\" already exists; choose another name\n", errOut)

	token, errOut, code := cli(t, env, "admin", "token", "create", "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^mon_[A-Za-z0-9_-]{43}\n$`, token)
	token = strings.TrimSpace(token)

	_, errOut, code = cli(t, env, "admin", "token", "create", "--tenant", "bob")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: no tenant named \"bob\"; create it with `monitor admin tenant create bob`\n", errOut)

	_, errOut, code = cli(t, env, "admin", "token", "create")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `required flag(s) "tenant" not set`)

	// The token is nowhere in the database files, only its digest.
	for _, name := range []string{"monitor.db", "monitor.db-wal"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			require.False(t, bytes.Contains(b, []byte(token)), name)
			require.False(t, bytes.Contains(b, []byte(token[4:])), name)
		}
	}
}

// migrated returns a data dir whose database is fully migrated.
func migrated(t *testing.T) (dir string, env map[string]string) {
	t.Helper()
	dir = t.TempDir()
	env = map[string]string{"MONITOR_DATA_DIR": dir}
	out, errOut, code := cli(t, env, "migrate")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "applied 0001_initial.sql\n")
	require.Contains(t, out, "database is up to date\n")
	return dir, env
}

func execSQL(t *testing.T, dir, query string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "monitor.db"))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(query)
	require.NoError(t, err)
}

func TestBadInputGetsOneLineError(t *testing.T) {
	t.Parallel()
	fileInTheWay := filepath.Join(t.TempDir(), "not-a-dir")
	require.NoError(t, os.WriteFile(fileInTheWay, []byte("x"), 0o600))

	notSQLite := t.TempDir()
	notes := []byte("my notes, definitely not a database\n")
	require.NoError(t, os.WriteFile(filepath.Join(notSQLite, "monitor.db"), notes, 0o600))

	newer, newerEnv := migrated(t)
	execSQL(t, newer, `INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ('0002_from_a_newer_monitor.sql', 'ab', '2027-01-01 00:00:00+00:00')`)

	changed, changedEnv := migrated(t)
	execSQL(t, changed, `UPDATE schema_migrations SET sha256 = '0000000000000000000000000000000000000000000000000000000000000000' WHERE name = '0001_initial.sql'`)

	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"data dir is a file", map[string]string{"MONITOR_DATA_DIR": fileInTheWay}, []string{"serve"},
			"monitor: data dir " + fileInTheWay + " is not writable: not a directory; fix its permissions or set MONITOR_DATA_DIR to a writable directory"},
		{"data dir under a file", map[string]string{"MONITOR_DATA_DIR": filepath.Join(fileInTheWay, "data")}, []string{"migrate"},
			"monitor: data dir " + filepath.Join(fileInTheWay, "data") + " is not writable: not a directory; fix its permissions or set MONITOR_DATA_DIR to a writable directory"},
		{"not an SQLite file", map[string]string{"MONITOR_DATA_DIR": notSQLite}, []string{"serve"},
			"monitor: store: " + filepath.Join(notSQLite, "monitor.db") + " is not an SQLite database; move it away or point MONITOR_DATABASE_URL at another file"},
		{"migrated by a newer binary", newerEnv, []string{"serve", "--http-addr", "127.0.0.1:0"},
			"monitor: store: database schema is newer than this binary: the database has migration 0002_from_a_newer_monitor.sql (applied 2027-01-01T00:00:00Z), which this monitor does not know; run the newer monitor that applied it, or restore a backup"},
		{"migrated by a newer binary, migrate", newerEnv, []string{"migrate"}, "0002_from_a_newer_monitor.sql"},
		{"checksum changed", changedEnv, []string{"migrate"},
			"monitor: store: applied migration changed: migration 0001_initial.sql was applied with sha256 000000000000… but this monitor's file has"},
		{"checksum changed, admin", changedEnv, []string{"admin", "tenant", "create", "x"}, "migration 0001_initial.sql was applied"},
		{"mysql URL", map[string]string{"MONITOR_DATABASE_URL": "mysql://root:pw@127.0.0.1/monitor"}, []string{"serve"},
			`monitor: config: MONITOR_DATABASE_URL="mysql://root:xxxxx@127.0.0.1/monitor": unsupported scheme "mysql"; use sqlite:///path/to/monitor.db or postgres://user@host:5432/db`},
		{"unknown scheme", map[string]string{"MONITOR_DATABASE_URL": "redis://127.0.0.1"}, []string{"migrate"}, `unsupported scheme "redis"`},
		{"invalid HTTP addr", map[string]string{"MONITOR_HTTP_ADDR": "127.0.0.1"}, []string{"serve"},
			`monitor: config: MONITOR_HTTP_ADDR="127.0.0.1": not a host:port address; use host:port, e.g. 127.0.0.1:8080 or :8080`},
		{"invalid HTTP port", map[string]string{"MONITOR_HTTP_ADDR": "127.0.0.1:99999"}, []string{"serve"}, `port "99999" is not a number from 0 to 65535`},
		{"unknown log level", map[string]string{"MONITOR_LOG_LEVEL": "chatty"}, []string{"migrate"}, `MONITOR_LOG_LEVEL="chatty": must be one of debug, info, warn, error`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := cli(t, tc.env, tc.args...)
			require.Equal(t, 1, code, "stdout: %s\nstderr: %s", out, errOut)
			require.Equal(t, 1, strings.Count(errOut, "\n"), "exactly one line on stderr: %q", errOut)
			require.True(t, strings.HasPrefix(errOut, "monitor: "), errOut)
			require.Contains(t, errOut, tc.want)
		})
	}

	// Nothing was overwritten.
	b, err := os.ReadFile(filepath.Join(notSQLite, "monitor.db"))
	require.NoError(t, err)
	require.Equal(t, notes, b)
	entries, err := os.ReadDir(notSQLite)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no files appear beside a refused database")
	b, err = os.ReadFile(fileInTheWay)
	require.NoError(t, err)
	require.Equal(t, "x", string(b))
}

func TestNonWritableDataDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes through directory permissions; TestBadInputGetsOneLineError covers a data dir that cannot be written")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	require.NoError(t, os.Mkdir(dir, 0o500))
	_, errOut, code := cli(t, map[string]string{"MONITOR_DATA_DIR": dir}, "serve")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: data dir "+dir+" is not writable: permission denied; fix its permissions or set MONITOR_DATA_DIR to a writable directory\n", errOut)
}

func TestListenAddressTaken(t *testing.T) {
	t.Parallel()
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	_, errOut, code := cli(t, map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_LOG_LEVEL": "warn"}, "serve", "--http-addr", l.Addr().String())
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: http: cannot listen on MONITOR_HTTP_ADDR="+l.Addr().String()+": bind: address already in use\n", errOut)
}

// binary starts the test binary as `monitor` with args.
func binary(t testing.TB, env map[string]string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{asBinary + "=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

func TestServeIsReadyAndStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := binary(t, map[string]string{"MONITOR_DATA_DIR": dir}, "serve", "--http-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	// The log line announcing the server carries its address.
	addr := make(chan string, 1)
	var logs bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			var rec struct {
				Msg  string `json:"msg"`
				HTTP string `json:"http"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "monitor is serving" {
				addr <- rec.HTTP
			}
		}
		close(addr)
	}()
	var base string
	select {
	case base = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("monitor serve did not announce its address")
	}
	require.NotEmpty(t, base, "serve exited early")

	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	}
	resp, err := http.Get(base + "/readyz")
	require.NoError(t, err)
	var ready map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ready))
	resp.Body.Close()
	require.Equal(t, "ready", ready["status"])

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() {
		// Read stderr to its end before Wait, which closes the pipe and
		// would cut off the last log lines.
		for range addr {
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		require.NoError(t, err, "serve must exit 0 after SIGTERM")
	case <-time.After(12 * time.Second):
		t.Fatal("serve did not stop within 10 s of SIGTERM")
	}
	require.Contains(t, logs.String(), `"msg":"stopped"`)
}
