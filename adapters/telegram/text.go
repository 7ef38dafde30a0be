package telegram

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Message text arrives as inline HTML: <br/>, <b>, <i>, <u>, <s>, <code>,
// <pre>, <blockquote>, links (hashtags link relatively, ?q=%23tag), emoji
// as <i class="emoji"><b>🙂</b></i>, spoilers. It becomes plain text and
// markdown: **bold**, _italic_, ~~strike~~, `code`, [text](url), "> "
// quotes, one "\n" per line break.
//
// White space is collapsed the way a browser shows it: a run of spaces,
// tabs and newlines in the markup is one space, and none at the start of a
// line, so text re-indented by an editor (or by Telegram) reads as on the
// page; only <br> (and <pre>, <blockquote>) break lines. A no-break space
// (&nbsp;) is text, not white space.

// maxTextDepth bounds how deep the converter follows nested elements;
// Telegram nests a few levels, hostile pages arbitrarily many.
const maxTextDepth = 200

// renderText converts the first node of s to plain text and markdown.
// base resolves relative links; nil leaves them out.
func renderText(s *goquery.Selection, base *url.URL) (plain, md string) {
	if s == nil || s.Length() == 0 {
		return "", ""
	}
	c := converter{base: base, st: &flow{atSpace: true}}
	var out pair
	c.children(s.Nodes[0], 0, &out)
	return tidy(out.plain.String()), tidy(out.md.String())
}

// plainOf is the plain text of the first node of s, for names and labels.
func plainOf(s *goquery.Selection, base *url.URL) string {
	p, _ := renderText(s, base)
	return p
}

type pair struct {
	plain, md strings.Builder
}

func (p *pair) add(plain, md string) {
	p.plain.WriteString(plain)
	p.md.WriteString(md)
}

type converter struct {
	base *url.URL
	st   *flow
}

// flow is the converter's position in the text, shared by every nested
// element: atSpace means the text so far ends a line or in a (collapsed)
// space, so white space that follows shows as nothing.
type flow struct {
	atSpace bool
}

// collapse folds the white-space runs of t to one space each, dropping
// one that follows white space already written.
func (f *flow) collapse(t string) string {
	var b strings.Builder
	b.Grow(len(t))
	for _, r := range t {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' {
			if !f.atSpace {
				b.WriteByte(' ')
				f.atSpace = true
			}
			continue
		}
		b.WriteRune(r)
		f.atSpace = false
	}
	return b.String()
}

func (c converter) children(n *html.Node, depth int, out *pair) {
	if depth > maxTextDepth {
		return
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch, depth+1, out)
	}
}

// inner converts n's children on their own, for wrapping.
func (c converter) inner(n *html.Node, depth int) (string, string) {
	var p pair
	c.children(n, depth, &p)
	return p.plain.String(), p.md.String()
}

func (c converter) node(n *html.Node, depth int, out *pair) {
	switch n.Type {
	case html.TextNode:
		t := c.st.collapse(n.Data)
		out.add(t, escapeMarkdown(t))
		return
	case html.ElementNode:
	default:
		return
	}
	switch tag := n.Data; tag {
	case "script", "style", "svg", "template", "noscript":
	case "br":
		out.add("\n", "\n")
		c.st.atSpace = true
	case "img":
		if alt := c.st.collapse(attr(n, "alt")); alt != "" {
			out.add(alt, escapeMarkdown(alt))
		}
	case "b", "strong":
		p, m := c.inner(n, depth)
		out.add(p, emphasize(m, "**"))
	case "i", "em":
		if hasClassNode(n, "emoji") {
			t := c.st.collapse(textContent(n, depth))
			out.add(t, t)
			return
		}
		p, m := c.inner(n, depth)
		out.add(p, emphasize(m, "_"))
	case "s", "strike", "del":
		p, m := c.inner(n, depth)
		out.add(p, emphasize(m, "~~"))
	case "code":
		t := c.st.collapse(textContent(n, depth))
		out.add(t, codeSpan(t))
	case "pre":
		t := strings.Trim(textContent(n, depth), "\n")
		fence := "```"
		for strings.Contains(t, fence) {
			fence += "`"
		}
		out.add(ensureLine(out.plain.String())+t+"\n", ensureLine(out.md.String())+fence+"\n"+t+"\n"+fence+"\n")
		c.st.atSpace = true
	case "blockquote":
		c.st.atSpace = true
		p, m := c.inner(n, depth)
		p, m = strings.Trim(p, " \n"), strings.Trim(m, " \n")
		lines := strings.Split(m, "\n")
		for i, l := range lines {
			lines[i] = "> " + l
		}
		out.add(ensureLine(out.plain.String())+p+"\n", ensureLine(out.md.String())+strings.Join(lines, "\n")+"\n\n")
		c.st.atSpace = true
	case "a":
		p, m := c.inner(n, depth)
		target := linkURL(attr(n, "href"), c.base)
		switch {
		case target == "" || strings.TrimSpace(p) == "":
			out.add(p, m)
		case p == target && !strings.ContainsAny(target, "<> "):
			out.add(p, "<"+target+">")
		default:
			out.add(p, "["+m+"]("+markdownURL(target)+")")
		}
	default:
		c.children(n, depth, out)
	}
}

// textContent is the text inside n, without markup.
func textContent(n *html.Node, depth int) string {
	var b strings.Builder
	var walk func(*html.Node, int)
	walk = func(n *html.Node, d int) {
		if d > maxTextDepth {
			return
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			switch {
			case ch.Type == html.TextNode:
				b.WriteString(ch.Data)
			case ch.Type == html.ElementNode && ch.Data == "br":
				b.WriteByte('\n')
			case ch.Type == html.ElementNode && ch.Data != "script" && ch.Data != "style":
				walk(ch, d+1)
			}
		}
	}
	walk(n, depth)
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClassNode(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// emphasize wraps markdown in mark, keeping surrounding spaces outside
// (**bold **is not bold in markdown).
func emphasize(md, mark string) string {
	core := strings.TrimFunc(md, unicode.IsSpace)
	if core == "" {
		return md
	}
	lead := md[:len(md)-len(strings.TrimLeftFunc(md, unicode.IsSpace))]
	trail := md[len(strings.TrimRightFunc(md, unicode.IsSpace)):]
	return lead + mark + core + mark + trail
}

// codeSpan writes an inline code span that survives backticks inside.
func codeSpan(t string) string {
	if t == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(t, fence) {
		fence += "`"
	}
	if len(fence) > 1 || strings.HasPrefix(t, "`") || strings.HasSuffix(t, "`") {
		return fence + " " + t + " " + fence
	}
	return fence + t + fence
}

// ensureLine returns "\n" when text so far does not end a line.
func ensureLine(sofar string) string {
	if sofar == "" || strings.HasSuffix(sofar, "\n") {
		return ""
	}
	return "\n"
}

// markdownEscaper escapes the characters that would start markdown syntax
// inside running text.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "~", `\~`,
)

func escapeMarkdown(s string) string { return markdownEscaper.Replace(s) }

// markdownURL keeps a link target from ending the link early.
func markdownURL(u string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
}

// tidy trims spaces at line ends and blank space around the text, and
// replaces invalid UTF-8 (protobuf strings must be valid).
func tidy(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), " \n")
}
