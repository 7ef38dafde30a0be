package x

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Messages of the post errors people see.
const (
	msgPostNotFound = "post not found or not public"
	msgPostPrivate  = "this post is private (protected account); it needs an account: capture it through your own X account that follows its author (monitor account add --adapter x, then capture with that connection)"
)

// Relation names of the entity graph.
const (
	relAuthoredBy = "authored_by"
	relQuotes     = "quotes"
)

// authorRefreshSeconds is how stale the author's profile may be before a
// post capture refreshes it (seed: 60 s).
const authorRefreshSeconds = 60

// minSnowflakeID is above the last sequential (pre-2010) post id; only
// larger ids carry a timestamp.
const minSnowflakeID = 30_000_000_000

// snowflakeEpochMS is X's snowflake epoch in Unix milliseconds.
const snowflakeEpochMS = 1288834974657

// Fetch reads one target through the fxtwitter provider: a post (with
// expand "thread", its author's thread as related targets) or a profile
// (with its timeline from page_cursor as related targets, unless expand
// is "none"). Failures are answered in FetchResponse.error.
func (a *Adapter) Fetch(ctx context.Context, req *adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
	if req.GetProviderId() == ProviderXSession {
		return a.sessionFetch(ctx, req)
	}
	if resp, err := kit.CheckFetch(req, "X", ProviderFxTwitter, Platform); resp != nil || err != nil {
		return resp, err
	}
	t := req.GetTarget()
	expand := req.GetExpand()
	switch t.GetEntityType() {
	case EntityTypePost:
		id, ok := parseID(t.GetExternalId())
		if !ok {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				fmt.Sprintf("post id %s is not a valid X post id", kit.Quote(t.GetExternalId()))), nil
		}
		switch expand {
		case "":
			return a.fetchPost(ctx, id), nil
		case adapterv1.ExpandNone:
			out := a.fetchPost(ctx, id)
			out.RelatedTargets = nil
			return out, nil
		case adapterv1.ExpandThread:
			return a.fetchThread(ctx, id), nil
		}
	case EntityTypeProfile:
		ref, ok := parseProfileRef(t.GetExternalId())
		if !ok {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				fmt.Sprintf("profile %s is not an X handle or user id", kit.Quote(t.GetExternalId()))), nil
		}
		if expand == "" || expand == adapterv1.ExpandNone {
			return a.fetchProfile(ctx, ref, req), nil
		}
	default:
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("entity type %s is not one the X adapter fetches", kit.Quote(t.GetEntityType()))), nil
	}
	return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
		fmt.Sprintf("expand %s is not something the X adapter does for an %s", kit.Quote(expand), t.GetEntityType())), nil
}

// fetchPost reads /2/status/{id} and turns it into a FetchResponse.
func (a *Adapter) fetchPost(ctx context.Context, id string) *adapterv1.FetchResponse {
	resp, e := a.fx.Get(ctx, "/2/status/"+id)
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	if e := a.upstreamStatusError(resp, resp.StatusCode, msgPostNotFound, msgPostPrivate); e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	st, e := a.decodeStatus(resp, id)
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	out, err := buildPost(st, time.Now())
	if err != nil {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, "cannot encode the post: "+err.Error())
	}
	out.SourceResponses = []*adapterv1.SourceResponse{resp.Source()}
	return out
}

// decodeJSON reads a 2xx answer of FxTwitter into v, refusing HTML pages
// and other shapes with a message a person can act on.
func decodeJSON(resp *kit.Response, v any) *adapterv1.Error {
	bad := kit.BadResponse
	trimmed := bytes.TrimSpace(resp.Body)
	if strings.Contains(strings.ToLower(resp.ContentType), "html") || bytes.HasPrefix(trimmed, []byte("<")) {
		return bad("FxTwitter answered with an HTML page instead of JSON")
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return bad(fmt.Sprintf("FxTwitter's answer has an unexpected shape at %s", typeErr.Field))
		}
		return bad("FxTwitter's answer is not valid JSON")
	}
	return nil
}

// decodeStatus reads a 2xx answer of /2/status/{id} and checks that it has
// what the adapter needs.
func (a *Adapter) decodeStatus(resp *kit.Response, id string) (*fxStatus, *adapterv1.Error) {
	var r fxStatusResponse
	if e := decodeJSON(resp, &r); e != nil {
		return nil, e
	}
	// FxTwitter repeats the status in the body; trust an error code there
	// even when the HTTP status said 200.
	if r.Code >= 300 {
		if e := a.upstreamStatusError(resp, r.Code, msgPostNotFound, msgPostPrivate); e != nil {
			return nil, e
		}
	}
	return checkStatus(r.Status, id)
}

// checkStatus checks that the post FxTwitter answered for id has what the
// adapter needs.
func checkStatus(st *fxStatus, id string) (*fxStatus, *adapterv1.Error) {
	bad := kit.BadResponse
	if st == nil {
		return nil, bad("FxTwitter's answer is missing status")
	}
	if st.Type == "tombstone" {
		return nil, notFoundError(msgPostNotFound, shortReason(st.Reason))
	}
	var missing []string
	if st.ID == "" {
		missing = append(missing, "status.id")
	}
	if st.Author == nil {
		missing = append(missing, "status.author")
	} else {
		if st.Author.ID == "" {
			missing = append(missing, "status.author.id")
		}
		if st.Author.ScreenName == "" {
			missing = append(missing, "status.author.screen_name")
		}
	}
	if len(missing) > 0 {
		return nil, bad("FxTwitter's answer is missing " + strings.Join(missing, ", "))
	}
	got, ok := parseID(st.ID)
	if !ok || got != id {
		return nil, bad(fmt.Sprintf("FxTwitter answered with post %s instead of %s", kit.Quote(st.ID), id))
	}
	st.ID = got // "01" is post 1, written the one way the schema accepts
	if !canonicalID(st.Author.ID) {
		return nil, bad(fmt.Sprintf("FxTwitter's status.author.id %s is not an X user id", kit.Quote(st.Author.ID)))
	}
	return st, nil
}

// addPost adds a post, its author (once per graph) and the authored_by
// relation. resources are the post's media indexes.
func addPost(g *kit.Graph, st *fxStatus, resources []uint32, now time.Time) error {
	key := "post:" + st.ID
	if err := g.AddEntity(key, EntityTypePost, st.ID, postDataOf(st, now), resources); err != nil {
		return err
	}
	authorKey := "profile:" + st.Author.ID
	if !g.Has(authorKey) {
		var res []*adapterv1.Media
		if m := profileImage(st.Author.AvatarURL, purposeAvatar); m != nil {
			res = append(res, m)
		}
		if m := profileImage(st.Author.BannerURL, purposeBanner); m != nil {
			res = append(res, m)
		}
		if err := g.AddEntity(authorKey, EntityTypeProfile, st.Author.ID, profileDataOf(st.Author), g.AddMedia(res...)); err != nil {
			return err
		}
	}
	g.Relate(key, relAuthoredBy, authorKey)
	return nil
}

// buildPost turns a checked status into the FetchResponse's content.
//
// Media order: the post's display media, then the quoted post's media
// (purpose "quoted", resources of the quoted entity), then avatars and
// banners (resources of the profile entities), then the posters of the
// post's and the quoted post's videos (purpose "poster", resources of the
// post showing the video), then the card images and article covers of
// the post and the quoted post (resources of the post showing them). Only
// the first group is shown with the post and counted in the summary.
// now decides whether a poll has ended.
func buildPost(st *fxStatus, now time.Time) (*adapterv1.FetchResponse, error) {
	g := &kit.Graph{}
	display := g.AddMedia(statusMedia(st, "")...)

	quote := st.Quote
	if quote != nil && !usableQuote(quote) {
		quote = nil
	}
	var quoted []uint32
	if quote != nil {
		quoted = g.AddMedia(statusMedia(quote, purposeQuoted)...)
	}

	if err := addPost(g, st, display, now); err != nil {
		return nil, err
	}
	if quote != nil {
		if err := addPost(g, quote, quoted, now); err != nil {
			return nil, err
		}
		g.Relate("post:"+st.ID, relQuotes, "post:"+quote.ID)
	}
	g.AddResources("post:"+st.ID, posterMedia(st)...)
	if quote != nil {
		g.AddResources("post:"+quote.ID, posterMedia(quote)...)
	}
	g.AddResources("post:"+st.ID, linkImages(st)...)
	if quote != nil {
		g.AddResources("post:"+quote.ID, linkImages(quote)...)
	}

	author := st.Author.Name
	if author == "" {
		author = "@" + st.Author.ScreenName
	}
	text := st.Text
	if a := articleOf(st.Article); a != nil {
		// An article's post shows only its link; the article is the text.
		text = strings.Join(nonEmpty(strings.TrimSpace(st.Text), a.Title, a.Text), "\n\n")
	}
	disp := &adapterv1.Display{
		Text:       text,
		TextKind:   adapterv1.TextKind_TEXT_KIND_PLAIN,
		Summary:    summary(author, text, g.Media[:len(display)]),
		AuthorName: author,
	}
	if t, ok := publishedAt(st); ok {
		disp.PublishedAt = timestamppb.New(t)
	}
	return &adapterv1.FetchResponse{
		Visibility: adapterv1.Visibility_VISIBILITY_PUBLIC,
		Display:    disp,
		Media:      g.Media,
		Graph:      g.Proto("post:" + st.ID),
		RelatedTargets: []*adapterv1.RelatedTarget{{
			Url:                 profileURL(st.Author),
			RefreshAfterSeconds: authorRefreshSeconds,
		}},
	}, nil
}

// usableQuote reports whether a quoted post has what its entity needs; a
// quote FxTwitter could not load (deleted, withheld) is left out of the
// graph and only its id stays in the quoting post's data.
func usableQuote(q *fxStatus) bool {
	if q.Type == "tombstone" || q.Author == nil || q.Author.ScreenName == "" {
		return false
	}
	return canonicalID(q.ID) && canonicalID(q.Author.ID)
}

// canonicalID reports whether s is an X id written the one way the
// schemas accept (no leading zeros).
func canonicalID(s string) bool {
	id, ok := parseID(s)
	return ok && id == s
}

// postData is the data of an x.post entity (schemas/x.post.json).
type postData struct {
	ID            string         `json:"id"`
	URL           string         `json:"url,omitempty"`
	Text          string         `json:"text"`
	RawText       string         `json:"raw_text,omitempty"`
	DisplayRange  []int          `json:"display_range,omitempty"`
	Facets        []facet        `json:"facets,omitempty"`
	CreatedAt     string         `json:"created_at,omitempty"`
	Lang          string         `json:"lang,omitempty"`
	Likes         *int64         `json:"likes,omitempty"`
	Reposts       *int64         `json:"reposts,omitempty"`
	Replies       *int64         `json:"replies,omitempty"`
	Quotes        *int64         `json:"quotes,omitempty"`
	Bookmarks     *int64         `json:"bookmarks,omitempty"`
	Views         *int64         `json:"views,omitempty"`
	Sensitive     bool           `json:"sensitive"`
	NoteTweet     bool           `json:"note_tweet,omitempty"`
	Source        string         `json:"source,omitempty"`
	QuoteID       string         `json:"quote_id,omitempty"`
	QuoteGone     *gone          `json:"quote_unavailable,omitempty"`
	ReplyToID     string         `json:"reply_to_id,omitempty"`
	ReplyToHandle string         `json:"reply_to_handle,omitempty"`
	ReplyToName   string         `json:"reply_to_name,omitempty"`
	RepostedBy    *account       `json:"reposted_by,omitempty"`
	Media         []mediaRecord  `json:"media,omitempty"`
	Poll          *pollData      `json:"poll,omitempty"`
	Community     *communityData `json:"community,omitempty"`
	CommunityNote *noteData      `json:"community_note,omitempty"`
	Card          *cardData      `json:"card,omitempty"`
	Article       *articleData   `json:"article,omitempty"`
	External      *externalData  `json:"external,omitempty"`
	Broadcast     *broadcastData `json:"broadcast,omitempty"`
}

// facet is a marked range of raw_text (or of a community note's text),
// in Unicode code points as X counts them (FxTwitter's OpenAPI document
// says UTF-16, but its answers count code points: an emoji is one).
type facet struct {
	Type        string `json:"type"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Original    string `json:"original,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	Display     string `json:"display,omitempty"`
	ID          string `json:"id,omitempty"`
}

// gone is a post FxTwitter answered as a tombstone: why it is not there.
type gone struct {
	ID      string `json:"id,omitempty"`
	URL     string `json:"url,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// account names an account without being its profile entity.
type account struct {
	ID     string `json:"id,omitempty"`
	Handle string `json:"handle"`
	Name   string `json:"name,omitempty"`
	URL    string `json:"url,omitempty"`
}

// mediaRecord describes one display media of the post, in the order of
// the capture's display media: which rendition of a video was kept. It
// has no media id (see facetsOf).
type mediaRecord struct {
	Kind    string `json:"kind"`
	Codec   string `json:"codec,omitempty"`
	Bitrate int64  `json:"bitrate,omitempty"`
	// BrowserPlays is false when the only MP4 is HEVC, AV1 or VP9, which
	// not every browser plays; it is kept anyway.
	BrowserPlays *bool    `json:"browser_plays,omitempty"`
	Publisher    *account `json:"publisher,omitempty"`
}

// pollData is a post's poll: its choices in order with the votes so far.
type pollData struct {
	Choices    []pollChoice `json:"choices"`
	TotalVotes *int64       `json:"total_votes,omitempty"`
	EndsAt     string       `json:"ends_at,omitempty"`
	Ended      bool         `json:"ended"`
}

type pollChoice struct {
	Label      string   `json:"label"`
	Votes      *int64   `json:"votes,omitempty"`
	Percentage *float64 `json:"percentage,omitempty"`
}

// communityData is the X community the post was posted in.
type communityData struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
	Topic       string `json:"topic,omitempty"`
	NSFW        bool   `json:"nsfw,omitempty"`
	CreatedAt   string `json:"created_at,omitempty"`
	Admin       string `json:"admin_handle,omitempty"`
}

// noteData is a community note.
type noteData struct {
	Text   string  `json:"text"`
	Facets []facet `json:"facets,omitempty"`
}

// cardData is a link card; its image is a resource of the post (purpose
// "card").
type cardData struct {
	URL         string `json:"url"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Domain      string `json:"domain,omitempty"`
	Name        string `json:"card_name,omitempty"`
	ImageURL    string `json:"image_url,omitempty"`
	ImageAlt    string `json:"image_alt,omitempty"`
}

// articleData is a long-form article; its cover is a resource of the
// post (purpose "article_cover").
type articleData struct {
	ID          string `json:"id,omitempty"`
	Title       string `json:"title"`
	PreviewText string `json:"preview_text,omitempty"`
	Text        string `json:"text,omitempty"`
	CreatedAt   string `json:"created_at,omitempty"`
	ModifiedAt  string `json:"modified_at,omitempty"`
	CoverURL    string `json:"cover_url,omitempty"`
}

// externalData is another site's embedded video, kept as a link.
type externalData struct {
	URL          string `json:"url"`
	Kind         string `json:"kind,omitempty"`
	ThumbnailURL string `json:"thumbnail_url,omitempty"`
	Width        int    `json:"width,omitempty"`
	Height       int    `json:"height,omitempty"`
}

// broadcastData is a live broadcast, marked and not downloaded.
type broadcastData struct {
	URL          string `json:"url"`
	ID           string `json:"id,omitempty"`
	Title        string `json:"title,omitempty"`
	State        string `json:"state,omitempty"`
	Broadcaster  string `json:"broadcaster_handle,omitempty"`
	Name         string `json:"broadcaster_name,omitempty"`
	ThumbnailURL string `json:"thumbnail_url,omitempty"`
}

// pollOf keeps a poll's choices that have a label; a poll without any is
// left out. It has ended when FxTwitter says "Final results" or its end
// time has passed.
func pollOf(p *fxPoll, now time.Time) *pollData {
	if p == nil {
		return nil
	}
	d := &pollData{TotalVotes: count(p.TotalVotes)}
	for _, c := range p.Choices {
		if c.Label == "" {
			continue
		}
		pc := pollChoice{Label: c.Label, Votes: count(c.Count)}
		if c.Percentage != nil && *c.Percentage >= 0 && *c.Percentage <= 100 {
			pc.Percentage = c.Percentage
		}
		d.Choices = append(d.Choices, pc)
	}
	if len(d.Choices) == 0 {
		return nil
	}
	d.Ended = p.TimeLeftEn == "Final results"
	if t, err := time.Parse(time.RFC3339, p.EndsAt); err == nil {
		d.EndsAt = t.UTC().Format(time.RFC3339)
		d.Ended = d.Ended || !t.After(now)
	}
	return d
}

// facetsOf keeps the facets whose range lies inside a text of n code
// points.
func facetsOf(fs []fxFacet, n int) []facet {
	var out []facet
	for _, f := range fs {
		if f.Type == "" || len(f.Indices) != 2 || f.Indices[0] < 0 || f.Indices[0] > f.Indices[1] || f.Indices[1] > n {
			continue
		}
		ff := facet{Type: f.Type, Start: f.Indices[0], End: f.Indices[1], Original: f.Original,
			Replacement: webURL(f.Replacement), Display: f.Display}
		if f.Type != "media" {
			// A mention's account id is kept; a media link's id is left
			// out, as are the media's own ids: X renumbers media without
			// the post changing, and that is not a new version of it.
			ff.ID = idOrEmpty(f.ID)
		}
		out = append(out, ff)
	}
	return out
}

// runeLen is the length of s in code points, the unit of X's offsets.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// webURL keeps an http(s) URL, or "".
func webURL(raw string) string {
	if _, ok := httpURL(raw); ok {
		return raw
	}
	return ""
}

// idOrEmpty keeps a canonical X id, or "".
func idOrEmpty(s string) string {
	if canonicalID(s) {
		return s
	}
	return ""
}

// rfc3339 rewrites an upstream time in RFC 3339 UTC, or "".
func rfc3339(s string) string {
	for _, layout := range []string{time.RFC3339Nano, time.RubyDate} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

func postDataOf(st *fxStatus, now time.Time) postData {
	d := postData{
		ID:            st.ID,
		URL:           postURL(st),
		Text:          st.Text,
		Likes:         count(st.Likes),
		Reposts:       count(st.Reposts),
		Replies:       count(st.Replies),
		Quotes:        count(st.Quotes),
		Bookmarks:     count(st.Bookmarks),
		Views:         count(st.Views),
		Sensitive:     st.PossiblySensitive,
		NoteTweet:     st.IsNoteTweet,
		Poll:          pollOf(st.Poll, now),
		Media:         mediaRecords(st),
		Community:     communityOf(st.Community),
		CommunityNote: noteOf(st.CommunityNote),
		Card:          cardOf(st.Card),
		Article:       articleOf(st.Article),
	}
	if rt := st.RawText; rt != nil && rt.Text != "" {
		n := runeLen(rt.Text)
		d.RawText = rt.Text
		d.Facets = facetsOf(rt.Facets, n)
		if r := rt.DisplayTextRange; len(r) == 2 && r[0] >= 0 && r[0] <= r[1] && r[1] <= n {
			d.DisplayRange = []int{r[0], r[1]}
		}
	}
	if t, ok := publishedAt(st); ok {
		d.CreatedAt = t.Format(time.RFC3339)
	}
	if st.Lang != nil {
		d.Lang = *st.Lang
	}
	if st.Source != nil {
		d.Source = *st.Source
	}
	if q := st.Quote; q != nil {
		d.QuoteID, _ = parseID(q.ID)
		if !usableQuote(q) {
			d.QuoteGone = &gone{ID: d.QuoteID, URL: webURL(q.URL), Reason: shortReason(q.Reason), Message: shortMessage(q.Message)}
		}
	}
	if r := st.ReplyingTo; r != nil {
		replyID := r.Status
		if replyID == "" {
			replyID = r.Post
		}
		d.ReplyToID, _ = parseID(replyID)
		d.ReplyToHandle = r.ScreenName
		d.ReplyToName = r.DisplayName
	}
	if r := st.RepostedBy; r != nil && r.ScreenName != "" {
		d.RepostedBy = &account{ID: idOrEmpty(r.ID), Handle: r.ScreenName, Name: r.Name, URL: webURL(r.URL)}
	}
	if m := st.Media; m != nil {
		if e := m.External; e != nil && webURL(e.URL) != "" {
			d.External = &externalData{URL: e.URL, Kind: e.Type, ThumbnailURL: webURL(e.ThumbnailURL), Width: max(e.Width, 0), Height: max(e.Height, 0)}
		}
		if b := m.Broadcast; b != nil && webURL(b.URL) != "" {
			bd := &broadcastData{URL: b.URL, ID: b.BroadcastID, Title: b.Title, State: b.State}
			if b.Broadcaster != nil {
				bd.Broadcaster, bd.Name = b.Broadcaster.Username, b.Broadcaster.DisplayName
			}
			if b.Thumbnail != nil && b.Thumbnail.Original != nil {
				bd.ThumbnailURL = webURL(b.Thumbnail.Original.URL)
			}
			d.Broadcast = bd
		}
	}
	return d
}

// shortMessage keeps a tombstone's message when it is one sentence of
// plain text (FxTwitter's "This post is unavailable"), so an upstream of
// any length cannot fill a page with it.
func shortMessage(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 || strings.ContainsAny(s, "<>\n") {
		return ""
	}
	return s
}

// mediaRecords describes the post's display media in statusMedia's order.
func mediaRecords(st *fxStatus) []mediaRecord {
	var out []mediaRecord
	for _, m := range displayItems(st) {
		r := mediaRecord{Kind: m.Type}
		if m.Type == "video" || m.Type == "gif" {
			if best, ok := bestMP4(m); ok {
				plays := browserPlays(best.codec)
				r.Codec, r.Bitrate, r.BrowserPlays = best.codec, max(best.bitrate, 0), &plays
			}
			if p := m.Publisher; p != nil && p.ScreenName != "" && (st.Author == nil || p.ID != st.Author.ID) {
				r.Publisher = &account{ID: idOrEmpty(p.ID), Handle: p.ScreenName, Name: p.Name}
			}
		}
		out = append(out, r)
	}
	return out
}

func communityOf(c *fxCommunity) *communityData {
	if c == nil || c.Name == "" {
		return nil
	}
	d := &communityData{ID: idOrEmpty(c.ID), Name: c.Name, Description: c.Description, NSFW: c.IsNSFW, CreatedAt: rfc3339(c.CreatedAt)}
	if d.ID != "" {
		d.URL = "https://x.com/i/communities/" + d.ID
	}
	if c.Topic != nil {
		d.Topic = *c.Topic
	}
	if c.Admin != nil {
		d.Admin = c.Admin.ScreenName
	}
	return d
}

func noteOf(n *fxCommunityNote) *noteData {
	if n == nil || strings.TrimSpace(n.Text) == "" {
		return nil
	}
	return &noteData{Text: n.Text, Facets: facetsOf(n.Facets, runeLen(n.Text))}
}

func cardOf(c *fxCard) *cardData {
	if c == nil || webURL(c.URL) == "" {
		return nil
	}
	d := &cardData{URL: c.URL, Title: c.Title, Description: c.Description, Domain: c.Domain, Name: c.CardName}
	if c.Image != nil {
		d.ImageURL, d.ImageAlt = webURL(c.Image.URL), c.Image.Alt
	}
	return d
}

func articleOf(a *fxArticle) *articleData {
	if a == nil || a.Title == "" {
		return nil
	}
	d := &articleData{ID: idOrEmpty(a.ID), Title: a.Title, PreviewText: a.PreviewText,
		CreatedAt: rfc3339(a.CreatedAt), ModifiedAt: rfc3339(a.ModifiedAt), CoverURL: articleCoverURL(a)}
	if a.Content != nil {
		var paras []string
		for _, b := range a.Content.Blocks {
			if t := strings.TrimSpace(b.Text); t != "" {
				paras = append(paras, t)
			}
		}
		d.Text = strings.Join(paras, "\n\n")
	}
	return d
}

// articleCoverURL is the article's cover image: an image cover's
// original, a video cover's still.
func articleCoverURL(a *fxArticle) string {
	if a.CoverMedia == nil || a.CoverMedia.MediaInfo == nil {
		return ""
	}
	mi := a.CoverMedia.MediaInfo
	if u := webURL(mi.OriginalImgURL); u != "" {
		return u
	}
	return webURL(mi.MediaURLHTTPS)
}

// profileData is the data of an x.profile entity (schemas/x.profile.json).
type profileData struct {
	ID          string `json:"id"`
	Handle      string `json:"handle"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	AvatarURL   string `json:"avatar_url,omitempty"`
	BannerURL   string `json:"banner_url,omitempty"`
	Followers   *int64 `json:"followers,omitempty"`
	Following   *int64 `json:"following,omitempty"`
	Posts       *int64 `json:"posts,omitempty"`
	CreatedAt   string `json:"created_at,omitempty"`
	Location    string `json:"location,omitempty"`
	URL         string `json:"url,omitempty"`
	Website     string `json:"website,omitempty"`
	Protected   bool   `json:"protected"`
	// Verified is X's check mark; VerifiedType its kind (individual,
	// organization, government) when FxTwitter says.
	Verified     bool   `json:"verified,omitempty"`
	VerifiedType string `json:"verified_type,omitempty"`
}

func profileDataOf(u *fxUser) profileData {
	pageURL := "https://x.com/i/user/" + u.ID
	if validHandle(u.ScreenName) {
		pageURL = "https://x.com/" + u.ScreenName
	}
	d := profileData{
		ID:          u.ID,
		Handle:      u.ScreenName,
		Name:        u.Name,
		Description: u.Description,
		Followers:   count(u.Followers),
		Following:   count(u.Following),
		Posts:       count(u.Statuses),
		Location:    u.Location,
		URL:         pageURL,
		Protected:   u.Protected,
	}
	if m := profileImage(u.AvatarURL, purposeAvatar); m != nil {
		d.AvatarURL = m.Url
	}
	if m := profileImage(u.BannerURL, purposeBanner); m != nil {
		d.BannerURL = m.Url
	}
	if t, err := time.Parse(time.RubyDate, u.Joined); err == nil {
		d.CreatedAt = t.UTC().Format(time.RFC3339)
	}
	if u.Website != nil {
		d.Website = u.Website.URL
	}
	if v := u.Verification; v != nil && v.Verified {
		d.Verified = true
		if v.Type != nil {
			switch *v.Type {
			case "individual", "organization", "government":
				d.VerifiedType = *v.Type
			}
		}
	}
	return d
}

// count drops negative counts, which the schema refuses.
func count(n *int64) *int64 {
	if n == nil || *n < 0 {
		return nil
	}
	return n
}

// postURL is the post's x.com URL, with the author's handle when it looks
// like one.
func postURL(st *fxStatus) string {
	if st.Author != nil && validHandle(st.Author.ScreenName) {
		return "https://x.com/" + st.Author.ScreenName + "/status/" + st.ID
	}
	return "https://x.com/i/status/" + st.ID
}

// profileURL is the related-target URL of a profile: by handle, or by id
// when the handle is not one Resolve accepts.
func profileURL(u *fxUser) string {
	if validHandle(u.ScreenName) {
		return "https://x.com/" + u.ScreenName
	}
	return "https://x.com/i/user/" + u.ID
}

// publishedAt is when the post was published: FxTwitter's timestamp, its
// date string, or the time inside the snowflake id.
func publishedAt(st *fxStatus) (time.Time, bool) {
	if st.CreatedTimestamp > 0 {
		return time.Unix(st.CreatedTimestamp, 0).UTC(), true
	}
	if t, err := time.Parse(time.RubyDate, st.CreatedAt); err == nil {
		return t.UTC(), true
	}
	return snowflakeTime(st.ID)
}

// snowflakeTime reads the creation time from a snowflake id.
func snowflakeTime(id string) (time.Time, bool) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n < minSnowflakeID {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(n>>22) + snowflakeEpochMS).UTC(), true
}

// nonEmpty drops the empty strings of ss.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
