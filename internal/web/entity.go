package web

import (
	"encoding/json"
	"html"
	"html/template"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/mediatype"
)

// The item renderers. A collection's page is drawn by the renderer of its
// graph's root entity type (x.post, x.profile, telegram.message,
// telegram.channel); any other type falls back to the text, summary and
// media every revision has. The live item page and the static build's
// post pages build the same Entity from the same Graph, so a post looks
// the same served or published.

// Graph is an entity graph as the renderers read it: from a revision on
// the live site (app.GraphView) or from a capsule in the static build.
type Graph struct {
	Root      string
	Entities  []GraphEntity
	Relations []GraphRelation
}

// GraphEntity is one entity of a Graph with its adapter-defined data.
type GraphEntity struct {
	Key  string
	Type string
	Data json.RawMessage
	// Resources are the entity's media files, with addresses.
	Resources []Resource
}

// Resource is a media file attached to an entity: an avatar, a banner, a
// video's poster, a quoted post's media, a link preview's image.
type Resource struct {
	Purpose string
	Kind    string
	Mime    string
	// URL is the file's path from the site root.
	URL string
}

// GraphRelation is one edge of a Graph.
type GraphRelation struct {
	From     string
	Relation string
	To       string
}

// Renderer names, one per entity type the item page knows.
const (
	RenderXPost           = "x-post"
	RenderXProfile        = "x-profile"
	RenderTelegramPost    = "telegram-post"
	RenderTelegramChannel = "telegram-channel"
)

// Entity is what an item renderer shows: the root entity of a graph with
// what the graph says around it (author, quote, reply, forward, channel).
// Fields a type does not have stay empty and are not shown.
type Entity struct {
	// Type is the entity type (x.post, telegram.message, …).
	Type string
	// Render is the renderer drawing it (RenderXPost, …).
	Render string
	// Name is the author's or the channel's display name.
	Name string
	// Handle is the @handle or channel username, without the @.
	Handle string
	// Avatar and Banner are image paths from the site root ("" : none).
	Avatar string
	Banner string
	// URL is the original address upstream.
	URL string
	// Profile is the author's or channel's upstream address.
	Profile string
	Text    template.HTML
	// Bio is a profile's or channel's description.
	Bio       template.HTML
	Published time.Time
	Edited    bool
	Signature string
	Verified  bool
	// VerifiedKind is an X check mark's kind: individual, organization
	// (gold) or government (grey); "" when not said.
	VerifiedKind string
	Location     string
	Website      string
	// Media are the shown media in their stored order (an album's order).
	Media []Media
	// AlbumIncomplete: t.me did not show every member of the album.
	AlbumIncomplete bool
	Counts          []Counter
	ReplyTo         *Ref
	ForwardedFrom   *Ref
	Community       *Ref
	// RepostedBy is the account whose repost the capture came through.
	RepostedBy *Ref
	Quoted     *Entity
	// QuoteGone is a quoted post the upstream could not give, and why.
	QuoteGone *Gone
	Poll      *Poll
	Card      *Card
	// Note is the community note shown with the post.
	Note template.HTML
	// Article is a long-form article the post carries.
	Article *Article
	// External is another site's embedded video, kept as a link.
	External *Card
	// Broadcast is a live broadcast, marked and not downloaded.
	Broadcast *Broadcast
	// Posts are a profile's posts that the graph holds.
	Posts []*Entity
}

// Counter is one counter of an entity (likes, views, subscribers), named
// by a catalog key so the template says it in the page's language.
type Counter struct {
	// Key is the catalog key of the counter's name (count.likes, …).
	Key string
	N   int64
}

// Number is the count with thousands separators: 12,345.
func (c Counter) Number() string { return groupDigits(c.N) }

// Ref points at another post or account: a reply's parent, a forward's
// source, a community.
type Ref struct {
	Name   string
	Handle string
	URL    string
	Text   string
}

// Poll is a poll with its results when it was captured.
type Poll struct {
	Question string
	// Meta is what the upstream said about it ("Anonymous poll", "1.2K votes").
	Meta string
	// Votes is the number of votes (0: the upstream did not say); Voters
	// the number of people who voted, where that is what it counts
	// (Telegram: a poll of several answers has more votes than voters).
	Votes   int64
	Voters  int64
	Options []PollOption
	// Ended: voting was over when the post was captured; EndsAt is when
	// it ends or ended (zero: not said).
	Ended  bool
	EndsAt time.Time
}

// Gone is a post that was not there to archive: its reason as a catalog
// key (item.gone.deleted, …), the upstream's own words, and its address.
type Gone struct {
	Key     string
	Message string
	URL     string
}

// Article is a long-form article: its title, text and cover image path.
type Article struct {
	Title string
	Text  template.HTML
	Cover string
	URL   string
}

// Broadcast is a live broadcast: a link, never a file of the archive.
type Broadcast struct {
	URL   string
	Title string
	// Live: it was still live when captured.
	Live bool
	Name string
}

// VoteCount is Votes with thousands separators.
func (p *Poll) VoteCount() string { return groupDigits(p.Votes) }

// VoterCount is Voters with thousands separators.
func (p *Poll) VoterCount() string { return groupDigits(p.Voters) }

// PollOption is one answer of a poll and its share of the votes.
type PollOption struct {
	Text    string
	Percent int
	// Votes is the answer's vote count (nil: the upstream did not say).
	Votes *int64
	// Lead: the answer with the most votes of an ended poll.
	Lead bool
}

// VoteCount is the answer's votes with thousands separators.
func (o PollOption) VoteCount() string {
	if o.Votes == nil {
		return ""
	}
	return groupDigits(*o.Votes)
}

// Card is a link's preview card.
type Card struct {
	URL         string
	Site        string
	Title       string
	Description string
	// Image is the card image's path from the site root ("" : none).
	Image string
}

// BuildEntity chooses the renderer for a graph's root entity and fills it
// from the graph. media are the revision's shown media in their stored
// order, with addresses. It returns nil for a type no renderer knows (or
// no graph), and the page falls back to text, summary and media.
func BuildEntity(g *Graph, media []Media) *Entity {
	if g == nil {
		return nil
	}
	root := g.entity(g.Root)
	if root == nil {
		return nil
	}
	switch root.Type {
	case "x.post":
		e := g.xPost(root, withPosters(media, root.resources("poster")))
		return e
	case "x.profile":
		return g.xProfile(root)
	case "telegram.message":
		return g.telegramPost(root, withPosters(media, root.resources("poster")))
	case "telegram.channel":
		return g.telegramChannel(root)
	}
	return nil
}

func (g *Graph) entity(key string) *GraphEntity {
	if key == "" {
		return nil
	}
	for i := range g.Entities {
		if g.Entities[i].Key == key {
			return &g.Entities[i]
		}
	}
	return nil
}

// related is the entity a relation leads to from key (nil: none).
func (g *Graph) related(key, relation string) *GraphEntity {
	for _, r := range g.Relations {
		if r.From == key && r.Relation == relation {
			return g.entity(r.To)
		}
	}
	return nil
}

// resources are the entity's resources with a purpose, in stored order.
func (e *GraphEntity) resources(purpose string) []Resource {
	var out []Resource
	for _, r := range e.Resources {
		if r.Purpose == purpose {
			out = append(out, r)
		}
	}
	return out
}

// image is the path of the entity's first raster image with a purpose:
// only a passive type may be shown as an <img>.
func (e *GraphEntity) image(purpose string) string {
	if e == nil {
		return ""
	}
	for _, r := range e.resources(purpose) {
		if r.Kind == "image" && mediatype.Inline(r.Mime) {
			return r.URL
		}
	}
	return ""
}

// withPosters pairs the n-th poster with the n-th video or GIF. Adapters
// give a poster for every shown video or for none, so a count that does
// not match pairs nothing rather than the wrong still.
func withPosters(media []Media, posters []Resource) []Media {
	out := append([]Media(nil), media...)
	var videos []int
	for i, m := range out {
		if isVideo(m.Mime) { // the rule of AttachPosters
			videos = append(videos, i)
		}
	}
	if len(posters) != len(videos) {
		return out
	}
	for n, i := range videos {
		if p := posters[n]; p.Kind == "image" && mediatype.Inline(p.Mime) && out[i].Poster == "" {
			out[i].Poster = p.URL
		}
	}
	return out
}

// xPostData is what the renderer reads of an x.post (adapters/x
// schemas/x.post.json).
type xPostData struct {
	ID            string    `json:"id"`
	URL           string    `json:"url"`
	Text          string    `json:"text"`
	RawText       string    `json:"raw_text"`
	DisplayRange  []int     `json:"display_range"`
	Facets        []xFacet  `json:"facets"`
	CreatedAt     string    `json:"created_at"`
	EditedAt      string    `json:"edited_at"`
	Likes         *int64    `json:"likes"`
	Reposts       *int64    `json:"reposts"`
	Replies       *int64    `json:"replies"`
	Quotes        *int64    `json:"quotes"`
	Views         *int64    `json:"views"`
	Bookmarks     *int64    `json:"bookmarks"`
	Sensitive     bool      `json:"sensitive"`
	ReplyToID     string    `json:"reply_to_id"`
	ReplyToHandle string    `json:"reply_to_handle"`
	ReplyToName   string    `json:"reply_to_name"`
	RepostedBy    *xAccount `json:"reposted_by"`
	QuoteGone     *struct {
		URL     string `json:"url"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"quote_unavailable"`
	Media []struct {
		Kind         string `json:"kind"`
		Codec        string `json:"codec"`
		BrowserPlays *bool  `json:"browser_plays"`
	} `json:"media"`
	Poll *struct {
		Choices []struct {
			Label      string   `json:"label"`
			Votes      *int64   `json:"votes"`
			Percentage *float64 `json:"percentage"`
		} `json:"choices"`
		TotalVotes int64  `json:"total_votes"`
		EndsAt     string `json:"ends_at"`
		Ended      bool   `json:"ended"`
	} `json:"poll"`
	Community *struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"community"`
	CommunityNote *struct {
		Text   string   `json:"text"`
		Facets []xFacet `json:"facets"`
	} `json:"community_note"`
	Card *struct {
		URL         string `json:"url"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Domain      string `json:"domain"`
	} `json:"card"`
	Article *struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	} `json:"article"`
	External *struct {
		URL string `json:"url"`
	} `json:"external"`
	Broadcast *struct {
		URL   string `json:"url"`
		Title string `json:"title"`
		State string `json:"state"`
		Name  string `json:"broadcaster_name"`
	} `json:"broadcast"`
}

type xAccount struct {
	Handle string `json:"handle"`
	Name   string `json:"name"`
	URL    string `json:"url"`
}

type xProfileData struct {
	Handle       string `json:"handle"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Followers    *int64 `json:"followers"`
	Following    *int64 `json:"following"`
	Posts        *int64 `json:"posts"`
	Location     string `json:"location"`
	URL          string `json:"url"`
	Website      string `json:"website"`
	Verified     bool   `json:"verified"`
	VerifiedType string `json:"verified_type"`
}

// goneKeys are the reasons FxTwitter gives for a post that is not there.
var goneKeys = map[string]string{
	"deleted": "item.gone.deleted", "suspended": "item.gone.suspended", "private": "item.gone.private",
	"blocked": "item.gone.blocked", "unavailable": "item.gone.unavailable",
}

func (g *Graph) xPost(e *GraphEntity, media []Media) *Entity {
	var d xPostData
	_ = json.Unmarshal(e.Data, &d) // the schema checked it at capture; a field that does not fit stays empty
	v := &Entity{Type: e.Type, Render: RenderXPost, URL: d.URL, Text: xText(d), Published: parseTime(d.CreatedAt),
		Edited: d.EditedAt != "", Media: media}
	if author := g.related(e.Key, "authored_by"); author != nil {
		var p xProfileData
		_ = json.Unmarshal(author.Data, &p)
		v.Name, v.Handle, v.Profile, v.Avatar = p.Name, p.Handle, p.URL, author.image("avatar")
		v.Verified, v.VerifiedKind = p.Verified, p.VerifiedType
	}
	if v.Name == "" && v.Handle != "" {
		v.Name = "@" + v.Handle
	}
	for i := range v.Media {
		v.Media[i].Sensitive = v.Media[i].Sensitive || d.Sensitive
	}
	// The media records pair with the shown media when both list the
	// same media; a video only some browsers play says so.
	if len(d.Media) == len(v.Media) {
		for i, r := range d.Media {
			if r.BrowserPlays != nil && !*r.BrowserPlays && r.Codec != "" {
				v.Media[i].Codec = strings.ToUpper(r.Codec)
			}
		}
	}
	v.Counts = counts([]string{"count.replies", "count.reposts", "count.quotes", "count.likes", "count.bookmarks", "count.views"},
		d.Replies, d.Reposts, d.Quotes, d.Likes, d.Bookmarks, d.Views)
	if d.ReplyToHandle != "" || d.ReplyToID != "" {
		r := &Ref{Handle: d.ReplyToHandle, Name: d.ReplyToName}
		if d.ReplyToHandle != "" && d.ReplyToID != "" {
			r.URL = "https://x.com/" + d.ReplyToHandle + "/status/" + d.ReplyToID
		} else if d.ReplyToID != "" {
			r.URL = "https://x.com/i/status/" + d.ReplyToID
		}
		v.ReplyTo = r
	}
	if r := d.RepostedBy; r != nil && r.Handle != "" {
		v.RepostedBy = &Ref{Name: r.Name, Handle: r.Handle, URL: r.URL}
	}
	if p := d.Poll; p != nil && len(p.Choices) > 0 {
		poll := &Poll{Votes: p.TotalVotes, Ended: p.Ended, EndsAt: parseTime(p.EndsAt)}
		lead, most := -1, int64(-1)
		for i, c := range p.Choices {
			pct := 0
			switch {
			case c.Percentage != nil:
				pct = int(*c.Percentage + 0.5)
			case c.Votes != nil && p.TotalVotes > 0:
				pct = int((*c.Votes*100 + p.TotalVotes/2) / p.TotalVotes)
			}
			if c.Votes != nil && *c.Votes > most {
				lead, most = i, *c.Votes
			}
			poll.Options = append(poll.Options, PollOption{Text: c.Label, Percent: clampPercent(pct), Votes: c.Votes})
		}
		if p.Ended && lead >= 0 && most > 0 {
			poll.Options[lead].Lead = true
		}
		v.Poll = poll
	}
	if c := d.Community; c != nil && c.Name != "" {
		v.Community = &Ref{Name: c.Name, URL: c.URL}
	}
	if n := d.CommunityNote; n != nil && strings.TrimSpace(n.Text) != "" {
		v.Note = facetHTML(n.Text, 0, -1, n.Facets)
	}
	if c := d.Card; c != nil && c.URL != "" {
		v.Card = &Card{URL: c.URL, Title: c.Title, Description: c.Description, Site: c.Domain, Image: e.image("card")}
	}
	if a := d.Article; a != nil && a.Title != "" {
		v.Article = &Article{Title: a.Title, Text: PlainHTML(a.Text), Cover: e.image("article_cover")}
		if a.ID != "" {
			v.Article.URL = "https://x.com/i/article/" + a.ID
		}
	}
	if x := d.External; x != nil && x.URL != "" {
		v.External = &Card{URL: x.URL, Site: hostOf(x.URL)}
	}
	if b := d.Broadcast; b != nil && b.URL != "" {
		v.Broadcast = &Broadcast{URL: b.URL, Title: b.Title, Live: b.State == "LIVE", Name: b.Name}
	}
	if q := g.related(e.Key, "quotes"); q != nil {
		var qm []Media
		for i, r := range q.Resources {
			switch r.Purpose {
			case "avatar", "banner", "poster", "card", "article_cover":
				continue
			}
			qm = append(qm, Media{URL: r.URL, Kind: r.Kind, Mime: r.Mime, ID: "q" + strconv.Itoa(i), Sensitive: d.Sensitive})
		}
		v.Quoted = g.xPost(q, withPosters(qm, q.resources("poster")))
		v.Quoted.Quoted, v.Quoted.QuoteGone = nil, nil // one level: a quote's own quote is a link away
	} else if gq := d.QuoteGone; gq != nil {
		key := goneKeys[gq.Reason]
		if key == "" {
			key = "item.gone.unavailable"
		}
		v.QuoteGone = &Gone{Key: key, Message: gq.Message, URL: gq.URL}
	}
	return v
}

// xText is a post's text with its links, mentions and hashtags as links:
// raw_text cut to its display range with the facets applied, or the plain
// text when the post has no raw_text.
func xText(d xPostData) template.HTML {
	if d.RawText == "" || len(d.DisplayRange) != 2 {
		return PlainHTML(d.Text)
	}
	return facetHTML(d.RawText, d.DisplayRange[0], d.DisplayRange[1], d.Facets)
}

// xFacet is a marked range of an X text in code points.
type xFacet struct {
	Type        string `json:"type"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	Display     string `json:"display"`
}

// facetHTML renders raw[start:end] (code points; end -1: to the end)
// with its facets: links to their expanded address, mentions to the
// account, hashtags and cashtags to X's search; media links are dropped
// (the media are shown). X stores &, < and > escaped; the text between
// facets is unescaped and escaped again, with blank lines as paragraphs.
func facetHTML(raw string, start, end int, facets []xFacet) template.HTML {
	u := []rune(raw)
	if end < 0 || end > len(u) {
		end = len(u)
	}
	if start < 0 || start > end {
		start = 0
	}
	fs := append([]xFacet(nil), facets...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start })
	var b strings.Builder
	plain := func(from, to int) {
		if from >= to {
			return
		}
		s := html.EscapeString(html.UnescapeString(string(u[from:to])))
		s = strings.ReplaceAll(paraBoundary.ReplaceAllString(s, "\x00"), "\n", "<br>\n")
		b.WriteString(strings.ReplaceAll(s, "\x00", "</p>\n<p>"))
	}
	at := start
	for _, f := range fs {
		if f.Start < at || f.End > end || f.Start >= f.End {
			continue // outside the shown text, or overlapping one already drawn
		}
		plain(at, f.Start)
		seg := html.UnescapeString(string(u[f.Start:f.End]))
		switch f.Type {
		case "media":
			// shown as the post's media
		case "url":
			href, label := f.Replacement, f.Display
			if href == "" {
				href = seg
			}
			if label == "" || strings.HasPrefix(label, "https://t.co/") {
				label = strings.TrimPrefix(strings.TrimPrefix(href, "https://"), "http://")
			}
			if strings.HasPrefix(href, "https://") || strings.HasPrefix(href, "http://") {
				b.WriteString(`<a href="` + html.EscapeString(href) + `" rel="nofollow noopener noreferrer">` + html.EscapeString(label) + `</a>`)
			} else {
				b.WriteString(html.EscapeString(seg))
			}
		case "mention", "hashtag", "cashtag":
			name := f.Original
			if name == "" {
				name = strings.TrimLeft(seg, "@#$＃")
			}
			href := "https://x.com/" + url.PathEscape(name)
			switch f.Type {
			case "hashtag":
				href = "https://x.com/hashtag/" + url.PathEscape(name)
			case "cashtag":
				href = "https://x.com/search?q=" + url.QueryEscape("$"+name)
			}
			b.WriteString(`<a class="` + f.Type + `" href="` + html.EscapeString(href) + `" rel="nofollow noopener noreferrer">` + html.EscapeString(seg) + `</a>`)
		default:
			b.WriteString(html.EscapeString(seg))
		}
		at = f.End
	}
	plain(at, end)
	out := strings.TrimSpace(b.String())
	out = strings.TrimSuffix(strings.TrimPrefix(out, "<br>"), "<br>")
	return template.HTML("<p>" + out + "</p>")
}

// hostOf is a URL's host without "www.", for a link's label.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

func (g *Graph) xProfile(e *GraphEntity) *Entity {
	var p xProfileData
	_ = json.Unmarshal(e.Data, &p)
	v := &Entity{Type: e.Type, Render: RenderXProfile, Name: p.Name, Handle: p.Handle, URL: p.URL, Profile: p.URL,
		Avatar: e.image("avatar"), Banner: e.image("banner"), Bio: PlainHTML(p.Description), Location: p.Location, Website: p.Website,
		Verified: p.Verified, VerifiedKind: p.VerifiedType}
	if v.Name == "" {
		v.Name = "@" + p.Handle
	}
	v.Counts = counts([]string{"count.posts", "count.following", "count.followers"}, p.Posts, p.Following, p.Followers)
	// The profile's posts that this graph holds (authored_by the root).
	for _, r := range g.Relations {
		if r.To == e.Key && r.Relation == "authored_by" {
			if pe := g.entity(r.From); pe != nil && pe.Type == "x.post" {
				var pm []Media
				for i, res := range pe.Resources {
					if res.Purpose == "" {
						pm = append(pm, Media{URL: res.URL, Kind: res.Kind, Mime: res.Mime, ID: "p" + strconv.Itoa(len(v.Posts)) + "-" + strconv.Itoa(i)})
					}
				}
				post := g.xPost(pe, withPosters(pm, pe.resources("poster")))
				post.Quoted = nil
				v.Posts = append(v.Posts, post)
			}
		}
	}
	return v
}

type tgMessageData struct {
	URL             string `json:"url"`
	Channel         string `json:"channel"`
	Text            string `json:"text"`
	TextMarkdown    string `json:"text_markdown"`
	PublishedAt     string `json:"published_at"`
	Edited          bool   `json:"edited"`
	Signature       string `json:"signature"`
	AuthorName      string `json:"author_name"`
	AuthorUsername  string `json:"author_username"`
	Views           *int64 `json:"views"`
	AlbumIncomplete bool   `json:"album_incomplete"`
	ForwardedFrom   *struct {
		Name   string `json:"name"`
		Author string `json:"author"`
		URL    string `json:"url"`
	} `json:"forwarded_from"`
	ReplyTo *struct {
		Channel    string `json:"channel"`
		URL        string `json:"url"`
		AuthorName string `json:"author_name"`
		Text       string `json:"text"`
	} `json:"reply_to"`
	LinkPreview *struct {
		URL         string `json:"url"`
		SiteName    string `json:"site_name"`
		Title       string `json:"title"`
		Description string `json:"description"`
	} `json:"link_preview"`
	Media []struct {
		Kind       string `json:"kind"`
		DurationMS int64  `json:"duration_ms"`
		Title      string `json:"title"`
		Size       string `json:"size"`
	} `json:"media"`
	Poll *struct {
		Question string `json:"question"`
		Type     string `json:"type"`
		Voters   string `json:"voters"`
		// VotersCount is Voters read as a number ("1.2K" is 1200).
		VotersCount *int64 `json:"voters_count"`
		Options     []struct {
			Text    string `json:"text"`
			Percent int    `json:"percent"`
		} `json:"options"`
	} `json:"poll"`
}

type tgChannelData struct {
	Username            string `json:"username"`
	URL                 string `json:"url"`
	Title               string `json:"title"`
	Description         string `json:"description"`
	DescriptionMarkdown string `json:"description_markdown"`
	Verified            bool   `json:"verified"`
	Subscribers         *int64 `json:"subscribers"`
	Photos              *int64 `json:"photos"`
	Videos              *int64 `json:"videos"`
	Files               *int64 `json:"files"`
	Links               *int64 `json:"links"`
}

func (g *Graph) telegramPost(e *GraphEntity, media []Media) *Entity {
	var d tgMessageData
	_ = json.Unmarshal(e.Data, &d)
	v := &Entity{Type: e.Type, Render: RenderTelegramPost, URL: d.URL, Published: parseTime(d.PublishedAt), Edited: d.Edited,
		Signature: d.Signature, Media: media, AlbumIncomplete: d.AlbumIncomplete, Name: d.AuthorName, Handle: d.Channel,
		Profile: "https://t.me/" + d.Channel}
	if d.TextMarkdown != "" {
		v.Text = MarkdownHTML(d.TextMarkdown)
	} else {
		v.Text = PlainHTML(d.Text)
	}
	if d.AuthorUsername != "" {
		v.Handle, v.Profile = d.AuthorUsername, "https://t.me/"+d.AuthorUsername
	}
	if ch := g.related(e.Key, "posted_in"); ch != nil {
		var c tgChannelData
		_ = json.Unmarshal(ch.Data, &c)
		if v.Name == "" {
			v.Name = c.Title
		}
		if d.AuthorUsername == "" {
			v.Avatar = ch.image("avatar")
		}
	}
	if v.Name == "" {
		v.Name = "@" + d.Channel
	}
	v.Counts = counts([]string{"count.views"}, d.Views)
	// The media records pair with the shown media when both list the same
	// media: a round video is drawn as a circle, a file says its name.
	if len(d.Media) == len(v.Media) {
		for i, r := range d.Media {
			m := &v.Media[i]
			m.Round = r.Kind == "round_video" && isVideo(m.Mime)
			var detail []string
			if r.Kind == "document" || r.Kind == "audio" {
				detail = append(detail, r.Title)
			}
			if r.Kind == "document" {
				detail = append(detail, r.Size)
			}
			if r.DurationMS > 0 && (r.Kind == "voice" || r.Kind == "round_video" || r.Kind == "audio") {
				detail = append(detail, clock(r.DurationMS))
			}
			m.Detail = strings.Join(nonEmpty(detail...), " · ")
		}
	}
	if f := d.ForwardedFrom; f != nil {
		v.ForwardedFrom = &Ref{Name: f.Name, URL: f.URL, Text: f.Author}
	}
	if r := d.ReplyTo; r != nil {
		v.ReplyTo = &Ref{Name: r.AuthorName, Handle: r.Channel, URL: r.URL, Text: r.Text}
	}
	if p := d.LinkPreview; p != nil {
		v.Card = &Card{URL: p.URL, Site: p.SiteName, Title: p.Title, Description: p.Description, Image: e.image("link_preview")}
	}
	if p := d.Poll; p != nil {
		poll := &Poll{Question: p.Question, Meta: strings.TrimSpace(strings.Join(nonEmpty(p.Type, p.Voters), " · "))}
		if p.VotersCount != nil {
			poll.Voters, poll.Meta = *p.VotersCount, strings.TrimSpace(p.Type)
		}
		for _, o := range p.Options {
			poll.Options = append(poll.Options, PollOption{Text: o.Text, Percent: clampPercent(o.Percent)})
		}
		v.Poll = poll
	}
	return v
}

func (g *Graph) telegramChannel(e *GraphEntity) *Entity {
	var c tgChannelData
	_ = json.Unmarshal(e.Data, &c)
	v := &Entity{Type: e.Type, Render: RenderTelegramChannel, Name: c.Title, Handle: c.Username, URL: c.URL, Profile: c.URL,
		Avatar: e.image("avatar"), Verified: c.Verified}
	if v.Name == "" {
		v.Name = "@" + c.Username
	}
	if c.DescriptionMarkdown != "" {
		v.Bio = MarkdownHTML(c.DescriptionMarkdown)
	} else if c.Description != "" {
		v.Bio = PlainHTML(c.Description)
	}
	v.Counts = counts([]string{"count.subscribers", "count.photos", "count.videos", "count.files", "count.links"},
		c.Subscribers, c.Photos, c.Videos, c.Files, c.Links)
	return v
}

// counts keeps the counters the upstream gave (nil: it did not say).
func counts(keys []string, ns ...*int64) []Counter {
	var out []Counter
	for i, n := range ns {
		if n != nil {
			out = append(out, Counter{Key: keys[i], N: *n})
		}
	}
	return out
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func clampPercent(p int) int { return max(0, min(100, p)) }

// clock writes a duration as m:ss (or h:mm:ss).
func clock(ms int64) string {
	sec := (ms + 500) / 1000
	h, m, s := sec/3600, sec/60%60, sec%60
	if h > 0 {
		return strconv.FormatInt(h, 10) + ":" + twoDigits(m) + ":" + twoDigits(s)
	}
	return strconv.FormatInt(m, 10) + ":" + twoDigits(s)
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// groupDigits writes n with a comma between each group of three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
