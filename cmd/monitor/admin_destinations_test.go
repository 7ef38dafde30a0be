package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// admin destination add stores the rclone config encrypted: neither list
// nor the audit log shows it, and without a master key nothing is stored.
func TestAdminDestination(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "rclone.conf")
	const secret = "Xl_Ef-jLCwhtejmYESST6GzerLU_HzLkUg"
	require.NoError(t, os.WriteFile(conf, []byte("[dav]\ntype = webdav\nurl = http://127.0.0.1:9\npass = "+secret+"\n"), 0o600))
	env := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "warn"}

	_, errOut, code := cli(t, env, "admin", "destination", "add", "dav", "--remote", "dav:archive", "--config", conf)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "MONITOR_MASTER_KEY")

	env["MONITOR_MASTER_KEY"] = "test-master-key-0123456789"
	out, errOut, code := cli(t, env, "admin", "destination", "add", "dav", "--remote", "dav:archive", "--config", conf)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "destination dav added: dav:archive\n", out)
	_, errOut, code = cli(t, env, "admin", "destination", "add", "dav", "--remote", "dav:archive", "--config", conf)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "exists already")
	_, errOut, code = cli(t, env, "admin", "destination", "add", "other", "--remote", "nope")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--config FILE")

	_, errOut, code = cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	out, errOut, code = cli(t, env, "admin", "destination", "allow", "dav", "--tenant", "alice", "--default")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "tenant alice may push to dav (default: true)\n", out)

	list, errOut, code := cli(t, env, "admin", "destination", "list")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `(?m)^dav +dav:archive +\d{4}-`, list)
	audit, errOut, code := cli(t, env, "admin", "audit")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, audit, "destination.add")
	for _, s := range []string{list, audit} {
		require.NotContains(t, s, secret)
		require.NotContains(t, s, "127.0.0.1:9")
	}
	db, err := os.ReadFile(filepath.Join(dir, "monitor.db"))
	require.NoError(t, err)
	wal, _ := os.ReadFile(filepath.Join(dir, "monitor.db-wal"))
	require.NotContains(t, string(db)+string(wal), secret, "stored encrypted")

	out, errOut, code = cli(t, env, "admin", "destination", "remove", "dav")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "destination dav removed\n", out)
	_, errOut, code = cli(t, env, "admin", "destination", "remove", "dav")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "no destination named dav")
}

// export capsule --to copies the capsule to a destination with rclone.
func TestExportCapsuleToDestination(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed")
	}
	fx := testkit.NewFxTwitter(t)
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_LOG_LEVEL": "error",
		"MONITOR_MASTER_KEY": "test-master-key-0123456789"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	allowFakeMedia(t, env)
	_, errOut, code = cli(t, env, "capture", "https://x.com/archivist_demo/status/2078399740166950912", "--tenant", "alice", "--wait")
	require.Equal(t, 0, code, errOut)
	root := t.TempDir()
	conf := filepath.Join(t.TempDir(), "rclone.conf")
	require.NoError(t, os.WriteFile(conf, []byte("[local]\ntype = local\n"), 0o600))
	_, errOut, code = cli(t, env, "admin", "destination", "add", "drive", "--remote", "local:"+root, "--config", conf)
	require.Equal(t, 0, code, errOut)

	out, errOut, code := cli(t, env, "export", "capsule", "--tenant", "alice", "--to", "drive:exports/alice")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "exported 1 collection(s) to drive:exports/alice")
	_, err := os.Stat(filepath.Join(root, "exports", "alice", "monitor.yaml"))
	require.NoError(t, err)
	mds, err := filepath.Glob(filepath.Join(root, "exports", "alice", "collections", "x", "*", "*.md"))
	require.NoError(t, err)
	require.Len(t, mds, 1)

	_, errOut, code = cli(t, env, "export", "capsule", "--tenant", "alice", "--to", "nowhere:x")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "no destination named nowhere")
}
