package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// The imports as a person runs them: a report with the counts, the skips
// and why, the media; a second run that says nothing is new.
func TestImportCommands(t *testing.T) {
	t.Parallel()
	xdir := testkit.RealFixturesDir(t, "x-archive/milahu104-2026")
	tgdir := testkit.RealFixturesDir(t, "telegram-desktop/ragtgbot")
	echo := testkit.RealFixturesDir(t, "ech0/capsule-from-check_test")
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)

	out, errOut, code := cli(t, env, "import", "x-archive", xdir, "--tenant", "alice", "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "dry run, nothing written; would import: X archive: 149 post(s) read, 149 new")
	require.Contains(t, out, "skipped  40  retweet (add --include-retweets to import them)")
	out, errOut, code = cli(t, env, "import", "x-archive", xdir, "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "imported: X archive: 149 post(s) read, 149 new, 0 already in the archive")
	require.Contains(t, out, "media: ")
	out, errOut, code = cli(t, env, "import", "x-archive", xdir, "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "149 post(s) read, 0 new, 149 already in the archive")
	require.Contains(t, out, "nothing new: every post of this X archive is in the archive already")

	out, errOut, code = cli(t, env, "import", "x-archive", xdir, "--tenant", "alice", "--include-retweets", "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "189 post(s) read, 40 new")
	require.Contains(t, out, "unavailable  https://x.com/milahu104/status/2027108952211693705  https://video.twimg.com/")

	out, errOut, code = cli(t, env, "import", "telegram-export", tgdir, "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "skipped  1  service message")
	require.Contains(t, out, "imported: Telegram export: 4 post(s) read, 4 new")

	out, errOut, code = cli(t, env, "import", "capsule", echo, "--tenant", "alice")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "skipped  1  comment")
	require.Contains(t, out, "imported: Ech0 capsule: 1 post(s) read, 1 new")

	out, errOut, code = cli(t, nil, "check", echo)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "Ech0 capsule, 1 echo file(s): 0 error(s), 0 warning(s)\n", out)

	_, errOut, code = cli(t, env, "import", "x-archive", tgdir, "--tenant", "alice")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "looks like a Telegram Desktop export; use monitor import telegram-export")

	out, _, code = cli(t, nil, "import", "x-archive", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "--include-deleted")
}
