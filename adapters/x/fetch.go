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

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Messages of the post errors people see.
const (
	msgPostNotFound = "post not found or not public"
	msgPostPrivate  = "this post is private (protected account)"
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
	out, err := buildPost(st)
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
	if got, ok := parseID(st.ID); !ok || got != id {
		return nil, bad(fmt.Sprintf("FxTwitter answered with post %s instead of %s", kit.Quote(st.ID), id))
	}
	if !canonicalID(st.Author.ID) {
		return nil, bad(fmt.Sprintf("FxTwitter's status.author.id %s is not an X user id", kit.Quote(st.Author.ID)))
	}
	return st, nil
}

// addPost adds a post, its author (once per graph) and the authored_by
// relation. resources are the post's media indexes.
func addPost(g *kit.Graph, st *fxStatus, resources []uint32) error {
	key := "post:" + st.ID
	if err := g.AddEntity(key, EntityTypePost, st.ID, postDataOf(st), resources); err != nil {
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
// post showing the video). Only the first group is shown with the post
// and counted in the summary.
func buildPost(st *fxStatus) (*adapterv1.FetchResponse, error) {
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

	if err := addPost(g, st, display); err != nil {
		return nil, err
	}
	if quote != nil {
		if err := addPost(g, quote, quoted); err != nil {
			return nil, err
		}
		g.Relate("post:"+st.ID, relQuotes, "post:"+quote.ID)
	}
	g.AddResources("post:"+st.ID, posterMedia(st)...)
	if quote != nil {
		g.AddResources("post:"+quote.ID, posterMedia(quote)...)
	}

	author := st.Author.Name
	if author == "" {
		author = "@" + st.Author.ScreenName
	}
	disp := &adapterv1.Display{
		Text:       st.Text,
		TextKind:   adapterv1.TextKind_TEXT_KIND_PLAIN,
		Summary:    summary(author, st.Text, g.Media[:len(display)]),
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
	ID            string    `json:"id"`
	URL           string    `json:"url,omitempty"`
	Text          string    `json:"text"`
	CreatedAt     string    `json:"created_at,omitempty"`
	Lang          string    `json:"lang,omitempty"`
	Likes         *int64    `json:"likes,omitempty"`
	Reposts       *int64    `json:"reposts,omitempty"`
	Replies       *int64    `json:"replies,omitempty"`
	Views         *int64    `json:"views,omitempty"`
	Sensitive     bool      `json:"sensitive"`
	Source        string    `json:"source,omitempty"`
	QuoteID       string    `json:"quote_id,omitempty"`
	ReplyToID     string    `json:"reply_to_id,omitempty"`
	ReplyToHandle string    `json:"reply_to_handle,omitempty"`
	Poll          *pollData `json:"poll,omitempty"`
}

// pollData is a post's poll: its choices in order with the votes so far.
type pollData struct {
	Choices    []pollChoice `json:"choices"`
	TotalVotes *int64       `json:"total_votes,omitempty"`
	EndsAt     string       `json:"ends_at,omitempty"`
}

type pollChoice struct {
	Label      string   `json:"label"`
	Votes      *int64   `json:"votes,omitempty"`
	Percentage *float64 `json:"percentage,omitempty"`
}

// pollOf keeps a poll's choices that have a label; a poll without any is
// left out.
func pollOf(p *fxPoll) *pollData {
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
	if t, err := time.Parse(time.RFC3339, p.EndsAt); err == nil {
		d.EndsAt = t.UTC().Format(time.RFC3339)
	}
	return d
}

func postDataOf(st *fxStatus) postData {
	d := postData{
		ID:        st.ID,
		URL:       postURL(st),
		Text:      st.Text,
		Likes:     count(st.Likes),
		Reposts:   count(st.Reposts),
		Replies:   count(st.Replies),
		Views:     count(st.Views),
		Sensitive: st.PossiblySensitive,
		Poll:      pollOf(st.Poll),
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
	if st.Quote != nil {
		d.QuoteID, _ = parseID(st.Quote.ID)
	}
	if r := st.ReplyingTo; r != nil {
		replyID := r.Status
		if replyID == "" {
			replyID = r.Post
		}
		d.ReplyToID, _ = parseID(replyID)
		d.ReplyToHandle = r.ScreenName
	}
	return d
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
