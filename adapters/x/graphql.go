package x

import (
	"encoding/json"
	"html"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The shapes of X's web GraphQL answers, as far as the x-session provider
// reads them (the recorded samples are in shared/fixtures/real/x-graphql,
// SOURCES.md lists their structures). X has moved fields between shapes
// over the years; the decoder reads every shape it has seen:
//
//   - a tweet result is a Tweet, a TweetWithVisibilityResults (the post
//     under .tweet, beside limitedActionResults), a TweetTombstone or a
//     TweetUnavailable (with a reason);
//   - a user keeps its names in legacy (old) or in core (mid-2025 and
//     later), its avatar in legacy or avatar, "protected" in legacy or
//     privacy, and in 2026 may have no legacy at all;
//   - a long post's whole text is in note_tweet, legacy.full_text is cut;
//   - timelines are typed instructions (TimelineAddEntries,
//     TimelinePinEntry, TimelineClearCache, ...) whose entries are items,
//     modules of items, or cursors, and a cursor is either the entry's
//     content itself or an item whose content is the cursor;
//   - errors may come beside partial data.
//
// Decoding ends in the FxTwitter shapes (fxStatus, fxUser), so posts read
// through an account are built by the same builders and render the same.

// gqlErrors is the errors member every answer may carry.
type gqlErrors struct {
	Errors []gqlError `json:"errors"`
}

// gqlError is one GraphQL error; code is X's numeric error code.
type gqlError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
}

// gqlTweetResult is {"result": ...} around a tweet.
type gqlTweetResult struct {
	Result *gqlTweet `json:"result"`
}

// gqlTweet is a tweet result of any type.
type gqlTweet struct {
	Typename string `json:"__typename"`
	RestID   string `json:"rest_id"`
	// Tweet is the post of a TweetWithVisibilityResults.
	Tweet *gqlTweet `json:"tweet"`
	// LimitedActionResults marks a post X limits (replies, reposts).
	LimitedActionResults json.RawMessage `json:"limitedActionResults"`
	// Reason is a TweetUnavailable's ("Protected", "Suspended", ...).
	Reason    string `json:"reason"`
	Tombstone *struct {
		Text struct {
			Text string `json:"text"`
		} `json:"text"`
	} `json:"tombstone"`
	Core *struct {
		UserResults struct {
			Result *gqlUser `json:"result"`
		} `json:"user_results"`
	} `json:"core"`
	Legacy *gqlTweetLegacy `json:"legacy"`
	Views  *struct {
		Count string `json:"count"`
	} `json:"views"`
	Source    string `json:"source"`
	NoteTweet *struct {
		NoteTweetResults struct {
			Result struct {
				Text      string       `json:"text"`
				EntitySet *gqlEntities `json:"entity_set"`
			} `json:"result"`
		} `json:"note_tweet_results"`
	} `json:"note_tweet"`
	QuotedStatusResult *gqlTweetResult `json:"quoted_status_result"`
	Card               *gqlCard        `json:"card"`
}

// gqlTweetLegacy is the v1.1-era body of a tweet.
type gqlTweetLegacy struct {
	IDStr            string      `json:"id_str"`
	FullText         string      `json:"full_text"`
	DisplayTextRange []int       `json:"display_text_range"`
	Entities         gqlEntities `json:"entities"`
	ExtendedEntities *struct {
		Media []gqlMedia `json:"media"`
	} `json:"extended_entities"`
	FavoriteCount         *int64          `json:"favorite_count"`
	RetweetCount          *int64          `json:"retweet_count"`
	ReplyCount            *int64          `json:"reply_count"`
	QuoteCount            *int64          `json:"quote_count"`
	BookmarkCount         *int64          `json:"bookmark_count"`
	CreatedAt             string          `json:"created_at"`
	Lang                  string          `json:"lang"`
	PossiblySensitive     bool            `json:"possibly_sensitive"`
	InReplyToStatusIDStr  string          `json:"in_reply_to_status_id_str"`
	InReplyToScreenName   string          `json:"in_reply_to_screen_name"`
	QuotedStatusIDStr     string          `json:"quoted_status_id_str"`
	RetweetedStatusResult *gqlTweetResult `json:"retweeted_status_result"`
}

// gqlEntities are the marked ranges of a text (code-point indices).
type gqlEntities struct {
	URLs []struct {
		URL         string `json:"url"`
		ExpandedURL string `json:"expanded_url"`
		DisplayURL  string `json:"display_url"`
		Indices     []int  `json:"indices"`
	} `json:"urls"`
	UserMentions []struct {
		ScreenName string `json:"screen_name"`
		IDStr      string `json:"id_str"`
		Indices    []int  `json:"indices"`
	} `json:"user_mentions"`
	Hashtags []struct {
		Text    string `json:"text"`
		Indices []int  `json:"indices"`
	} `json:"hashtags"`
	Media []gqlMedia `json:"media"`
}

// gqlMedia is a photo, video or animated_gif of a tweet.
type gqlMedia struct {
	IDStr         string `json:"id_str"`
	Type          string `json:"type"`
	URL           string `json:"url"`
	MediaURLHTTPS string `json:"media_url_https"`
	ExtAltText    string `json:"ext_alt_text"`
	OriginalInfo  *struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"original_info"`
	VideoInfo *struct {
		DurationMillis float64 `json:"duration_millis"`
		Variants       []struct {
			Bitrate     int64  `json:"bitrate"`
			ContentType string `json:"content_type"`
			URL         string `json:"url"`
		} `json:"variants"`
	} `json:"video_info"`
}

// gqlCard is a tweet's card; polls keep their choices in binding values.
type gqlCard struct {
	Legacy *struct {
		Name          string `json:"name"`
		URL           string `json:"url"`
		BindingValues []struct {
			Key   string `json:"key"`
			Value struct {
				Type        string `json:"type"`
				StringValue string `json:"string_value"`
				BoolValue   bool   `json:"boolean_value"`
			} `json:"value"`
		} `json:"binding_values"`
	} `json:"legacy"`
}

// gqlUser is a user result in any of X's shapes.
type gqlUser struct {
	Typename string `json:"__typename"`
	RestID   string `json:"rest_id"`
	Reason   string `json:"reason"`
	Legacy   *struct {
		ScreenName           string `json:"screen_name"`
		Name                 string `json:"name"`
		Description          string `json:"description"`
		Location             string `json:"location"`
		ProfileImageURLHTTPS string `json:"profile_image_url_https"`
		ProfileBannerURL     string `json:"profile_banner_url"`
		FollowersCount       *int64 `json:"followers_count"`
		FriendsCount         *int64 `json:"friends_count"`
		StatusesCount        *int64 `json:"statuses_count"`
		MediaCount           *int64 `json:"media_count"`
		CreatedAt            string `json:"created_at"`
		Protected            *bool  `json:"protected"`
		Verified             bool   `json:"verified"`
	} `json:"legacy"`
	Core *struct {
		ScreenName string `json:"screen_name"`
		Name       string `json:"name"`
		CreatedAt  string `json:"created_at"`
	} `json:"core"`
	Avatar *struct {
		ImageURL string `json:"image_url"`
	} `json:"avatar"`
	Banner *struct {
		ImageURL string `json:"image_url"`
	} `json:"banner"`
	Privacy *struct {
		Protected bool `json:"protected"`
	} `json:"privacy"`
	Location *struct {
		Location string `json:"location"`
	} `json:"location"`
	ProfileBio *struct {
		Description string `json:"description"`
	} `json:"profile_bio"`
	RelationshipCounts *struct {
		Followers *int64 `json:"followers"`
		Following *int64 `json:"following"`
	} `json:"relationship_counts"`
	TweetCounts *struct {
		Tweets *int64 `json:"tweets"`
	} `json:"tweet_counts"`
	IsBlueVerified bool `json:"is_blue_verified"`
	Verification   *struct {
		Verified bool `json:"verified"`
	} `json:"verification"`
}

// screenName is the user's handle in whichever shape holds it.
func (u *gqlUser) screenName() string {
	if u.Core != nil && u.Core.ScreenName != "" {
		return u.Core.ScreenName
	}
	if u.Legacy != nil {
		return u.Legacy.ScreenName
	}
	return ""
}

// protected reports whether X marks the account protected in any shape.
func (u *gqlUser) protected() bool {
	if u.Privacy != nil && u.Privacy.Protected {
		return true
	}
	return u.Legacy != nil && u.Legacy.Protected != nil && *u.Legacy.Protected
}

// fxUserOf is the user in the FxTwitter shape.
func (u *gqlUser) fxUser() *fxUser {
	out := &fxUser{ID: u.RestID, ScreenName: u.screenName(), Protected: u.protected()}
	if l := u.Legacy; l != nil {
		out.Name, out.Description, out.Location = l.Name, l.Description, l.Location
		out.AvatarURL, out.BannerURL = l.ProfileImageURLHTTPS, l.ProfileBannerURL
		out.Followers, out.Following, out.Statuses, out.MediaCount = l.FollowersCount, l.FriendsCount, l.StatusesCount, l.MediaCount
		out.Joined = l.CreatedAt
	}
	if c := u.Core; c != nil {
		if c.Name != "" {
			out.Name = c.Name
		}
		if c.CreatedAt != "" {
			out.Joined = c.CreatedAt
		}
	}
	if u.Avatar != nil && u.Avatar.ImageURL != "" {
		out.AvatarURL = u.Avatar.ImageURL
	}
	if u.Banner != nil && u.Banner.ImageURL != "" {
		out.BannerURL = u.Banner.ImageURL
	}
	if u.Location != nil && u.Location.Location != "" {
		out.Location = u.Location.Location
	}
	if u.ProfileBio != nil && u.ProfileBio.Description != "" {
		out.Description = u.ProfileBio.Description
	}
	if rc := u.RelationshipCounts; rc != nil {
		out.Followers, out.Following = rc.Followers, rc.Following
	}
	if tc := u.TweetCounts; tc != nil && tc.Tweets != nil {
		out.Statuses = tc.Tweets
	}
	if u.IsBlueVerified || (u.Verification != nil && u.Verification.Verified) {
		out.Verification = &struct {
			Verified bool    `json:"verified"`
			Type     *string `json:"type"`
		}{Verified: true}
	}
	return out
}

// unwrap returns the post of a tweet result: the tweet itself, or the one
// inside a TweetWithVisibilityResults, and whether X limits it.
func (t *gqlTweet) unwrap() (*gqlTweet, bool) {
	if t == nil {
		return nil, false
	}
	if t.Typename == "TweetWithVisibilityResults" && t.Tweet != nil {
		inner, _ := t.Tweet.unwrap()
		return inner, true
	}
	return t, len(t.LimitedActionResults) > 0 && string(t.LimitedActionResults) != "null"
}

// author is the tweet's author, or nil.
func (t *gqlTweet) author() *gqlUser {
	if t.Core == nil {
		return nil
	}
	return t.Core.UserResults.Result
}

// usable reports whether a post has what an fxStatus needs.
func (t *gqlTweet) usable() bool {
	a := t.author()
	return t.Legacy != nil && canonicalID(t.id()) && a != nil && canonicalID(a.RestID) && a.screenName() != ""
}

// id is the post's id, from rest_id or legacy.id_str.
func (t *gqlTweet) id() string {
	if t.RestID != "" {
		return t.RestID
	}
	if t.Legacy != nil {
		return t.Legacy.IDStr
	}
	return ""
}

// gqlStatus is a decoded post in the FxTwitter shape with what the
// x-session provider needs to judge its visibility.
type gqlStatus struct {
	st *fxStatus
	// public: X gave evidence the post is public (its author, and its
	// quoted post's, are not protected, and X does not limit it).
	public bool
}

// statusOf converts a usable post (and its quoted post, one level) into
// the FxTwitter shape.
func statusOf(t *gqlTweet) gqlStatus {
	t, limited := t.unwrap()
	a := t.author()
	st := &fxStatus{Type: "status", ID: t.id(), Author: a.fxUser()}
	l := t.Legacy
	st.URL = postURL(st)
	st.Likes, st.Reposts, st.Replies, st.Quotes, st.Bookmarks = l.FavoriteCount, l.RetweetCount, l.ReplyCount, l.QuoteCount, l.BookmarkCount
	if t.Views != nil {
		if n, err := strconv.ParseInt(t.Views.Count, 10, 64); err == nil {
			st.Views = &n
		}
	}
	st.CreatedAt = l.CreatedAt
	if ts, err := time.Parse(time.RubyDate, l.CreatedAt); err == nil {
		st.CreatedTimestamp = ts.Unix()
	}
	st.PossiblySensitive = l.PossiblySensitive
	if l.Lang != "" {
		lang := l.Lang
		st.Lang = &lang
	}
	if src := sourceName(t.Source); src != "" {
		st.Source = &src
	}
	text, ents := l.FullText, &l.Entities
	if n := t.NoteTweet; n != nil && n.NoteTweetResults.Result.Text != "" {
		st.IsNoteTweet = true
		text = n.NoteTweetResults.Result.Text
		if n.NoteTweetResults.Result.EntitySet != nil {
			ents = n.NoteTweetResults.Result.EntitySet
		}
	}
	media := l.Entities.Media
	if l.ExtendedEntities != nil && len(l.ExtendedEntities.Media) > 0 {
		media = l.ExtendedEntities.Media
	}
	st.Text = expandText(text, ents, media)
	st.RawText = rawTextOf(text, ents, st.IsNoteTweet, l.DisplayTextRange)
	st.Media = mediaSetOf(media)
	if l.InReplyToStatusIDStr != "" {
		st.ReplyingTo = &fxReplyingTo{Status: l.InReplyToStatusIDStr, ScreenName: l.InReplyToScreenName}
	}
	st.Poll = pollOfCard(t.Card)
	public := !a.protected() && !limited
	if q := t.QuotedStatusResult; q != nil && q.Result != nil {
		if inner, _ := q.Result.unwrap(); inner != nil && inner.usable() {
			qs := statusOf(q.Result)
			st.Quote = qs.st
			public = public && qs.public
		} else {
			st.Quote = &fxStatus{Type: "tombstone", ID: firstNonEmpty(l.QuotedStatusIDStr, q.Result.id()), Reason: shortReason(q.Result.Reason)}
		}
	} else if l.QuotedStatusIDStr != "" {
		st.Quote = &fxStatus{Type: "tombstone", ID: l.QuotedStatusIDStr}
	}
	return gqlStatus{st: st, public: public}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// sourceName is the client name of an HTML source link ("Twitter Web
// Client").
func sourceName(s string) string {
	if i := strings.IndexByte(s, '>'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(html.UnescapeString(s))
}

// expandText is what FxTwitter shows as a post's text: t.co links
// replaced by where they lead, the links of the post's own media left
// out, HTML entities decoded.
func expandText(text string, ents *gqlEntities, media []gqlMedia) string {
	var pairs []string
	for _, u := range ents.URLs {
		if u.URL != "" && u.ExpandedURL != "" {
			pairs = append(pairs, u.URL, u.ExpandedURL)
		}
	}
	for _, m := range media {
		if m.URL != "" {
			pairs = append(pairs, m.URL, "")
		}
	}
	if len(pairs) > 0 {
		text = strings.NewReplacer(pairs...).Replace(text)
	}
	return strings.TrimSpace(html.UnescapeString(text))
}

// rawTextOf is the post text as X stored it with its links, mentions and
// hashtags as facets. Entity indices count code points of the text before
// its HTML entities are decoded; facets out of range are dropped.
func rawTextOf(text string, ents *gqlEntities, note bool, display []int) *fxRawText {
	rt := &fxRawText{Text: text}
	if !note {
		rt.DisplayTextRange = display
	}
	for _, u := range ents.URLs {
		rt.Facets = append(rt.Facets, fxFacet{Type: "url", Indices: u.Indices, Original: u.URL, Replacement: u.ExpandedURL, Display: u.DisplayURL})
	}
	for _, m := range ents.UserMentions {
		rt.Facets = append(rt.Facets, fxFacet{Type: "mention", Indices: m.Indices, Original: m.ScreenName, ID: m.IDStr})
	}
	for _, h := range ents.Hashtags {
		rt.Facets = append(rt.Facets, fxFacet{Type: "hashtag", Indices: h.Indices, Original: h.Text})
	}
	sort.SliceStable(rt.Facets, func(i, j int) bool {
		a, b := rt.Facets[i].Indices, rt.Facets[j].Indices
		return len(a) > 0 && len(b) > 0 && a[0] < b[0]
	})
	return rt
}

// mediaSetOf turns X's media into FxTwitter's, in the post's order.
func mediaSetOf(media []gqlMedia) *fxMediaSet {
	if len(media) == 0 {
		return nil
	}
	set := &fxMediaSet{}
	for _, m := range media {
		fm := fxMedia{ID: m.IDStr, URL: m.MediaURLHTTPS, AltText: m.ExtAltText}
		if m.OriginalInfo != nil {
			fm.Width, fm.Height = m.OriginalInfo.Width, m.OriginalInfo.Height
		}
		switch m.Type {
		case "photo":
			fm.Type = "photo"
		case "video", "animated_gif":
			fm.Type = "video"
			if m.Type == "animated_gif" {
				fm.Type = "gif"
			}
			fm.ThumbnailURL = m.MediaURLHTTPS
			fm.URL = ""
			if vi := m.VideoInfo; vi != nil {
				fm.Duration = vi.DurationMillis / 1000
				for _, v := range vi.Variants {
					fm.Variants = append(fm.Variants, fxVariant{URL: v.URL, ContentType: v.ContentType, Bitrate: v.Bitrate})
				}
			}
		default:
			continue
		}
		set.All = append(set.All, fm)
	}
	return set
}

// pollOfCard reads a poll card (poll2choice_text_only ... poll4choice):
// choiceN_label and choiceN_count binding values, end_datetime_utc and
// counts_are_final.
func pollOfCard(c *gqlCard) *fxPoll {
	if c == nil || c.Legacy == nil || !strings.HasPrefix(c.Legacy.Name, "poll") {
		return nil
	}
	vals := map[string]string{}
	final := false
	for _, b := range c.Legacy.BindingValues {
		vals[b.Key] = b.Value.StringValue
		if b.Key == "counts_are_final" {
			final = b.Value.BoolValue
		}
	}
	p := &fxPoll{EndsAt: rfc3339(vals["end_datetime_utc"])}
	var total int64
	for i := 1; i <= 4; i++ {
		label := vals["choice"+strconv.Itoa(i)+"_label"]
		if label == "" {
			continue
		}
		ch := struct {
			Label      string   `json:"label"`
			Count      *int64   `json:"count"`
			Percentage *float64 `json:"percentage"`
		}{Label: label}
		if n, err := strconv.ParseInt(vals["choice"+strconv.Itoa(i)+"_count"], 10, 64); err == nil {
			ch.Count = &n
			total += n
		}
		p.Choices = append(p.Choices, ch)
	}
	if len(p.Choices) == 0 {
		return nil
	}
	p.TotalVotes = &total
	for i := range p.Choices {
		if c := p.Choices[i].Count; c != nil && total > 0 {
			pct := float64(*c) * 100 / float64(total)
			pct = float64(int(pct*10+0.5)) / 10
			p.Choices[i].Percentage = &pct
		}
	}
	if final {
		p.TimeLeftEn = "Final results"
	}
	return p
}

// gqlInstruction is one instruction of a timeline.
type gqlInstruction struct {
	Type    string     `json:"type"`
	Entries []gqlEntry `json:"entries"`
	Entry   *gqlEntry  `json:"entry"`
}

// gqlEntry is one timeline entry: an item, a module or a cursor.
type gqlEntry struct {
	EntryID string         `json:"entryId"`
	Content gqlItemContent `json:"content"`
}

// gqlItemContent is an entry's content. A cursor is either the content
// itself (cursorType, value) or an item whose itemContent is the cursor.
type gqlItemContent struct {
	Typename    string       `json:"__typename"`
	EntryType   string       `json:"entryType"`
	CursorType  string       `json:"cursorType"`
	Value       string       `json:"value"`
	ItemContent *gqlItem     `json:"itemContent"`
	Items       []gqlModItem `json:"items"`
}

// gqlModItem is one item of a module.
type gqlModItem struct {
	EntryID string `json:"entryId"`
	Item    struct {
		ItemContent *gqlItem `json:"itemContent"`
	} `json:"item"`
}

// gqlItem is an item: a tweet, a user, or a cursor.
type gqlItem struct {
	Typename     string          `json:"__typename"`
	ItemType     string          `json:"itemType"`
	TweetResults *gqlTweetResult `json:"tweet_results"`
	CursorType   string          `json:"cursorType"`
	Value        string          `json:"value"`
}

// gqlTimeline is what the adapter reads of a timeline: its posts in order
// (pinned ones first, as X sends them) and its bottom cursor.
type gqlTimeline struct {
	Tweets []*gqlTweet
	Bottom string
	// Pinned are the ids of pinned posts.
	Pinned map[string]bool
}

// readTimeline walks the instructions of a timeline.
func readTimeline(ins []gqlInstruction) gqlTimeline {
	var tl gqlTimeline
	addItem := func(it *gqlItem, pinned bool) {
		if it == nil {
			return
		}
		if it.TweetResults != nil && it.TweetResults.Result != nil {
			tl.Tweets = append(tl.Tweets, it.TweetResults.Result)
			if pinned {
				if tl.Pinned == nil {
					tl.Pinned = map[string]bool{}
				}
				if inner, _ := it.TweetResults.Result.unwrap(); inner != nil {
					tl.Pinned[inner.id()] = true
				}
			}
		}
		if it.CursorType == "Bottom" && it.Value != "" {
			tl.Bottom = it.Value
		}
	}
	addEntry := func(e gqlEntry, pinned bool) {
		c := e.Content
		if c.CursorType == "Bottom" && c.Value != "" {
			tl.Bottom = c.Value
		}
		addItem(c.ItemContent, pinned)
		if strings.HasPrefix(e.EntryID, "who-to-follow") {
			return
		}
		for _, m := range c.Items {
			addItem(m.Item.ItemContent, pinned)
		}
	}
	for _, in := range ins {
		if in.Entry != nil {
			addEntry(*in.Entry, in.Type == "TimelinePinEntry")
		}
		for _, e := range in.Entries {
			addEntry(e, false)
		}
	}
	return tl
}
