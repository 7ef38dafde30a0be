package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// The instance key is made at first start, 0600, never leaves the data
// dir; the CLI prints its public half, signs exports with it, and checks
// capsules and the archive against it.
func TestVerifyCommands(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	data := t.TempDir()
	env := map[string]string{"MONITOR_DATA_DIR": data, "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	allowFakeMedia(t, env)
	_, errOut, code = cli(t, env, "capture", "https://x.com/archivist_demo/status/2078399740166950912", "--tenant", "alice", "--wait")
	require.Equal(t, 0, code, errOut)

	st, err := os.Stat(filepath.Join(data, "instance.key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	out, errOut, code := cli(t, env, "version", "--key")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	key, ok := strings.CutPrefix(lines[1], "signing key: ")
	require.True(t, ok, out)
	fp, ok := strings.CutPrefix(lines[2], "fingerprint: ")
	require.True(t, ok, out)

	out, errOut, code = cli(t, env, "verify")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "verified 1 collection(s): 1 revision(s), ")
	require.Contains(t, out, ": 0 mismatch(es)\n")
	_, errOut, code = cli(t, env, "verify", "--tenant", "alice", "--sample", "1")
	require.Equal(t, 0, code, errOut)

	dir := filepath.Join(t.TempDir(), "capsule")
	_, errOut, code = cli(t, env, "export", "capsule", "--tenant", "alice", "-o", dir, "--history")
	require.Equal(t, 0, code, errOut)
	require.FileExists(t, filepath.Join(dir, "monitor.sum"))
	require.FileExists(t, filepath.Join(dir, "monitor.sum.sig"))
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NotEqual(t, "instance.key", d.Name(), "the key is never exported")
		return err
	})

	snap := filepath.Join(t.TempDir(), "snapshot.zip")
	_, errOut, code = cli(t, env, "export", "snapshot", "-o", snap)
	require.Equal(t, 0, code, errOut)
	zr, err := zip.OpenReader(snap)
	require.NoError(t, err)
	for _, f := range zr.File {
		require.NotContains(t, f.Name, "instance.key", "a snapshot never holds the key")
	}
	require.NoError(t, zr.Close())

	out, errOut, code = cli(t, nil, "check", "--verify", dir)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "signed by key "+fp+" ("+key+")")
	out, errOut, code = cli(t, nil, "check", "--verify", dir, "--key", key)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "signed by the key given, "+fp)
	keyFile := filepath.Join(t.TempDir(), "key.pub")
	require.NoError(t, os.WriteFile(keyFile, []byte(key+"\n"), 0o644))
	_, errOut, code = cli(t, nil, "check", "--verify", dir, "--key", keyFile)
	require.Equal(t, 0, code, errOut)
	_, errOut, code = cli(t, nil, "check", "--verify", dir, "--key", "nonsense")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--key: is neither a base64 Ed25519 public key")

	// One changed byte of the post's text: named, exit 1.
	mds, err := filepath.Glob(filepath.Join(dir, "collections", "*", "*", "*.md"))
	require.NoError(t, err)
	require.Len(t, mds, 1)
	b, err := os.ReadFile(mds[0])
	require.NoError(t, err)
	i := strings.LastIndex(string(b), "harbour")
	require.Positive(t, i)
	b[i] = 'H'
	require.NoError(t, os.WriteFile(mds[0], b, 0o644))
	rel, _ := filepath.Rel(dir, mds[0])
	out, errOut, code = cli(t, nil, "check", "--verify", dir, "--key", key)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, filepath.ToSlash(rel)+": sha256: the file has SHA-256 ")
	require.Contains(t, out, filepath.ToSlash(rel)+": text: this version's content hashes to ")
	require.Contains(t, errOut, "the capsule has 2 error(s)")
}
