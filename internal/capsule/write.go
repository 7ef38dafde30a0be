package capsule

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The writer builds YAML node trees by hand so that fields always come in
// the documented order and equal values always give equal bytes.

type mapping struct{ n *yaml.Node }

func newMapping() mapping { return mapping{&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}} }

func (m mapping) add(key string, v *yaml.Node) {
	m.n.Content = append(m.n.Content, strNode(key), v)
}

// str adds a text field, omitted when empty.
func (m mapping) str(key, v string) {
	if v != "" {
		m.add(key, strNode(v))
	}
}

func (m mapping) integer(key string, v int64) {
	if v != 0 {
		m.add(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)})
	}
}

func (m mapping) boolean(key string, v bool) {
	m.add(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)})
}

func (m mapping) time(key string, t time.Time) {
	if !t.IsZero() {
		m.add(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: FormatTime(t)})
	}
}

func (m mapping) nonEmpty() bool { return len(m.n.Content) > 0 }

// hashList is a list of hashes, one a line, [] when empty.
func hashList(hs []string) *yaml.Node {
	n := sequence()
	if len(hs) == 0 {
		n.Style = yaml.FlowStyle
	}
	for _, h := range hs {
		n.Content = append(n.Content, strNode(h))
	}
	return n
}

func sequence() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"} }

func encodeYAML(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("capsule: encode YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("capsule: encode YAML: %w", err)
	}
	return buf.Bytes(), nil
}

// MarshalCollection writes a collection file: the frontmatter fields in
// their documented order, then the text followed by one newline. Empty
// optional fields are left out.
func MarshalCollection(c *Collection) ([]byte, error) {
	m := newMapping()
	m.str("id", c.ID)
	// title and date are for static-site generators and note apps (Hugo,
	// Obsidian), derived from the fields below and ignored on read.
	m.str("title", Title(c))
	if c.PublishedAt != nil && !c.PublishedAt.IsZero() {
		m.time("date", *c.PublishedAt)
	} else {
		m.time("date", c.SavedAt)
	}
	m.str("platform", c.Platform)
	m.str("kind", c.Kind)
	m.str("object_scope", c.ObjectScope)
	m.str("external_id", c.ExternalID)
	m.str("url", c.URL)
	m.str("visibility", c.Visibility)
	m.str("claimed_visibility", c.ClaimedVisibility)
	m.time("saved_at", c.SavedAt)
	if c.PublishedAt != nil {
		m.time("published_at", *c.PublishedAt)
	}
	m.time("captured_at", c.CapturedAt)
	author := newMapping()
	author.str("name", c.Author.Name)
	author.str("handle", c.Author.Handle)
	author.str("url", c.Author.URL)
	if author.nonEmpty() {
		m.add("author", author.n)
	}
	m.str("summary", c.Summary)
	if len(c.Tags) > 0 {
		tags := sequence()
		tags.Style = yaml.FlowStyle
		for _, t := range c.Tags {
			tags.Content = append(tags.Content, strNode(t))
		}
		m.add("tags", tags)
	}
	m.boolean("sensitive", c.Sensitive)
	if c.TextKind != "" && c.TextKind != "plain" {
		m.str("text_kind", c.TextKind)
	}
	if err := addContent(m, c.Media, c.Graph); err != nil {
		return nil, err
	}
	if len(c.History) > 0 {
		hist := sequence()
		for _, r := range c.History {
			h := newMapping()
			h.time("captured_at", r.CapturedAt)
			if r.PublishedAt != nil {
				h.time("published_at", *r.PublishedAt)
			}
			if r.AuthorName != "" {
				a := newMapping()
				a.str("name", r.AuthorName)
				h.add("author", a.n)
			}
			h.str("summary", r.Summary)
			if r.TextKind != "" && r.TextKind != "plain" {
				h.str("text_kind", r.TextKind)
			}
			if err := addContent(h, r.Media, r.Graph); err != nil {
				return nil, err
			}
			h.str("text", r.Text)
			hist.Content = append(hist.Content, h.n)
		}
		m.add("history", hist)
	}
	if ch := c.Chain; ch != nil {
		cm := newMapping()
		cm.str("version", ch.Version)
		cm.str("head", ch.Head)
		revs := sequence()
		for _, l := range ch.Revisions {
			lm := newMapping()
			lm.time("time", l.Time)
			lm.add("prev_hash", strNode(l.PrevHash))
			lm.str("chain_hash", l.ChainHash)
			lm.str("content_hash", l.ContentHash)
			lm.add("media", hashList(l.Media))
			lm.add("raw", hashList(l.Raw))
			lm.str("adapter", l.AdapterID)
			lm.str("adapter_version", l.AdapterVersion)
			revs.Content = append(revs.Content, lm.n)
		}
		cm.add("revisions", revs)
		m.add("chain", cm.n)
	}
	front, err := encodeYAML(m.n)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(front) + len(c.Text) + 16)
	out.WriteString("---\n")
	out.Write(front)
	out.WriteString("---\n")
	out.WriteString(c.Text)
	out.WriteString("\n")
	return out.Bytes(), nil
}

func addContent(m mapping, media []Media, g Graph) error {
	if len(media) > 0 {
		list := sequence()
		for _, md := range media {
			e := newMapping()
			e.str("file", md.File)
			e.str("sha256", md.SHA256)
			e.str("kind", md.Kind)
			e.str("mime", md.Mime)
			e.integer("size", md.Size)
			e.integer("width", int64(md.Width))
			e.integer("height", int64(md.Height))
			if md.DurationMS > 0 {
				e.add("duration", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float",
					Value: strconv.FormatFloat(float64(md.DurationMS)/1000, 'f', -1, 64)})
			}
			e.str("alt", md.Alt)
			e.boolean("sensitive", md.Sensitive)
			e.str("source_url", md.SourceURL)
			list.Content = append(list.Content, e.n)
		}
		m.add("media", list)
	}
	if g.Root == "" && len(g.Entities) == 0 {
		return nil
	}
	gm := newMapping()
	gm.str("root", g.Root)
	ents := sequence()
	for _, ent := range g.Entities {
		e := newMapping()
		e.str("key", ent.Key)
		e.str("type", ent.Type)
		e.str("external_id", ent.ExternalID)
		if len(bytes.TrimSpace(ent.Data)) > 0 {
			data, err := jsonToNode(ent.Data)
			if err != nil {
				return fmt.Errorf("%w (entity %s)", err, ent.Key)
			}
			e.add("data", data)
		}
		if len(ent.Resources) > 0 {
			res := sequence()
			for _, r := range ent.Resources {
				rm := newMapping()
				rm.str("purpose", r.Purpose)
				rm.str("file", r.File)
				rm.str("sha256", r.SHA256)
				rm.str("kind", r.Kind)
				rm.str("mime", r.Mime)
				rm.integer("size", r.Size)
				res.Content = append(res.Content, rm.n)
			}
			e.add("resources", res)
		}
		ents.Content = append(ents.Content, e.n)
	}
	gm.add("entities", ents)
	rels := sequence()
	for _, r := range g.Relations {
		rm := newMapping()
		rm.str("from", r.From)
		rm.str("relation", r.Relation)
		rm.str("to", r.To)
		rm.n.Style = yaml.FlowStyle
		rels.Content = append(rels.Content, rm.n)
	}
	gm.add("relations", rels)
	m.add("graph", gm.n)
	return nil
}

// MarshalManifest writes monitor.yaml.
func MarshalManifest(man *Manifest) ([]byte, error) {
	m := newMapping()
	m.add("schema_version", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(max(man.SchemaVersion, SchemaVersion))})
	m.str("generator", man.Generator)
	m.time("exported_at", man.ExportedAt)
	site := newMapping()
	site.str("title", man.Site.Title)
	site.str("description", man.Site.Description)
	site.str("language", man.Site.Language)
	if site.nonEmpty() {
		m.add("site", site.n)
	}
	if man.Owner.Name != "" {
		o := newMapping()
		o.str("name", man.Owner.Name)
		m.add("owner", o.n)
	}
	return encodeYAML(m.n)
}

// InsertID writes "id: <id>" as the first frontmatter line of a collection
// file, leaving every other byte as it was. It is what `check --fix` does.
func InsertID(data []byte, id string) ([]byte, error) {
	eol := "\n"
	rest, ok := cutLine(data, "---")
	if !ok {
		return nil, fmt.Errorf("the file does not start with a line ---")
	}
	if strings.HasPrefix(string(data), "---\r\n") {
		eol = "\r\n"
	}
	// An empty id line ("id:", id: "", id: ~) gives way to the new one.
	if front, _, err := SplitFrontmatter(data); err == nil {
		lines := strings.SplitAfter(string(rest[:len(front)]), "\n")
		kept := lines[:0]
		for _, l := range lines {
			if !emptyIDLine.MatchString(strings.TrimRight(l, "\r\n")) {
				kept = append(kept, l)
			}
		}
		rest = append([]byte(strings.Join(kept, "")), rest[len(front):]...)
	}
	var out bytes.Buffer
	out.WriteString("---" + eol + "id: " + id + eol)
	out.Write(rest)
	return out.Bytes(), nil
}

var emptyIDLine = regexp.MustCompile(`^id:\s*(""|''|~|null)?\s*$`)

// titleRunes is how long a derived title may be.
const titleRunes = 70

// Title is a collection's title for a static-site generator: its author
// and the start of its text on one line ("Ann: Storm warning for the
// harbour…"), or its summary when it has no text.
func Title(c *Collection) string {
	line := strings.Join(strings.Fields(c.Text), " ")
	if line == "" {
		line = strings.Join(strings.Fields(c.Summary), " ")
	}
	if r := []rune(line); len(r) > titleRunes {
		line = strings.TrimSpace(string(r[:titleRunes])) + "…"
	}
	switch {
	case c.Author.Name != "" && line != "":
		return c.Author.Name + ": " + line
	case line != "":
		return line
	case c.Author.Name != "":
		return c.Author.Name
	}
	return c.ExternalID
}
