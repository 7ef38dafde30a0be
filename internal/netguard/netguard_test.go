package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/netguard"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ip     string
		range_ string // "" = public
	}{
		// IPv4 public.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"151.101.1.140", ""},
		{"100.63.255.255", ""}, // just below CGNAT
		{"100.128.0.0", ""},    // just above CGNAT
		{"172.15.255.255", ""},
		{"172.32.0.0", ""},
		{"192.0.1.1", ""},
		{"223.255.255.255", ""},
		// IPv4 not public.
		{"0.0.0.0", "this network"},
		{"0.1.2.3", "this network"},
		{"10.0.0.1", "private"},
		{"10.255.255.255", "private"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"100.127.255.254", "carrier-grade NAT"},
		{"127.0.0.1", "loopback"},
		{"127.1.2.3", "loopback"},
		{"169.254.169.254", "link-local"}, // cloud metadata
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.0.0.8", "IETF protocol assignments"},
		{"192.0.2.1", "documentation"},
		{"192.88.99.1", "6to4 relay anycast"},
		{"192.168.1.1", "private"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.255", "benchmarking"},
		{"198.51.100.7", "documentation"},
		{"203.0.113.9", "documentation"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.255", "broadcast"},
		// IPv6 public.
		{"2001:4860:4860::8888", ""},
		{"2606:4700:4700::1111", ""},
		{"2a00:1450:4001:82b::200e", ""},
		// IPv6 not public.
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"fc00::1", "unique local"},
		{"fd12:3456:789a::1", "unique local"},
		{"fec0::1", "site-local (deprecated)"},
		{"ff02::1", "multicast"},
		{"2001:db8::1", "documentation"},
		{"2001::1", "Teredo"},
		{"100::1", "discard-only"},
		{"64:ff9b:1::1", "local NAT64"},
		{"::7f00:1", "IPv4-compatible (deprecated)"}, // ::127.0.0.1
		{"1234::1", "reserved: outside global unicast 2000::/3"},
		// IPv4 in IPv6: judged by the IPv4 address.
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.1.2.3", "private"},
		{"::ffff:169.254.169.254", "link-local"},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::7f00:1", "loopback"}, // NAT64 of 127.0.0.1
		{"64:ff9b::a00:1", "private"},   // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", ""},        // NAT64 of 8.8.8.8
		{"2002:7f00:1::1", "loopback"},  // 6to4 of 127.0.0.1
		{"2002:c0a8:101::1", "private"}, // 6to4 of 192.168.1.1
		{"2002:808:808::1", ""},         // 6to4 of 8.8.8.8
	} {
		r, private := netguard.Classify(netip.MustParseAddr(tc.ip))
		require.Equal(t, tc.range_ != "", private, tc.ip)
		require.Equal(t, tc.range_, r.Name, tc.ip)
	}
}

func TestParseAllow(t *testing.T) {
	t.Parallel()
	a, err := netguard.ParseAllow(" 127.0.0.1, 10.0.0.0/8 ,fd00::/8, Minio.Internal., ::1,,")
	require.NoError(t, err)
	for _, tc := range []struct {
		host, ip string
		ok       bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"127.0.0.2", "127.0.0.2", false},
		{"10.9.8.7", "10.9.8.7", true},
		{"::ffff:10.9.8.7", "::ffff:10.9.8.7", true},
		{"fd00::5", "fd00::5", true},
		{"::1", "::1", true},
		{"minio.internal", "192.168.5.5", true}, // named: any address it resolves to
		{"MINIO.internal.", "192.168.5.5", true},
		{"other.internal", "192.168.5.5", false},
		{"anything.example", "8.8.8.8", true}, // public needs no allowance
	} {
		err := a.Check(tc.host, netip.MustParseAddr(tc.ip))
		if tc.ok {
			require.NoError(t, err, tc.host)
		} else {
			var be *netguard.BlockedError
			require.ErrorAs(t, err, &be, tc.host)
		}
	}

	empty, err := netguard.ParseAllow("")
	require.NoError(t, err)
	require.True(t, empty.IsZero())
	require.Error(t, empty.Check("localhost", netip.MustParseAddr("127.0.0.1")))

	for _, bad := range []string{"http://127.0.0.1", "127.0.0.1:8080", "10.0.0.0/33", "bad host", "-x.example", "a..b"} {
		_, err := netguard.ParseAllow(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "such as 127.0.0.1, 10.0.0.0/8, minio.internal", bad)
	}
}

func TestBlockedErrorSaysWhatTheHostIs(t *testing.T) {
	t.Parallel()
	var none netguard.Allow
	err := none.Check("127.0.0.1", netip.MustParseAddr("127.0.0.1"))
	var be *netguard.BlockedError
	require.ErrorAs(t, err, &be)
	require.Equal(t, "127.0.0.1 is a private address (loopback, 127.0.0.0/8)", be.Describe())
	err = none.Check("::1", netip.MustParseAddr("::1"))
	require.ErrorAs(t, err, &be)
	require.Equal(t, "::1 is a private address (loopback, ::1/128)", be.Describe())
	err = none.Check("metadata.internal", netip.MustParseAddr("169.254.169.254"))
	require.ErrorAs(t, err, &be)
	require.Equal(t, "metadata.internal resolves to 169.254.169.254, a private address (link-local, 169.254.0.0/16)", be.Describe())
}

// counting is an httptest server that counts the requests reaching it.
type counting struct {
	*httptest.Server
	hits atomic.Int32
}

func newCounting(t *testing.T, listen string, h http.HandlerFunc) *counting {
	t.Helper()
	c := &counting{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		h(w, r)
	}))
	if listen != "" {
		lis, err := net.Listen("tcp", listen)
		require.NoError(t, err)
		srv.Listener = lis
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c.Server = srv
	return c
}

func ok(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "bytes") }

// get fetches url with the guarded client under allow.
func get(t *testing.T, allow string, url string) (string, error) {
	t.Helper()
	a, err := netguard.ParseAllow(allow)
	require.NoError(t, err)
	c := netguard.NewClient()
	t.Cleanup(c.CloseIdleConnections)
	req, err := http.NewRequestWithContext(netguard.WithAllow(context.Background(), a), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func requireBlocked(t *testing.T, err error, host, addr string) {
	t.Helper()
	var be *netguard.BlockedError
	require.ErrorAs(t, err, &be)
	require.Equal(t, host, be.Host)
	require.Equal(t, addr, be.Addr.String())
}

func TestClientRefusesPrivateAddressesBeforeConnecting(t *testing.T) {
	t.Parallel()
	srv := newCounting(t, "", ok)
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)

	_, err := get(t, "", srv.URL+"/a.jpg")
	requireBlocked(t, err, "127.0.0.1", "127.0.0.1")

	// DNS rebinding in small: a name that resolves to loopback is refused
	// on the address dialled, whatever the name looks like.
	_, err = get(t, "", "http://localhost:"+port+"/a.jpg")
	var be *netguard.BlockedError
	require.ErrorAs(t, err, &be)
	require.Equal(t, "localhost", be.Host)
	require.True(t, be.Addr.IsLoopback(), be.Addr)
	require.Contains(t, be.Describe(), "localhost resolves to ")

	// The IPv4-mapped form of the same address.
	_, err = get(t, "", "http://[::ffff:127.0.0.1]:"+port+"/a.jpg")
	requireBlocked(t, err, "::ffff:127.0.0.1", "127.0.0.1")
	require.ErrorAs(t, err, &be)
	require.Equal(t, "::ffff:127.0.0.1 is a private address (loopback, 127.0.0.0/8)", be.Describe())

	require.Zero(t, srv.hits.Load(), "no request reached the private server")
}

func TestAllowListLetsRangesAndNamesThrough(t *testing.T) {
	t.Parallel()
	srv := newCounting(t, "127.0.0.2:0", ok)
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)

	_, err := get(t, "127.0.0.1", srv.URL)
	requireBlocked(t, err, "127.0.0.2", "127.0.0.2")
	body, err := get(t, "127.0.0.0/8", srv.URL)
	require.NoError(t, err, "a CIDR range")
	require.Equal(t, "bytes", body)

	named := newCounting(t, "127.0.0.1:0", ok)
	nport := strconv.Itoa(named.Listener.Addr().(*net.TCPAddr).Port)
	body, err = get(t, "localhost", "http://localhost:"+nport+"/")
	require.NoError(t, err, "a host name")
	require.Equal(t, "bytes", body)
	_, err = get(t, "localhost", "http://127.0.0.2:"+port+"/")
	requireBlocked(t, err, "127.0.0.2", "127.0.0.2")
	require.Equal(t, int32(1), srv.hits.Load())
	require.Equal(t, int32(1), named.hits.Load())
}

func TestRedirectsAreCheckedHopByHop(t *testing.T) {
	t.Parallel()
	private := newCounting(t, "127.0.0.2:0", ok)
	var n atomic.Int32
	var hops *counting
	hops = newCounting(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, private.URL+"/secret", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/to-gopher":
			http.Redirect(w, r, "gopher://127.0.0.1:70/", http.StatusMovedPermanently)
		default: // /chain/<k>: k more redirects, then the bytes
			k, _ := strconv.Atoi(r.URL.Path[len("/chain/"):])
			if k == 0 {
				n.Add(1)
				ok(w, r)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("%s/chain/%d", hops.URL, k-1), http.StatusFound)
		}
	})

	_, err := get(t, "127.0.0.1", hops.URL+"/to-private")
	requireBlocked(t, err, "127.0.0.2", "127.0.0.2")
	require.Zero(t, private.hits.Load(), "the redirect target was never contacted")

	for _, p := range []string{"/to-file", "/to-gopher"} {
		_, err = get(t, "127.0.0.1", hops.URL+p)
		var se *netguard.SchemeError
		require.ErrorAs(t, err, &se, p)
	}

	body, err := get(t, "127.0.0.1", hops.URL+"/chain/5")
	require.NoError(t, err, "five redirects are followed")
	require.Equal(t, "bytes", body)
	_, err = get(t, "127.0.0.1", hops.URL+"/chain/6")
	require.ErrorIs(t, err, netguard.ErrTooManyRedirects)
	require.Equal(t, int32(1), n.Load(), "the sixth redirect was not followed")
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		"http://a.example/x": true, "https://a.example/x": true, "HTTPS://a.example/x": true,
		"file:///etc/passwd": false, "ftp://a.example/x": false, "gopher://a.example/": false, "//a.example/x": false,
		"data:image/png;base64,AAAA": false,
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		err = netguard.CheckURL(u)
		if want {
			require.NoError(t, err, raw)
		} else {
			var se *netguard.SchemeError
			require.True(t, errors.As(err, &se), raw)
		}
	}
}

// BenchmarkClassify is the cost the dial check adds to each connection.
func BenchmarkClassify(b *testing.B) {
	public := netip.MustParseAddr("2606:4700:4700::1111")
	for b.Loop() {
		if _, private := netguard.Classify(public); private {
			b.Fatal("public address classified private")
		}
	}
}
