package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

func TestCaptureCommand(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	allowFakeMedia(t, env)

	out, errOut, code := cli(t, env, "capture", "https://x.com/archivist_demo/status/2078399740166950912", "--tenant", "alice", "--wait")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	require.Regexp(t, `^capture \S+ of collection \S+: queued\n`, out)
	require.True(t, strings.HasSuffix(out, "complete\n"), out)

	// Archived already: answers at once.
	out, _, code = cli(t, env, "capture", "https://twitter.com/archivist_demo/status/2078399740166950912", "--tenant", "alice")
	require.Equal(t, 0, code)
	require.Contains(t, out, ": complete\n")

	_, errOut, code = cli(t, env, "capture", "https://x.com/archivist_demo/status/1000000000000000001", "--tenant", "alice", "--wait")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: capture failed: adapter x: post not found or not public\n", errOut)

	fx.FailMediaPath("/media/video.twimg.com/tweet_video/GwdR5tYbQAAx3Kp.mp4", 404)
	_, errOut, code = cli(t, env, "capture", "https://x.com/archivist_demo/status/2080424850067443712", "--tenant", "alice", "--wait")
	require.Equal(t, 2, code, errOut)
	require.Contains(t, errOut, "monitor: capture partial: 1 of ")
	require.Contains(t, errOut, "the media host answered 404 Not Found")

	_, errOut, code = cli(t, env, "capture", "https://example.com/a/status/1", "--tenant", "alice")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: no adapter handles links to example.com\n", errOut)

	_, errOut, code = cli(t, env, "capture", "https://x.com/a/status/1", "--tenant", "nobody")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `no tenant named "nobody"`)
}

// A profile with --limit: the batch's posts are archived, the output
// counts them, and the exit code is the worst post's.
func TestCaptureProfileCommand(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	tl := fx.AddTimeline("cli_timeline", "4400000000000000009", 16, 8)
	env := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, env, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	allowFakeMedia(t, env)

	out, errOut, code := cli(t, env, "capture", tl.ProfileURL, "--tenant", "alice", "--limit", "10", "--wait")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	require.Contains(t, out, "complete: 10 of 10 posts archived (10 complete, 0 partial, 0 failed)\n")
	require.Contains(t, out, "there is more: archive the next page with POST /v1/submissions/")

	// One post's photo fails: partial, exit 2.
	fx.FailMediaPath("/media/pbs.twimg.com/media/S"+tl.Posts[15][strings.LastIndex(tl.Posts[15], "/")+1:]+"-0.jpg", 404)
	out, errOut, code = cli(t, env, "capture", tl.ProfileURL, "--tenant", "alice", "--limit", "16", "--wait")
	require.Equal(t, 2, code, "stdout: %s\nstderr: %s", out, errOut)
	require.Contains(t, out, "partial: 16 of 16 posts archived (15 complete, 1 partial, 0 failed)\n")

	for _, args := range [][]string{{"--limit", "0"}, {"--limit", "-3"}} {
		_, errOut, code = cli(t, env, append([]string{"capture", tl.ProfileURL, "--tenant", "alice"}, args...)...)
		require.Equal(t, 2, code, errOut)
		require.Contains(t, errOut, "--limit must be a positive number of posts")
	}
	_, errOut, code = cli(t, env, "capture", tl.ProfileURL, "--tenant", "alice", "--limit", "5000")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "largest batch, 1000 posts")
	_, errOut, code = cli(t, env, "capture", tl.Posts[0], "--tenant", "alice", "--limit", "5")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "single post")
}
