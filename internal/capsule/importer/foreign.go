package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
)

// This file is what every importer of another format shares (an X account
// archive, a Telegram Desktop export, an Ech0 capsule): opening the folder
// or zip with the capsule's guards, the size limit of a data file, hashing
// the media the posts name, and one call of the archive writer
// (app.ImportCollections) for the whole import, so it lands whole or not
// at all, idempotent and inside the tenant's quota.

// MaxDataBytes is the largest data file (tweets.js, result.json) an
// importer reads, judged by the size the zip or the folder declares before
// a byte is inflated.
const MaxDataBytes = 1 << 30

// ErrFormat is the error of an input that is not the format asked for.
var ErrFormat = errors.New("not the expected format")

// OpenForeign opens a folder or zip of another format and refuses one the
// capsule guards found unsafe: names that leave the folder (zip slip),
// symlinks, entries too large. what names the format in errors; markers
// find the root of a zip with one top folder.
func OpenForeign(p, what string, markers ...string) (*capsule.Source, error) {
	src, err := capsule.OpenTree(p, what, markers...)
	if err != nil {
		return nil, err
	}
	if len(src.Problems) > 0 {
		_ = src.Close()
		var b strings.Builder
		for i, pr := range src.Problems {
			if i == 5 {
				fmt.Fprintf(&b, "; and %d more", len(src.Problems)-5)
				break
			}
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(pr.String())
		}
		return nil, fmt.Errorf("nothing was imported: %s %s holds entries that are unsafe to read: %s", what, p, b.String())
	}
	return src, nil
}

// OpenData opens a data file after checking the size it declares; the
// reader also stops at the limit, for a zip whose entry lies about it.
func OpenData(src *capsule.Source, name string) (io.ReadCloser, error) {
	if n := src.Size(name); n > MaxDataBytes {
		return nil, fmt.Errorf("nothing was imported: %s is %d bytes unpacked, over the %d-byte limit of a data file", name, n, int64(MaxDataBytes))
	}
	f, err := src.OpenFile(name)
	if err != nil {
		return nil, err
	}
	return limitedFile{Reader: io.LimitReader(f, MaxDataBytes+1), c: f}, nil
}

type limitedFile struct {
	io.Reader
	c io.Closer
}

func (l limitedFile) Close() error { return l.c.Close() }

// Media is one media file found in an import, hashed.
type Media struct {
	Path   string
	SHA256 string
	Size   int64
	Mime   string
	Kind   string // image, video, gif, audio, document
}

// MediaSet hashes the media files an import names, once each, and opens
// them again by SHA-256 for the archive writer.
type MediaSet struct {
	src    *capsule.Source
	byPath map[string]Media
	bySHA  map[string]string
	// Bytes is the size of the distinct media found.
	Bytes int64
}

// NewMediaSet makes an empty set over src.
func NewMediaSet(src *capsule.Source) *MediaSet {
	return &MediaSet{src: src, byPath: map[string]Media{}, bySHA: map[string]string{}}
}

// Add hashes the file at name (once) and returns it; kind is the media kind
// the format states ("" to guess from the file's type).
func (m *MediaSet) Add(name, kind string) (Media, error) {
	if md, ok := m.byPath[name]; ok {
		if kind != "" {
			md.Kind = kind
		}
		return md, nil
	}
	f, err := m.src.OpenFile(name)
	if err != nil {
		return Media{}, err
	}
	defer f.Close()
	h := sha256.New()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	h.Write(head)
	rest, err := io.Copy(h, f)
	if err != nil {
		return Media{}, fmt.Errorf("%s: %w", name, err)
	}
	md := Media{Path: name, SHA256: hex.EncodeToString(h.Sum(nil)), Size: int64(n) + rest, Mime: mimeOf(name, head)}
	md.Kind = kindOf(md.Mime)
	m.byPath[name] = md
	if _, ok := m.bySHA[md.SHA256]; !ok {
		m.bySHA[md.SHA256] = name
		m.Bytes += md.Size
	}
	if kind != "" {
		md.Kind = kind
	}
	return md, nil
}

// Files is how many distinct media the set holds.
func (m *MediaSet) Files() int { return len(m.bySHA) }

// Open opens media by SHA-256, for app.ImportOptions.Open.
func (m *MediaSet) Open(sum string) (io.ReadCloser, error) {
	p, ok := m.bySHA[sum]
	if !ok {
		return nil, fmt.Errorf("no file of the import has SHA-256 %s", sum)
	}
	return m.src.OpenFile(p)
}

// mimeOf is a media file's type: by its extension when it names a media
// type, otherwise by its first bytes.
func mimeOf(name string, head []byte) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".png":
		return "image/png"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".mp4", ".m4v":
		return "video/mp4"
	case ".mov":
		return "video/quicktime"
	case ".webm":
		return "video/webm"
	case ".ogg", ".oga":
		return "audio/ogg"
	case ".mp3":
		return "audio/mpeg"
	case ".m4a":
		return "audio/mp4"
	case ".pdf":
		return "application/pdf"
	}
	t := http.DetectContentType(bytes.Clone(head))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return t
}

func kindOf(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/gif"):
		return "gif"
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	}
	return "document"
}

// Unavailable is a media file a post names that the import could not
// attach.
type Unavailable struct {
	// Post labels the post (its address).
	Post string
	// Media names the file (its name in the archive, or its source URL).
	Media  string
	Reason string
}

// Skip counts the posts (or messages) left out for one reason.
type Skip struct {
	Reason string
	Count  int
}

// ForeignReport is what an import of another format did, or would do.
type ForeignReport struct {
	app.ImportReport
	// Format names the input ("X archive").
	Format string
	// Read counts the posts read from the input that were offered to the
	// archive (after the skips).
	Read int
	// Skips are the posts left out before the archive saw them, by reason.
	Skips []Skip
	// Unavailable lists media named but not attached.
	Unavailable []Unavailable
	// Notes are facts worth telling (note tweets joined, albums grouped).
	Notes []string
	// MediaFiles and MediaBytes are the distinct media the posts read
	// attach; ContentBytes is what their text and graphs take.
	MediaFiles   int
	MediaBytes   int64
	ContentBytes int64
}

// Skips counts skips by reason, keeping the order reasons first appear;
// the zero value is ready.
type Skips struct {
	order []string
	n     map[string]int
}

// Add counts one skip.
func (s *Skips) Add(reason string) {
	if s.n == nil {
		s.n = map[string]int{}
	}
	if s.n[reason] == 0 {
		s.order = append(s.order, reason)
	}
	s.n[reason]++
}

// List is the skips in order.
func (s *Skips) List() []Skip {
	out := make([]Skip, 0, len(s.order))
	for _, r := range s.order {
		out = append(out, Skip{Reason: r, Count: s.n[r]})
	}
	return out
}

// ForeignOptions control an import of another format.
type ForeignOptions struct {
	TenantID uuid.UUID
	DryRun   bool
	// Progress, when set, is called as posts are read and media stored.
	Progress func(done, total int)
}

// Write hands the posts of each to the archive writer, which writes them
// in one transaction, so the import lands whole or not at all, and
// completes rep. each is read first on its own, outside any transaction:
// that reading checks the whole input (and hashes its media) before the
// archive sees any of it; the writer then reads it twice more (app.
// ImportCollectionsFrom), so no reading may depend on an earlier one.
// provider names the format on the revisions' stand-in captures.
func Write(ctx context.Context, a *app.App, each app.ImportSource, media *MediaSet, provider string, opts ForeignOptions, rep *ForeignReport) error {
	rep.Read, rep.ContentBytes = 0, 0
	if err := each(func(it app.ImportCollection) error {
		rep.Read++
		for _, r := range it.Revisions {
			rep.ContentBytes += int64(len(r.Text))
			for _, e := range r.Graph.Entities {
				rep.ContentBytes += int64(len(e.Data))
			}
		}
		return nil
	}); err != nil {
		return err
	}
	rep.MediaFiles, rep.MediaBytes = media.Files(), media.Bytes
	ir, err := a.ImportCollectionsFrom(ctx, opts.TenantID, each, app.ImportOptions{DryRun: opts.DryRun, Open: media.Open, Progress: opts.Progress, Provider: provider})
	rep.ImportReport = ir
	sort.SliceStable(rep.Unavailable, func(i, k int) bool { return rep.Unavailable[i].Post < rep.Unavailable[k].Post })
	return err
}

// Slice is a source of posts held in memory.
func Slice(items []app.ImportCollection) app.ImportSource {
	return func(fn func(app.ImportCollection) error) error {
		for _, it := range items {
			if err := fn(it); err != nil {
				return err
			}
		}
		return nil
	}
}

// ItemID is the id an imported post is given (its private identity in
// the tenant's scope), so the report names the collection it lands in.
func ItemID(tenantID uuid.UUID, platform, entityType, objectScope, externalID string) uuid.UUID {
	return app.PrivateCollectionID(tenantID, platform, entityType, objectScope, externalID)
}
