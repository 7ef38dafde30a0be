package capsule

import (
	"path"
	"regexp"
	"strings"

	"github.com/monitorhq/monitor/internal/mediatype"
)

// CollectionPath is where the writer puts a collection's file:
// collections/<platform>/<YYYY>/<YYYY-MM-DD>-<last 8 hex of the id>.md,
// dated by publication, else by saving. The last hex digits are used
// because the first ones of a UUIDv7 are a timestamp.
func CollectionPath(c *Collection) string {
	t := c.SavedAt
	if c.PublishedAt != nil {
		t = *c.PublishedAt
	}
	t = t.UTC()
	id := strings.ReplaceAll(c.ID, "-", "")
	if len(id) > 8 {
		id = id[len(id)-8:]
	}
	return path.Join(CollectionsDir, safeSegment(c.Platform), t.Format("2006"), t.Format("2006-01-02")+"-"+id+".md")
}

// FilePath is where the writer puts media bytes: files/<sha[:2]>/<sha>.<ext>,
// the extension taken from the media type.
func FilePath(sha256, mime string) string {
	if len(sha256) < 2 {
		return path.Join(FilesDir, sha256+"."+Ext(mime))
	}
	return path.Join(FilesDir, sha256[:2], sha256+"."+Ext(mime))
}

// Ext is the file extension for a media type ("bin" when unknown): the
// same names the REST API gives downloads (internal/mediatype).
func Ext(mime string) string { return mediatype.Ext(mime) }

var segmentUnsafe = regexp.MustCompile(`[^a-z0-9._-]+`)

// safeSegment turns a platform name into a path segment.
func safeSegment(s string) string {
	s = segmentUnsafe.ReplaceAllString(strings.ToLower(s), "-")
	s = strings.Trim(s, ".-")
	if s == "" {
		return "unknown"
	}
	return s
}

// PathProblem says why a path named inside a capsule is not acceptable
// ("" when it is): it must be relative, slash-separated, clean and stay
// inside the capsule.
func PathProblem(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || hasDrive(p):
		return "is an absolute path; name files relative to the capsule root, like files/ab/ab12….jpg"
	case strings.Contains(p, `\`):
		return "contains a backslash; use / between folders"
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "leaves the capsule (..); name files relative to the capsule root"
		}
	}
	if path.Clean(p) != p || strings.HasPrefix(p, "./") {
		return "is not a clean path (no ./, //, or trailing /)"
	}
	return ""
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}
