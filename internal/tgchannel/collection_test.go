package tgchannel

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
)

var (
	rootPage = uuid.MustParse("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	lastPage = uuid.MustParse("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a99")
)

const profileLink = "https://x.com/tidewatch"

func chain(mod func(*channelapi.Collection)) channelapi.Collection {
	c := channelapi.Collection{Kind: "profile", Title: "Tide Watch", InputURL: profileLink, State: "complete",
		Total: 100, Archived: 100, HasMore: true, MoreFrom: lastPage, Root: rootPage, BatchSize: 1000}
	if mod != nil {
		mod(&c)
	}
	return c
}

// buttons lists a message's buttons as text → callback data.
func buttons(m outMessage) map[string]string {
	out := map[string]string{}
	if m.kb == nil {
		return out
	}
	for _, row := range m.kb.InlineKeyboard {
		for _, b := range row {
			out[b.Text] = b.CallbackData
		}
	}
	return out
}

func TestCollectionProgressMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		l       locale
		c       channelapi.Collection
		text    string
		buttons map[string]string
	}{
		{"reading the first page", langEN, chain(func(c *channelapi.Collection) {
			c.Title, c.State, c.Running, c.Total, c.Archived, c.HasMore = "", "queued", true, 0, 0, false
		}), "📚 " + profileLink + " — 0 of 0 posts archived\n⏳ Reading the first page…",
			map[string]string{"⏹ Stop": "x:" + rootPage.String()}},
		{"running, with failures", langEN, chain(func(c *channelapi.Collection) {
			c.State, c.Running, c.Total, c.Archived, c.Queued, c.Failed, c.HasMore = "downloading", true, 1200, 1120, 78, 2, false
		}), "📚 Tide Watch — 1,120 of 1,200 posts archived · 2 failed\n⏳ Archiving… 78 waiting\n" + profileLink,
			map[string]string{"⏹ Stop": "x:" + rootPage.String()}},
		{"reading a next page", langEN, chain(func(c *channelapi.Collection) {
			c.State, c.Running, c.HasMore = "downloading", true, false
		}), "📚 Tide Watch — 100 of 100 posts archived\n⏳ Reading the next page…\n" + profileLink,
			map[string]string{"⏹ Stop": "x:" + rootPage.String()}},
		{"ended with more", langEN, chain(nil),
			"📚 Tide Watch — 100 of 100 posts archived\n✅ Done for now — there are more posts.\n" + profileLink,
			map[string]string{"⏬ Fetch more": "m:" + lastPage.String(), "⏬ Fetch 1,000 more": "b:" + lastPage.String()}},
		{"no batch from an adapter without one", langEN, chain(func(c *channelapi.Collection) { c.BatchSize = 0 }),
			"📚 Tide Watch — 100 of 100 posts archived\n✅ Done for now — there are more posts.\n" + profileLink,
			map[string]string{"⏬ Fetch more": "m:" + lastPage.String()}},
		{"no batch as small as a page", langEN, chain(func(c *channelapi.Collection) { c.BatchSize = 100 }),
			"📚 Tide Watch — 100 of 100 posts archived\n✅ Done for now — there are more posts.\n" + profileLink,
			map[string]string{"⏬ Fetch more": "m:" + lastPage.String()}},
		{"archived to the end", langEN, chain(func(c *channelapi.Collection) { c.HasMore = false }),
			"📚 Tide Watch — 100 of 100 posts archived\n✅ Done: archived to the end.\n" + profileLink, map[string]string{}},
		{"with problems", langEN, chain(func(c *channelapi.Collection) {
			c.State, c.Archived, c.Failed, c.HasMore, c.Error = "partial", 97, 3, false, "3 of 100 links could not be archived"
		}), "📚 Tide Watch — 97 of 100 posts archived · 3 failed\n⚠️ Done, with problems.\n3 of 100 links could not be archived\n" + profileLink,
			map[string]string{}},
		{"stopped while running", langEN, chain(func(c *channelapi.Collection) {
			c.State, c.Running, c.Stopped, c.HasMore, c.Archived, c.Queued = "downloading", true, true, false, 40, 60
		}), "📚 Tide Watch — 40 of 100 posts archived\n⏹ Stopped: nothing new is started; posts already on their way finish.\n" + profileLink,
			map[string]string{}},
		{"the first page failed", langEN, chain(func(c *channelapi.Collection) {
			c.Title, c.State, c.Total, c.Archived, c.HasMore, c.Error = "", "failed", 0, 0, false, "the profile is protected"
		}), "❌ Could not archive " + profileLink + "\nthe profile is protected", map[string]string{}},
		{"a channel", langEN, chain(func(c *channelapi.Collection) {
			c.Kind, c.Title, c.InputURL, c.HasMore = "channel", "Tides", "https://t.me/tides", false
		}),
			"📣 Tides — 100 of 100 posts archived\n✅ Done: archived to the end.\nhttps://t.me/tides", map[string]string{}},
		{"running, in Chinese", langZH, chain(func(c *channelapi.Collection) {
			c.State, c.Running, c.Total, c.Archived, c.Queued, c.Failed, c.HasMore = "downloading", true, 200, 120, 78, 2, false
		}), "📚 Tide Watch — 已存档 120 条帖子，共 200 条 · 2 条失败\n⏳ 正在存档… 还有 78 条在排队\n" + profileLink,
			map[string]string{"⏹ 停止": "x:" + rootPage.String()}},
		{"ended with more, in Chinese", langZH, chain(nil),
			"📚 Tide Watch — 已存档 100 条帖子，共 100 条\n✅ 这一批完成了，还有更多帖子。\n" + profileLink,
			map[string]string{"⏬ 获取更多": "m:" + lastPage.String(), "⏬ 再获取 1,000 条": "b:" + lastPage.String()}},
		{"stopped, in Chinese", langZH, chain(func(c *channelapi.Collection) { c.Stopped, c.HasMore = true, false }),
			"📚 Tide Watch — 已存档 100 条帖子，共 100 条\n⏹ 已停止：不再开始新的存档；已在进行中的帖子会完成。\n" + profileLink,
			map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := renderCollection(tc.l, tc.c)
			require.Equal(t, tc.text, m.text)
			require.Equal(t, tc.buttons, buttons(m))
		})
	}
}

// Every button of a progress message names its page and nothing else,
// within Telegram's 64 bytes, and the registry runs it.
func TestCollectionButtonsCarryOnlyTheSubmission(t *testing.T) {
	t.Parallel()
	reg := newRegistry()
	for _, c := range []channelapi.Collection{chain(nil), chain(func(c *channelapi.Collection) { c.Running = true })} {
		for text, data := range buttons(renderCollection(langEN, c)) {
			require.LessOrEqual(t, len(data), 64, text)
			b, arg, err := reg.parseCallback(data)
			require.NoError(t, err, text)
			require.Contains(t, []string{btnMore, btnBatch, btnStop}, b.prefix)
			_, err = uuid.Parse(arg)
			require.NoError(t, err)
		}
	}
	for _, bad := range []string{"m:", "m:not-an-id", "x:1234", "b:" + rootPage.String() + ":2"} {
		_, _, err := reg.parseCallback(bad)
		require.Error(t, err, bad)
	}
}

func TestCollectionEditsOnlyWhenSomethingChanged(t *testing.T) {
	t.Parallel()
	a, b := renderCollection(langEN, chain(nil)), renderCollection(langEN, chain(nil))
	require.Equal(t, a.signature(), b.signature())
	// The same text with other buttons is a change (fetch more moved on).
	moved := renderCollection(langEN, chain(func(c *channelapi.Collection) { c.MoreFrom = rootPage }))
	require.Equal(t, a.text, moved.text)
	require.NotEqual(t, a.signature(), moved.signature())
	// An edit to a message without buttons takes the old ones away.
	end := renderCollection(langEN, chain(func(c *channelapi.Collection) { c.HasMore = false }))
	require.Nil(t, end.kb)
	require.NotNil(t, end.withoutOldButtons().kb)
	require.Empty(t, end.withoutOldButtons().kb.InlineKeyboard)
}

func TestFormatCount(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567", -1500: "-1,500"} {
		require.Equal(t, want, formatCount(n))
	}
}
