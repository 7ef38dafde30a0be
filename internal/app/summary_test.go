package app_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

func TestRenderSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, en, zh string
	}{
		{"neutral markers", "Ann：fog over the harbour ⟦image⟧⟦video⟧⟦audio⟧⟦file⟧",
			"Ann：fog over the harbour [photo][video][audio][file]", "Ann：fog over the harbour [图片][视频][音频][文件]"},
		{"stored Chinese markers", "Ann：旧的帖子 [图片][图片][视频]",
			"Ann：旧的帖子 [photo][photo][video]", "Ann：旧的帖子 [图片][图片][视频]"},
		{"markers alone", "Ann：⟦file⟧", "Ann：[file]", "Ann：[文件]"},
		{"mixed forms keep their order", "Ann：x [视频]⟦image⟧", "Ann：x [video][photo]", "Ann：x [视频][图片]"},
		{"a marker in the text is text", "Ann：I wrote [图片] here and ⟦video⟧ there, on purpose",
			"Ann：I wrote [图片] here and ⟦video⟧ there, on purpose", "Ann：I wrote [图片] here and ⟦video⟧ there, on purpose"},
		{"text markers stay, end markers render", "Ann：see [图片] below ⟦image⟧",
			"Ann：see [图片] below [photo]", "Ann：see [图片] below [图片]"},
		{"no markers", "Ann：plain text", "Ann：plain text", "Ann：plain text"},
		{"empty", "", "", ""},
		{"something else in brackets", "Ann：a note [draft]", "Ann：a note [draft]", "Ann：a note [draft]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.en, app.RenderSummary(tc.in, "en"))
			require.Equal(t, tc.zh, app.RenderSummary(tc.in, "zh-CN"))
			require.Equal(t, tc.en, app.RenderSummary(tc.in, "fr"), "any other language is English")
		})
	}
}

func TestLang(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		preference, header, want string
	}{
		{"", "", "en"},
		{"", "zh", "zh-CN"},
		{"", "zh-hans", "zh-CN"},
		{"", "zh-CN", "zh-CN"},
		{"", "zh-TW", "zh-CN"},
		{"", "zh_CN", "zh-CN"},
		{"", "en", "en"},
		{"", "ru", "en"},
		{"", "en-US,en;q=0.9,zh-CN;q=0.8", "en"},
		{"", "zh-CN,zh;q=0.9,en;q=0.8", "zh-CN"},
		{"", "en;q=0.4, zh-TW;q=0.7", "zh-CN"},
		{"", "fr-FR, de;q=0.9, zh;q=0.5", "zh-CN"},
		{"", "fr, de", "en"},
		{"", "*", "en"},
		{"", "zh;q=0, en;q=0.1", "en"},
		{"en", "zh-CN", "en"},
		{"zh-CN", "en-US", "zh-CN"},
		{"nonsense", "zh", "zh-CN"},
	} {
		require.Equal(t, tc.want, app.Lang(tc.preference, tc.header), "preference %q, header %q", tc.preference, tc.header)
	}
}
