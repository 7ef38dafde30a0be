package tgchannel

import (
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// wellFormed reports that s is valid UTF-8 whose UTF-16 form has no lone
// surrogate.
func wellFormed(t *testing.T, s string) {
	t.Helper()
	require.True(t, utf8.ValidString(s), "invalid UTF-8")
	require.NotContains(t, s, "\uFFFD")
	require.Equal(t, s, string(utf16.Decode(utf16.Encode([]rune(s)))))
}

func TestSplitCaptionOf1500UnitsWithEmoji(t *testing.T) {
	t.Parallel()
	// Words of ASCII and emoji (2 UTF-16 units each) up to 1,500 units.
	var b strings.Builder
	for i := 0; utf16Len(b.String()) < 1500-8; i++ {
		if i%3 == 0 {
			b.WriteString("😀🎉 ")
		} else {
			b.WriteString("word ")
		}
	}
	for utf16Len(b.String()) < 1500 {
		b.WriteString("x")
	}
	text := b.String()
	require.Equal(t, 1500, utf16Len(text))
	require.Greater(t, len([]rune(text)), 1000)

	pieces := splitUTF16(text, maxCaption)
	require.Equal(t, text, strings.Join(pieces, ""), "pieces rebuild the text")
	for _, p := range pieces {
		require.LessOrEqual(t, utf16Len(p), maxCaption)
		wellFormed(t, p)
	}

	caption, rest := splitCaption(text)
	require.LessOrEqual(t, utf16Len(caption), maxCaption)
	require.Greater(t, utf16Len(caption), maxCaption/2, "the cut is near the limit")
	require.Len(t, rest, 1)
	wellFormed(t, caption)
	wellFormed(t, rest[0])
	require.Equal(t, strings.Join(strings.Fields(text), " "), caption+" "+rest[0], "nothing lost but the space at the cut")
}

func TestSplitNeverBreaksASurrogatePair(t *testing.T) {
	t.Parallel()
	// No spaces at all, and unit 1024 falls inside an emoji.
	text := "a" + strings.Repeat("😀", 760)
	caption, rest := splitCaption(text)
	require.Equal(t, 1023, utf16Len(caption))
	wellFormed(t, caption)
	require.Len(t, rest, 1)
	require.Equal(t, text, caption+rest[0])

	// A limit smaller than one character still makes progress.
	require.Equal(t, []string{"😀", "😀"}, splitUTF16("😀😀", 1))

	// Long messages split at 4096 units, on a line break when there is one.
	long := strings.Repeat("line of text\n", 700)
	parts := splitMessages(long)
	require.Len(t, parts, 3)
	for _, p := range parts {
		require.LessOrEqual(t, utf16Len(p), maxText)
		require.True(t, strings.HasSuffix(p, "line of text"))
	}
	require.Equal(t, []string{"short"}, splitMessages(" short\n"))
}

func TestUTF16Slice(t *testing.T) {
	t.Parallel()
	s := "😀 @monitor_bot hi"
	require.Equal(t, "@monitor_bot", utf16Slice(s, 3, 12))
	require.Equal(t, "😀", utf16Slice(s, 0, 2))
	require.Equal(t, "", utf16Slice(s, 100, 3))
}

func TestFoldSummary(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Author：line one line two [图片]", foldSummary("Author：line one\n\nline   two\n[图片]"))

	long := "Archivist：" + strings.Repeat("很长的内容 ", 40) + "\nend [图片][视频]"
	got := foldSummary(long)
	require.LessOrEqual(t, len([]rune(got)), summaryRunes)
	require.True(t, strings.HasSuffix(got, "… [图片][视频]"), got)
	require.True(t, strings.HasPrefix(got, "Archivist：很长的内容 很长的内容"), got)
	require.NotContains(t, got, "\n")

	// Without markers the ellipsis ends it.
	plain := foldSummary(strings.Repeat("word ", 50))
	require.Equal(t, summaryRunes, len([]rune(plain)))
	require.True(t, strings.HasSuffix(plain, "…"))

	// Short summaries stay as they are, markers and all.
	require.Equal(t, "x [视频]", foldSummary("x [视频]"))
}

func TestFormatTimeUTC8(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 31, 20, 30, 0, 0, time.UTC)
	require.Equal(t, "2026-02-01 04:30 (UTC+8)", formatTime(&at))
	require.Equal(t, "", formatTime(nil))
	require.Equal(t, "", formatTime(&time.Time{}))
}

func TestFormatHelpers(t *testing.T) {
	t.Parallel()
	require.Equal(t, "30 s", formatWait(langEN, 30))
	require.Equal(t, "2 min", formatWait(langEN, 61))
	require.Equal(t, "1 h 1 min", formatWait(langEN, 3601))
	require.Equal(t, "2 h", formatWait(langEN, 7200))
}
