package web

import (
	"bytes"
	"html"
	"html/template"
	"regexp"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/mediatype"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Page is what every page template gets.
type Page struct {
	Site SiteInfo
	// Title is the page's own title ("" on the home page).
	Title string
	// Root leads from the page to the site root: "", "../", "../../", or
	// an absolute base path for pages served at any address (404.html).
	Root string
	// Canonical is the page's absolute address, when the site's is known.
	Canonical string
	// Nav marks the current section: home, authors, tags, search.
	Nav string

	// List is set on index, author and tag pages.
	List *PostList
	// Post is set on a collection's page.
	Post *Post
	// Terms is set on the author and tag directories.
	Terms []Link

	// Lang is the page's language, LangEnglish or LangChinese ("" : the
	// site's language, else English). <html lang> says it.
	Lang string
	// Theme is "light", "dark" or "" (follow the system).
	Theme string
	// Session is the signed-in person on a live page; nil on the static
	// site and on pages for people not signed in.
	Session *Session
	// Data is a live page's own content (each page's view type).
	Data any
	// Query is what the header's search box shows (the words searched).
	Query string
	// SavedSearches are the signed-in tenant's saved searches, linked in
	// the navigation (nil: loaded by the live page's frame).
	SavedSearches []savedItem
	// Refresh reloads a live page after this many seconds while it shows
	// something in progress (0: never).
	Refresh int
	// Script loads app.js (keyboard, live capture state, the undo timer)
	// on a live page that has a use for it; no page needs it to work.
	Script bool

	// cat is the renderer's catalog, set by Render for T.
	cat catalog
}

// Session is who a live page is shown to.
type Session struct {
	// ID is the session's public handle (the sessions page marks "this
	// browser" with it).
	ID         string
	TenantName string
	Admin      bool
	// CSRF is the token every form of the page carries.
	CSRF string
}

// T is the page's text of key in its language (see i18n.go).
func (p *Page) T(key string, args ...any) string {
	return p.cat.T(p.Language(), key, args...)
}

// Language is the page's language tag for <html lang>.
func (p *Page) Language() string {
	switch {
	case p.Lang != "":
		return p.Lang
	case p.Site.Language != "":
		return pickLang("", p.Site.Language)
	}
	return LangEnglish
}

// SiteInfo is the site's identity.
type SiteInfo struct {
	Title       string
	Description string
	Language    string
	// Feed is the Atom feed's path from the root ("" when none).
	Feed string
}

// PostList is one page of posts with its pager.
type PostList struct {
	Heading string
	Intro   string
	// Profile is the author's or channel's header on an author page, when
	// the archive has their profile.
	Profile *Profile
	Posts   []*Post
	// Cards, when set, are the posts' cards already drawn for this page
	// (Renderer.Card, PostCard.HTML), shown in place of Posts.
	Cards []template.HTML
	Prev  string
	Next  string
	Page  int
	Pages int
}

// Post is one collection as pages show it. URLs are relative to the site
// root; templates put Page.Root before them.
type Post struct {
	ID        string
	URL       string
	Title     string
	Author    Author
	Date      time.Time
	Saved     time.Time
	Source    string
	Platform  string
	Body      template.HTML
	Excerpt   string
	Media     []Media
	Tags      []Link
	Sensitive bool
	// Quoted is a post this one quotes, when the graph has it.
	Quoted *Quote
	// Entity is the post as its type's renderer shows it (entity.go); nil
	// when no renderer knows the type, and the page shows the fields above.
	Entity *Entity
	// Proof is what the page says about the post's hash chain (nil: it
	// has none to show).
	Proof *Proof
}

// Proof is a post's hash chain as its page shows it (docs/verify.md):
// "verified chain · N revisions · key fingerprint", and the proof to
// download.
type Proof struct {
	Revisions int
	// Verified is true when every link recomputes and follows the one
	// before it.
	Verified bool
	// Fingerprint names the key that signs the proof ("": not signed).
	Fingerprint string
	// Href is the proof document, from the page; Name its file name.
	Href, Name string
}

// Author is who wrote a post.
type Author struct {
	Name   string
	Handle string
	// URL is the author's page on this site.
	URL string
	// Avatar is the avatar image's path ("" when none).
	Avatar string
	// Profile is the author's upstream profile address.
	Profile string
}

// Quote is a quoted post, from the graph.
type Quote struct {
	Author string
	Body   template.HTML
	Media  []Media
	Source string
}

// Media is one media file on a page.
type Media struct {
	// URL is the file's path from the site root.
	URL string
	// Name is the file name a download is saved under ("" : the URL's).
	Name      string
	Kind      string
	Mime      string
	Alt       string
	Width     int
	Height    int
	Sensitive bool
	// Poster is the path of a video's still frame from the site root (""
	// when none); pages show it before the video plays.
	Poster string
	// ID makes the reveal control of a sensitive media unique on its page.
	ID string
	// Codec names a video's codec when not every browser plays it (HEVC,
	// AV1): the page says so beside the video.
	Codec string
	// Round is a Telegram round video, shown as a circle.
	Round bool
	// Detail is what the upstream said of the file: a document's name and
	// size, a voice message's length.
	Detail string
}

// Inline reports whether a page may show the file itself (<img>, <video>,
// <audio>). Only passive types may: an SVG or HTML file runs its scripts
// on the site's origin when it is opened, so anything but raster images,
// video and audio is offered only as a download link.
func (m Media) Inline() bool { return mediatype.Inline(m.Mime) }

// Link is a named link with a count, for directories and tag lists.
type Link struct {
	Name  string
	URL   string
	Count int
}

var (
	urlPattern   = regexp.MustCompile(`https?://[^\s<>"'()]+[^\s<>"'().,;:!?]`)
	paraBoundary = regexp.MustCompile(`\n\s*\n`)
)

// PlainHTML renders plain text: escaped, links made clickable, blank lines
// separating paragraphs and single newlines kept.
func PlainHTML(s string) template.HTML {
	var out strings.Builder
	for i, para := range paraBoundary.Split(strings.TrimSpace(s), -1) {
		if i > 0 {
			out.WriteString("\n") // between paragraphs: not a line break
		}
		var b strings.Builder
		last := 0
		for _, m := range urlPattern.FindAllStringIndex(para, -1) {
			b.WriteString(html.EscapeString(para[last:m[0]]))
			u := html.EscapeString(para[m[0]:m[1]])
			b.WriteString(`<a href="` + u + `" rel="nofollow noopener noreferrer">` + u + `</a>`)
			last = m[1]
		}
		b.WriteString(html.EscapeString(para[last:]))
		out.WriteString("<p>" + strings.ReplaceAll(b.String(), "\n", "<br>\n") + "</p>")
	}
	return template.HTML(out.String())
}

// MarkdownHTML renders Markdown safely: raw HTML is dropped, and images
// from other hosts become links, so a page never loads anything from
// elsewhere.
func MarkdownHTML(s string) template.HTML {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(localImages{}, 100))),
	)
	var buf bytes.Buffer
	if err := md.Convert([]byte(s), &buf); err != nil {
		return PlainHTML(s)
	}
	return template.HTML(buf.String())
}

// TextHTML renders a post's text by its kind.
func TextHTML(kind, s string) template.HTML {
	if kind == "markdown" {
		return MarkdownHTML(s)
	}
	return PlainHTML(s)
}

// localImages turns images with an address on another host into links.
type localImages struct{}

// Transform rewrites the document's remote images as links.
func (localImages) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var remote []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering {
			dest := strings.ToLower(string(img.Destination))
			if strings.Contains(dest, "//") || strings.Contains(dest, ":") {
				remote = append(remote, img)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, img := range remote {
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c)
			c = next
		}
		if link.ChildCount() == 0 {
			link.AppendChild(link, ast.NewString([]byte("image")))
		}
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
	_ = reader
}
