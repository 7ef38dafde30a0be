package ech0

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/importer"
)

// Options control an import.
type Options struct {
	importer.ForeignOptions
	// IncludePrivate also imports echoes marked private.
	IncludePrivate bool
}

// Import writes a loaded capsule's echoes through the archive writer in
// one go. A capsule with errors is refused whole.
func Import(ctx context.Context, a *app.App, src *capsule.Source, l *Loaded, opts Options) (importer.ForeignReport, error) {
	rep := importer.ForeignReport{Format: "Ech0 capsule"}
	rep.DryRun = opts.DryRun
	if n := l.Errors(); n > 0 {
		return rep, fmt.Errorf("nothing was imported: the Ech0 capsule %s has %d error(s) by Ech0's own rules: %w", src.Path, n, importer.ErrFormat)
	}
	media := importer.NewMediaSet(src)
	var skips importer.Skips
	var items []app.ImportCollection
	for _, le := range l.Echoes {
		e := le.Echo
		if e.Private && !opts.IncludePrivate {
			skips.Add("private echo (add --include-private to import them)")
			continue
		}
		it, unavailable, err := echoItem(le, l, media, opts)
		if err != nil {
			return rep, err
		}
		rep.Unavailable = append(rep.Unavailable, unavailable...)
		items = append(items, it)
		if p := opts.Progress; p != nil {
			p(len(items), len(l.Echoes))
		}
	}
	for range l.Comments {
		skips.Add("comment (Monitor keeps the echoes, not their comments)")
	}
	rep.Skips = skips.List()
	err := importer.Write(ctx, a, importer.Slice(items), media, Provider, opts.ForeignOptions, &rep)
	return rep, err
}

func echoItem(le LoadedEcho, l *Loaded, media *importer.MediaSet, opts Options) (app.ImportCollection, []importer.Unavailable, error) {
	e := le.Echo
	id := strings.ToLower(e.ID)
	created, _ := parseTime(e.CreatedAt) // Load checked it
	created = created.UTC()
	author := e.Username
	if author == "" {
		author = l.Manifest.Owner.Username
	}
	text := e.Content
	// Monitor's tags are the #hashtags of a post's text: an echo's tags
	// that its text does not carry are added on a last line, so search
	// (#tag) and exports find them.
	var missing []string
	lower := strings.ToLower(text)
	for _, t := range e.Tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t != "" && !strings.Contains(lower, "#"+strings.ToLower(t)) {
			missing = append(missing, "#"+strings.ReplaceAll(t, " ", "_"))
		}
	}
	if len(missing) > 0 {
		if strings.TrimSpace(text) != "" {
			text = strings.TrimRight(text, "\n") + "\n\n"
		}
		text += strings.Join(missing, " ")
	}
	var out []app.ImportMedia
	var unavailable []importer.Unavailable
	for _, f := range e.Files {
		if f.Key == "" {
			unavailable = append(unavailable, importer.Unavailable{Post: le.Path, Media: f.URL,
				Reason: "stored outside the capsule (files[].url); Monitor imports only the files a capsule holds"})
			continue
		}
		kind := ""
		switch f.Category {
		case "image", "video", "audio":
			kind = f.Category
		}
		md, err := media.Add(MediaPath(f.Key), kind)
		if err != nil {
			return app.ImportCollection{}, nil, fmt.Errorf("nothing was imported: %s: %w", le.Path, err)
		}
		if f.ContentType != "" && (md.Mime == "application/octet-stream" || md.Mime == "text/plain") {
			md.Mime = f.ContentType
		}
		out = append(out, app.ImportMedia{SHA256: md.SHA256, Kind: md.Kind, Mime: md.Mime, Size: md.Size, Width: f.Width, Height: f.Height, Alt: f.Name})
	}
	data := map[string]any{"id": id, "created_at": created.Format("2006-01-02T15:04:05Z07:00"), "username": author, "content": e.Content}
	if len(e.Tags) > 0 {
		data["tags"] = e.Tags
	}
	if e.Layout != "" {
		data["layout"] = e.Layout
	}
	if e.Extension != nil {
		data["extension"] = map[string]any{"type": e.Extension.Type, "payload": e.Extension.Payload}
	}
	if len(e.Files) > 0 {
		data["files"] = e.Files
	}
	if u := l.Manifest.Site.ServerURL; u != "" {
		data["server_url"] = u
	}
	body, err := json.Marshal(data)
	if err != nil {
		return app.ImportCollection{}, nil, fmt.Errorf("nothing was imported: %s: %w", le.Path, err)
	}
	claim := "public"
	if e.Private {
		claim = "private"
	}
	pub := created
	return app.ImportCollection{
		ID:       importer.ItemID(opts.TenantID, Platform, EntityTypeEcho, "", id),
		Platform: Platform, EntityType: EntityTypeEcho, ExternalID: id,
		Visibility: claim, SavedAt: created, Label: le.Path,
		Revisions: []app.ImportRevision{{
			CapturedAt: created, Text: text, TextKind: "markdown", Summary: summary(author, text), AuthorName: author,
			PublishedAt: &pub, Media: out,
			Graph: app.ImportGraph{Root: "echo", Entities: []app.ImportEntity{{Key: "echo", Type: EntityTypeEcho, ExternalID: id, Data: body}}},
		}},
	}, unavailable, nil
}

func summary(author, text string) string {
	line := strings.Join(strings.Fields(text), " ")
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	return author + "：" + line
}
