package capsule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseYAML decodes one YAML document into a node tree, refusing what a
// capsule never needs and a hostile file could abuse: anchors and aliases
// (the "billion laughs" bomb), more than MaxYAMLNodes nodes, nesting deeper
// than MaxYAMLDepth, and more than one document. It returns nil for an
// empty document.
func parseYAML(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, fmt.Errorf("is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, fmt.Errorf("holds more than one YAML document; remove the extra ---")
	}
	count := 0
	var walk func(n *yaml.Node, depth int) error
	walk = func(n *yaml.Node, depth int) error {
		count++
		switch {
		case count > MaxYAMLNodes:
			return fmt.Errorf("has more than %d YAML nodes", MaxYAMLNodes)
		case depth > MaxYAMLDepth:
			return fmt.Errorf("nests deeper than %d levels", MaxYAMLDepth)
		case n.Kind == yaml.AliasNode:
			return fmt.Errorf("uses a YAML alias (*%s) on line %d; aliases and anchors are not allowed in a capsule", n.Value, n.Line)
		case n.Anchor != "":
			return fmt.Errorf("uses a YAML anchor (&%s) on line %d; aliases and anchors are not allowed in a capsule", n.Anchor, n.Line)
		}
		for _, c := range n.Content {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(&doc, 0); err != nil {
		return nil, err
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}

// decoder reads typed values out of a node tree, collecting one problem per
// bad field instead of stopping at the first.
type decoder struct {
	path  string
	probs []Problem
}

func (d *decoder) errf(field, format string, args ...any) {
	d.probs = append(d.probs, Problem{Path: d.path, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (d *decoder) warnf(field, format string, args ...any) {
	d.probs = append(d.probs, Problem{Path: d.path, Field: field, Message: fmt.Sprintf(format, args...), Warning: true})
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "empty"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// fields walks a mapping. known maps each accepted key to its reader;
// other keys are warnings (forward compatibility), repeated keys errors.
func (d *decoder) fields(n *yaml.Node, field string, known map[string]func(v *yaml.Node, field string)) {
	if n.Kind != yaml.MappingNode {
		d.errf(orSelf(field), "must be a mapping of fields, not %s", kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		f := join(field, key)
		if seen[key] {
			d.errf(f, "appears twice")
			continue
		}
		seen[key] = true
		read, ok := known[key]
		if !ok {
			d.warnf(f, "unknown field, ignored")
			continue
		}
		read(v, f)
	}
}

func orSelf(field string) string {
	if field == "" {
		return "frontmatter"
	}
	return field
}

func (d *decoder) str(n *yaml.Node, field string) string {
	if isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.errf(field, "must be text, not %s", kindName(n))
		return ""
	}
	return n.Value
}

func (d *decoder) integer(n *yaml.Node, field string) int64 {
	if isNull(n) {
		return 0
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.errf(field, "must be a whole number, not %s", kindName(n))
		return 0
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v < 0 {
		d.errf(field, "must be a whole number of 0 or more, not %s", kindName(n))
		return 0
	}
	return v
}

func (d *decoder) boolean(n *yaml.Node, field string) bool {
	if isNull(n) {
		return false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.errf(field, "must be true or false, not %s", kindName(n))
		return false
	}
	return strings.EqualFold(n.Value, "true")
}

// seconds reads a duration in seconds into milliseconds.
func (d *decoder) seconds(n *yaml.Node, field string) int {
	if isNull(n) {
		return 0
	}
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") {
		d.errf(field, "must be a number of seconds, not %s", kindName(n))
		return 0
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > 1e9 {
		d.errf(field, "must be a number of seconds of 0 or more, not %s", kindName(n))
		return 0
	}
	return int(math.Round(f * 1000))
}

// timeValue reads a time. The raw text of the node is parsed, never a
// YAML timestamp, so a plain 2026-12-01 is judged as written.
func (d *decoder) timeValue(n *yaml.Node, field string) (t timeOpt) {
	if isNull(n) {
		return t
	}
	if n.Kind != yaml.ScalarNode {
		d.errf(field, "must be an RFC 3339 time, not %s", kindName(n))
		return t
	}
	v, err := ParseTime(n.Value)
	if err != nil {
		d.errf(field, "%v", err)
		return t
	}
	return timeOpt{t: v, ok: true}
}

func (d *decoder) enum(n *yaml.Node, field string, allowed []string) string {
	v := d.str(n, field)
	if v != "" && !slices.Contains(allowed, v) {
		d.errf(field, "%q is not one of %s", v, strings.Join(allowed, ", "))
		return ""
	}
	return v
}

func (d *decoder) list(n *yaml.Node, field string, each func(i int, v *yaml.Node, field string)) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errf(field, "must be a list, not %s", kindName(n))
		return
	}
	for i, v := range n.Content {
		each(i, v, fmt.Sprintf("%s[%d]", field, i))
	}
}

// nodeToJSON turns YAML into JSON, keeping mapping order and the literal
// text of numbers, so data written from JSON reads back as the same JSON.
// Timestamps and other scalars that are not numbers, booleans or null
// become strings, exactly as written.
func nodeToJSON(n *yaml.Node, buf *bytes.Buffer) error {
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: mapping keys must be text", k.Line)
			}
			writeJSONString(buf, k.Value)
			buf.WriteByte(':')
			if err := nodeToJSON(n.Content[i+1], buf); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := nodeToJSON(c, buf); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			buf.WriteString("null")
		case "!!bool":
			buf.WriteString(strings.ToLower(n.Value))
		case "!!int", "!!float":
			num, err := jsonNumber(n.Value)
			if err != nil {
				return fmt.Errorf("line %d: %v", n.Line, err)
			}
			buf.WriteString(num)
		default:
			writeJSONString(buf, n.Value)
		}
	default:
		return fmt.Errorf("line %d: unsupported YAML node", n.Line)
	}
	return nil
}

// jsonNumber returns a YAML number as JSON number text: as written when it
// is valid JSON already, else reformatted.
func jsonNumber(s string) (string, error) {
	if json.Valid([]byte(s)) {
		return s, nil
	}
	clean := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(clean, 0, 64); err == nil {
		return strconv.FormatInt(i, 10), nil
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(clean, "+"), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%q is not a number JSON can hold", s)
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// writeJSONString writes s as a JSON string without HTML escaping, so
// text comes back as it was written.
func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	buf.Truncate(buf.Len() - 1) // Encode adds a newline
}

// jsonToNode turns JSON into YAML nodes, keeping key order and number text.
func jsonToNode(data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := jsonValueNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("capsule: trailing data after JSON value")
	}
	return n, nil
}

func jsonValueNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("capsule: entity data: %w", err)
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("capsule: entity data: %w", err)
				}
				key, _ := kt.(string)
				val, err := jsonValueNode(dec)
				if err != nil {
					return nil, err
				}
				m.Content = append(m.Content, strNode(key), val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("capsule: entity data: %w", err)
			}
			return m, nil
		case '[':
			s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := jsonValueNode(dec)
				if err != nil {
					return nil, err
				}
				s.Content = append(s.Content, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("capsule: entity data: %w", err)
			}
			return s, nil
		}
	case string:
		return strNode(v), nil
	case json.Number:
		tag := "!!float"
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(v)}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("capsule: entity data: unexpected %v", tok)
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
