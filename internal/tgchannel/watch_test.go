package tgchannel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
)

func TestParseInterval(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"30m": 30 * time.Minute, "2h": 2 * time.Hour, "1d": 24 * time.Hour,
		"45": 45 * time.Minute, "1h30m": 90 * time.Minute, "7d": 7 * 24 * time.Hour} {
		got, err := parseInterval(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "soon", "0", "-5m", "30s", "8d", "1.5s", "很快"} {
		_, err := parseInterval(bad)
		require.Error(t, err, bad)
	}
}

// A digest lists the run's posts oldest first and counts what it leaves
// out; a watch that paused itself says why; both in both languages.
func TestRenderWatchNotice(t *testing.T) {
	t.Parallel()
	var posts []string
	for i := range maxDigestPosts + 2 {
		posts = append(posts, "https://x.com/tidewatch/status/"+string(rune('a'+i%26)))
	}
	n := channelapi.WatchNotice{ChatID: 7, SourceURL: "https://x.com/tidewatch", Notify: "digest", Posts: posts}
	en := renderWatchNotice(langEN, n)
	require.Len(t, en, 1)
	require.Contains(t, en[0].text, "👀 32 new posts archived from https://x.com/tidewatch:\n1. https://x.com/tidewatch/status/a\n")
	require.Contains(t, en[0].text, "\n… and 2 more (see your library)")
	zh := renderWatchNotice(langZH, n)
	require.Contains(t, zh[0].text, "👀 32 条新帖子已从 https://x.com/tidewatch 存档：")
	require.Contains(t, zh[0].text, "……还有 2 条（见你的收藏）")

	n = channelapi.WatchNotice{ChatID: 7, SourceURL: "https://x.com/tidewatch", Notify: "none",
		Error: "paused by itself after 5 failed runs in a row: the profile is gone"}
	en = renderWatchNotice(langEN, n)
	require.Len(t, en, 1)
	require.Equal(t, "⏸ Stopped watching https://x.com/tidewatch for now: paused by itself after 5 failed runs in a row: the profile is gone\n"+
		"Resume it in the web library once the source is back, or remove it with /unwatch.", en[0].text)
	zh = renderWatchNotice(langZH, n)
	require.Contains(t, zh[0].text, "⏸ 已暂停关注 https://x.com/tidewatch：")
	require.Contains(t, zh[0].text, "用 /unwatch 删除")
}
