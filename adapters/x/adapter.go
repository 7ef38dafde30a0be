// Package x is Monitor's X (Twitter) source adapter. It resolves X post and
// profile URLs into targets and fetches posts through the public FxTwitter
// v2 API (provider fxtwitter) or, with a tenant's signed-in session,
// through X's own web GraphQL API (provider x-session), answering core
// over the adapter.v1 gRPC protocol.
//
// The package imports only api/adapter/v1, adapters/kit and the standard
// library, so it can run inside `monitor serve` or alone as
// `monitor adapter x`.
package x

import (
	"net/http"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Defaults applied by New to zero Options fields.
const (
	// DefaultBaseURL is the public FxTwitter API.
	DefaultBaseURL = "https://api.fxtwitter.com"
	// DefaultUserAgent identifies Monitor to FxTwitter, which refuses
	// requests without a User-Agent.
	DefaultUserAgent = "Monitor/1 (+self-hosted archive)"
	// DefaultMaxResponseBytes bounds one upstream response; core keeps at
	// most 4 MiB of raw responses per capture.
	DefaultMaxResponseBytes int64 = 4 << 20
	// DefaultTimeout bounds one upstream request when Options.HTTPClient is
	// nil.
	DefaultTimeout = 20 * time.Second
)

// Options configure an Adapter. The zero value talks to the public
// FxTwitter instance with the defaults above.
type Options = kit.Options

// Adapter is the X adapter's gRPC service. It holds no per-request state,
// so one value serves concurrent calls.
type Adapter struct {
	adapterv1.UnimplementedAdapterServer

	fx kit.Upstream
	// xapi is X's web API, asked with a tenant's session.
	xapi kit.Upstream
}

// New returns an Adapter with opts, filling zero fields with the defaults;
// its x-session provider talks to X itself (DefaultXAPIURL).
func New(opts Options) *Adapter { return NewWithSession(opts, Options{}) }

// NewWithSession is New with the options of the x-session provider's
// upstream, X's web API (BaseURL: MONITOR_X_API_URL).
func NewWithSession(opts, session Options) *Adapter {
	a := &Adapter{fx: kit.Upstream{
		Name:   "FxTwitter",
		Header: http.Header{"Accept": {"application/json"}},
		Body:   "FxTwitter's answer",
	}}
	opts.Apply(&a.fx, kit.Defaults{
		BaseURL:          DefaultBaseURL,
		UserAgent:        DefaultUserAgent,
		MaxResponseBytes: DefaultMaxResponseBytes,
		Timeout:          DefaultTimeout,
	})
	a.xapi = kit.Upstream{
		Name:   "X",
		Header: http.Header{"Accept": {"application/json"}, "Content-Type": {"application/json"}},
		Body:   "X's answer",
	}
	session.Apply(&a.xapi, kit.Defaults{
		BaseURL:          DefaultXAPIURL,
		UserAgent:        DefaultUserAgent,
		MaxResponseBytes: DefaultMaxResponseBytes,
		Timeout:          DefaultTimeout,
		// The session never follows X to another host.
		CheckRedirect: kit.SameHostRedirects(3),
	})
	return a
}
