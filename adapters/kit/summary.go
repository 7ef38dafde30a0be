package kit

import "strings"

// Media markers of the summary line, one per post media after the text as
// in the seed ("作者名：内容 [图片]"), but locale-neutral: core renders them
// in the reader's language (app.RenderSummary), so the stored summary, and
// with it the revision's hash, is the same whoever reads it.
const (
	MarkerImage = "⟦image⟧"
	MarkerVideo = "⟦video⟧"
	MarkerAudio = "⟦audio⟧"
	MarkerFile  = "⟦file⟧"
)

// Summary is the one-line form channels list: "Author：text ⟦image⟧⟦video⟧".
// Line breaks in text fold to spaces; markers (the post's media markers in
// order, e.g. MarkerImage+MarkerVideo) follow after one space, or alone
// when there is no text.
func Summary(author, text, markers string) string {
	line := FoldLines(text)
	var b strings.Builder
	b.WriteString(author)
	b.WriteString("：")
	b.WriteString(line)
	if markers != "" {
		if line != "" {
			b.WriteByte(' ')
		}
		b.WriteString(markers)
	}
	return b.String()
}

// FoldLines turns every run of line breaks (with the spaces around it)
// into one space and trims the ends.
func FoldLines(s string) string {
	isBreak := func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085'
	}
	if !strings.ContainsFunc(s, isBreak) {
		return strings.TrimSpace(s)
	}
	lines := strings.FieldsFunc(s, isBreak)
	parts := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
