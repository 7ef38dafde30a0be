package x

import (
	"strings"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// summary is the one-line form channels list: "Author：text ⟦image⟧⟦video⟧".
// Each display media adds a marker in order (GIFs count as video);
// resources such as the avatar add none.
func summary(author, text string, media []*adapterv1.Media) string {
	var markers strings.Builder
	for _, m := range media {
		if m.GetPurpose() != "" {
			continue
		}
		switch m.GetKind() {
		case adapterv1.MediaKind_MEDIA_KIND_IMAGE:
			markers.WriteString(kit.MarkerImage)
		case adapterv1.MediaKind_MEDIA_KIND_VIDEO, adapterv1.MediaKind_MEDIA_KIND_GIF:
			markers.WriteString(kit.MarkerVideo)
		}
	}
	return kit.Summary(author, text, markers.String())
}
