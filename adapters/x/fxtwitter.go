package x

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// The shapes of FxTwitter v2 answers, as far as the adapter reads them.
// Unknown fields are ignored; the raw body is kept byte for byte anyway.

// fxStatusResponse is the answer of GET /2/status/{id}.
type fxStatusResponse struct {
	Code    int       `json:"code"`
	Message string    `json:"message"`
	Status  *fxStatus `json:"status"`
}

// fxStatus is one post. A deleted or withheld post comes back as
// type "tombstone" with a reason and a message (as a quote, a thread
// member, or the answer itself).
type fxStatus struct {
	Type              string           `json:"type"`
	ID                string           `json:"id"`
	URL               string           `json:"url"`
	Text              string           `json:"text"`
	RawText           *fxRawText       `json:"raw_text"`
	Author            *fxUser          `json:"author"`
	Replies           *int64           `json:"replies"`
	Reposts           *int64           `json:"reposts"`
	Likes             *int64           `json:"likes"`
	Quotes            *int64           `json:"quotes"`
	Bookmarks         *int64           `json:"bookmarks"`
	Views             *int64           `json:"views"`
	CreatedAt         string           `json:"created_at"`
	CreatedTimestamp  int64            `json:"created_timestamp"`
	PossiblySensitive bool             `json:"possibly_sensitive"`
	Lang              *string          `json:"lang"`
	Source            *string          `json:"source"`
	IsNoteTweet       bool             `json:"is_note_tweet"`
	ReplyingTo        *fxReplyingTo    `json:"replying_to"`
	RepostedBy        *fxRepostedBy    `json:"reposted_by"`
	Media             *fxMediaSet      `json:"media"`
	Quote             *fxStatus        `json:"quote"`
	Poll              *fxPoll          `json:"poll"`
	Community         *fxCommunity     `json:"community"`
	CommunityNote     *fxCommunityNote `json:"community_note"`
	Card              *fxCard          `json:"card"`
	Article           *fxArticle       `json:"article"`
	Reason            string           `json:"reason"`
	Message           string           `json:"message"`
}

// fxRawText is the post text before FxTwitter expanded it, with facets
// (links, mentions, hashtags, media) at code-point offsets into Text.
type fxRawText struct {
	Text             string    `json:"text"`
	DisplayTextRange []int     `json:"display_text_range"`
	Facets           []fxFacet `json:"facets"`
}

// fxFacet is one marked range of a text.
type fxFacet struct {
	Type        string `json:"type"`
	Indices     []int  `json:"indices"`
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	Display     string `json:"display"`
	ID          string `json:"id"`
}

// fxRepostedBy is the account whose repost FxTwitter answered with.
type fxRepostedBy struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	ScreenName string `json:"screen_name"`
	URL        string `json:"url"`
}

// fxCommunity is the X community a post was posted in.
type fxCommunity struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	CreatedAt   string  `json:"created_at"`
	IsNSFW      bool    `json:"is_nsfw"`
	Topic       *string `json:"topic"`
	JoinPolicy  string  `json:"join_policy"`
	Admin       *fxUser `json:"admin"`
	Creator     *fxUser `json:"creator"`
}

// fxCommunityNote is the community note shown under a post.
type fxCommunityNote struct {
	Text   string    `json:"text"`
	Facets []fxFacet `json:"facets"`
}

// fxCard is a link card (summary, summary_large_image, player, ...).
type fxCard struct {
	URL         string `json:"url"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Domain      string `json:"domain"`
	CardName    string `json:"card_name"`
	Image       *struct {
		URL    string `json:"url"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		Alt    string `json:"alt"`
	} `json:"image"`
}

// fxArticle is a long-form X article attached to a post: its text is in
// content.blocks (Draft.js blocks), its cover in cover_media.
type fxArticle struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	PreviewText string `json:"preview_text"`
	CreatedAt   string `json:"created_at"`
	ModifiedAt  string `json:"modified_at"`
	CoverMedia  *struct {
		MediaInfo *struct {
			OriginalImgURL    string `json:"original_img_url"`
			OriginalImgWidth  int    `json:"original_img_width"`
			OriginalImgHeight int    `json:"original_img_height"`
			MediaURLHTTPS     string `json:"media_url_https"`
		} `json:"media_info"`
	} `json:"cover_media"`
	Content *struct {
		Blocks []struct {
			Text string `json:"text"`
			Type string `json:"type"`
		} `json:"blocks"`
	} `json:"content"`
}

// fxPoll is a post's poll with its results so far.
type fxPoll struct {
	Choices []struct {
		Label      string   `json:"label"`
		Count      *int64   `json:"count"`
		Percentage *float64 `json:"percentage"`
	} `json:"choices"`
	TotalVotes *int64 `json:"total_votes"`
	EndsAt     string `json:"ends_at"`
	TimeLeftEn string `json:"time_left_en"`
}

// fxReplyingTo names the post a reply answers; older API versions call the
// id "post", newer ones "status".
type fxReplyingTo struct {
	ScreenName  string `json:"screen_name"`
	Status      string `json:"status"`
	Post        string `json:"post"`
	DisplayName string `json:"display_name"`
}

// fxMediaSet lists a post's media; All keeps the order the post shows.
// External is an embedded player of another site (YouTube), Broadcast a
// live broadcast (Periscope): both are kept as links, never downloaded.
type fxMediaSet struct {
	All       []fxMedia    `json:"all"`
	Photos    []fxMedia    `json:"photos"`
	Videos    []fxMedia    `json:"videos"`
	External  *fxExternal  `json:"external"`
	Broadcast *fxBroadcast `json:"broadcast"`
}

// fxExternal is an embedded video of another site.
type fxExternal struct {
	Type         string `json:"type"`
	URL          string `json:"url"`
	ThumbnailURL string `json:"thumbnail_url"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
}

// fxBroadcast is a live broadcast attached to a post.
type fxBroadcast struct {
	URL         string `json:"url"`
	Title       string `json:"title"`
	State       string `json:"state"`
	BroadcastID string `json:"broadcast_id"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Broadcaster *struct {
		Username    string `json:"username"`
		DisplayName string `json:"display_name"`
	} `json:"broadcaster"`
	Thumbnail *struct {
		Original *struct {
			URL string `json:"url"`
		} `json:"original"`
	} `json:"thumbnail"`
}

// fxMedia is a photo, video or gif. Videos list their renditions in
// Formats (v2) or Variants (the legacy shape).
type fxMedia struct {
	ID       string  `json:"id"`
	Type     string  `json:"type"`
	URL      string  `json:"url"`
	Format   string  `json:"format"`
	Width    int     `json:"width"`
	Height   int     `json:"height"`
	AltText  string  `json:"altText"`
	Duration float64 `json:"duration"`
	// ThumbnailURL is a video's or gif's still frame (its poster).
	ThumbnailURL string          `json:"thumbnail_url"`
	Formats      []fxVideoFormat `json:"formats"`
	Variants     []fxVariant     `json:"variants"`
	// Publisher is the account that first posted a video this post
	// shows again.
	Publisher *fxUser `json:"publisher"`
}

type fxVideoFormat struct {
	URL       string `json:"url"`
	Container string `json:"container"`
	Codec     string `json:"codec"`
	Bitrate   int64  `json:"bitrate"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
}

type fxVariant struct {
	URL         string `json:"url"`
	ContentType string `json:"content_type"`
	Bitrate     int64  `json:"bitrate"`
}

// fxUser is an account as FxTwitter describes it.
type fxUser struct {
	ID          string     `json:"id"`
	ScreenName  string     `json:"screen_name"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Location    string     `json:"location"`
	AvatarURL   string     `json:"avatar_url"`
	BannerURL   string     `json:"banner_url"`
	Followers   *int64     `json:"followers"`
	Following   *int64     `json:"following"`
	Statuses    *int64     `json:"statuses"`
	Joined      string     `json:"joined"`
	Protected   bool       `json:"protected"`
	Website     *fxWebsite `json:"website"`
	MediaCount  *int64     `json:"media_count"`
	Likes       *int64     `json:"likes"`
	// Verification is the account's check mark: verified, and of which
	// kind (individual, organization, government).
	Verification *struct {
		Verified bool    `json:"verified"`
		Type     *string `json:"type"`
	} `json:"verification"`
}

type fxWebsite struct {
	URL string `json:"url"`
}

// upstreamStatusError maps an HTTP error status of FxTwitter to the
// protocol's error. notFound and private are the messages for 404 and 401,
// which depend on what was asked for. It returns nil for 2xx.
func (a *Adapter) upstreamStatusError(resp *kit.Response, code int, notFound, private string) *adapterv1.Error {
	switch code {
	case http.StatusNotFound, http.StatusGone:
		return notFoundError(notFound, tombstoneReason(resp.Body))
	case http.StatusUnauthorized:
		return kit.Err(adapterv1.ErrorCode_ERROR_CODE_PRIVATE, private)
	case http.StatusBadRequest:
		return kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "FxTwitter refused the request as malformed (HTTP 400)")
	}
	return a.fx.StatusError(code, resp.Header)
}

// notFoundError is ERROR_CODE_NOT_FOUND with the upstream's reason, when
// it gave one, in Error.reason and in the message.
func notFoundError(msg, reason string) *adapterv1.Error {
	if reason != "" {
		msg = fmt.Sprintf("%s (%s)", msg, reason)
	}
	return kit.NotFound(msg, reason)
}

// tombstoneReason returns the short reason of a tombstone answer
// ({"status":{"type":"tombstone","reason":"deleted"}}), or "".
func tombstoneReason(body []byte) string {
	var r fxStatusResponse
	if json.Unmarshal(body, &r) != nil || r.Status == nil || r.Status.Type != "tombstone" {
		return ""
	}
	return shortReason(r.Status.Reason)
}

// shortReason keeps an upstream reason only if it is a short word, so no
// upstream text of any length reaches a person's screen.
func shortReason(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return ""
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ' ') {
			return ""
		}
	}
	return s
}

// fxProfileResponse is the answer of GET /2/profile/{handle}. A suspended
// account comes back as 404 with reason "suspended".
type fxProfileResponse struct {
	Code    int     `json:"code"`
	Message string  `json:"message"`
	Reason  string  `json:"reason"`
	User    *fxUser `json:"user"`
}

// fxTimelineResponse is the answer of GET /2/profile/{handle}/statuses:
// one page of posts, newest first, and the cursor of the next (older)
// page in cursor.bottom.
type fxTimelineResponse struct {
	Code    int         `json:"code"`
	Results []*fxStatus `json:"results"`
	Cursor  *struct {
		Bottom *string `json:"bottom"`
	} `json:"cursor"`
}

// fxThreadResponse is the answer of GET /2/thread/{id}: the post, as
// /2/status/{id} gives it, and the author's thread around it in order.
type fxThreadResponse struct {
	Code   int         `json:"code"`
	Status *fxStatus   `json:"status"`
	Thread []*fxStatus `json:"thread"`
}
