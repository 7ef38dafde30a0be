// Package telegram is Monitor's Telegram source adapter. It resolves t.me
// links to public channel posts and channels, and fetches them from
// Telegram's public web preview (the t.me post embed and t.me/s channel
// pages), answering core over the adapter.v1 gRPC protocol. Private
// channels (t.me/c/...) need a Telegram account connection, which a later
// MTProto provider brings.
//
// The package imports only api/adapter/v1, an HTML parser and the standard
// library, so it can run inside `monitor serve` or alone as
// `monitor adapter telegram`.
package telegram

import (
	"errors"
	"net/http"
	"strings"
	"time"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Defaults applied by New to zero Options fields.
const (
	// DefaultBaseURL is Telegram's public web preview.
	DefaultBaseURL = "https://t.me"
	// DefaultUserAgent identifies Monitor to t.me.
	DefaultUserAgent = "Monitor/1 (+self-hosted archive)"
	// DefaultMaxResponseBytes bounds one upstream page; core keeps at most
	// 4 MiB of raw responses per capture.
	DefaultMaxResponseBytes int64 = 4 << 20
	// DefaultTimeout bounds one upstream request when Options.HTTPClient is
	// nil.
	DefaultTimeout = 20 * time.Second
	// maxRedirects bounds the redirects the default client follows (t.me
	// sends t.me/s/<user> to t.me/<user>).
	maxRedirects = 3
)

// Options configure an Adapter. The zero value talks to the public t.me
// with the defaults above.
type Options struct {
	// BaseURL is the web preview's base, e.g. https://t.me, without a
	// trailing slash (one is trimmed if present).
	BaseURL string
	// HTTPClient sends the upstream requests; nil means a client with
	// DefaultTimeout that follows redirects only within BaseURL's host.
	HTTPClient *http.Client
	// UserAgent is sent with every upstream request.
	UserAgent string
	// MaxResponseBytes is the largest upstream page the adapter accepts;
	// larger pages fail with ERROR_CODE_TOO_LARGE and are never truncated.
	MaxResponseBytes int64
}

// Adapter is the Telegram adapter's gRPC service. It holds no per-request
// state, so one value serves concurrent calls.
type Adapter struct {
	adapterv1.UnimplementedAdapterServer

	baseURL   string
	client    *http.Client
	userAgent string
	maxBytes  int64
}

// New returns an Adapter with opts, filling zero fields with the defaults.
func New(opts Options) *Adapter {
	a := &Adapter{
		baseURL:   strings.TrimRight(opts.BaseURL, "/"),
		client:    opts.HTTPClient,
		userAgent: opts.UserAgent,
		maxBytes:  opts.MaxResponseBytes,
	}
	if a.baseURL == "" {
		a.baseURL = DefaultBaseURL
	}
	if a.client == nil {
		a.client = &http.Client{Timeout: DefaultTimeout, CheckRedirect: sameHostRedirects}
	}
	if a.userAgent == "" {
		a.userAgent = DefaultUserAgent
	}
	if a.maxBytes <= 0 {
		a.maxBytes = DefaultMaxResponseBytes
	}
	return a
}

// errForeignRedirect stops a redirect away from the web preview's host.
var errForeignRedirect = errors.New("t.me redirected to another host")

// sameHostRedirects follows at most maxRedirects redirects, all on the
// host of the first request.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return http.ErrUseLastResponse
	}
	if req.URL.Host != via[0].URL.Host {
		return errForeignRedirect
	}
	return nil
}
