package capsule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v3"

	"github.com/monitorhq/monitor/internal/chain"
)

// timeOpt is a time that may be absent.
type timeOpt struct {
	t  time.Time
	ok bool
}

func (o timeOpt) ptr() *time.Time {
	if !o.ok {
		return nil
	}
	t := o.t
	return &t
}

// SplitFrontmatter separates a collection file into its YAML frontmatter
// and its body. The file starts with a line "---" and the frontmatter ends
// at the next line "---"; the body is the post's text followed by one
// newline, which is removed. CRLF line ends are accepted around the
// fences.
func SplitFrontmatter(data []byte) (front, body []byte, err error) {
	rest, ok := cutLine(data, "---")
	if !ok {
		return nil, nil, errors.New("the file must start with a line --- that opens the YAML frontmatter")
	}
	for off := 0; off <= len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		line := rest[off:]
		next := len(rest)
		if end >= 0 {
			line = rest[off : off+end]
			next = off + end + 1
		}
		if string(bytes.TrimSuffix(line, []byte("\r"))) == "---" {
			body = rest[next:]
			if bytes.HasSuffix(body, []byte("\n")) {
				body = body[:len(body)-1]
			}
			return rest[:off], body, nil
		}
		if end < 0 {
			break
		}
		off = next
	}
	return nil, nil, errors.New("the frontmatter is not closed by a line ---")
}

// cutLine removes a first line equal to want (with LF or CRLF).
func cutLine(data []byte, want string) ([]byte, bool) {
	for _, eol := range []string{"\n", "\r\n"} {
		if bytes.HasPrefix(data, []byte(want+eol)) {
			return data[len(want)+len(eol):], true
		}
	}
	return nil, false
}

// ParseCollection reads one collection file. path is only used in the
// problems it reports. The collection is usable when no problem is an
// error; unknown fields are warnings.
func ParseCollection(path string, data []byte) (Collection, []Problem) {
	d := &decoder{path: path}
	var c Collection
	if len(data) > MaxCollectionFileBytes {
		d.errf("file", "is %d bytes, over the %d-byte limit of a collection file", len(data), MaxCollectionFileBytes)
		return c, d.probs
	}
	if !utf8.Valid(data) {
		d.errf("file", "is not UTF-8 text")
		return c, d.probs
	}
	front, body, err := SplitFrontmatter(data)
	if err != nil {
		d.errf("frontmatter", "%v", err)
		return c, d.probs
	}
	c.Text = string(body)
	root, err := parseYAML(front)
	if err != nil {
		d.errf("frontmatter", "%v", err)
		return c, d.probs
	}
	if root == nil {
		d.errf("id", "missing; run `monitor check --fix` to write a new id into the file")
		return c, d.probs
	}
	var hasID bool
	var saved, captured, published timeOpt
	d.fields(root, "", map[string]func(*yaml.Node, string){
		"id": func(v *yaml.Node, f string) {
			hasID = true
			c.ID = d.str(v, f)
			if c.ID == "" {
				d.errf(f, "is empty; run `monitor check --fix` to write a new id into the file")
				return
			}
			if id, err := uuid.Parse(c.ID); err != nil || id.String() != c.ID {
				d.errf(f, "%q is not a UUID in its usual lowercase form (like 0198a3f2-ac96-774b-bcce-b302099a8057)", c.ID)
			}
		},
		// Derived for static-site generators (MarshalCollection).
		"title":        func(*yaml.Node, string) {},
		"date":         func(*yaml.Node, string) {},
		"platform":     func(v *yaml.Node, f string) { c.Platform = d.str(v, f) },
		"kind":         func(v *yaml.Node, f string) { c.Kind = d.str(v, f) },
		"object_scope": func(v *yaml.Node, f string) { c.ObjectScope = d.str(v, f) },
		"external_id":  func(v *yaml.Node, f string) { c.ExternalID = d.str(v, f) },
		"url":          func(v *yaml.Node, f string) { c.URL = d.str(v, f) },
		"visibility":   func(v *yaml.Node, f string) { c.Visibility = d.enum(v, f, Visibilities) },
		"claimed_visibility": func(v *yaml.Node, f string) {
			c.ClaimedVisibility = d.enum(v, f, Visibilities)
		},
		"saved_at":     func(v *yaml.Node, f string) { saved = d.timeValue(v, f) },
		"published_at": func(v *yaml.Node, f string) { published = d.timeValue(v, f) },
		"captured_at":  func(v *yaml.Node, f string) { captured = d.timeValue(v, f) },
		"author": func(v *yaml.Node, f string) {
			d.fields(v, f, map[string]func(*yaml.Node, string){
				"name":   func(v *yaml.Node, f string) { c.Author.Name = d.str(v, f) },
				"handle": func(v *yaml.Node, f string) { c.Author.Handle = d.str(v, f) },
				"url":    func(v *yaml.Node, f string) { c.Author.URL = d.str(v, f) },
			})
		},
		"summary": func(v *yaml.Node, f string) { c.Summary = d.str(v, f) },
		"tags": func(v *yaml.Node, f string) {
			d.list(v, f, func(_ int, v *yaml.Node, f string) {
				if t := strings.TrimSpace(d.str(v, f)); t != "" {
					c.Tags = append(c.Tags, t)
				}
			})
		},
		"sensitive": func(v *yaml.Node, f string) { c.Sensitive = d.boolean(v, f) },
		"text_kind": func(v *yaml.Node, f string) { c.TextKind = d.enum(v, f, TextKinds) },
		"media":     func(v *yaml.Node, f string) { c.Media = d.media(v, f) },
		"graph":     func(v *yaml.Node, f string) { c.Graph = d.graph(v, f) },
		"history": func(v *yaml.Node, f string) {
			d.list(v, f, func(_ int, v *yaml.Node, f string) { c.History = append(c.History, d.revision(v, f)) })
		},
		"chain": func(v *yaml.Node, f string) { c.Chain = d.chainOf(v, f) },
	})
	if !hasID {
		d.errf("id", "missing; run `monitor check --fix` to write a new id into the file")
	}
	for _, req := range []struct{ field, v string }{
		{"platform", c.Platform}, {"kind", c.Kind}, {"external_id", c.ExternalID}, {"visibility", c.Visibility},
	} {
		if req.v == "" && !d.reported(req.field) {
			d.errf(req.field, "missing; every collection needs it")
		}
	}
	if saved.ok {
		c.SavedAt = saved.t
	} else if !d.reported("saved_at") {
		d.errf("saved_at", "missing; give the time the post was saved, like 2026-01-02T15:04:05Z")
	}
	c.CapturedAt = captured.t
	c.PublishedAt = published.ptr()
	if c.TextKind == "" {
		c.TextKind = "plain"
	}
	return c, d.probs
}

// reported says whether a problem about field was recorded already.
func (d *decoder) reported(field string) bool {
	for _, p := range d.probs {
		if p.Field == field {
			return true
		}
	}
	return false
}

func (d *decoder) media(n *yaml.Node, field string) []Media {
	var out []Media
	d.list(n, field, func(_ int, v *yaml.Node, f string) {
		var m Media
		d.fields(v, f, map[string]func(*yaml.Node, string){
			"file":       func(v *yaml.Node, f string) { m.File = d.file(v, f) },
			"sha256":     func(v *yaml.Node, f string) { m.SHA256 = d.sha(v, f) },
			"kind":       func(v *yaml.Node, f string) { m.Kind = d.enum(v, f, MediaKinds) },
			"mime":       func(v *yaml.Node, f string) { m.Mime = d.str(v, f) },
			"size":       func(v *yaml.Node, f string) { m.Size = d.integer(v, f) },
			"width":      func(v *yaml.Node, f string) { m.Width = int(d.integer(v, f)) },
			"height":     func(v *yaml.Node, f string) { m.Height = int(d.integer(v, f)) },
			"duration":   func(v *yaml.Node, f string) { m.DurationMS = d.seconds(v, f) },
			"alt":        func(v *yaml.Node, f string) { m.Alt = d.str(v, f) },
			"sensitive":  func(v *yaml.Node, f string) { m.Sensitive = d.boolean(v, f) },
			"source_url": func(v *yaml.Node, f string) { m.SourceURL = d.str(v, f) },
		})
		d.require(f, "file", m.File)
		d.require(f, "sha256", m.SHA256)
		d.require(f, "kind", m.Kind)
		out = append(out, m)
	})
	return out
}

func (d *decoder) require(prefix, key, v string) {
	f := join(prefix, key)
	if v == "" && !d.reported(f) {
		d.errf(f, "missing")
	}
}

func (d *decoder) file(n *yaml.Node, field string) string {
	p := d.str(n, field)
	if p == "" {
		return ""
	}
	if why := PathProblem(p); why != "" {
		d.errf(field, "%q %s", p, why)
		return ""
	}
	return p
}

func (d *decoder) sha(n *yaml.Node, field string) string {
	s := d.str(n, field)
	if s == "" {
		return ""
	}
	if !isSHA256(s) {
		d.errf(field, "%q is not a SHA-256 (64 lowercase hex digits)", s)
		return ""
	}
	return s
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (d *decoder) graph(n *yaml.Node, field string) Graph {
	var g Graph
	d.fields(n, field, map[string]func(*yaml.Node, string){
		"root": func(v *yaml.Node, f string) { g.Root = d.str(v, f) },
		"entities": func(v *yaml.Node, f string) {
			d.list(v, f, func(_ int, v *yaml.Node, f string) { g.Entities = append(g.Entities, d.entity(v, f)) })
		},
		"relations": func(v *yaml.Node, f string) {
			d.list(v, f, func(_ int, v *yaml.Node, f string) {
				var r Relation
				d.fields(v, f, map[string]func(*yaml.Node, string){
					"from":     func(v *yaml.Node, f string) { r.From = d.str(v, f) },
					"relation": func(v *yaml.Node, f string) { r.Relation = d.str(v, f) },
					"to":       func(v *yaml.Node, f string) { r.To = d.str(v, f) },
				})
				d.require(f, "from", r.From)
				d.require(f, "relation", r.Relation)
				d.require(f, "to", r.To)
				g.Relations = append(g.Relations, r)
			})
		},
	})
	keys := map[string]bool{}
	for i, e := range g.Entities {
		if e.Key == "" {
			continue
		}
		if keys[e.Key] {
			d.errf(fmt.Sprintf("%s.entities[%d].key", field, i), "%q is the key of an earlier entity too", e.Key)
		}
		keys[e.Key] = true
	}
	if g.Root != "" && !keys[g.Root] {
		d.errf(field+".root", "%q is not the key of an entity of the graph", g.Root)
	}
	for i, r := range g.Relations {
		for _, end := range []struct{ name, key string }{{"from", r.From}, {"to", r.To}} {
			if end.key != "" && !keys[end.key] {
				d.errf(fmt.Sprintf("%s.relations[%d].%s", field, i, end.name), "%q is not the key of an entity of the graph", end.key)
			}
		}
	}
	return g
}

func (d *decoder) entity(n *yaml.Node, field string) Entity {
	var e Entity
	d.fields(n, field, map[string]func(*yaml.Node, string){
		"key":         func(v *yaml.Node, f string) { e.Key = d.str(v, f) },
		"type":        func(v *yaml.Node, f string) { e.Type = d.str(v, f) },
		"external_id": func(v *yaml.Node, f string) { e.ExternalID = d.str(v, f) },
		"data": func(v *yaml.Node, f string) {
			var buf bytes.Buffer
			if err := nodeToJSON(v, &buf); err != nil {
				d.errf(f, "%v", err)
				return
			}
			e.Data = json.RawMessage(buf.Bytes())
		},
		"resources": func(v *yaml.Node, f string) {
			d.list(v, f, func(_ int, v *yaml.Node, f string) {
				var r Resource
				d.fields(v, f, map[string]func(*yaml.Node, string){
					"purpose": func(v *yaml.Node, f string) { r.Purpose = d.str(v, f) },
					"file":    func(v *yaml.Node, f string) { r.File = d.file(v, f) },
					"sha256":  func(v *yaml.Node, f string) { r.SHA256 = d.sha(v, f) },
					"kind":    func(v *yaml.Node, f string) { r.Kind = d.enum(v, f, MediaKinds) },
					"mime":    func(v *yaml.Node, f string) { r.Mime = d.str(v, f) },
					"size":    func(v *yaml.Node, f string) { r.Size = d.integer(v, f) },
				})
				d.require(f, "file", r.File)
				d.require(f, "sha256", r.SHA256)
				d.require(f, "kind", r.Kind)
				e.Resources = append(e.Resources, r)
			})
		},
	})
	d.require(field, "key", e.Key)
	d.require(field, "type", e.Type)
	if e.Data == nil {
		e.Data = json.RawMessage("{}")
	}
	return e
}

func (d *decoder) chainOf(n *yaml.Node, field string) *Chain {
	ch := &Chain{}
	d.fields(n, field, map[string]func(*yaml.Node, string){
		"version": func(v *yaml.Node, f string) { ch.Version = d.str(v, f) },
		"head":    func(v *yaml.Node, f string) { ch.Head = d.sha(v, f) },
		"revisions": func(v *yaml.Node, f string) {
			d.list(v, f, func(_ int, v *yaml.Node, f string) {
				var l ChainLink
				var at timeOpt
				hashes := func(v *yaml.Node, f string) []string {
					var out []string
					d.list(v, f, func(_ int, v *yaml.Node, f string) {
						if h := d.sha(v, f); h != "" {
							out = append(out, h)
						}
					})
					return out
				}
				d.fields(v, f, map[string]func(*yaml.Node, string){
					"time": func(v *yaml.Node, f string) { at = d.timeValue(v, f) },
					"prev_hash": func(v *yaml.Node, f string) {
						if d.str(v, f) != "" {
							l.PrevHash = d.sha(v, f)
						}
					},
					"chain_hash":      func(v *yaml.Node, f string) { l.ChainHash = d.sha(v, f) },
					"content_hash":    func(v *yaml.Node, f string) { l.ContentHash = d.sha(v, f) },
					"media":           func(v *yaml.Node, f string) { l.Media = hashes(v, f) },
					"raw":             func(v *yaml.Node, f string) { l.Raw = hashes(v, f) },
					"adapter":         func(v *yaml.Node, f string) { l.AdapterID = d.str(v, f) },
					"adapter_version": func(v *yaml.Node, f string) { l.AdapterVersion = d.str(v, f) },
				})
				d.require(f, "chain_hash", l.ChainHash)
				d.require(f, "content_hash", l.ContentHash)
				if !at.ok && !d.reported(f+".time") {
					d.errf(f+".time", "missing; give the time this version was captured")
				}
				l.Time = at.t
				ch.Revisions = append(ch.Revisions, l)
			})
		},
	})
	if ch.Version != "" && ch.Version != chain.Version {
		d.warnf(field+".version", "%q is a chain encoding this monitor does not know; the chain is not checked", ch.Version)
	}
	return ch
}

func (d *decoder) revision(n *yaml.Node, field string) Revision {
	var r Revision
	var captured, published timeOpt
	d.fields(n, field, map[string]func(*yaml.Node, string){
		"captured_at":  func(v *yaml.Node, f string) { captured = d.timeValue(v, f) },
		"published_at": func(v *yaml.Node, f string) { published = d.timeValue(v, f) },
		"author": func(v *yaml.Node, f string) {
			d.fields(v, f, map[string]func(*yaml.Node, string){
				"name": func(v *yaml.Node, f string) { r.AuthorName = d.str(v, f) },
			})
		},
		"summary":   func(v *yaml.Node, f string) { r.Summary = d.str(v, f) },
		"text_kind": func(v *yaml.Node, f string) { r.TextKind = d.enum(v, f, TextKinds) },
		"media":     func(v *yaml.Node, f string) { r.Media = d.media(v, f) },
		"graph":     func(v *yaml.Node, f string) { r.Graph = d.graph(v, f) },
		"text":      func(v *yaml.Node, f string) { r.Text = d.str(v, f) },
	})
	if !captured.ok && !d.reported(field+".captured_at") {
		d.errf(field+".captured_at", "missing; give the time this version was captured")
	}
	r.CapturedAt = captured.t
	r.PublishedAt = published.ptr()
	if r.TextKind == "" {
		r.TextKind = "plain"
	}
	return r
}

// ParseManifest reads monitor.yaml.
func ParseManifest(data []byte) (Manifest, []Problem) {
	d := &decoder{path: ManifestName}
	var m Manifest
	if len(data) > MaxManifestBytes {
		d.errf("file", "is %d bytes, over the %d-byte limit", len(data), MaxManifestBytes)
		return m, d.probs
	}
	root, err := parseYAML(data)
	if err != nil {
		d.errf("file", "%v", err)
		return m, d.probs
	}
	if root == nil {
		d.errf("schema_version", "missing; a capsule v1 manifest starts with schema_version: 1")
		return m, d.probs
	}
	var version int64 = -1
	d.fields(root, "", map[string]func(*yaml.Node, string){
		"schema_version": func(v *yaml.Node, f string) { version = d.integer(v, f) },
		"generator":      func(v *yaml.Node, f string) { m.Generator = d.str(v, f) },
		"exported_at": func(v *yaml.Node, f string) {
			if t := d.timeValue(v, f); t.ok {
				m.ExportedAt = t.t
			}
		},
		"site": func(v *yaml.Node, f string) {
			d.fields(v, f, map[string]func(*yaml.Node, string){
				"title":       func(v *yaml.Node, f string) { m.Site.Title = d.str(v, f) },
				"description": func(v *yaml.Node, f string) { m.Site.Description = d.str(v, f) },
				"language":    func(v *yaml.Node, f string) { m.Site.Language = d.str(v, f) },
			})
		},
		"owner": func(v *yaml.Node, f string) {
			d.fields(v, f, map[string]func(*yaml.Node, string){
				"name": func(v *yaml.Node, f string) { m.Owner.Name = d.str(v, f) },
			})
		},
	})
	switch {
	case version == -1 && !d.reported("schema_version"):
		d.errf("schema_version", "missing; a capsule v1 manifest has schema_version: 1")
	case version > SchemaVersion:
		d.errf("schema_version", "%d is newer than this monitor understands (%d); use a newer monitor", version, SchemaVersion)
	case version >= 0 && version < 1:
		d.errf("schema_version", "%d is not a capsule schema version; capsule v1 has schema_version: 1", version)
	}
	m.SchemaVersion = int(max(version, 0))
	return m, d.probs
}
