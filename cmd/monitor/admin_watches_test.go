package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAdminWatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "warn"}

	out, errOut, code := cli(t, env, "admin", "watch", "list")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^ID +TENANT +STATE +SOURCE +INTERVAL +NOTIFY +NEW +LAST RUN +NOTE\n$`, out)
	_, errOut, code = cli(t, env, "admin", "watch", "list", "--state", "sleeping")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: state must be pending, active, paused or rejected, not \"sleeping\"\n", errOut)

	_, errOut, code = cli(t, env, "admin", "watch", "approve")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "needs the watch ID")
	_, errOut, code = cli(t, env, "admin", "watch", "approve", "nope")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `watch id "nope" is not a UUID`)
	_, errOut, code = cli(t, env, "admin", "watch", "pause", "0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: no watch with id 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e\n", errOut)

	out, _, code = cli(t, env, "admin", "watch", "--help")
	require.Equal(t, 0, code)
	for _, sub := range []string{"list", "approve", "reject", "pause", "resume"} {
		require.Regexp(t, regexp.MustCompile(`(?m)^  `+sub+` `), out)
	}
	out, _, _ = cli(t, env, "admin", "watch", "list", "--help")
	require.Contains(t, out, "monitor admin watch list --state pending")
}
