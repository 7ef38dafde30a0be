package build

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// linkAttrs are the attributes that hold an address a browser follows or
// loads.
var linkAttrs = map[string]bool{"href": true, "src": true, "action": true, "poster": true}

// fileLinks rewrites a rendered page so that every address on this site
// names a file: "authors/" becomes "authors/index.html" and an empty href
// "index.html". A web server maps a folder to its index.html, a browser
// opening the site from disk (file://) does not, so the built site uses
// the file names. Addresses with a scheme or host, fragments, and form
// actions that are empty (the page itself) are left alone. Everything
// else of the page is copied byte for byte. The page goes to out.
//
// The result is what html.Tokenizer gives, tag by tag (tokenLinks in the
// tests), but most of a page is found with a plain scan for tags
// (scanLinks): html/template writes well-formed pages, and tokenizing
// every one took a tenth of a build. A page the scan is not sure of goes
// to the tokenizer whole.
func fileLinks(out *bytes.Buffer, page []byte) error {
	out.Grow(len(page) + 256)
	start := out.Len()
	if scanLinks(out, page) {
		return nil
	}
	out.Truncate(start)
	return tokenizeLinks(out, page)
}

// tokenizeLinks is fileLinks through html.Tokenizer.
func tokenizeLinks(out *bytes.Buffer, page []byte) error {
	z := html.NewTokenizer(bytes.NewReader(page))
	var attrs []rawAttr
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if errors.Is(z.Err(), io.EOF) {
				return nil
			}
			return z.Err()
		}
		// Raw is only valid until the next call, and reading the tag's
		// name and attributes rewrites it in place (lower case,
		// unescaped): copy it out first, for the common case of a tag
		// that needs no change.
		start := out.Len()
		out.Write(z.Raw())
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		attrs = attrs[:0]
		changed := false
		for more {
			var k, v []byte
			k, v, more = z.TagAttr()
			attrs = append(attrs, rawAttr{k, v})
			if !changed && linkAttrs[string(k)] && mayChange(v) {
				_, changed = fileLink(string(k), string(v))
			}
		}
		if !changed {
			continue
		}
		out.Truncate(start)
		writeTag(out, tt, name, attrs)
	}
}

// writeTag writes a tag as Tokenizer.Token gives it, with its links
// rewritten: name and keys in lower case, values unescaped.
func writeTag(out *bytes.Buffer, tt html.TokenType, name []byte, attrs []rawAttr) {
	tok := html.Token{Type: tt, Data: string(name)}
	if a := atom.Lookup(name); a != 0 {
		tok.DataAtom, tok.Data = a, a.String()
	}
	for _, a := range attrs {
		at := html.Attribute{Key: atom.String(a.key), Val: string(a.val)}
		if linkAttrs[at.Key] {
			if v, ok := fileLink(at.Key, at.Val); ok {
				at.Val = v
			}
		}
		tok.Attr = append(tok.Attr, at)
	}
	out.WriteString(tok.String())
}

// rawTextTags are the elements whose content the tokenizer reads as text
// up to their end tag.
var rawTextTags = map[string]bool{
	"iframe": true, "noembed": true, "noframes": true, "noscript": true, "plaintext": true,
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true,
}

// scanLinks is fileLinks for pages made of what html/template writes from
// Monitor's templates: a doctype, text, end tags and start tags with
// lower-case names and keys and double-quoted values, and raw text
// elements without comments inside. On anything else it stops and
// returns false, having written part of the page.
func scanLinks(out *bytes.Buffer, page []byte) bool {
	var attrs []rawAttr
	for i := 0; i < len(page); {
		j := bytes.IndexByte(page[i:], '<')
		if j < 0 {
			out.Write(page[i:])
			return true
		}
		out.Write(page[i : i+j])
		i += j
		if i+1 >= len(page) {
			return false
		}
		switch c := page[i+1]; {
		case c == '!': // a doctype; comments go to the tokenizer
			k := bytes.IndexByte(page[i:], '>')
			if k < 0 || bytes.HasPrefix(page[i:], []byte("<!-")) || bytes.ContainsAny(page[i+1:i+k], "\"'<") {
				return false
			}
			out.Write(page[i : i+k+1])
			i += k + 1
		case c == '/':
			n := tagName(page[i+2:])
			k := i + 2 + n
			if n == 0 || k >= len(page) || page[k] != '>' {
				return false
			}
			out.Write(page[i : k+1])
			i = k + 1
		case isLower(c):
			end, name, selfClosing, ok := scanStartTag(page, i, &attrs)
			if !ok {
				return false
			}
			tag := page[i:end]
			i = end
			if !linksChange(attrs) {
				out.Write(tag)
			} else {
				for _, a := range attrs {
					if bytes.IndexByte(a.val, '&') >= 0 {
						return false // the tokenizer unescapes values
					}
				}
				writeScannedTag(out, name, attrs, selfClosing)
			}
			if !rawTextTags[string(name)] {
				continue
			}
			// Raw text up to the element's end tag, copied as it is.
			if selfClosing || string(name) == "plaintext" {
				return false
			}
			closer := append([]byte("</"), name...)
			k := bytes.Index(page[i:], closer)
			if k < 0 {
				return false
			}
			after := i + k + len(closer)
			// The tokenizer ends raw text at the first end tag of the name
			// in any case, and a script's at rules of its own around "<!--":
			// text with either goes to the tokenizer.
			if after >= len(page) || page[after] != '>' || bytes.Contains(page[i:i+k], []byte("</")) || bytes.Contains(page[i:i+k], []byte("<!--")) {
				return false
			}
			out.Write(page[i : i+k])
			i += k
		default:
			return false
		}
	}
	return true
}

// scanStartTag reads the start tag at page[i] ('<' then a lower-case
// letter): where it ends, its name, whether it closes itself, and its
// attributes into attrs. ok is false for anything but lower-case names
// and keys, double-quoted values and attributes without values, each
// after white space.
func scanStartTag(page []byte, i int, attrs *[]rawAttr) (end int, name []byte, selfClosing, ok bool) {
	*attrs = (*attrs)[:0]
	k := i + 1
	n := tagName(page[k:])
	name = page[k : k+n]
	k += n
	for {
		if k >= len(page) {
			return 0, nil, false, false
		}
		switch page[k] {
		case '>':
			return k + 1, name, false, true
		case '/':
			if k+1 < len(page) && page[k+1] == '>' {
				return k + 2, name, true, true
			}
			return 0, nil, false, false
		case ' ', '\n', '\t':
		default:
			return 0, nil, false, false
		}
		for k < len(page) && (page[k] == ' ' || page[k] == '\n' || page[k] == '\t') {
			k++
		}
		if k < len(page) && (page[k] == '>' || page[k] == '/') {
			continue
		}
		n := attrKey(page[k:])
		if n == 0 {
			return 0, nil, false, false
		}
		a := rawAttr{key: page[k : k+n]}
		k += n
		if k < len(page) && page[k] == '=' {
			if k+1 >= len(page) || page[k+1] != '"' {
				return 0, nil, false, false
			}
			q := bytes.IndexByte(page[k+2:], '"')
			if q < 0 {
				return 0, nil, false, false
			}
			a.val = page[k+2 : k+2+q]
			if bytes.ContainsAny(a.val, "\r\x00") {
				return 0, nil, false, false
			}
			k += 2 + q + 1
		}
		*attrs = append(*attrs, a)
	}
}

// linksChange says whether fileLink rewrites one of attrs' links.
func linksChange(attrs []rawAttr) bool {
	for _, a := range attrs {
		if linkAttrs[string(a.key)] && mayChange(a.val) {
			if _, ok := scannedLink(a.key, a.val); ok {
				return true
			}
		}
	}
	return false
}

// scannedLink is fileLink of a scanned attribute. Most on-site folder
// links are plain relative paths ("c/0193/", "../tags/sea/"), whose file
// is the path and index.html; only the others are parsed as URLs.
func scannedLink(key, v []byte) (string, bool) {
	if plainFolder(v) {
		return string(v) + "index.html", true
	}
	return fileLink(string(key), string(v))
}

// plainFolder says whether v is a relative path of unreserved characters
// that ends in a slash: url.Parse finds no scheme, host, query or
// fragment in it, and its escaped path is v itself.
func plainFolder(v []byte) bool {
	if len(v) == 0 || v[len(v)-1] != '/' || bytes.HasPrefix(v, []byte("//")) {
		return false
	}
	for _, c := range v {
		if !(isLower(c) || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
			return false
		}
	}
	return true
}

// writeScannedTag is writeTag for a tag scanStartTag read, whose values
// hold no character reference: the same bytes, written directly.
func writeScannedTag(out *bytes.Buffer, name []byte, attrs []rawAttr, selfClosing bool) {
	out.WriteByte('<')
	out.Write(name)
	for _, a := range attrs {
		out.WriteByte(' ')
		out.Write(a.key)
		out.WriteString(`="`)
		v := a.val
		if linkAttrs[string(a.key)] && mayChange(v) {
			if l, ok := scannedLink(a.key, v); ok {
				v = []byte(l)
			}
		}
		if bytes.ContainsAny(v, "<>'\"&\r") {
			out.WriteString(html.EscapeString(string(v)))
		} else {
			out.Write(v)
		}
		out.WriteByte('"')
	}
	if selfClosing {
		out.WriteString("/>")
	} else {
		out.WriteByte('>')
	}
}

// tagName is the length of the lower-case tag name b starts with.
func tagName(b []byte) int {
	n := 0
	for n < len(b) && (isLower(b[n]) || (n > 0 && b[n] >= '0' && b[n] <= '9')) {
		n++
	}
	return n
}

// attrKey is the length of the lower-case attribute key b starts with.
func attrKey(b []byte) int {
	n := 0
	for n < len(b) && (isLower(b[n]) || (n > 0 && (b[n] == '-' || b[n] == '_' || b[n] == ':' || (b[n] >= '0' && b[n] <= '9')))) {
		n++
	}
	return n
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// rawAttr is an attribute as the tokenizer gives it, valid until its
// next token.
type rawAttr struct{ key, val []byte }

// mayChange says whether fileLink might rewrite v: only an empty address
// or one that ends in a slash, a query, a fragment or an escape can
// name a folder. It spares parsing the many that cannot.
func mayChange(v []byte) bool {
	return len(v) == 0 || v[len(v)-1] == '/' || bytes.ContainsAny(v, "?#%")
}

// fileLink is the address that names the file an on-site folder address
// means, and whether it differs from v.
func fileLink(key, v string) (string, bool) {
	if v == "" {
		if key == "href" {
			return "index.html", true
		}
		return "", false
	}
	if strings.HasPrefix(v, "#") || strings.HasPrefix(v, "//") {
		return "", false
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return "", false
	}
	if u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		return "", false
	}
	if u.Path == "" && key != "href" {
		// "?q=x" on a form or image: the page itself, already a file.
		return "", false
	}
	out := u.EscapedPath() + "index.html"
	if u.RawQuery != "" || u.ForceQuery {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.EscapedFragment()
	}
	return out, true
}
