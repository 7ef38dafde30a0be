package build

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
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
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if errors.Is(z.Err(), io.EOF) {
				return nil
			}
			return z.Err()
		}
		// Raw is only valid until the next call, and reading the tag's
		// name and attributes lowercases it in place: copy it out first,
		// for the common case of a tag that needs no change.
		start := out.Len()
		out.Write(z.Raw())
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		changed := false
		for i, a := range tok.Attr {
			if a.Namespace != "" || !linkAttrs[a.Key] {
				continue
			}
			if v, ok := fileLink(a.Key, a.Val); ok {
				tok.Attr[i].Val = v
				changed = true
			}
		}
		if changed {
			out.Truncate(start)
			out.WriteString(tok.String())
		}
	}
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
