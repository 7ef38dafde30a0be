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
func fileLinks(out *bytes.Buffer, page []byte) error {
	z := html.NewTokenizer(bytes.NewReader(page))
	out.Grow(len(page) + 256)
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
		// The tag as Tokenizer.Token gives it, with its links rewritten.
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
		out.Truncate(start)
		out.WriteString(tok.String())
	}
}

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
