package telegram

import "strings"

// Media markers of the summary line, as in the seed ("频道：内容" then one
// marker per post media).
const (
	markerImage = "[图片]"
	markerVideo = "[视频]"
	markerAudio = "[音频]"
	markerFile  = "[文件]"
)

// summary is the one-line form channels list: "Channel：text [图片][视频]".
// Line breaks fold to spaces; each medium of the post adds a marker in
// order (stickers count as images, GIFs and round videos as video, voice
// notes as audio), whether or not the web preview gave its bytes; media
// the preview cannot show at all, and resources such as the avatar, add
// none.
func summary(author, text string, media []mediaItem) string {
	var markers strings.Builder
	for _, m := range media {
		switch m.kind {
		case kindPhoto, kindSticker:
			markers.WriteString(markerImage)
		case kindVideo, kindGIF, kindRoundVideo:
			markers.WriteString(markerVideo)
		case kindVoice, kindAudio:
			markers.WriteString(markerAudio)
		case kindDocument:
			markers.WriteString(markerFile)
		}
	}
	line := foldLines(text)
	var b strings.Builder
	b.WriteString(author)
	b.WriteString("：")
	b.WriteString(line)
	if markers.Len() > 0 {
		if line != "" {
			b.WriteByte(' ')
		}
		b.WriteString(markers.String())
	}
	return b.String()
}

// foldLines turns every run of line breaks (with the spaces around it) into
// one space and trims the ends.
func foldLines(s string) string {
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
