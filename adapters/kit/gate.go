package kit

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// MaxURLLength bounds what Resolve reads; real links are far shorter.
const MaxURLLength = 4096

// Gate is the first check of every Resolve: an http(s) URL on one of the
// adapter's hosts, with no user name and no port other than the scheme's,
// whose path has no empty segment. Everything else is
// ERROR_CODE_NOT_THIS_ADAPTER, so core can ask the next adapter. The
// string fields name the platform in the messages people read.
type Gate struct {
	// Hosts are the hosts the adapter resolves, lowercase and exact.
	Hosts []string
	// Links names the platform's links: "X links".
	Links string
	// Send is what to send instead of a URL that is none: "an x.com link".
	Send string
	// Example is the start of a link to send: "https://x.com/...".
	Example string
	// HostNoun names a host of the platform: "an X host".
	HostNoun string
	// PortNoun names a port of the platform: "an X port".
	PortNoun string
	// Home is the message for the platform's home page (an empty path).
	Home string
}

// IsHost reports whether host (already lowercase) is one of g.Hosts.
func (g *Gate) IsHost(host string) bool { return slices.Contains(g.Hosts, host) }

// CheckRequest answers a Resolve request without a URL with an RPC error
// (InvalidArgument); it returns nil for any other.
func CheckRequest(req *adapterv1.ResolveRequest) error {
	if req == nil || strings.TrimSpace(req.GetUrl()) == "" {
		return status.Error(codes.InvalidArgument, "resolve: url is required")
	}
	return nil
}

// Check reads raw and returns the segments of its path (escaped, so %2F
// stays inside a segment and an encoded slash can never create a path
// form the person did not write), or the answer to give.
func (g *Gate) Check(raw string) ([]string, *adapterv1.ResolveResponse) {
	notThis := func(msg string) ([]string, *adapterv1.ResolveResponse) {
		return nil, ResolveError(adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER, msg)
	}
	raw = strings.TrimSpace(raw)
	if len(raw) > MaxURLLength {
		return notThis(fmt.Sprintf("the URL is longer than %d characters; %s are much shorter", MaxURLLength, g.Links))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return notThis("this is not a valid URL; send " + g.Send)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return notThis("only http and https links are accepted; send an " + g.Example + " link")
	}
	if u.Opaque != "" || u.Host == "" {
		return notThis("the URL has no host; send an " + g.Example + " link")
	}
	host := strings.ToLower(u.Hostname())
	if !g.IsHost(host) {
		return notThis(fmt.Sprintf("%s is not %s", Quote(host), g.HostNoun))
	}
	if u.User != nil {
		// https://x.com@evil.example/ and friends: a link with credentials
		// is either a trick or a mistake; neither is the platform's link.
		return notThis("links with a user name before the host are not " + g.Links)
	}
	if port := u.Port(); port != "" && !(u.Scheme == "https" && port == "443") && !(u.Scheme == "http" && port == "80") {
		return notThis(fmt.Sprintf("port %s is not %s", Quote(port), g.PortNoun))
	}
	p := strings.TrimPrefix(u.EscapedPath(), "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil, ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, g.Home)
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "" {
			return nil, ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, "the link's path has an empty segment (//); copy the link again")
		}
	}
	return segs, nil
}
