package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/mediatype"
)

// The item page, GET /c/{id}: one saved collection drawn by its type's
// renderer (entity.go), its actions, and the timeline of its revisions;
// GET /c/{id}/diff?from=REV&to=REV shows a word diff of two revisions.

// ItemView is the item page's own content (Page.Data).
type ItemView struct {
	// ID is the collection's id, for the action forms.
	ID string
	// Source is the original address upstream ("" : none).
	Source string
	// State is the latest capture's state ("" : none visible).
	State     string
	Revisions []RevisionRow
	// From and To are the revisions the diff form has chosen.
	From, To string
	// Diff is set on the diff page.
	Diff *Diff
	// AuthorPosts are, on a profile's or channel's page, its posts in the
	// tenant's archive: one page of its members, newest save first.
	AuthorPosts []card
	// PostsNext and PostsFirst lead to the next page of AuthorPosts and
	// back to the first ("" : none).
	PostsNext, PostsFirst string
	// Chain is the profile's submission the page was opened from (nil :
	// none), for its progress and Fetch more.
	Chain *chainLink
	// Destinations are the cloud drives the tenant may push the item to
	// (live site only); Pushed names the one a push just went to.
	Destinations []app.DestinationView
	Pushed       string
}

// chainLink is a profile's or channel's submission as its page shows it.
type chainLink struct {
	// Href is the submission's progress page.
	Href    string
	Running bool
	// ID is the submission; More is the last page of its chain, whose
	// next page Fetch more asks for ("" : nothing more).
	ID, More string
}

// RevisionRow is one revision in the item page's timeline.
type RevisionRow struct {
	ID      string
	Time    time.Time
	Hash    string
	Bytes   int64
	Current bool
}

// Size is the revision's size for people: 1.2 KB.
func (r RevisionRow) Size() string { return humanBytes(r.Bytes) }

// When writes a time for people in the page's language, to the minute,
// in UTC: 18 Jul 2026 08:41 UTC, 2026年7月18日 08:41 UTC.
func (p *Page) When(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	if p.Language() == LangChinese {
		return t.Format("2006年1月2日 15:04 UTC")
	}
	return t.Format("2 Jan 2006 15:04 UTC")
}

// Day writes a date for people in the page's language.
func (p *Page) Day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	if p.Language() == LangChinese {
		return t.Format("2006年1月2日")
	}
	return t.Format("2 Jan 2006")
}

// hashPrefix is how much of a content hash the timeline shows.
const hashPrefix = 12

func (s *server) item(w http.ResponseWriter, r *http.Request, rq *request) {
	v, revs, ok := s.loadItem(w, r, rq)
	if !ok {
		return
	}
	view := itemViewOf(v, revs)
	if len(revs) > 1 {
		view.From, view.To = revs[1].ID.String(), revs[0].ID.String()
	}
	post := PostOf(v)
	sum, err := s.d.App.CollectionChainSummary(r.Context(), rq.tenantID, v.ID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	if sum.Revisions > 0 {
		post.Proof = &Proof{Revisions: sum.Revisions, Verified: sum.Verified, Fingerprint: sum.KeyFingerprint,
			Href: "/v1/collections/" + v.ID.String() + "/proof", Name: "proof-" + v.ID.String() + ".json"}
	}
	if e := post.Entity; e != nil && (e.Render == RenderXProfile || e.Render == RenderTelegramChannel) {
		if !s.profilePosts(w, r, rq, v, e, view) {
			return
		}
	}
	if view.Destinations, err = s.d.App.TenantDestinations(r.Context(), rq.tenantID); err != nil {
		s.fail(w, r, rq, err)
		return
	}
	for _, d := range view.Destinations {
		if d.Name == r.URL.Query().Get("pushed") {
			view.Pushed = d.Name
		}
	}
	s.page(w, r, rq, http.StatusOK, "item.html", &Page{Title: itemTitle(v), Post: post, Data: view, Nav: "library"})
}

// membersShown is how many of a profile's posts one page of its item page
// lists.
const membersShown = 20

// profilePosts fills in a profile's or channel's posts (the page of its
// members the query's posts cursor names) and, when the page was opened
// from one of its submissions (?submission=), that submission's progress
// and Fetch more. It answers the request itself when it returns false.
func (s *server) profilePosts(w http.ResponseWriter, r *http.Request, rq *request, v app.CollectionView, e *Entity, view *ItemView) bool {
	q := r.URL.Query()
	cursor := q.Get("posts")
	members, err := s.d.App.Members(r.Context(), rq.tenantID, v.ID, membersShown, cursor)
	if errors.Is(err, app.ErrInvalid) {
		t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
		s.page(w, r, rq, http.StatusBadRequest, "error.html", &Page{Title: t("item.posts.bad"),
			Data: errorView{Title: t("item.posts.bad"), Text: t("item.posts.bad.text")}})
		return false
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return false
	}
	for _, m := range members.Items {
		view.AuthorPosts = append(view.AuthorPosts, s.memberCard(rq, m))
	}
	link := func(posts string) string {
		u := url.Values{}
		if sub := q.Get("submission"); sub != "" {
			u.Set("submission", sub)
		}
		if posts != "" {
			u.Set("posts", posts)
		}
		if len(u) == 0 {
			return "/c/" + v.ID.String()
		}
		return "/c/" + v.ID.String() + "?" + u.Encode()
	}
	if members.NextCursor != "" {
		view.PostsNext = link(members.NextCursor)
	}
	if cursor != "" {
		view.PostsFirst = link("")
	}
	if len(members.Items) == 0 && cursor == "" {
		// Nothing archived through the profile's own pages (posts saved
		// one by one, an import): its posts by author instead.
		if view.AuthorPosts, err = s.authorPosts(r, rq, v, e); err != nil {
			s.fail(w, r, rq, err)
			return false
		}
	}
	if view.Chain, err = s.chainOf(r, rq, v.ID, q.Get("submission")); err != nil {
		s.fail(w, r, rq, err)
		return false
	}
	return true
}

// chainOf is the tenant's submission id of the collection (nil for none,
// not a submission of the tenant or of another collection).
func (s *server) chainOf(r *http.Request, rq *request, collectionID uuid.UUID, id string) (*chainLink, error) {
	sid, err := uuid.Parse(id)
	if err != nil {
		return nil, nil
	}
	sv, err := s.d.App.Submission(r.Context(), rq.tenantID, sid)
	if errors.Is(err, app.ErrNotFound) || (err == nil && (sv.CollectionID != collectionID || sv.Kind == "post")) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c := &chainLink{Href: "/submissions/" + sv.ID.String(), Running: !ended(sv.State), ID: sv.ID.String()}
	if sv.HasMore {
		last, err := s.lastPage(r.Context(), rq.tenantID, sv)
		if err != nil {
			return nil, err
		}
		c.More = last.String()
	}
	return c, nil
}

// memberCard is a profile's post as its page lists it.
func (s *server) memberCard(rq *request, m app.CollectionView) card {
	c := card{ID: m.ID.String(), Href: "/c/" + m.ID.String(), Source: m.SourceURL, Platform: m.Platform, Saved: m.SavedAt,
		Text: clip(m.Text, cardTextRunes), Empty: m.RevisionID == nil}
	if c.Text == "" {
		c.Text = clip(app.RenderSummary(m.Summary, rq.lang), cardTextRunes)
	}
	if m.PublishedAt != nil {
		c.Time = *m.PublishedAt
	}
	for _, md := range m.Media {
		c.Thumbs = append(c.Thumbs, thumb{URL: "/v1/media/" + md.SHA256, Kind: md.Kind, Alt: md.Alt, Sensitive: md.Sensitive})
	}
	return c
}

// authorPostsShown is how many of a profile's posts its page lists.
const authorPostsShown = 12

// authorPosts are the posts by a profile or channel that the tenant has
// in the archive, newest save first: the library filtered by the
// author's name, kept to the cards whose handle is the profile's.
func (s *server) authorPosts(r *http.Request, rq *request, v app.CollectionView, e *Entity) ([]card, error) {
	if e.Name == "" || e.Handle == "" {
		return nil, nil
	}
	page, err := s.d.App.Library(r.Context(), rq.tenantID, app.LibraryQuery{Platform: v.Platform, Author: e.Name, Limit: 100})
	if err != nil {
		return nil, err
	}
	var out []card
	for _, c := range page.Items {
		if c.ID == v.ID || !strings.EqualFold(c.AuthorHandle, e.Handle) {
			continue
		}
		out = append(out, s.card(rq, c))
		if len(out) == authorPostsShown {
			break
		}
	}
	return out, nil
}

func (s *server) itemDiff(w http.ResponseWriter, r *http.Request, rq *request) {
	v, revs, ok := s.loadItem(w, r, rq)
	if !ok {
		return
	}
	q := r.URL.Query()
	from, to := findRevision(revs, q.Get("from")), findRevision(revs, q.Get("to"))
	if from == nil || to == nil {
		// A revision of another collection, or no id at all: nothing to show.
		s.notFound(w, r, rq)
		return
	}
	view := itemViewOf(v, revs)
	view.From, view.To = from.ID.String(), to.ID.String()
	d := WordDiff(from.Text, to.Text)
	view.Diff = &d
	title := s.d.Renderer.cat.T(rq.lang, "item.diff.title")
	s.page(w, r, rq, http.StatusOK, "item.html", &Page{Title: title + " · " + itemTitle(v), Data: view, Nav: "library"})
}

// loadItem reads the collection and its revisions, or answers 404 for an
// id that is not one or not the tenant's.
func (s *server) loadItem(w http.ResponseWriter, r *http.Request, rq *request) (app.CollectionView, []app.RevisionView, bool) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return app.CollectionView{}, nil, false
	}
	v, err := s.d.App.Collection(r.Context(), rq.tenantID, id)
	if err != nil {
		s.fail(w, r, rq, err)
		return v, nil, false
	}
	// The summary's media markers are stored in a neutral form: render
	// them in the reader's language.
	v.Summary = app.RenderSummary(v.Summary, rq.lang)
	revs, err := s.d.App.Revisions(r.Context(), rq.tenantID, v.ID)
	if err != nil {
		s.fail(w, r, rq, err)
		return v, nil, false
	}
	return v, revs, true
}

func findRevision(revs []app.RevisionView, id string) *app.RevisionView {
	for i := range revs {
		if revs[i].ID.String() == id {
			return &revs[i]
		}
	}
	return nil
}

func itemViewOf(v app.CollectionView, revs []app.RevisionView) *ItemView {
	view := &ItemView{ID: v.ID.String(), Source: v.SourceURL, State: v.State}
	for _, rv := range revs { // newest first, as the app lists them
		h := rv.ContentHash
		if len(h) > hashPrefix {
			h = h[:hashPrefix]
		}
		view.Revisions = append(view.Revisions, RevisionRow{ID: rv.ID.String(), Time: rv.CreatedAt, Hash: h, Bytes: rv.ContentBytes,
			Current: v.RevisionID != nil && *v.RevisionID == rv.ID})
	}
	return view
}

func itemTitle(v app.CollectionView) string {
	if v.Summary != "" {
		return v.Summary
	}
	if v.AuthorName != "" {
		return v.AuthorName
	}
	return v.SourceURL
}

// liveMediaURL is where the live site serves a media file: REST's
// GET /v1/media, which answers Range requests (path from the site root).
func liveMediaURL(sha256 string) string { return "v1/media/" + sha256 }

// PostOf turns a saved collection into the post the live pages show,
// with its renderer's Entity when the graph's root type has one. Media
// paths lead to GET /v1/media.
func PostOf(v app.CollectionView) *Post {
	p := &Post{
		ID: v.ID.String(), URL: "c/" + v.ID.String(), Title: v.Summary, Source: v.SourceURL, Platform: v.Platform,
		Saved: v.SavedAt, Date: v.SavedAt, Body: TextHTML(v.TextKind, v.Text), Excerpt: v.Summary,
		Author: Author{Name: v.AuthorName},
	}
	if v.PublishedAt != nil {
		p.Date = *v.PublishedAt
	}
	if v.Text == "" && v.Summary != "" {
		p.Body = PlainHTML(v.Summary) // a post without text still says what it is
	}
	for i, m := range v.Media {
		p.Media = append(p.Media, Media{URL: liveMediaURL(m.SHA256), Kind: m.Kind, Mime: m.Mime, Alt: m.Alt, Width: m.Width,
			Height: m.Height, Sensitive: m.Sensitive, ID: strconv.Itoa(i)})
		if p.Media[i].Inline() {
			continue
		}
		p.Media[i].Name = mediatype.Filename(m.SHA256, m.Mime) // offered as a download, under its type's extension
	}
	if v.Graph != nil {
		p.Entity = BuildEntity(GraphOf(v.Graph, liveMediaURL), p.Media)
	}
	if e := p.Entity; e != nil {
		p.Author = Author{Name: e.Name, Handle: e.Handle, Avatar: e.Avatar, Profile: e.Profile}
		p.Media = e.Media
		if !e.Published.IsZero() {
			p.Date = e.Published
		}
	}
	for _, m := range p.Media {
		p.Sensitive = p.Sensitive || m.Sensitive
	}
	return p
}

// GraphOf turns a revision's graph into the renderers' Graph; url maps a
// resource's sha256 to its path from the site root.
func GraphOf(g *app.GraphView, url func(sha256 string) string) *Graph {
	out := &Graph{Root: g.Root}
	for _, e := range g.Entities {
		ge := GraphEntity{Key: e.Key, Type: e.Type, Data: e.Data}
		for _, r := range e.Resources {
			ge.Resources = append(ge.Resources, Resource{Purpose: r.Purpose, Kind: r.Kind, Mime: r.Mime, URL: url(r.SHA256)})
		}
		out.Entities = append(out.Entities, ge)
	}
	for _, r := range g.Relations {
		out.Relations = append(out.Relations, GraphRelation{From: r.From, Relation: r.Relation, To: r.To})
	}
	return out
}

// humanBytes writes a size in B, KB, MB or GB (powers of 1,000).
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	f, suffix := float64(n), []string{"KB", "MB", "GB", "TB"}
	i := -1
	for f >= unit && i < len(suffix)-1 {
		f /= unit
		i++
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + suffix[i]
}
