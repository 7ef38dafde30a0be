// Package ech0 reads and writes Ech0's capsule (lin-snow/Ech0, spec
// docs/dev/capsule/spec.md there), the format seed 004 describes:
//
//	ech0.yaml                                 schema_version, site, owner.username
//	echoes/<YYYY>/<YYYY-MM-DD>-<id[:8]>.md    frontmatter (id, created_at, tags, layout, files[], extension) + content
//	comments.yaml                             comments (Monitor keeps posts, not comments: skipped, counted)
//	files/<images|videos|audios|documents|files>/<key>   the bytes of files[].key, routed by extension
//
// Check follows the rules of Ech0's own checker (its capsule/check
// package): what it calls an error blocks an import, its warnings do not.
// Import writes each echo through the archive writer as platform ech0;
// Encode writes an echo Ech0's checker accepts, for export --flavor ech0.
package ech0

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v3"

	"github.com/monitorhq/monitor/internal/capsule"
)

// Layout of an Ech0 capsule.
const (
	ManifestName = "ech0.yaml"
	CommentsName = "comments.yaml"
	EchoesDir    = "echoes"
	FilesDir     = "files"
	// SchemaVersion is the highest version Ech0 (and this package) reads.
	SchemaVersion = 1
	// DefaultLayout is what Ech0 shows an echo in when it names none.
	DefaultLayout = "waterfall"
)

// Identity of an imported echo.
const (
	Platform       = "ech0"
	EntityTypeEcho = "ech0.echo"
	Provider       = "ech0-capsule"
)

// validLayouts, validExtensions and validCategories are the values Ech0
// knows; others are warnings there.
var (
	validLayouts    = map[string]bool{"waterfall": true, "grid": true, "horizontal": true, "carousel": true, "stack": true, "none": true}
	validExtensions = map[string]bool{"MUSIC": true, "VIDEO": true, "GITHUBPROJ": true, "WEBSITE": true, "LOCATION": true, "TWEET": true}
	validCategories = map[string]bool{"image": true, "video": true, "audio": true, "pdf": true, "markdown": true, "file": true}
	// forbiddenCommentFields may never appear in comments.yaml.
	forbiddenCommentFields = []string{"email", "ip_hash", "user_agent", "user_id"}
)

// Manifest is ech0.yaml.
type Manifest struct {
	SchemaVersion int    `yaml:"schema_version"`
	Generator     string `yaml:"generator,omitempty"`
	ExportedAt    string `yaml:"exported_at,omitempty"`
	Site          Site   `yaml:"site"`
	Owner         Owner  `yaml:"owner"`
}

// Site is the public part of an Ech0 instance's settings.
type Site struct {
	SiteTitle     string `yaml:"site_title,omitempty"`
	ServerName    string `yaml:"server_name,omitempty"`
	ServerURL     string `yaml:"server_url,omitempty"`
	DefaultLocale string `yaml:"default_locale,omitempty"`
}

// Owner is whose echoes these are.
type Owner struct {
	Username string `yaml:"username"`
}

// Echo is one echo file: frontmatter and content.
type Echo struct {
	ID        string     `yaml:"id"`
	CreatedAt string     `yaml:"created_at"`
	Username  string     `yaml:"username,omitempty"`
	Tags      []string   `yaml:"tags,omitempty"`
	Layout    string     `yaml:"layout,omitempty"`
	Private   bool       `yaml:"private,omitempty"`
	FavCount  int        `yaml:"fav_count,omitempty"`
	Files     []File     `yaml:"files,omitempty"`
	Extension *Extension `yaml:"extension,omitempty"`
	Content   string     `yaml:"-"`
}

// File is a media reference of an echo: a file in the capsule (key) or
// elsewhere (url).
type File struct {
	ID          string `yaml:"id,omitempty"`
	Key         string `yaml:"key,omitempty"`
	URL         string `yaml:"url,omitempty"`
	Category    string `yaml:"category,omitempty"`
	Name        string `yaml:"name,omitempty"`
	ContentType string `yaml:"content_type,omitempty"`
	Size        int64  `yaml:"size,omitempty"`
	Width       int    `yaml:"width,omitempty"`
	Height      int    `yaml:"height,omitempty"`
}

// Extension is an echo's card: a website, music, a location…
type Extension struct {
	Type    string         `yaml:"type"`
	Payload map[string]any `yaml:"payload"`
}

// Comment is an entry of comments.yaml.
type Comment struct {
	ID        string `yaml:"id"`
	EchoID    string `yaml:"echo_id"`
	Nickname  string `yaml:"nickname"`
	Content   string `yaml:"content"`
	Status    string `yaml:"status,omitempty"`
	CreatedAt string `yaml:"created_at"`
}

// MediaPath is where a file key's bytes live in the capsule: files/ and
// the folder Ech0's storage routes the key's extension to.
func MediaPath(key string) string {
	folder := "files/"
	switch strings.ToLower(path.Ext(key)) {
	case ".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".avif":
		folder = "images/"
	case ".mp3", ".flac", ".wav", ".m4a", ".ogg":
		folder = "audios/"
	case ".mp4", ".avi", ".mkv", ".webm":
		folder = "videos/"
	case ".pdf", ".doc", ".docx":
		folder = "documents/"
	}
	return FilesDir + "/" + folder + key
}

// EchoPath is an echo's file: echoes/<YYYY>/<YYYY-MM-DD>-<id[:8]>.md.
func EchoPath(id string, created time.Time) string {
	u := created.UTC()
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	return fmt.Sprintf("%s/%04d/%s-%s.md", EchoesDir, u.Year(), u.Format("2006-01-02"), short)
}

// validKey is Ech0's rule for a file key: flat, clean, not empty.
func validKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("empty key")
	case strings.ContainsAny(key, `/\`):
		return fmt.Errorf("key must be flat (no path separator): %q", key)
	case key == "." || key == "..":
		return fmt.Errorf("key must not be %q", key)
	case key != path.Clean(key):
		return fmt.Errorf("key must be already clean: %q", key)
	}
	return nil
}

// parseTime reads an Ech0 time: RFC 3339.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid time %q, want RFC 3339 (2006-01-02T15:04:05Z)", s)
	}
	return t, nil
}

func validUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// Is reports whether an opened folder or zip is an Ech0 capsule rather
// than Monitor's.
func Is(src *capsule.Source) bool { return src.Has(ManifestName) && !src.Has(capsule.ManifestName) }

// decodeYAML decodes YAML through a node, so a plain date stays the text
// it is.
func decodeYAML(data []byte, v any) error {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return err
	}
	if len(n.Content) == 0 {
		return fmt.Errorf("the file is empty")
	}
	return n.Decode(v)
}

// Encode writes an echo file: frontmatter, a line ---, the content.
func Encode(e *Echo) ([]byte, error) {
	front, err := yaml.Marshal(e)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("---\n")
	b.Write(front)
	b.WriteString("---\n")
	b.WriteString(e.Content)
	if !strings.HasSuffix(e.Content, "\n") {
		b.WriteString("\n")
	}
	return []byte(b.String()), nil
}

// EncodeManifest writes ech0.yaml.
func EncodeManifest(m *Manifest) ([]byte, error) { return yaml.Marshal(m) }
