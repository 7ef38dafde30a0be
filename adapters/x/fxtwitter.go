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
// type "tombstone" with a reason.
type fxStatus struct {
	Type              string        `json:"type"`
	ID                string        `json:"id"`
	URL               string        `json:"url"`
	Text              string        `json:"text"`
	Author            *fxUser       `json:"author"`
	Replies           *int64        `json:"replies"`
	Reposts           *int64        `json:"reposts"`
	Likes             *int64        `json:"likes"`
	Views             *int64        `json:"views"`
	CreatedAt         string        `json:"created_at"`
	CreatedTimestamp  int64         `json:"created_timestamp"`
	PossiblySensitive bool          `json:"possibly_sensitive"`
	Lang              *string       `json:"lang"`
	Source            *string       `json:"source"`
	ReplyingTo        *fxReplyingTo `json:"replying_to"`
	Media             *fxMediaSet   `json:"media"`
	Quote             *fxStatus     `json:"quote"`
	Poll              *fxPoll       `json:"poll"`
	Reason            string        `json:"reason"`
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
}

// fxReplyingTo names the post a reply answers; older API versions call the
// id "post", newer ones "status".
type fxReplyingTo struct {
	ScreenName string `json:"screen_name"`
	Status     string `json:"status"`
	Post       string `json:"post"`
}

// fxMediaSet lists a post's media; All keeps the order the post shows.
type fxMediaSet struct {
	All    []fxMedia `json:"all"`
	Photos []fxMedia `json:"photos"`
	Videos []fxMedia `json:"videos"`
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
}

type fxVideoFormat struct {
	URL       string `json:"url"`
	Container string `json:"container"`
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
