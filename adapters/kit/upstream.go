package kit

import (
	"context"
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

// Upstream is an adapter's one upstream HTTP service (FxTwitter, t.me):
// bounded GETs whose whole answers become the capture's source responses.
// Its string fields name the service in the messages people read.
type Upstream struct {
	// Name is the service in messages: "FxTwitter".
	Name string
	// BaseURL is prefixed to every path, without a trailing slash.
	BaseURL string
	// Client sends the requests; its timeout bounds each.
	Client *http.Client
	// UserAgent is sent with every request.
	UserAgent string
	// Header holds further request headers (Accept, ...).
	Header http.Header
	// MaxBytes is the largest body accepted; larger ones fail with
	// ERROR_CODE_TOO_LARGE and are never truncated.
	MaxBytes int64
	// Body names an answer in the too-large message: "FxTwitter's answer".
	Body string
	// Unreadable prefixes the messages of answers the adapter cannot use
	// ("could not read this post: "); it may be empty.
	Unreadable string
}

// Response is one complete, size-checked upstream answer.
type Response struct {
	// RequestURL is the URL asked for.
	RequestURL string
	// StatusCode is the HTTP status.
	StatusCode int
	// Header holds the response headers.
	Header http.Header
	// ContentType is the Content-Type header.
	ContentType string
	// Body is the whole body.
	Body []byte
}

// Source is the response kept byte for byte with a public capture.
func (r *Response) Source() *adapterv1.SourceResponse {
	return &adapterv1.SourceResponse{
		Body:        r.Body,
		ContentType: r.ContentType,
		RequestUrl:  r.RequestURL,
		Visibility:  adapterv1.Visibility_VISIBILITY_PUBLIC,
		StatusCode:  uint32(r.StatusCode),
	}
}

// Get sends GET {BaseURL}{path} with the User-Agent and Header and reads
// the whole body, refusing bodies over MaxBytes. It returns an error ready
// for the RPC answer when the exchange itself failed; HTTP error statuses
// are the caller's to classify (StatusError).
func (u *Upstream) Get(ctx context.Context, path string) (*Response, *adapterv1.Error) {
	return u.GetWith(ctx, path, nil)
}

// GetWith is Get with further headers for this one request (an account's
// session, which must not live in the shared Header).
func (u *Upstream) GetWith(ctx context.Context, path string, header http.Header) (*Response, *adapterv1.Error) {
	reqURL := u.BaseURL + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, reqURL, nil)
	if err != nil {
		return nil, Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, fmt.Sprintf("cannot build the %s request: %v", u.Name, err))
	}
	for k, vs := range u.Header {
		req.Header[k] = vs
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", u.UserAgent)
	resp, err := u.Client.Do(req)
	if err != nil {
		return nil, u.TransportError(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > u.MaxBytes {
		return nil, u.tooLarge()
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, u.MaxBytes+1))
	if err != nil {
		return nil, u.TransportError(err)
	}
	if int64(len(body)) > u.MaxBytes {
		return nil, u.tooLarge()
	}
	return &Response{
		RequestURL:  reqURL,
		StatusCode:  resp.StatusCode,
		Header:      resp.Header,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        body,
	}, nil
}

func (u *Upstream) tooLarge() *adapterv1.Error {
	return Err(adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE,
		fmt.Sprintf("%s is larger than the %s limit; it was not kept", u.Body, ByteSize(u.MaxBytes)))
}

// TransportError classifies a failed exchange: timeouts, refused
// connections and resets may work later; a redirect off the service's host
// (ErrForeignRedirect) will not.
func (u *Upstream) TransportError(err error) *adapterv1.Error {
	if errors.Is(err, ErrForeignRedirect) {
		return BadResponse(u.Unreadable + u.Name + " redirected to another site")
	}
	msg := "could not reach " + u.Name + "; try again later"
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		msg = u.Name + " did not answer in time; try again later"
	} else if errors.Is(err, context.Canceled) {
		msg = "the request to " + u.Name + " was cancelled"
	}
	return Retryable(adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, msg)
}

// StatusError maps the HTTP status classes every service shares: nil for
// 2xx; 429 is RATE_LIMITED with the Retry-After of header; 5xx, 408, 425
// and 403 (the service's edge refusing us for a while, not a statement
// about the post) are UNAVAILABLE; anything else is BAD_RESPONSE. Statuses
// that mean something for one service (404, 401, ...) are the caller's to
// map first.
func (u *Upstream) StatusError(code int, header http.Header) *adapterv1.Error {
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusTooManyRequests:
		e := Retryable(adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, u.Name+" asked us to slow down; the capture will be retried")
		e.RetryAfterSeconds = RetryAfter(header.Get("Retry-After"), time.Now())
		return e
	case code >= 500 || code == http.StatusRequestTimeout || code == http.StatusTooEarly || code == http.StatusForbidden:
		return Retryable(adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, fmt.Sprintf("%s failed (HTTP %d); try again later", u.Name, code))
	}
	return BadResponse(fmt.Sprintf("%s%s answered with unexpected HTTP status %d", u.Unreadable, u.Name, code))
}

// ErrForeignRedirect stops a redirect away from the first request's host.
var ErrForeignRedirect = errors.New("kit: redirect to another host")

// SameHostRedirects is an http.Client CheckRedirect that follows at most
// max redirects, all on the host of the first request.
func SameHostRedirects(max int) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= max {
			return http.ErrUseLastResponse
		}
		if req.URL.Host != via[0].URL.Host {
			return ErrForeignRedirect
		}
		return nil
	}
}

// DefaultRetryAfter is used when a 429 names no usable delay.
const DefaultRetryAfter = 60

// MaxRetryAfter caps what an upstream can ask for, so a bad header cannot
// park a capture for weeks.
const MaxRetryAfter = 24 * 60 * 60

// RetryAfter reads a Retry-After header, delta seconds or an HTTP date,
// as seconds from now between 1 and MaxRetryAfter.
func RetryAfter(v string, now time.Time) uint32 {
	v = strings.TrimSpace(v)
	if v == "" {
		return DefaultRetryAfter
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return clampRetry(n)
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampRetry(int64(t.Sub(now).Round(time.Second) / time.Second))
	}
	return DefaultRetryAfter
}

func clampRetry(n int64) uint32 {
	return uint32(min(max(n, 1), MaxRetryAfter))
}

// Options configure an adapter's upstream; the zero value means the
// adapter's Defaults.
type Options struct {
	// BaseURL is the upstream's base, e.g. https://api.fxtwitter.com,
	// without a trailing slash (one is trimmed if present).
	BaseURL string
	// HTTPClient sends the upstream requests; nil means a client with the
	// adapter's default timeout and redirect policy. A client without a
	// timeout relies on the RPC's deadline alone.
	HTTPClient *http.Client
	// UserAgent is sent with every upstream request.
	UserAgent string
	// MaxResponseBytes is the largest upstream body the adapter accepts;
	// larger bodies fail with ERROR_CODE_TOO_LARGE and are never truncated.
	MaxResponseBytes int64
}

// Defaults are an adapter's values for the zero fields of Options.
type Defaults struct {
	// BaseURL is the public service.
	BaseURL string
	// UserAgent identifies Monitor to the service.
	UserAgent string
	// MaxResponseBytes bounds one answer.
	MaxResponseBytes int64
	// Timeout bounds one request of the default client.
	Timeout time.Duration
	// CheckRedirect is the default client's redirect policy (nil: Go's).
	CheckRedirect func(*http.Request, []*http.Request) error
}

// Apply sets u's BaseURL, Client, UserAgent and MaxBytes from o, taking d
// for the zero fields.
func (o Options) Apply(u *Upstream, d Defaults) {
	u.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if u.BaseURL == "" {
		u.BaseURL = d.BaseURL
	}
	u.Client = o.HTTPClient
	if u.Client == nil {
		u.Client = &http.Client{Timeout: d.Timeout, CheckRedirect: d.CheckRedirect}
	}
	u.UserAgent = o.UserAgent
	if u.UserAgent == "" {
		u.UserAgent = d.UserAgent
	}
	u.MaxBytes = o.MaxResponseBytes
	if u.MaxBytes <= 0 {
		u.MaxBytes = d.MaxResponseBytes
	}
}
