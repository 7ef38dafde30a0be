package tgchannel

import (
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
)

// Benchmarks of the text functions every message passes through: the
// group filter on each incoming group message, the caption split on each
// item sent with media, the summary folding on each /list line.

// captionWithEmoji is a text of exactly units UTF-16 units: words of ASCII
// and emoji (two units each), as in TestSplitCaptionOf1500UnitsWithEmoji.
func captionWithEmoji(units int) string {
	var b strings.Builder
	for i := 0; utf16Len(b.String()) < units-8; i++ {
		if i%3 == 0 {
			b.WriteString("😀🎉 ")
		} else {
			b.WriteString("word ")
		}
	}
	for utf16Len(b.String()) < units {
		b.WriteString("x")
	}
	return b.String()
}

// BenchmarkSplitCaption splits a 1,500-unit caption with emoji into a
// 1,024-unit caption and one follow-up message.
func BenchmarkSplitCaption(b *testing.B) {
	text := captionWithEmoji(1500)
	if n := utf16Len(text); n != 1500 {
		b.Fatalf("the text is %d units", n)
	}
	if caption, rest := splitCaption(text); utf16Len(caption) > maxCaption || len(rest) != 1 {
		b.Fatalf("caption of %d units and %d messages", utf16Len(caption), len(rest))
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		splitCaption(text)
	}
}

// BenchmarkFoldSummary folds /list summaries: a long one cut with the
// ellipsis before its media markers, a long one without markers, and a
// short one that only has its whitespace folded.
func BenchmarkFoldSummary(b *testing.B) {
	cases := []struct {
		name, in, suffix string
	}{
		{"long-markers", "Archivist：" + strings.Repeat("很长的内容 ", 40) + "\nend [图片][视频]", "… [图片][视频]"},
		{"long-plain", strings.Repeat("word ", 50), "…"},
		{"short", "Author：line one\n\nline   two\n[图片]", "two [图片]"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if got := foldSummary(c.in); !strings.HasSuffix(got, c.suffix) || len([]rune(got)) > summaryRunes {
				b.Fatalf("folded to %q", got)
			}
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				foldSummary(c.in)
			}
		})
	}
}

// BenchmarkGroupFilter decides whether group messages address the bot: a
// mention after emoji, a command addressed to the bot, a command for
// another bot, and chatter with links and another user's mention at its
// end, where every entity is looked at and none matches.
func BenchmarkGroupFilter(b *testing.B) {
	me := botIdentity{ID: 7000001, Username: testBot}
	ent := func(typ models.MessageEntityType, off, n int) models.MessageEntity {
		return models.MessageEntity{Type: typ, Offset: off, Length: n}
	}
	link := "https://x.com/archivist_demo/status/2078399740166950912"
	chatter := strings.Repeat("😀 did you see this one? ", 12)
	var chatterEnts []models.MessageEntity
	for range 3 {
		chatterEnts = append(chatterEnts, ent(models.MessageEntityTypeURL, utf16Len(chatter), len(link)))
		chatter += link + " "
	}
	chatterEnts = append(chatterEnts, ent(models.MessageEntityTypeMention, utf16Len(chatter), len("@someone_else")))
	chatter += "@someone_else"
	for _, e := range chatterEnts {
		if got := utf16Slice(chatter, e.Offset, e.Length); got != link && got != "@someone_else" {
			b.Fatalf("entity %+v addresses %q", e, got)
		}
	}

	cases := []struct {
		name     string
		text     string
		entities []models.MessageEntity
		want     bool
	}{
		{"mention-after-emoji", "😀 look @Monitor_Test_Bot " + link,
			[]models.MessageEntity{ent(models.MessageEntityTypeMention, 8, 17), ent(models.MessageEntityTypeURL, 26, len(link))}, true},
		{"command-for-us", "/list@monitor_test_bot 2", []models.MessageEntity{ent(models.MessageEntityTypeBotCommand, 0, 22)}, true},
		{"command-for-another", "/list@other_bot", []models.MessageEntity{ent(models.MessageEntityTypeBotCommand, 0, 15)}, false},
		{"chatter-not-for-us", chatter, chatterEnts, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if got := addressed(c.text, c.entities, me); got != c.want {
				b.Fatalf("addressed = %v, want %v", got, c.want)
			}
			for b.Loop() {
				addressed(c.text, c.entities, me)
			}
		})
	}
}
