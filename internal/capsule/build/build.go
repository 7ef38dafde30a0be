// Package build turns a checked capsule into a static website: one
// pre-rendered page per collection, paginated indexes newest first, a page
// per author and per tag, the media, an Atom feed, sitemap.xml, robots.txt,
// 404.html and a client-side search index. Pages are rendered with the
// templates of internal/web and link to each other with relative
// addresses that name files (c/ID/index.html, never c/ID/), so the site
// works from any folder of any host and opened from disk (file://), and
// loads nothing from any other host. The feed and sitemap.xml need the
// site's full address (--base-url https://…); without one they are left
// out and the build says so in Stats.Warnings.
package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/mediatype"
	"github.com/monitorhq/monitor/internal/web"
)

// marker marks a folder as a site this package wrote, which a new build
// may replace.
const marker = ".monitor-build"

// DefaultPageSize is how many posts an index page lists.
const DefaultPageSize = 20

// feedEntries is how many posts the Atom feed carries.
const feedEntries = 50

// Options say where the site goes and where it will be served.
type Options struct {
	// Out is the folder to write; it may be missing, empty, or an earlier
	// build.
	Out string
	// BaseURL is where the site is served: a path ("/", "/archive/") or a
	// full address (https://example.org/archive/). Only a full address
	// gives the site a feed and sitemap.xml, whose links must be absolute;
	// otherwise Stats.Warnings says they were left out.
	BaseURL string
	// PageSize is how many posts an index page lists (0: DefaultPageSize).
	PageSize int
	// Now dates the feed when no post does (nil: time.Now).
	Now func() time.Time
	// Progress, when set, is called after each collection page.
	Progress func(done, total int)
}

// Stats say what a build wrote.
type Stats struct {
	Collections int
	Pages       int
	Files       int
	Bytes       int64
	// Warnings are what the build left out and why, for the person who
	// ran it; none stops the build.
	Warnings []string
}

// site is one build in progress.
type site struct {
	src      *capsule.Source
	r        *web.Renderer
	root     string // staging folder
	info     web.SiteInfo
	basePath string
	absBase  string // "" when the base URL is only a path
	stats    Stats
	media    map[string]string // output path → capsule path
	urls     []string          // pages for the sitemap, from the root
	pool     *pool             // renders and writes, in parallel
	listJobs []listJob         // list pages, before they go to the pool
}

// listJob is a list page ready to render. List pages go to the pool in
// the order of the newest post each shows last, not list by list, so
// that a post's card is drawn, shown on the home page, its author's and
// its tags' pages and let go within a window of the posts instead of
// being held from the first list to the last.
type listJob struct {
	last int // where the page's last post is in the site's order (-1: none)
	run  func(p *pool) error
}

// Build writes the site for a capsule that check found free of errors.
func Build(ctx context.Context, src *capsule.Source, res *check.Result, opts Options) (Stats, error) {
	if err := res.Err(); err != nil {
		return Stats{}, fmt.Errorf("build: %w", err)
	}
	if opts.Out == "" {
		return Stats{}, errors.New("build: name the output folder with -o")
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	basePath, absBase, err := parseBase(opts.BaseURL)
	if err != nil {
		return Stats{}, err
	}
	if err := checkOut(opts.Out); err != nil {
		return Stats{}, err
	}
	r, err := web.New()
	if err != nil {
		return Stats{}, err
	}
	parent := filepath.Dir(filepath.Clean(opts.Out))
	staging, err := os.MkdirTemp(parent, "."+filepath.Base(opts.Out)+".staging-")
	if err != nil {
		return Stats{}, fmt.Errorf("build: cannot stage beside %s: %w", opts.Out, err)
	}
	defer os.RemoveAll(staging)

	man := res.Manifest
	s := &site{src: src, r: r, root: staging, basePath: basePath, absBase: absBase, media: map[string]string{},
		info: web.SiteInfo{Title: man.Site.Title, Description: man.Site.Description, Language: man.Site.Language}}
	if absBase != "" {
		s.info.Feed = "feed.xml"
	} else {
		given := "no --base-url was given"
		if strings.TrimSpace(opts.BaseURL) != "" {
			given = fmt.Sprintf("--base-url %q is only a path", opts.BaseURL)
		}
		s.stats.Warnings = append(s.stats.Warnings, fmt.Sprintf(
			"no feed.xml or sitemap.xml written: %s, and feed readers and search engines need the site's full address; "+
				"pass --base-url with it, e.g. --base-url https://example.org/archive/", given))
	}
	if s.info.Title == "" {
		s.info.Title = s.t("build.archive")
		if man.Owner.Name != "" {
			s.info.Title = s.t("build.archive.of", man.Owner.Name)
		}
	}

	posts := make([]*post, 0, len(res.Entries))
	for _, e := range res.Entries {
		posts = append(posts, s.post(e))
	}
	sort.SliceStable(posts, func(i, j int) bool {
		if !posts[i].Date.Equal(posts[j].Date) {
			return posts[i].Date.After(posts[j].Date)
		}
		return posts[i].ID > posts[j].ID
	})
	for i, p := range posts {
		p.index = i
	}

	s.pool = newPool(opts.Progress, len(posts))
	if err = s.proofs(posts); err == nil {
		err = s.render(ctx, posts, opts)
	}
	if werr := s.pool.wait(); err == nil {
		err = werr
	}
	if err != nil {
		return Stats{}, err
	}
	// The marker goes last: a folder with it holds a whole site.
	if err := s.write(marker, []byte("Written by monitor build; the next build replaces this folder.\n")); err != nil {
		return Stats{}, err
	}
	s.stats.Collections = len(posts)
	s.stats.Pages, s.stats.Files, s.stats.Bytes = s.pool.pages, s.pool.files, s.pool.bytes
	if err := swap(staging, opts.Out); err != nil {
		return Stats{}, err
	}
	return s.stats, nil
}

// render hands every page and file of the site to the pool, in the
// site's order.
func (s *site) render(ctx context.Context, posts []*post, opts Options) error {
	for _, p := range posts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.pool.failed() {
			return nil
		}
		// The page draws a copy of the post that has its entity.
		pp := *p.Post
		pg := &web.Page{Site: s.info, Title: p.Title, Nav: "home", Post: &pp}
		s.pool.submit(s.plan(p.URL, "post.html", pg, func() error { pp.Entity = p.entity(); return nil }))
	}
	s.lists(posts, opts.PageSize)
	if err := s.extras(posts, opts.Now); err != nil {
		return err
	}
	return s.copyMedia(ctx)
}

// parseBase splits the base URL into the path pages are served under and,
// when it is a full address, its absolute form.
func parseBase(base string) (basePath, abs string, err error) {
	if base == "" {
		base = "/"
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") || (u.Scheme != "" && u.Host == "") {
		return "", "", fmt.Errorf("build: --base-url %q must be a path such as / or an address such as https://example.org/archive/", base)
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	if u.Scheme != "" {
		u.Path, u.RawQuery, u.Fragment = p, "", ""
		abs = u.String()
	}
	return p, abs, nil
}

// checkOut accepts a missing folder, an empty one, or an earlier build.
func checkOut(out string) error {
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("build: %s is a file; name a folder with -o", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, marker)); err == nil {
		return nil
	}
	return fmt.Errorf("build: %s is not empty and is not an earlier build; choose another -o or empty it first", out)
}

// swap moves the staged site into place, replacing an earlier build.
func swap(staging, out string) error {
	if err := os.Chmod(staging, 0o755); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	old := ""
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		old = out + ".old-" + filepath.Base(staging)
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("build: move the earlier build away: %w", err)
		}
	}
	if err := os.Rename(staging, out); err != nil {
		if old != "" {
			_ = os.Rename(old, out)
		}
		return fmt.Errorf("build: move the site into place: %w", err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

// post is a page's post with what lists and the feed also need.
type post struct {
	*web.Post
	c       *capsule.Collection
	path    string // the collection file, from the capsule root
	author  string // the author's slug
	profile string // the graph key of the author's profile entity ("": none)

	index int // where it is in the site's order, newest first

	// card is the post's card for list pages, rendered once on a worker
	// (lists hands the cards out just before the first page that shows
	// them) and let go by the last of those pages: cardUses is how many
	// list pages show it (home, its author's and one per tag).
	cardOnce sync.Once
	card     web.PostCard
	cardErr  error
	cardUses atomic.Int32
}

// cardOf is the post's card, rendered once.
func (s *site) cardOf(p *post) (web.PostCard, error) {
	if err := s.drawCard(p); err != nil {
		return web.PostCard{}, err
	}
	return p.card, nil
}

// drawCard renders the post's card once. It does not read the card,
// which the last page that shows it lets go: only those pages may.
func (s *site) drawCard(p *post) error {
	p.cardOnce.Do(func() { p.card, p.cardErr = s.r.Card(p.Post) })
	return p.cardErr
}

// cards gives a list page its posts' cards drawn once for the whole
// build; a page whose root they cannot take renders them itself.
func (s *site) cards(pg *web.Page, posts []*post) error {
	list := make([]template.HTML, 0, len(posts))
	for _, p := range posts {
		c, err := s.cardOf(p)
		if err != nil {
			return err
		}
		h, ok := c.HTML(pg.Root)
		if !ok {
			return nil
		}
		list = append(list, h)
		if p.cardUses.Add(-1) == 0 {
			p.card = web.PostCard{}
		}
	}
	pg.List.Cards = list
	return nil
}

func (s *site) post(e check.Entry) *post {
	c := e.Collection
	date := c.SavedAt
	if c.PublishedAt != nil {
		date = *c.PublishedAt
	}
	p := &web.Post{
		ID: c.ID, URL: "c/" + c.ID + "/index.html", Date: date, Saved: c.SavedAt, Source: c.URL, Platform: c.Platform,
		Body: web.TextHTML(c.TextKind, c.Text), Excerpt: excerpt(c.Text, 300), Sensitive: c.Sensitive,
	}
	name := c.Author.Name
	if name == "" {
		name = c.Author.Handle
	}
	if name == "" {
		name = s.t("build.unknown_author")
	}
	// A summary ends in media markers stored in a neutral form (⟦image⟧):
	// render them in the site's language.
	p.Title = app.RenderSummary(c.Summary, app.Lang("", s.info.Language))
	if t := excerpt(c.Text, 70); t != "" {
		p.Title = name + ": " + t
	}
	if p.Title == "" {
		p.Title = name
	}
	slug := slugify(c.Author.Handle)
	if slug == "" {
		slug = slugify(name)
	}
	p.Author = web.Author{Name: name, Handle: c.Author.Handle, URL: "authors/" + slug + "/index.html", Profile: c.Author.URL}
	authorKey := related(&c.Graph, c.Graph.Root, "authored_by")
	if av := s.resource(&c.Graph, authorKey, "avatar"); av != "" {
		p.Author.Avatar = av
	}
	for i, m := range c.Media {
		p.Media = append(p.Media, s.mediaItem(m.SHA256, m.Mime, m.File, m.Kind, m.Alt, m.Width, m.Height, m.Sensitive || c.Sensitive, fmt.Sprint(i)))
	}
	web.AttachPosters(p.Media, s.resources(&c.Graph, c.Graph.Root, "poster"))
	seen := map[string]bool{}
	for _, t := range c.Tags {
		ts := slugify(t)
		if ts == "" || seen[ts] {
			continue
		}
		seen[ts] = true
		p.Tags = append(p.Tags, web.Link{Name: t, URL: "tags/" + ts + "/index.html"})
	}
	if q := related(&c.Graph, c.Graph.Root, "quotes"); q != "" {
		p.Quoted = s.quote(&c, q)
	}
	// The post page draws the post with its type's renderer, as the live
	// item page does (web.BuildEntity, on the worker: entity); here only
	// the graph's files are noted for the copy.
	s.graphFiles(&c.Graph)
	out := &post{Post: p, c: &c, path: e.Path, author: slug, profile: profileKey(&c.Graph)}
	out.cardUses.Store(int32(2 + len(p.Tags)))
	return out
}

func (s *site) mediaItem(sha, mime, file, kind, alt string, w, h int, sensitive bool, id string) web.Media {
	out, name := sitePath(sha, mime), ""
	if !mediatype.Inline(mime) {
		name = mediatype.Filename(sha, mime)
	}
	s.media[out] = file
	return web.Media{URL: out, Name: name, Kind: kind, Mime: mime, Alt: alt, Width: w, Height: h, Sensitive: sensitive, ID: id}
}

// sitePath is where the site keeps a media file. A static host picks a
// file's Content-Type by its extension, so an .svg, .html or .xhtml file
// would open as a document that runs scripts on the site's origin: files
// that are not shown inline are written as .bin, which hosts serve as
// application/octet-stream, and pages link them with a download name.
func sitePath(sha, mime string) string {
	out := capsule.FilePath(sha, mime)
	if mediatype.Inline(mime) {
		return out
	}
	return strings.TrimSuffix(out, path.Ext(out)) + ".bin"
}

// graphFiles notes the files of a graph's resources for the copy.
func (s *site) graphFiles(g *capsule.Graph) {
	for _, e := range g.Entities {
		for _, r := range e.Resources {
			if r.File != "" && r.SHA256 != "" {
				s.media[sitePath(r.SHA256, r.Mime)] = r.File
			}
		}
	}
}

// entity is the post as its type's renderer draws it, for its page;
// nil keeps the post's own fields. It is made on the worker that
// renders the page and let go after, so that the build does not hold
// every post's twice.
func (p *post) entity() *web.Entity { return web.BuildEntity(graph(&p.c.Graph), p.Media) }

// graph is a capsule's graph as the web renderers read it, each resource
// at its path on the site.
func graph(g *capsule.Graph) *web.Graph {
	out := &web.Graph{Root: g.Root}
	for _, e := range g.Entities {
		we := web.GraphEntity{Key: e.Key, Type: e.Type, Data: e.Data}
		for _, r := range e.Resources {
			if r.File == "" || r.SHA256 == "" {
				continue
			}
			out := sitePath(r.SHA256, r.Mime)
			we.Resources = append(we.Resources, web.Resource{Purpose: r.Purpose, Kind: r.Kind, Mime: r.Mime, URL: out})
		}
		out.Entities = append(out.Entities, we)
	}
	for _, r := range g.Relations {
		out.Relations = append(out.Relations, web.GraphRelation{From: r.From, Relation: r.Relation, To: r.To})
	}
	return out
}

// related is the key of the entity a relation leads to from key.
func related(g *capsule.Graph, key, relation string) string {
	for _, r := range g.Relations {
		if r.From == key && r.Relation == relation {
			return r.To
		}
	}
	return ""
}

func entity(g *capsule.Graph, key string) *capsule.Entity {
	for i := range g.Entities {
		if g.Entities[i].Key == key {
			return &g.Entities[i]
		}
	}
	return nil
}

// resource is the output path of an entity's first resource with a purpose.
func (s *site) resource(g *capsule.Graph, key, purpose string) string {
	if out := s.resources(g, key, purpose); len(out) > 0 {
		return out[0]
	}
	return ""
}

// resources are the output paths of an entity's image resources with a
// purpose, in order. Each is shown as an <img> or a poster, so only a
// raster image will do; any other one is left out, and with it the
// pairing of posters, which AttachPosters then declines.
func (s *site) resources(g *capsule.Graph, key, purpose string) []string {
	e := entity(g, key)
	if e == nil {
		return nil
	}
	var out []string
	for _, r := range e.Resources {
		if r.Purpose != purpose {
			continue
		}
		if r.Kind != "image" || !mediatype.Inline(r.Mime) {
			return nil
		}
		p := sitePath(r.SHA256, r.Mime)
		s.media[p] = r.File
		out = append(out, p)
	}
	return out
}

func (s *site) quote(c *capsule.Collection, key string) *web.Quote {
	e := entity(&c.Graph, key)
	if e == nil {
		return nil
	}
	var data struct {
		Text string `json:"text"`
		URL  string `json:"url"`
	}
	_ = json.Unmarshal(e.Data, &data)
	q := &web.Quote{Body: web.PlainHTML(data.Text), Source: data.URL}
	if a := entity(&c.Graph, related(&c.Graph, key, "authored_by")); a != nil {
		var prof struct {
			Name   string `json:"name"`
			Handle string `json:"handle"`
		}
		_ = json.Unmarshal(a.Data, &prof)
		q.Author = prof.Name
		if prof.Handle != "" {
			q.Author += " @" + prof.Handle
		}
	}
	for i, r := range e.Resources {
		if r.Purpose == "avatar" || r.Purpose == "banner" || r.Purpose == "poster" {
			continue
		}
		q.Media = append(q.Media, s.mediaItem(r.SHA256, r.Mime, r.File, r.Kind, "", 0, 0, c.Sensitive, fmt.Sprintf("q%d", i)))
	}
	web.AttachPosters(q.Media, s.resources(&c.Graph, key, "poster"))
	return q
}

// lists writes the home index, the author and tag pages and directories.
func (s *site) lists(posts []*post, size int) {
	s.paginate("", "", "", "home", nil, posts, size)
	byAuthor := map[string][]*post{}
	authorName := map[string]string{}
	byTag := map[string][]*post{}
	tagName := map[string]string{}
	for _, p := range posts {
		byAuthor[p.author] = append(byAuthor[p.author], p)
		if _, ok := authorName[p.author]; !ok {
			authorName[p.author] = p.Author.Name
		}
		for _, t := range p.Tags {
			slug := strings.TrimSuffix(strings.TrimPrefix(t.URL, "tags/"), "/index.html")
			byTag[slug] = append(byTag[slug], p)
			if _, ok := tagName[slug]; !ok {
				tagName[slug] = t.Name
			}
		}
	}
	// Pages go out by slug, so that sitemap.xml lists them in the same
	// order on every build of the same capsule.
	var authors, tags []web.Link
	for _, slug := range slices.Sorted(maps.Keys(byAuthor)) {
		ps := byAuthor[slug]
		name := authorName[slug]
		if h := ps[0].Author.Handle; h != "" {
			name += " (@" + h + ")"
		}
		s.paginate("authors/"+slug+"/", s.t("build.posts_by", name), "", "authors", s.profile(ps), ps, size)
		authors = append(authors, web.Link{Name: name, URL: "authors/" + slug + "/index.html", Count: len(ps)})
	}
	for _, slug := range slices.Sorted(maps.Keys(byTag)) {
		ps := byTag[slug]
		s.paginate("tags/"+slug+"/", "#"+tagName[slug], "", "tags", nil, ps, size)
		tags = append(tags, web.Link{Name: "#" + tagName[slug], URL: "tags/" + slug + "/index.html", Count: len(ps)})
	}
	// sitemap.xml has the pages in the order above; the pool gets them
	// in the order of their posts.
	slices.SortStableFunc(s.listJobs, func(a, b listJob) int { return a.last - b.last })
	// The cards go out just before the first page that shows them, a
	// few posts a job: pages of the same posts (the home page and its
	// author's, say) come one after another, and a worker drawing one
	// waited on each card the other was drawing for the other, so the
	// two took turns (one author, 10,000 posts: the list pages kept the
	// two cores 75% busy). Handing them out further ahead drew no
	// faster and held more cards at once.
	carded := 0 // posts whose cards are handed out
	for i := range s.listJobs {
		if s.pool.failed() {
			break
		}
		for carded < len(posts) && carded <= s.listJobs[i].last {
			chunk := posts[carded:min(carded+cardsPerJob, len(posts))]
			carded += len(chunk)
			s.pool.submit(func(*pool) error {
				for _, p := range chunk {
					if err := s.drawCard(p); err != nil {
						return err
					}
				}
				return nil
			})
		}
		s.pool.submit(s.listJobs[i].run)
		s.listJobs[i] = listJob{} // a page drawn is let go
	}
	s.listJobs = nil
	byName := func(l []web.Link) {
		sort.Slice(l, func(i, j int) bool { return strings.ToLower(l[i].Name) < strings.ToLower(l[j].Name) })
	}
	byName(authors)
	byName(tags)
	s.page("authors/index.html", "terms.html", &web.Page{Site: s.info, Title: s.t("nav.authors"), Nav: "authors", Terms: authors})
	s.page("tags/index.html", "terms.html", &web.Page{Site: s.info, Title: s.t("nav.tags"), Nav: "tags", Terms: tags})
}

// cardsPerJob is how many cards a job draws.
const cardsPerJob = 10

// paginate writes a list of posts as prefix/index.html and
// prefix/page/N/index.html; profile, when set, heads every page.
func (s *site) paginate(prefix, heading, intro, nav string, profile *web.Profile, posts []*post, size int) {
	pages := max(1, (len(posts)+size-1)/size)
	url := func(n int) string {
		if n == 1 {
			return prefix + "index.html"
		}
		return fmt.Sprintf("%spage/%d/index.html", prefix, n)
	}
	for n := 1; n <= pages; n++ {
		list := &web.PostList{Heading: heading, Intro: intro, Profile: profile, Page: n, Pages: pages}
		shown := posts[(n-1)*size : min(n*size, len(posts))]
		for _, p := range shown {
			list.Posts = append(list.Posts, p.Post)
		}
		if n > 1 {
			list.Prev = url(n - 1)
		}
		if n < pages {
			list.Next = url(n + 1)
		}
		title := heading
		if n > 1 && heading == "" {
			title = s.t("build.page", n)
		} else if n > 1 {
			title = s.t("build.heading_page", heading, n)
		}
		pg := &web.Page{Site: s.info, Title: title, Nav: nav, List: list}
		last := -1
		if len(shown) > 0 {
			last = shown[len(shown)-1].index
		}
		s.listJobs = append(s.listJobs, listJob{last: last, run: s.plan(url(n), "list.html", pg, func() error { return s.cards(pg, shown) })})
	}
}

// t is a text of the site's language (web/build_i18n.go).
func (s *site) t(key string, args ...any) string { return s.r.T(s.info.Language, key, args...) }

// page renders one page at a path from the site root, on the pool: pg
// is not touched again once handed over.
func (s *site) page(rel, tmpl string, pg *web.Page) { s.pool.submit(s.plan(rel, tmpl, pg, nil)) }

// plan readies a page at a path from the site root, in the sitemap's
// order, and is the pool's job that renders it; prepare, when set,
// completes pg on the worker first.
func (s *site) plan(rel, tmpl string, pg *web.Page, prepare func() error) func(p *pool) error {
	if pg.Root == "" {
		pg.Root = strings.Repeat("../", strings.Count(rel, "/"))
	}
	dir := strings.TrimSuffix(rel, "index.html")
	if s.absBase != "" && tmpl != "404.html" {
		pg.Canonical = s.absBase + dir
	}
	if tmpl != "404.html" && tmpl != "search.html" {
		s.urls = append(s.urls, dir)
	}
	file := filepath.Join(s.root, filepath.FromSlash(rel))
	collection := tmpl == "post.html"
	return func(p *pool) error {
		if prepare != nil {
			if err := prepare(); err != nil {
				return err
			}
		}
		return p.render(s.r, file, rel, tmpl, pg, collection)
	}
}

// write writes a file that is not a page, at a path from the site root.
func (s *site) write(rel string, data []byte) error {
	return s.pool.writeFile(filepath.Join(s.root, filepath.FromSlash(rel)), data)
}

func (s *site) copyMedia(ctx context.Context) error {
	outs := make([]string, 0, len(s.media))
	for out := range s.media {
		outs = append(outs, out)
	}
	sort.Strings(outs)
	for _, out := range outs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.pool.failed() {
			return nil
		}
		file, dst := s.media[out], filepath.Join(s.root, filepath.FromSlash(out))
		s.pool.submit(func(p *pool) error {
			in, err := s.src.OpenFile(file)
			if err != nil {
				return fmt.Errorf("build: %s: %w", file, err)
			}
			if err := p.copyFile(dst, in); err != nil {
				return fmt.Errorf("build: copy %s: %w", file, err)
			}
			return nil
		})
	}
	return nil
}

// link is a page's address for the feed and sitemap: absolute when the
// base URL is, else a path under the base path.
func (s *site) link(rel string) string {
	if s.absBase != "" {
		return s.absBase + rel
	}
	return s.basePath + rel
}

func excerpt(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	return strings.TrimSpace(string(r[:n])) + "…"
}

// slugify makes a path segment of a name: lowercase letters and digits
// joined by dashes.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	out := []rune(b.String())
	if len(out) > 80 {
		out = out[:80]
	}
	return strings.Trim(string(out), "-.")
}
