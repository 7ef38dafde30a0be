// Package capsule is Monitor's portable archive format, capsule v1: a folder
// (or a zip of one) of frontmatter-markdown files, one per collection, with
// the media bytes beside them, named by content. docs/capsule.md is the
// public contract; this package holds its Go types, a strict reader and a
// deterministic writer. Checking a whole capsule, exporting, importing and
// building a static site live in the sibling packages check, export,
// importer and build.
package capsule

import (
	"encoding/json"
	"fmt"
	"time"
)

// SchemaVersion is the capsule schema this package reads and writes. Added
// fields do not change it; a changed or removed field does.
const SchemaVersion = 1

// Layout names inside a capsule.
const (
	// ManifestName is the manifest file at the capsule's root.
	ManifestName = "monitor.yaml"
	// CollectionsDir holds one .md file per collection.
	CollectionsDir = "collections"
	// FilesDir holds the media bytes, named by SHA-256.
	FilesDir = "files"
	// HugoDir holds what Hugo needs to build the capsule as it is (its
	// content adapter and layouts); Monitor's reader skips it, but it is
	// one of the capsule's files, listed in monitor.sum like the others,
	// where other folders starting with a dot (.git) are not.
	HugoDir = ".hugo"
)

// Limits that keep a hostile capsule from exhausting the reader.
const (
	// MaxCollectionFileBytes is the largest collection file read.
	MaxCollectionFileBytes = 16 << 20
	// MaxManifestBytes is the largest manifest read.
	MaxManifestBytes = 1 << 20
	// MaxYAMLNodes bounds the nodes of one YAML document.
	MaxYAMLNodes = 200_000
	// MaxYAMLDepth bounds the nesting of one YAML document.
	MaxYAMLDepth = 64
	// MaxMediaBytes is the largest media file accepted.
	MaxMediaBytes = 8 << 30
)

// Enumerations of capsule v1. A value outside them is an error.
var (
	// Visibilities of a collection.
	Visibilities = []string{"public", "private"}
	// MediaKinds of media and resources.
	MediaKinds = []string{"image", "video", "gif", "audio", "document"}
	// TextKinds of a post's text.
	TextKinds = []string{"plain", "markdown"}
)

// Manifest is monitor.yaml: what the capsule is and where it came from.
type Manifest struct {
	// SchemaVersion is the capsule schema (1).
	SchemaVersion int
	// Generator names the program that wrote the capsule, "monitor v1.2.3".
	Generator string
	// ExportedAt is when the capsule was written (zero: unknown).
	ExportedAt time.Time
	// Site is what a static build shows as the site's identity.
	Site Site
	// Owner names whose archive this is.
	Owner Owner
}

// Site is the public identity of a built site.
type Site struct {
	Title       string
	Description string
	// Language is a BCP 47 tag for the pages' lang attribute ("" = none).
	Language string
}

// Owner names the archive's owner. It never holds credentials or emails.
type Owner struct {
	Name string
}

// Collection is one collection file: a saved post (or profile) with its
// current content and, optionally, its earlier versions.
type Collection struct {
	// ID is the collection's UUID ("" when the file has none).
	ID          string
	Platform    string
	Kind        string // the entity type, such as x.post
	ObjectScope string // "" for most platforms
	ExternalID  string
	URL         string
	Visibility  string
	// ClaimedVisibility is the visibility an earlier capsule claimed for
	// content this archive imported, when it differs from Visibility
	// (imports are always private): "" when there was no such claim.
	ClaimedVisibility string
	SavedAt           time.Time
	// PublishedAt is when the post was published upstream (nil: unknown).
	PublishedAt *time.Time
	// CapturedAt is when the current content was captured (zero: unknown).
	CapturedAt time.Time
	Author     Author
	Summary    string
	Tags       []string
	// Sensitive marks the whole post as sensitive; media carry their own flag.
	Sensitive bool
	// TextKind says how Text is written: plain or markdown.
	TextKind string
	Media    []Media
	Graph    Graph
	// History holds earlier versions, oldest first (export --history).
	History []Revision
	// Chain is the collection's hash chain (docs/verify.md), nil in
	// capsules from before chains.
	Chain *Chain
	// Text is the post's text, verbatim: the file's body.
	Text string
}

// Chain is a collection's hash chain as its file carries it: every
// revision's link, whether or not the file holds that revision's content.
type Chain struct {
	// Version names the encoding (monitor-chain-v1).
	Version string
	// Head is the newest link's chain hash.
	Head string
	// Revisions are the links, oldest first.
	Revisions []ChainLink
}

// ChainLink is one revision's link: every field its chain hash covers.
type ChainLink struct {
	Time           time.Time
	PrevHash       string
	ChainHash      string
	ContentHash    string
	Media          []string
	Raw            []string
	AdapterID      string
	AdapterVersion string
}

// Author is who wrote the post. Only Name round-trips; Handle and URL are
// taken from the entity graph when exporting.
type Author struct {
	Name   string
	Handle string
	URL    string
}

// Media is one media file shown with the post.
type Media struct {
	// File is the media's path from the capsule root, files/ab/ab….jpg.
	File       string
	SHA256     string
	Kind       string
	Mime       string
	Size       int64
	Width      int
	Height     int
	DurationMS int // written as duration, in seconds
	Alt        string
	Sensitive  bool
	SourceURL  string
}

// Graph is the structured entity graph of a version.
type Graph struct {
	Root      string
	Entities  []Entity
	Relations []Relation
}

// Entity is one adapter-defined object of a graph, with its data as JSON.
type Entity struct {
	Key        string
	Type       string
	ExternalID string
	// Data is the entity's data: written as YAML, read back as JSON with the
	// same keys in the same order.
	Data      json.RawMessage
	Resources []Resource
}

// Resource is a media file attached to an entity (an avatar, quoted media).
type Resource struct {
	Purpose string
	File    string
	SHA256  string
	Kind    string
	Mime    string
	Size    int64
}

// Relation is one edge of a graph.
type Relation struct {
	From     string
	Relation string
	To       string
}

// Revision is an earlier version of a collection, kept in History.
type Revision struct {
	CapturedAt  time.Time
	PublishedAt *time.Time
	AuthorName  string
	Summary     string
	TextKind    string
	Media       []Media
	Graph       Graph
	Text        string
}

// Files lists every media path the collection references, current and
// historical, in order of appearance, without repeats.
func (c *Collection) Files() []FileRef {
	var out []FileRef
	seen := map[string]bool{}
	add := func(field, file, sum string, size int64) {
		if file == "" || seen[file] {
			return
		}
		seen[file] = true
		out = append(out, FileRef{Field: field, File: file, SHA256: sum, Size: size})
	}
	walk := func(prefix string, media []Media, g Graph) {
		for i, m := range media {
			add(fmt.Sprintf("%smedia[%d]", prefix, i), m.File, m.SHA256, m.Size)
		}
		for i, e := range g.Entities {
			for j, r := range e.Resources {
				add(fmt.Sprintf("%sgraph.entities[%d].resources[%d]", prefix, i, j), r.File, r.SHA256, r.Size)
			}
		}
	}
	walk("", c.Media, c.Graph)
	for i, h := range c.History {
		walk(fmt.Sprintf("history[%d].", i), h.Media, h.Graph)
	}
	return out
}

// FileRef is a media file a collection file references, with the field
// that names it.
type FileRef struct {
	Field  string
	File   string
	SHA256 string
	Size   int64
}

// Problem is one thing wrong with a capsule: an error blocks import and
// build, a warning does not.
type Problem struct {
	// Path is the file, relative to the capsule root.
	Path string
	// Field is the frontmatter field ("media[0].sha256"), or what was being
	// read ("frontmatter", "zip entry", "file").
	Field   string
	Message string
	Warning bool
}

// String formats the problem as "path: field: message", with "warning: "
// before the message of a warning.
func (p Problem) String() string {
	if p.Warning {
		return p.Path + ": " + p.Field + ": warning: " + p.Message
	}
	return p.Path + ": " + p.Field + ": " + p.Message
}

// FormatTime writes a capsule time: RFC 3339 in UTC, with fractional
// seconds only when there are some.
func FormatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseTime reads a capsule time: any RFC 3339 time, with any offset.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", s)
	}
	return t.UTC(), nil
}
