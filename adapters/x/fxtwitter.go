package x

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	Reason            string        `json:"reason"`
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
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	URL      string          `json:"url"`
	Format   string          `json:"format"`
	Width    int             `json:"width"`
	Height   int             `json:"height"`
	AltText  string          `json:"altText"`
	Duration float64         `json:"duration"`
	Formats  []fxVideoFormat `json:"formats"`
	Variants []fxVariant     `json:"variants"`
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

// upstreamResponse is one complete, size-checked upstream answer.
type upstreamResponse struct {
	requestURL  string
	statusCode  int
	header      http.Header
	contentType string
	body        []byte
}

// get sends GET {baseURL}{path} with the adapter's User-Agent and reads the
// whole body, refusing bodies over the size limit. It returns an error
// ready for the RPC answer when the exchange itself failed; HTTP error
// statuses are the caller's to classify.
func (a *Adapter) get(ctx context.Context, path string) (*upstreamResponse, *adapterv1.Error) {
	reqURL := a.baseURL + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, reqURL, nil)
	if err != nil {
		return nil, &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: fmt.Sprintf("cannot build the FxTwitter request: %v", err)}
	}
	req.Header.Set("User-Agent", a.userAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, transportError(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > a.maxBytes {
		return nil, a.tooLarge()
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, a.maxBytes+1))
	if err != nil {
		return nil, transportError(err)
	}
	if int64(len(body)) > a.maxBytes {
		return nil, a.tooLarge()
	}
	return &upstreamResponse{
		requestURL:  reqURL,
		statusCode:  resp.StatusCode,
		header:      resp.Header,
		contentType: resp.Header.Get("Content-Type"),
		body:        body,
	}, nil
}

func (a *Adapter) tooLarge() *adapterv1.Error {
	return &adapterv1.Error{
		Code:    adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE,
		Message: fmt.Sprintf("FxTwitter's answer is larger than the %s limit; it was not kept", byteSize(a.maxBytes)),
	}
}

// transportError classifies a failed exchange: all of them (timeouts,
// refused connections, resets) may work later.
func transportError(err error) *adapterv1.Error {
	msg := "could not reach FxTwitter; try again later"
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		msg = "FxTwitter did not answer in time; try again later"
	} else if errors.Is(err, context.Canceled) {
		msg = "the request to FxTwitter was cancelled"
	}
	return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, Message: msg, Retryable: true}
}

// upstreamStatusError maps an HTTP error status of FxTwitter to the
// protocol's error. notFound and private are the messages for 404 and 401,
// which depend on what was asked for. It returns nil for 2xx.
func upstreamStatusError(resp *upstreamResponse, code int, notFound, private string) *adapterv1.Error {
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusNotFound || code == http.StatusGone:
		return notFoundError(notFound, tombstoneReason(resp.body))
	case code == http.StatusUnauthorized:
		return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_PRIVATE, Message: private}
	case code == http.StatusTooManyRequests:
		return &adapterv1.Error{
			Code:              adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED,
			Message:           "FxTwitter asked us to slow down; the capture will be retried",
			Retryable:         true,
			RetryAfterSeconds: retryAfter(resp.header.Get("Retry-After"), time.Now()),
		}
	case code == http.StatusBadRequest:
		return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: "FxTwitter refused the request as malformed (HTTP 400)"}
	case code >= 500 || code == http.StatusRequestTimeout || code == http.StatusTooEarly || code == http.StatusForbidden:
		// 403 from FxTwitter is its edge blocking us for a while, not a
		// statement about the post.
		return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE,
			Message: fmt.Sprintf("FxTwitter failed (HTTP %d); try again later", code), Retryable: true}
	}
	return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE,
		Message: fmt.Sprintf("FxTwitter answered with unexpected HTTP status %d", code)}
}

// notFoundError is ERROR_CODE_NOT_FOUND with the upstream's reason, when
// it gave one, in Error.reason and in the message.
func notFoundError(msg, reason string) *adapterv1.Error {
	e := &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: msg}
	if reason != "" {
		e.Reason, e.Message = reason, fmt.Sprintf("%s (%s)", msg, reason)
	}
	return e
}

// defaultRetryAfter is used when a 429 names no usable delay.
const defaultRetryAfter = 60

// maxRetryAfter caps what an upstream can ask for, so a bad header cannot
// park a capture for weeks.
const maxRetryAfter = 24 * 60 * 60

// retryAfter reads a Retry-After header: delta seconds or an HTTP date.
func retryAfter(v string, now time.Time) uint32 {
	v = strings.TrimSpace(v)
	if v == "" {
		return defaultRetryAfter
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return clampRetry(n)
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampRetry(int64(t.Sub(now).Round(time.Second) / time.Second))
	}
	return defaultRetryAfter
}

func clampRetry(n int64) uint32 {
	return uint32(min(max(n, 1), maxRetryAfter))
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

// byteSize formats a byte count for messages.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
