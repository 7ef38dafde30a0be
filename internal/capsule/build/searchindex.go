package build

import (
	"encoding/json"
	"strings"
)

// searchEntry is one post in the site's search index (search-index.js),
// read by static/search.js. It carries what the archive's own search
// looks at (internal/store/search.go and its migration), so that a query
// finds the same posts on the site as in the archive: the full text, the
// author's name and handles, alt texts and link titles are searched as
// text; handles, flags, platform, kind and the day of publication answer
// from:, has:, platform:, kind:, after: and before:. Names are short and
// empty fields left out: the index is loaded whole by every search.
type searchEntry struct {
	URL    string `json:"u"`
	Author string `json:"a,omitempty"`
	Handle string `json:"h,omitempty"` // shown with the result
	Date   string `json:"d"`           // shown with the result
	Text   string `json:"x,omitempty"`
	// More is the alt texts and link titles, one per line.
	More string `json:"m,omitempty"`
	// Handles are the handles of the post and its author or channel,
	// lower case, each between spaces: " monitor_demo ".
	Handles string `json:"hs,omitempty"`
	// Flags are what the post has, each between spaces: " photo media ".
	Flags    string `json:"f,omitempty"`
	Platform string `json:"p,omitempty"`
	// Kind is post, profile or channel ("" for another entity type).
	Kind string `json:"k,omitempty"`
	// Published is the UTC day the post was published, 2026-11-05 (""
	// when unknown: after: and before: never match it, as in the archive).
	Published string `json:"pd,omitempty"`
}

func searchEntryOf(p *post) searchEntry {
	c := p.c
	e := searchEntry{URL: p.URL, Author: c.Author.Name, Handle: c.Author.Handle, Date: p.Date.UTC().Format("2006-01-02"),
		Text: c.Text, Platform: c.Platform, Kind: entityKind(c.Kind)}
	if c.PublishedAt != nil {
		e.Published = c.PublishedAt.UTC().Format("2006-01-02")
	}
	var more []string
	flags := map[string]bool{}
	for _, m := range c.Media {
		if m.Alt != "" {
			more = append(more, m.Alt)
		}
		switch m.Kind {
		case "image":
			flags["photo"] = true
		case "video", "gif":
			flags[m.Kind] = true
		}
		flags["media"] = true
	}
	g := &c.Graph
	// The handles are the root's and those of the entities it is
	// authored_by or posted_in.
	owners := map[string]bool{g.Root: true}
	for _, r := range g.Relations {
		if r.From == g.Root && (r.Relation == "authored_by" || r.Relation == "posted_in") {
			owners[r.To] = true
		}
	}
	var handles []string
	for _, en := range g.Entities {
		var data struct {
			Handle      string `json:"handle"`
			Username    string `json:"username"`
			Channel     string `json:"channel"`
			Poll        any    `json:"poll"`
			LinkPreview struct {
				Title string `json:"title"`
			} `json:"link_preview"`
		}
		_ = json.Unmarshal(en.Data, &data)
		if data.LinkPreview.Title != "" {
			more = append(more, data.LinkPreview.Title)
		}
		if _, ok := data.Poll.(map[string]any); ok && en.Key == g.Root {
			flags["poll"] = true
		}
		if owners[en.Key] {
			h := data.Handle
			if h == "" {
				h = data.Username
			}
			if h == "" {
				h = data.Channel
			}
			if h != "" {
				handles = append(handles, strings.ToLower(h))
			}
		}
	}
	if related(g, g.Root, "quotes") != "" {
		flags["quote"] = true
	}
	if len(handles) > 0 {
		e.Handles = " " + strings.Join(handles, " ") + " "
	}
	var fl []string
	for _, f := range []string{"photo", "video", "gif", "media", "quote", "poll"} {
		if flags[f] {
			fl = append(fl, f)
		}
	}
	if len(fl) > 0 {
		e.Flags = " " + strings.Join(fl, " ") + " "
	}
	e.More = strings.Join(more, "\n")
	return e
}

// entityKind is the kind: filter's name for an entity type, as the
// archive's search reads it.
func entityKind(entityType string) string {
	switch {
	case strings.HasSuffix(entityType, ".post"), strings.HasSuffix(entityType, ".message"):
		return "post"
	case strings.HasSuffix(entityType, ".profile"):
		return "profile"
	case strings.HasSuffix(entityType, ".channel"):
		return "channel"
	}
	return ""
}
