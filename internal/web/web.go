// Package web holds Monitor's server-rendered pages: the templates, the
// style sheet and the small scripts, embedded in the binary. The static
// site that `monitor build` writes and the live web library render the
// same templates from the same view values (view.go), so an archive looks
// the same served or published.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed templates/*.html static/*
var content embed.FS

// pages are the page templates; each is rendered inside layout.html.
func pages() []string {
	return append([]string{"list.html", "post.html", "item.html", "terms.html", "search.html", "404.html", "error.html", "login.html",
		"library.html", "capture.html", "usage.html", "tokens.html", "accounts.html", "sessions.html", "settings.html", "results.html",
		"submission.html", "watches.html", "watch.html", "admin_watches.html", "channels.html"}, adminPages()...)
}

// Asset is a static file with a content-hashed name, so that it can be
// cached forever.
type Asset struct {
	// Name is the logical name, style.css.
	Name string
	// Path is where it is served from the site root: assets/style.1a2b3c4d.css.
	Path string
	Data []byte
}

// Renderer renders pages. The shared templates (layout and partials) are
// parsed when it is made; a page's own template is joined to a copy of
// them the first time the page is drawn. html/template copies every parse
// tree of the shared set into each page's copy, so parsing all 37 pages at
// start held about 13 MB of a server's 20 MB of live heap, for pages an
// idle or API-only server never draws. The templates are embedded, so a
// page that fails to parse fails the same way in every run: the tests
// parse every page (TestEveryPageParses).
type Renderer struct {
	base   *template.Template
	pages  map[string]*lazyPage
	assets map[string]Asset
	cat    catalog
	// bufs are page buffers (*bytes.Buffer) kept between renders: the
	// static build renders thousands of pages.
	bufs sync.Pool
	// rootMark stands for the page's root in a PostCard (card.go) and
	// for a page's values in a Frame (frame.go).
	rootMark string
	// frame is the layout set Frame draws with (frame.go), parsed once.
	frameOnce sync.Once
	frame     *template.Template
	frameErr  error
}

// New parses the templates and hashes the static files.
func New() (*Renderer, error) {
	cat, err := newCatalog()
	if err != nil {
		return nil, err
	}
	r := &Renderer{pages: map[string]*lazyPage{}, assets: map[string]Asset{}, cat: cat, rootMark: newRootMark()}
	statics, err := fs.ReadDir(content, "static")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	for _, e := range statics {
		data, err := fs.ReadFile(content, "static/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		sum := sha256.Sum256(data)
		ext := path.Ext(e.Name())
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:4]) + ext
		r.assets[e.Name()] = Asset{Name: e.Name(), Path: "assets/" + hashed, Data: data}
	}
	funcs := template.FuncMap{
		"asset": func(name string) (string, error) {
			a, ok := r.assets[name]
			if !ok {
				return "", fmt.Errorf("web: no static file %s", name)
			}
			return a.Path, nil
		},
		"date": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2 Jan 2006")
		},
		"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"inc":       func(i int) int { return i + 1 },
		"hasPrefix": strings.HasPrefix,
		"mediaOf":   func(root string, m []Media) mediaBlock { return mediaBlock{Root: root, Media: m, cat: r.cat} },
		"mediaFor":  func(p *Page, m []Media) mediaBlock { return mediaBlock{Root: p.Root, Media: m, page: p, cat: r.cat} },
		"entityOf":  func(p *Page, post *Post) entityBlock { return entityBlock{P: p, Post: post, E: post.Entity} },
		"nestedOf":  func(p *Page, e *Entity) entityBlock { return entityBlock{P: p, E: e, Nested: true} },
		"cardOf":    func(root string, p *Post) cardBlock { return cardBlock{Root: root, Post: p} },
		"cardArgs":  func(p *Page, c card) cardArgs { return cardArgs{Page: p, Card: c} },
		"list":      func(s ...string) []string { return s },
		"bytes":     formatBytes,
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(content, "templates/layout.html", "templates/partials.html", "templates/entity.html", "templates/admin_partials.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse layout: %w", err)
	}
	r.base = base
	for _, p := range pages() {
		r.pages[p] = &lazyPage{}
	}
	return r, nil
}

// lazyPage is a page's template, parsed once, on first use.
type lazyPage struct {
	once sync.Once
	t    *template.Template
	err  error
}

// page is the parsed template of a page such as post.html.
func (r *Renderer) page(name string) (*template.Template, error) {
	lp, ok := r.pages[name]
	if !ok {
		return nil, fmt.Errorf("web: no page template %s", name)
	}
	lp.once.Do(func() {
		// The shared set is never executed itself, only its copies, so it
		// can always be cloned.
		c, err := r.base.Clone()
		if err == nil {
			lp.t, err = c.ParseFS(content, "templates/"+name)
		}
		if err != nil {
			lp.err = fmt.Errorf("web: parse %s: %w", name, err)
		}
	})
	return lp.t, lp.err
}

// mediaBlock and cardBlock carry the page's root into partial templates.
type mediaBlock struct {
	Root  string
	Media []Media
	// page gives the texts in the page's language (nil: English).
	page *Page
	cat  catalog
}

// T is a text of the media partial in the page's language.
func (b mediaBlock) T(key string, args ...any) string {
	if b.page != nil {
		return b.page.T(key, args...)
	}
	return b.cat.T(LangEnglish, key, args...)
}

// entityBlock carries a page and a post into the item renderers
// (entity.html): E nil draws the fallback; Nested draws a quoted post or
// a profile's post inside another.
type entityBlock struct {
	P      *Page
	Post   *Post
	E      *Entity
	Nested bool
}

type cardBlock struct {
	Root string
	Post *Post
}

// Render writes one page. page is a template name such as post.html; data
// is a Page.
func (r *Renderer) Render(w io.Writer, page string, data *Page) error {
	t, err := r.page(page)
	if err != nil {
		return err
	}
	data.cat = r.cat
	buf, _ := r.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer r.bufs.Put(buf)
	buf.Reset()
	if err := t.ExecuteTemplate(buf, "layout.html", data); err != nil {
		return fmt.Errorf("web: render %s: %w", page, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// Asset finds a static file by its content-hashed file name
// (style.1a2b3c4d.css).
func (r *Renderer) Asset(hashedName string) (Asset, bool) {
	for _, a := range r.assets {
		if path.Base(a.Path) == hashedName {
			return a, true
		}
	}
	return Asset{}, false
}

// Assets lists the static files, sorted by name.
func (r *Renderer) Assets() []Asset {
	out := make([]Asset, 0, len(r.assets))
	for _, a := range r.assets {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
