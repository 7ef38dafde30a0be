package ech0

import (
	"fmt"
	"sort"
	"strings"

	"github.com/monitorhq/monitor/internal/capsule"
)

// Loaded is an Ech0 capsule read and checked.
type Loaded struct {
	Manifest Manifest
	Echoes   []LoadedEcho
	Comments []Comment
	// Problems are what Ech0's checker would say, errors first.
	Problems []capsule.Problem
}

// LoadedEcho is one echo file.
type LoadedEcho struct {
	Path string
	Echo Echo
}

// Errors counts the problems that block an import.
func (l *Loaded) Errors() int {
	n := 0
	for _, p := range l.Problems {
		if !p.Warning {
			n++
		}
	}
	return n
}

func (l *Loaded) errorf(p, field, format string, args ...any) {
	l.Problems = append(l.Problems, capsule.Problem{Path: p, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (l *Loaded) warnf(p, field, format string, args ...any) {
	l.Problems = append(l.Problems, capsule.Problem{Path: p, Field: field, Message: fmt.Sprintf(format, args...), Warning: true})
}

// Load reads an Ech0 capsule and checks it by the rules of Ech0's checker:
// the manifest's schema_version and owner.username; each echo's id (a
// UUID, unique), created_at (RFC 3339), extension (type and payload) and
// files (key or url, a flat clean key whose bytes are in the capsule);
// each comment's required fields and no forbidden ones. Unknown layouts,
// categories and extension types, sizes that differ and dangling media
// are warnings, as there.
func Load(src *capsule.Source) (*Loaded, error) {
	l := &Loaded{}
	l.Problems = append(l.Problems, src.Problems...)
	data, err := src.ReadFile(ManifestName, capsule.MaxManifestBytes)
	if err != nil {
		l.errorf(ManifestName, "", "%v", err)
		return l, nil
	}
	if err := decodeYAML(data, &l.Manifest); err != nil {
		l.errorf(ManifestName, "", "%v", err)
	} else {
		switch v := l.Manifest.SchemaVersion; {
		case v <= 0:
			l.errorf(ManifestName, "schema_version", "schema_version is required")
		case v > SchemaVersion:
			l.errorf(ManifestName, "schema_version", "unsupported schema_version %d, this build supports up to %d", v, SchemaVersion)
		}
		if l.Manifest.Owner.Username == "" {
			l.errorf(ManifestName, "owner.username", "owner.username is required")
		}
	}
	referenced := map[string]bool{}
	firstSeen := map[string]string{}
	ids := map[string]bool{}
	for _, p := range src.Files() {
		if !strings.HasPrefix(p, EchoesDir+"/") || !strings.HasSuffix(p, ".md") {
			continue
		}
		data, err := src.ReadFile(p, capsule.MaxCollectionFileBytes)
		if err != nil {
			l.errorf(p, "", "%v", err)
			continue
		}
		front, body, err := capsule.SplitFrontmatter(data)
		if err != nil {
			l.errorf(p, "", "%v", err)
			continue
		}
		var e Echo
		if err := decodeYAML(front, &e); err != nil {
			l.errorf(p, "", "%v", err)
			continue
		}
		e.Content = string(body)
		switch {
		case e.ID == "":
			l.errorf(p, "id", "id is required")
		case !validUUID(e.ID):
			l.errorf(p, "id", "id %q is not a valid UUID", e.ID)
		default:
			if first, dup := firstSeen[e.ID]; dup {
				l.errorf(p, "id", "duplicate id %s, already used by %s", e.ID, first)
			} else {
				firstSeen[e.ID] = p
			}
			ids[e.ID] = true
		}
		if e.CreatedAt == "" {
			l.errorf(p, "created_at", "created_at is required")
		} else if _, err := parseTime(e.CreatedAt); err != nil {
			l.errorf(p, "created_at", "%v", err)
		}
		if e.Layout != "" && !validLayouts[e.Layout] {
			l.warnf(p, "layout", "unknown layout %q, consumers fall back to %q", e.Layout, DefaultLayout)
		}
		if x := e.Extension; x != nil {
			if x.Type == "" {
				l.errorf(p, "extension.type", "extension.type is required when extension is present")
			} else if !validExtensions[x.Type] {
				l.warnf(p, "extension.type", "unknown extension type %q, consumers skip rendering it", x.Type)
			}
			if x.Payload == nil {
				l.errorf(p, "extension.payload", "extension.payload is required when extension is present")
			}
		}
		for i, f := range e.Files {
			field := fmt.Sprintf("files[%d]", i)
			switch {
			case f.Key != "" && f.URL != "":
				l.errorf(p, field, "key and url are mutually exclusive")
			case f.Key == "" && f.URL == "":
				l.errorf(p, field, "one of key or url is required")
			}
			if f.Category != "" && !validCategories[f.Category] {
				l.warnf(p, field+".category", "unknown category %q, consumers fall back to %q", f.Category, "file")
			}
			if f.Key == "" {
				continue
			}
			if err := validKey(f.Key); err != nil {
				l.errorf(p, field+".key", "%v", err)
				continue
			}
			media := MediaPath(f.Key)
			referenced[media] = true
			if !src.Has(media) {
				l.errorf(p, field+".key", "capsule is not self-contained: %s is missing for key %q", media, f.Key)
				continue
			}
			if f.Size > 0 && f.Size != src.Size(media) {
				l.warnf(p, field+".size", "declared size %d does not match %s (%d bytes on disk)", f.Size, media, src.Size(media))
			}
		}
		l.Echoes = append(l.Echoes, LoadedEcho{Path: p, Echo: e})
	}
	if src.Has(CommentsName) {
		l.loadComments(src, ids)
	}
	for _, p := range src.Files() {
		if strings.HasPrefix(p, FilesDir+"/") && !referenced[p] {
			l.warnf(p, "", "dangling media: not referenced by any echo file")
		}
	}
	sort.SliceStable(l.Problems, func(i, k int) bool { return !l.Problems[i].Warning && l.Problems[k].Warning })
	return l, nil
}

func (l *Loaded) loadComments(src *capsule.Source, echoIDs map[string]bool) {
	data, err := src.ReadFile(CommentsName, capsule.MaxCollectionFileBytes)
	if err != nil {
		l.errorf(CommentsName, "", "%v", err)
		return
	}
	var raw struct {
		Comments []map[string]any `yaml:"comments"`
	}
	if err := decodeYAML(data, &raw); err != nil {
		l.errorf(CommentsName, "", "%v", err)
		return
	}
	for i, item := range raw.Comments {
		for _, f := range forbiddenCommentFields {
			if _, ok := item[f]; ok {
				l.errorf(CommentsName, fmt.Sprintf("comments[%d].%s", i, f), "forbidden field %q must not appear in a capsule", f)
			}
		}
	}
	var doc struct {
		Comments []Comment `yaml:"comments"`
	}
	if err := decodeYAML(data, &doc); err != nil {
		l.errorf(CommentsName, "", "%v", err)
		return
	}
	seen := map[string]int{}
	for i, c := range doc.Comments {
		at := func(name string) string { return fmt.Sprintf("comments[%d].%s", i, name) }
		if c.ID == "" {
			l.errorf(CommentsName, at("id"), "id is required")
		} else if first, dup := seen[c.ID]; dup {
			l.errorf(CommentsName, at("id"), "duplicate id %s, already used by comments[%d]", c.ID, first)
		} else {
			seen[c.ID] = i
		}
		if c.EchoID == "" {
			l.errorf(CommentsName, at("echo_id"), "echo_id is required")
		} else if !echoIDs[c.EchoID] {
			l.warnf(CommentsName, at("echo_id"), "orphan comment: echo %s is not in this capsule", c.EchoID)
		}
		if c.Nickname == "" {
			l.errorf(CommentsName, at("nickname"), "nickname is required")
		}
		if c.Content == "" {
			l.errorf(CommentsName, at("content"), "content is required")
		}
		if c.CreatedAt == "" {
			l.errorf(CommentsName, at("created_at"), "created_at is required")
		} else if _, err := parseTime(c.CreatedAt); err != nil {
			l.errorf(CommentsName, at("created_at"), "%v", err)
		}
		if c.Status != "" && c.Status != "approved" {
			l.warnf(CommentsName, at("status"), "status %q is not %q: a capsule should only carry approved comments", c.Status, "approved")
		}
	}
	l.Comments = doc.Comments
}
