package x

import (
	"strings"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Media markers of the summary line, as in the seed ("作者名：内容" then one
// marker per post media).
const (
	markerImage = "[图片]"
	markerVideo = "[视频]"
)

// summary is the one-line form channels list: "Author：text [图片][视频]".
// Line breaks fold to spaces; each display media adds a marker in order
// (GIFs count as video); resources such as the avatar add none.
func summary(author, text string, media []*adapterv1.Media) string {
	var markers strings.Builder
	for _, m := range media {
		if m.GetPurpose() != "" {
			continue
		}
		switch m.GetKind() {
		case adapterv1.MediaKind_MEDIA_KIND_IMAGE:
			markers.WriteString(markerImage)
		case adapterv1.MediaKind_MEDIA_KIND_VIDEO, adapterv1.MediaKind_MEDIA_KIND_GIF:
			markers.WriteString(markerVideo)
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
