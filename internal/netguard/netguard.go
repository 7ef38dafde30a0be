// Package netguard keeps fetches of addresses that come from upstream
// answers (media, avatars, thumbnails an adapter returns) on the public
// internet, so an upstream naming http://127.0.0.1:… or a cloud metadata
// address cannot make Monitor fetch from its own network.
//
// The check runs at dial time on the address actually connected to
// (net.Dialer.ControlContext sees the resolved ip:port), so a host name that
// resolves to a private address — DNS rebinding included — is refused like
// the address itself, on every redirect hop. An Allow list, carried in the
// request's context, lets an operator reach named hosts or ranges anyway.
//
// The guarded client uses no proxy: with HTTP_PROXY set, the dial check
// would see only the proxy's address and every upstream name would pass
// unchecked. Media fetches therefore go out directly.
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// MaxRedirects is how many redirects one fetch follows.
const MaxRedirects = 5

// Range is a block of addresses that is not public, with what it is for.
type Range struct {
	// Prefix is the block, such as 127.0.0.0/8 (zero when the range is
	// described only by Name).
	Prefix netip.Prefix
	// Name says what the block is, such as "loopback".
	Name string
}

// nonPublicRanges are the blocks no fetch may reach unless allowed. IPv4-mapped
// (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses
// are judged by the IPv4 address they carry; other IPv6 addresses outside
// global unicast (2000::/3) are refused as reserved.
//
// The table is parsed once into read-only lookup values (no state):
// parsing it on every dial cost ~10 µs.
var (
	nonPublic     = nonPublicRanges()
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	globalUnicast = netip.MustParsePrefix("2000::/3")
)

func nonPublicRanges() []Range {
	out := make([]Range, 0, 32)
	for _, r := range [][2]string{
		{"0.0.0.0/8", "this network"},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "carrier-grade NAT"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "IETF protocol assignments"},
		{"192.0.2.0/24", "documentation"},
		{"192.88.99.0/24", "6to4 relay anycast"},
		{"192.168.0.0/16", "private"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"255.255.255.255/32", "broadcast"},
		{"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible (deprecated)"},
		{"64:ff9b:1::/48", "local NAT64"},
		{"100::/64", "discard-only"},
		{"2001::/32", "Teredo"},
		{"2001:2::/48", "benchmarking"},
		{"2001:10::/28", "ORCHID"},
		{"2001:20::/28", "ORCHIDv2"},
		{"2001:db8::/32", "documentation"},
		{"3fff::/20", "documentation"},
		{"5f00::/16", "segment routing"},
		{"fc00::/7", "unique local"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local (deprecated)"},
		{"ff00::/8", "multicast"},
	} {
		out = append(out, Range{Prefix: netip.MustParsePrefix(r[0]), Name: r[1]})
	}
	return out
}

// Classify reports the non-public range ip falls in, or false when ip is a
// public address. An address carrying an IPv4 address (mapped, NAT64,
// 6to4) is judged by that IPv4 address.
func Classify(ip netip.Addr) (Range, bool) {
	ip = ip.WithZone("")
	if !ip.IsValid() {
		return Range{Name: "no address"}, true
	}
	if ip.Is4In6() {
		return Classify(ip.Unmap())
	}
	for _, r := range nonPublic {
		if r.Prefix.Contains(ip) {
			return r, true
		}
	}
	if ip.Is4() {
		return Range{}, false
	}
	b := ip.As16()
	switch {
	case nat64.Contains(ip):
		return Classify(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(ip):
		return Classify(netip.AddrFrom4([4]byte(b[2:6])))
	case !globalUnicast.Contains(ip):
		return Range{Name: "reserved: outside global unicast 2000::/3"}, true
	}
	return Range{}, false
}

// Allow is an operator's list of hosts and ranges fetches may reach
// although they are not public. The zero Allow allows nothing.
type Allow struct {
	hosts    map[string]bool
	prefixes []netip.Prefix
}

// ParseAllow reads a comma-separated list of host names, IP addresses and
// CIDR ranges, such as "127.0.0.1, 10.0.0.0/8, minio.internal". Empty
// allows nothing.
func ParseAllow(s string) (Allow, error) {
	var a Allow
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			a.prefixes = append(a.prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(item); err == nil && ip.Zone() == "" {
			ip = ip.Unmap()
			a.prefixes = append(a.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		if !isHostName(item) {
			return Allow{}, fmt.Errorf("%q is not a host name, IP address or CIDR range; list them comma-separated without scheme or port, such as 127.0.0.1, 10.0.0.0/8, minio.internal", item)
		}
		if a.hosts == nil {
			a.hosts = map[string]bool{}
		}
		a.hosts[strings.ToLower(strings.TrimSuffix(item, "."))] = true
	}
	return a, nil
}

// isHostName reports whether s is a DNS name: labels of letters, digits,
// hyphens and underscores, 1–63 bytes each, 253 in all.
func isHostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// IsZero reports whether the list allows nothing.
func (a Allow) IsZero() bool { return len(a.hosts) == 0 && len(a.prefixes) == 0 }

// allowsHost reports whether the operator named this host.
func (a Allow) allowsHost(host string) bool {
	return a.hosts[strings.ToLower(strings.TrimSuffix(host, "."))]
}

// allowsAddr reports whether ip lies in one of the allowed ranges.
func (a Allow) allowsAddr(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Check refuses ip, reached for host, unless it is public or allowed.
func (a Allow) Check(host string, ip netip.Addr) error {
	r, private := Classify(ip)
	if !private || a.allowsHost(host) || a.allowsAddr(ip) {
		return nil
	}
	return &BlockedError{Host: host, Addr: ip.WithZone(""), Range: r}
}

type allowKey struct{}

// WithAllow returns ctx carrying the allow list the guarded client's
// dials of this request follow.
func WithAllow(ctx context.Context, a Allow) context.Context {
	return context.WithValue(ctx, allowKey{}, a)
}

func allowFrom(ctx context.Context) Allow {
	a, _ := ctx.Value(allowKey{}).(Allow)
	return a
}

// BlockedError is a dial refused because the address is not public.
type BlockedError struct {
	// Host is the host name or address of the URL.
	Host string
	// Addr is the address it resolved to.
	Addr netip.Addr
	// Range is the non-public block Addr is in.
	Range Range
}

// Error names the host, the address and its range.
func (e *BlockedError) Error() string {
	return "netguard: " + e.Describe()
}

// Describe says, for people, what the host is: "127.0.0.1 is a private
// address (loopback, 127.0.0.0/8)" or "localhost resolves to 127.0.0.1, a
// private address (…)".
func (e *BlockedError) Describe() string {
	what := "a private address (" + e.Range.Name + ")"
	if e.Range.Prefix.IsValid() {
		what = fmt.Sprintf("a private address (%s, %s)", e.Range.Name, e.Range.Prefix)
	}
	if h, err := netip.ParseAddr(strings.Trim(e.Host, "[]")); err == nil && h.WithZone("").Unmap() == e.Addr.Unmap() {
		return e.Host + " is " + what
	}
	return fmt.Sprintf("%s resolves to %s, %s", e.Host, e.Addr, what)
}

// SchemeError is a URL, or a redirect, with a scheme other than http and
// https.
type SchemeError struct {
	// Scheme is the refused scheme ("" when the URL has none).
	Scheme string
}

// Error names the scheme.
func (e *SchemeError) Error() string {
	if e.Scheme == "" {
		return "netguard: the address has no scheme; only http and https are fetched"
	}
	return fmt.Sprintf("netguard: the %s: scheme is not fetched; only http and https are", e.Scheme)
}

// ErrTooManyRedirects is a fetch redirected more than MaxRedirects times.
var ErrTooManyRedirects = fmt.Errorf("netguard: more than %d redirects", MaxRedirects)

// CheckURL refuses URLs whose scheme is not http or https.
func CheckURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return nil
	}
	return &SchemeError{Scheme: u.Scheme}
}

// checkRedirect follows at most MaxRedirects redirects, each to http or
// https; the dial check applies to each hop's connection.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return ErrTooManyRedirects
	}
	return CheckURL(req.URL)
}

// Dialer dials only addresses the request context's Allow accepts.
type Dialer struct {
	// Timeout bounds one connection attempt.
	Timeout time.Duration
	// KeepAlive is the TCP keep-alive period.
	KeepAlive time.Duration
}

// DialContext connects to addr ("host:port") and refuses, before any byte
// is sent, each resolved address that is not public and not allowed.
func (d Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: dial %s: %w", addr, err)
	}
	allow := allowFrom(ctx)
	nd := &net.Dialer{Timeout: d.Timeout, KeepAlive: d.KeepAlive,
		ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("netguard: cannot read the dialled address %q: %w", address, err)
			}
			return allow.Check(host, ap.Addr())
		}}
	return nd.DialContext(ctx, network, addr)
}

// NewClient returns an HTTP client whose every connection passes the dial
// check, that follows at most MaxRedirects redirects to http or https
// only, and that uses no proxy (see the package comment).
func NewClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}.DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       90 * time.Second,
		},
		CheckRedirect: checkRedirect,
	}
}
