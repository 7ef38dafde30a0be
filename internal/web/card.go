package web

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"html/template"
	"strings"
)

// PostCard is a post's card as list pages draw it ({{template "card"}} in
// partials.html), rendered once for every page it appears on. The card
// depends on the page only through the page's root, which the template
// puts at the start of the card's on-site addresses; a PostCard keeps the
// rendered bytes around those places, so that a list page of any depth
// gets its card by joining them, without running the template again.
// The static build draws each post on the home pages, its author's pages
// and a page per tag: once instead of two to several times.
type PostCard struct {
	parts []string // the card split where the root goes
}

// Card renders a post's card for PostList.Cards. It renders the card
// with a root that is a mark no capsule can know (random for each
// Renderer, letters and digits only, which the URL filter, normaliser
// and attribute escaper leave as they are, and which no escaping of
// other text can produce) and splits the result at the mark.
func (r *Renderer) Card(p *Post) (PostCard, error) {
	t, err := r.page("list.html")
	if err != nil {
		return PostCard{}, err
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "card", cardBlock{Root: r.rootMark, Post: p}); err != nil {
		return PostCard{}, fmt.Errorf("web: render the card of %s: %w", p.ID, err)
	}
	return PostCard{parts: strings.Split(b.String(), r.rootMark)}, nil
}

// HTML is the card on a page whose root is root, the same bytes
// {{template "card"}} writes there; false when root is not a relative
// one ("", "../", "../../", …), which the URL normaliser might change,
// and the card must be rendered with the page.
func (c PostCard) HTML(root string) (template.HTML, bool) {
	if !relativeRoot(root) || len(c.parts) == 0 {
		return "", false
	}
	n := len(root) * (len(c.parts) - 1)
	for _, p := range c.parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range c.parts {
		if i > 0 {
			b.WriteString(root)
		}
		b.WriteString(p)
	}
	return template.HTML(b.String()), true //nolint:gosec // the template's own output, escaped when it was rendered
}

// relativeRoot says whether root is "" or a run of "../".
func relativeRoot(root string) bool {
	for ; root != ""; root = root[3:] {
		if !strings.HasPrefix(root, "../") {
			return false
		}
	}
	return true
}

// newRootMark is a mark for Card: a letter and 26 random letters and
// digits (128 bits).
func newRootMark() string { return "m" + rand.Text() }
