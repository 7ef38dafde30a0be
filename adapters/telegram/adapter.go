// Package telegram is Monitor's Telegram source adapter. It resolves t.me
// links to public channel posts and channels, and fetches them from
// Telegram's public web preview (the t.me post embed and t.me/s channel
// pages), answering core over the adapter.v1 gRPC protocol. Private
// channels (t.me/c/...) and protected content are read by the mtproto
// provider through a tenant's own Telegram session (mtproto.go).
//
// The package imports only api/adapter/v1, adapters/kit, an HTML parser,
// gotd (MTProto) and the standard library, so it can run inside `monitor
// serve` or alone as `monitor adapter telegram`.
package telegram

import (
	"net/http"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
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
// with the defaults above; the default client follows redirects only
// within BaseURL's host.
type Options = kit.Options

// Adapter is the Telegram adapter's gRPC service. It holds no per-request
// state, so one value serves concurrent calls.
type Adapter struct {
	adapterv1.UnimplementedAdapterServer

	tme kit.Upstream
	// mt configures the mtproto provider (NewWithMTProto).
	mt MTProto
}

// New returns an Adapter with opts, filling zero fields with the defaults.
func New(opts Options) *Adapter {
	a := &Adapter{tme: kit.Upstream{
		Name:       "t.me",
		Header:     http.Header{"Accept": {"text/html,application/xhtml+xml"}, "Accept-Language": {"en"}},
		Body:       "t.me's page",
		Unreadable: "could not read this post: ",
	}}
	opts.Apply(&a.tme, kit.Defaults{
		BaseURL:          DefaultBaseURL,
		UserAgent:        DefaultUserAgent,
		MaxResponseBytes: DefaultMaxResponseBytes,
		Timeout:          DefaultTimeout,
		CheckRedirect:    kit.SameHostRedirects(maxRedirects),
	})
	return a
}
