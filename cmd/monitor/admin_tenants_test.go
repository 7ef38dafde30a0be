package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// set-limits --channels changes how many channels a tenant may bind, and
// leaves its other limits as they were.
func TestAdminTenantChannelLimit(t *testing.T) {
	t.Parallel()
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_LOG_LEVEL": "warn"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	out, errOut, code := cli(t, env, "admin", "tenant", "set-limits", "alice", "--daily", "5")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "tenant alice limits: interval -, daily 5, concurrent -, channels 1\n", out)
	out, errOut, code = cli(t, env, "admin", "tenant", "set-limits", "alice", "--channels", "3")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "tenant alice limits: interval -, daily 5, concurrent -, channels 3\n", out)
	_, errOut, code = cli(t, env, "admin", "tenant", "set-limits", "alice", "--channels", "99")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "the channel limit must be from 0 to 20")
}
