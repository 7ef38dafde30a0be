package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// requireModes fails unless every file under root (root itself when it is
// a file) has no permission bit beyond file, and every directory none
// beyond dir: the umask may take more away, never add.
func requireModes(t *testing.T, root string, file, dir os.FileMode) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := file
		if d.IsDir() {
			want = dir
		}
		require.Zero(t, info.Mode().Perm()&^want, "%s is %v, more open than %v", p, info.Mode().Perm(), want)
		n++
		return nil
	})
	require.NoError(t, err)
	require.NotZero(t, n)
}

// What Monitor writes is not readable by every user of the machine: the
// database, media objects and a staged restore are the owner's alone
// (0600, directories 0750); capsules and snapshots, which the owner hands
// on, may be read by the group (0640, directories 0750).
func TestFileModes(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	dataDir := t.TempDir()
	env := map[string]string{"MONITOR_DATA_DIR": dataDir, "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	allowFakeMedia(t, env)
	_, errOut, code = cli(t, env, "capture", "https://x.com/archivist_demo/status/2078399740166950912", "--tenant", "alice", "--wait")
	require.Equal(t, 0, code, errOut)

	requireModes(t, filepath.Join(dataDir, "monitor.db"), 0o600, 0)
	requireModes(t, filepath.Join(dataDir, "objects"), 0o600, 0o750)

	work := t.TempDir()
	capsuleDir := filepath.Join(work, "capsule")
	_, errOut, code = cli(t, env, "export", "capsule", "--tenant", "alice", "-o", capsuleDir)
	require.Equal(t, 0, code, errOut)
	requireModes(t, capsuleDir, 0o640, 0o750)
	capsuleZip := filepath.Join(work, "capsule.zip")
	_, errOut, code = cli(t, env, "export", "capsule", "--tenant", "alice", "--zip", "-o", capsuleZip)
	require.Equal(t, 0, code, errOut)
	requireModes(t, capsuleZip, 0o640, 0)
	st, err := os.Stat(capsuleZip)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), st.Mode().Perm()&0o640, "the owner and group can read it")

	snap := filepath.Join(work, "snap.zip")
	_, errOut, code = cli(t, env, "export", "snapshot", "-o", snap)
	require.Equal(t, 0, code, errOut)
	requireModes(t, snap, 0o640, 0)

	dst := t.TempDir()
	denv := map[string]string{"MONITOR_DATA_DIR": dst, "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code = cli(t, denv, "import", "snapshot", snap, "--yes")
	require.Equal(t, 0, code, errOut)
	requireModes(t, filepath.Join(dst, "restore"), 0o600, 0o750)
	_, errOut, code = cli(t, denv, "admin", "tenant", "list")
	require.Equal(t, 0, code, errOut)
	requireModes(t, filepath.Join(dst, "monitor.db"), 0o600, 0)
	requireModes(t, filepath.Join(dst, "objects"), 0o600, 0o750)
}
