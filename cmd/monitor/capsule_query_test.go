package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExportCapsuleQuery(t *testing.T) {
	t.Parallel()
	help, _, code := cli(t, nil, "export", "capsule", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, help, "--query '#harbour OR \"storm plan\" -has:video'")
	require.Contains(t, help, "export only the collections this search matches")

	src := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, src, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	dir := filepath.Join(t.TempDir(), "capsule")
	_, errOut, code = cli(t, src, "export", "capsule", "--tenant", "alice", "-o", dir, "--query", "after:2026-13-01")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "--query: at character 7: 2026-13-01 is not a date: there is no month 13")
	require.NoDirExists(t, dir)

	_, errOut, code = cli(t, src, "export", "capsule", "--tenant", "alice", "-o", dir, "--query", "tide")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `no collection to export matches --query "tide", so no capsule was written`)
	require.NoDirExists(t, dir)
}
