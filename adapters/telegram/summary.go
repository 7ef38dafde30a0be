package telegram

import (
	"strings"

	"github.com/monitorhq/monitor/adapters/kit"
)

// summary is the one-line form channels list: "Channel：text ⟦image⟧⟦video⟧".
// Each medium of the post adds a marker in order (stickers count as
// images, GIFs and round videos as video, voice notes as audio), whether
// or not the web preview gave its bytes; media the preview cannot show at
// all, and resources such as the avatar, add none.
func summary(author, text string, media []mediaItem) string {
	var markers strings.Builder
	for _, m := range media {
		switch m.kind {
		case kindPhoto, kindSticker:
			markers.WriteString(kit.MarkerImage)
		case kindVideo, kindGIF, kindRoundVideo:
			markers.WriteString(kit.MarkerVideo)
		case kindVoice, kindAudio:
			markers.WriteString(kit.MarkerAudio)
		case kindDocument:
			markers.WriteString(kit.MarkerFile)
		}
	}
	return kit.Summary(author, text, markers.String())
}
