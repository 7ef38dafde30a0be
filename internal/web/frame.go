package web

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
)

// Frame is layout.html drawn once for the static pages that differ only
// in their title, canonical address and main content: the head, the
// header with its navigation and the footer. The static build draws
// thousands of pages through a handful of frames (one per depth and
// section) and runs only each page's "main" template, instead of the
// whole layout, for every page. A page gets the same bytes from
// Frame.Render as from Renderer.Render (TestFrameMatchesRender).
type Frame struct {
	parts []framePart
}

// framePart is literal layout output followed by one of the page's
// values (slotNone after the last part).
type framePart struct {
	text string
	slot int
}

const (
	slotNone = iota
	slotTitle
	slotCanonical
	slotMain
)

// FrameKey is what a static page's frame depends on besides the site:
// pages with the same key share a frame.
type FrameKey struct {
	Root, Nav            string
	Titled, HasCanonical bool
}

// FrameKeyOf is the key of a page's frame, and false for a page the
// layout draws from more than those fields (a live page), which must be
// rendered with Render.
func FrameKeyOf(p *Page) (FrameKey, bool) {
	if p.Session != nil || p.Lang != "" || p.Theme != "" || p.Query != "" || p.SavedSearches != nil || p.Refresh != 0 || p.Script {
		return FrameKey{}, false
	}
	return FrameKey{Root: p.Root, Nav: p.Nav, Titled: p.Title != "", HasCanonical: p.Canonical != ""}, true
}

// frameValues is a small template that escapes a title and a canonical
// address exactly as layout.html does: the same elements, attributes
// and so the same contexts.
const frameValues = `<title>{{.Title}}</title><link rel="canonical" href="{{.Canonical}}">`

// Frame draws the layout of static pages like p: p's site, root and
// section, with marks where the title, canonical address and main
// content go. false when p is not a static page (FrameKeyOf) or the
// layout does not put the marks where Render expects them.
func (r *Renderer) Frame(p *Page) (Frame, bool, error) {
	if _, ok := FrameKeyOf(p); !ok {
		return Frame{}, false, nil
	}
	t, err := r.frameTemplate()
	if err != nil {
		return Frame{}, false, err
	}
	mark := func(slot int) string { return fmt.Sprintf("%s%d", r.rootMark, slot) }
	fp := &Page{Site: p.Site, Root: p.Root, Nav: p.Nav, cat: r.cat, Data: mark(slotMain)}
	if p.Title != "" {
		fp.Title = mark(slotTitle)
	}
	if p.Canonical != "" {
		fp.Canonical = mark(slotCanonical)
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout.html", fp); err != nil {
		return Frame{}, false, fmt.Errorf("web: render a frame: %w", err)
	}
	out := b.String()
	// Each mark must be where frameValues escapes its value for: the
	// title as the text of <title>, the address as the canonical link's
	// href, the main content once.
	expect := map[int]string{slotMain: mark(slotMain)}
	if p.Title != "" {
		expect[slotTitle] = "<title>" + mark(slotTitle)
	}
	if p.Canonical != "" {
		expect[slotCanonical] = `<link rel="canonical" href="` + mark(slotCanonical) + `"`
	}
	for _, want := range expect {
		if strings.Count(out, want) != 1 {
			return Frame{}, false, nil
		}
	}
	var f Frame
	for len(out) > 0 {
		at, slot := len(out), slotNone
		for s := range expect {
			if i := strings.Index(out, mark(s)); i >= 0 && i < at {
				at, slot = i, s
			}
		}
		f.parts = append(f.parts, framePart{text: out[:at], slot: slot})
		if slot == slotNone {
			break
		}
		out = out[at+len(mark(slot)):]
	}
	if strings.Count(b.String(), r.rootMark) != len(expect) {
		return Frame{}, false, nil
	}
	return f, true, nil
}

// frameTemplate is the layout with a "main" that writes the page's Data,
// for Frame, and frameValues; parsed once.
func (r *Renderer) frameTemplate() (*template.Template, error) {
	r.frameOnce.Do(func() {
		c, err := r.base.Clone()
		if err == nil {
			_, err = c.New("frame-main").Parse(`{{define "main"}}{{.Data}}{{end}}`)
		}
		if err == nil {
			_, err = c.New("frame-values").Parse(frameValues)
		}
		if err != nil {
			r.frameErr = fmt.Errorf("web: parse the frame: %w", err)
			return
		}
		r.frame = c
	})
	return r.frame, r.frameErr
}

// Render writes a page in the frame: the frame's parts with the page's
// title and address, and the page template's "main" run for the page
// alone. The page must have the frame's key.
func (f Frame) Render(w *bytes.Buffer, r *Renderer, page string, data *Page) error {
	t, err := r.page(page)
	if err != nil {
		return err
	}
	vt, err := r.frameTemplate()
	if err != nil {
		return err
	}
	data.cat = r.cat
	var title, canonical string
	if data.Title != "" || data.Canonical != "" {
		start := w.Len()
		if err := vt.ExecuteTemplate(w, "frame-values", data); err != nil {
			return fmt.Errorf("web: render %s: %w", page, err)
		}
		// The escaped title has no "<", the escaped address no '"'.
		v := w.String()[start:]
		w.Truncate(start)
		rest := strings.TrimPrefix(v, "<title>")
		end := strings.Index(rest, "</title>")
		title = rest[:end]
		canonical = strings.TrimSuffix(strings.TrimPrefix(rest[end:], `</title><link rel="canonical" href="`), `">`)
	}
	for _, p := range f.parts {
		w.WriteString(p.text)
		switch p.slot {
		case slotTitle:
			w.WriteString(title)
		case slotCanonical:
			w.WriteString(canonical)
		case slotMain:
			if err := t.ExecuteTemplate(w, "main", data); err != nil {
				return fmt.Errorf("web: render %s: %w", page, err)
			}
		}
	}
	return nil
}
