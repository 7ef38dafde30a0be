package build

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/web"
)

// extras writes what is not a page of posts: the search page and index,
// 404.html, the Atom feed and sitemap.xml (with a full base address only),
// robots.txt and the static assets.
func (s *site) extras(posts []*post, now func() time.Time) error {
	s.page("search/index.html", "search.html", &web.Page{Site: s.info, Title: s.t("nav.search"), Nav: "search"})
	// 404.html is served at any address, so its links start at the base.
	s.page("404.html", "404.html", &web.Page{Site: s.info, Title: s.t("error.notfound"), Root: s.basePath})
	index := make([]searchEntry, 0, len(posts))
	for _, p := range posts {
		index = append(index, searchEntryOf(p))
	}
	data, err := json.Marshal(index)
	if err != nil {
		return err
	}
	if err := s.write("search.json", data); err != nil {
		return err
	}
	// The search page reads the index from a script, not with fetch:
	// browsers refuse fetch on file:// pages. encoding/json escapes <, >
	// and &, so the data cannot end the script.
	script := append(append([]byte("// The search index of this site, for search/index.html.\nwindow.monitorSearchIndex = "), data...), ";\n"...)
	if err := s.write(searchIndexScript, script); err != nil {
		return err
	}
	if s.absBase != "" {
		if err := s.feed(posts, now); err != nil {
			return err
		}
		if err := s.sitemap(); err != nil {
			return err
		}
	}
	robots := "User-agent: *\nAllow: /\n"
	if s.absBase != "" {
		robots += "Sitemap: " + s.absBase + "sitemap.xml\n"
	}
	if err := s.write("robots.txt", []byte(robots)); err != nil {
		return err
	}
	for _, a := range s.r.Assets() {
		if err := s.write(a.Path, a.Data); err != nil {
			return err
		}
	}
	return nil
}

// searchIndexScript is the search index as a script that sets
// window.monitorSearchIndex; search.html loads it.
const searchIndexScript = "search-index.js"

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
}

type atomText struct {
	Type string `xml:"type,attr,omitempty"`
	Body string `xml:",chardata"`
}

type atomEntry struct {
	Title     string     `xml:"title"`
	ID        string     `xml:"id"`
	Link      atomLink   `xml:"link"`
	Updated   string     `xml:"updated"`
	Published string     `xml:"published,omitempty"`
	Author    atomAuthor `xml:"author"`
	Content   atomText   `xml:"content"`
	Category  []atomCat  `xml:"category"`
}

type atomAuthor struct {
	Name string `xml:"name"`
}

type atomCat struct {
	Term string `xml:"term,attr"`
}

type atomFeed struct {
	XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title    string      `xml:"title"`
	Subtitle string      `xml:"subtitle,omitempty"`
	ID       string      `xml:"id"`
	Updated  string      `xml:"updated"`
	Links    []atomLink  `xml:"link"`
	Author   atomAuthor  `xml:"author"`
	Entries  []atomEntry `xml:"entry"`
}

// feed writes feed.xml, the newest posts as an Atom feed.
func (s *site) feed(posts []*post, now func() time.Time) error {
	id := s.absBase
	if id == "" {
		id = "urn:uuid:" + uuid.NewSHA1(uuid.NameSpaceURL, []byte("urn:monitor:site:"+s.info.Title)).String()
	}
	f := atomFeed{Title: s.info.Title, Subtitle: s.info.Description, ID: id,
		Links:  []atomLink{{Href: s.link("feed.xml"), Rel: "self", Type: "application/atom+xml"}, {Href: s.link(""), Rel: "alternate", Type: "text/html"}},
		Author: atomAuthor{Name: s.info.Title}}
	var updated time.Time
	for i, p := range posts {
		if i == feedEntries {
			break
		}
		up := p.c.CapturedAt
		if up.IsZero() {
			up = p.c.SavedAt
		}
		if up.After(updated) {
			updated = up
		}
		e := atomEntry{Title: p.Title, ID: "urn:uuid:" + p.ID, Link: atomLink{Href: s.link(strings.TrimSuffix(p.URL, "index.html")), Rel: "alternate", Type: "text/html"},
			Updated: up.UTC().Format(time.RFC3339), Published: p.Date.UTC().Format(time.RFC3339),
			Author: atomAuthor{Name: p.Author.Name}, Content: atomText{Type: "html", Body: string(p.Body)}}
		for _, t := range p.Tags {
			e.Category = append(e.Category, atomCat{Term: t.Name})
		}
		f.Entries = append(f.Entries, e)
	}
	if updated.IsZero() {
		if now == nil {
			now = time.Now
		}
		updated = now()
	}
	f.Updated = updated.UTC().Format(time.RFC3339)
	data, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return s.write("feed.xml", append([]byte(xml.Header), data...))
}

// sitemap writes sitemap.xml with every page but search and 404.
func (s *site) sitemap() error {
	type loc struct {
		Loc string `xml:"loc"`
	}
	type urlset struct {
		XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
		URLs    []loc    `xml:"url"`
	}
	set := urlset{}
	for _, u := range s.urls {
		set.URLs = append(set.URLs, loc{Loc: s.link(u)})
	}
	data, err := xml.MarshalIndent(set, "", "  ")
	if err != nil {
		return err
	}
	return s.write("sitemap.xml", append([]byte(xml.Header), data...))
}
