package export

import (
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/ech0"
)

// echoOf is a collection as an Ech0 echo: its file, the echo, and where
// its media go. The id stays the collection's (a UUID, as Ech0 wants);
// created_at is when the post was published, else saved; each media file
// is a flat key (its SHA-256 and extension) under the folder Ech0 routes
// the extension to; the post's address becomes a WEBSITE card.
func echoOf(c *capsule.Collection) (string, *ech0.Echo, []mediaRef) {
	created := c.SavedAt
	if c.PublishedAt != nil && !c.PublishedAt.IsZero() {
		created = *c.PublishedAt
	}
	e := &ech0.Echo{ID: c.ID, CreatedAt: created.UTC().Format(time.RFC3339), Tags: c.Tags, Private: c.Visibility == "private", Content: c.Text}
	var refs []mediaRef
	for _, m := range c.Media {
		key := m.SHA256 + "." + capsule.Ext(m.Mime)
		e.Files = append(e.Files, ech0.File{Key: key, Category: category(m.Mime), ContentType: m.Mime, Size: m.Size, Width: m.Width, Height: m.Height})
		refs = append(refs, mediaRef{sha: m.SHA256, file: ech0.MediaPath(key)})
	}
	if len(e.Files) > 0 {
		e.Layout = ech0.DefaultLayout
	}
	if c.URL != "" {
		e.Extension = &ech0.Extension{Type: "WEBSITE", Payload: map[string]any{"url": c.URL}}
	}
	return ech0.EchoPath(c.ID, created), e, refs
}

// category is Ech0's file category of a media type.
func category(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	case mime == "application/pdf":
		return "pdf"
	}
	return "file"
}
