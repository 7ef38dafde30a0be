package x

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

func TestResolvePosts(t *testing.T) {
	t.Parallel()
	const id = "2078399740166950912"
	tests := []struct {
		in, canonical string
	}{
		{"https://x.com/archivist_demo/status/" + id, "https://x.com/archivist_demo/status/" + id},
		{"https://x.com/Archivist_Demo/status/" + id, "https://x.com/archivist_demo/status/" + id},
		{"http://x.com/a/statuses/" + id, "https://x.com/a/status/" + id},
		{"https://x.com/a/status/" + id + "/photo/1", "https://x.com/a/status/" + id},
		{"https://x.com/a/status/" + id + "/video/1", "https://x.com/a/status/" + id},
		{"https://x.com/a/status/" + id + "/analytics", "https://x.com/a/status/" + id},
		{"https://x.com/a/status/" + id + "?s=20&t=abc", "https://x.com/a/status/" + id},
		{"https://x.com/a/status/" + id + "/?s=46#reply", "https://x.com/a/status/" + id},
		{"https://x.com/a/status/" + id + "/", "https://x.com/a/status/" + id},
		{"  https://x.com/a/status/" + id + "\n", "https://x.com/a/status/" + id},
		{"HTTPS://X.COM/a/STATUS/" + id, "https://x.com/a/status/" + id},
		{"https://x.com:443/a/status/" + id, "https://x.com/a/status/" + id},
		{"http://x.com:80/a/status/" + id, "https://x.com/a/status/" + id},
		{"https://x.com/a/status/000" + id, "https://x.com/a/status/" + id},
		{"https://x.com/i/status/" + id, "https://x.com/i/status/" + id},
		{"https://x.com/i/status/" + id + "/photo/2?s=1", "https://x.com/i/status/" + id},
		{"https://x.com/i/web/status/" + id, "https://x.com/i/status/" + id},
		{"https://twitter.com/i/web/status/" + id + "/", "https://x.com/i/status/" + id},
		{"https://x.com/a/status/18446744073709551615", "https://x.com/a/status/18446744073709551615"},
	}
	// Every declared host resolves the same post.
	for _, h := range Hosts() {
		tests = append(tests, struct{ in, canonical string }{
			"https://" + h + "/a_1/status/" + id, "https://x.com/a_1/status/" + id,
		})
	}
	for _, tt := range tests {
		resp := resolve(tt.in)
		require.Nil(t, resp.GetError(), "%q: %v", tt.in, resp.GetError())
		want := &adapterv1.Target{
			Platform:     "x",
			EntityType:   "x.post",
			ExternalId:   tt.canonical[strings.LastIndex(tt.canonical, "/")+1:],
			CanonicalUrl: tt.canonical,
		}
		require.Equal(t, want.String(), resp.GetTarget().String(), tt.in)
		require.False(t, resp.GetRefreshOnSubmit(), tt.in)
		require.False(t, resp.GetCollection(), tt.in)
	}
}

func TestResolveProfiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, externalID, canonical string
	}{
		{"https://x.com/archivist_demo", "@archivist_demo", "https://x.com/archivist_demo"},
		{"https://x.com/Archivist_Demo/", "@archivist_demo", "https://x.com/archivist_demo"},
		{"https://twitter.com/jack?lang=en", "@jack", "https://x.com/jack"},
		{"https://mobile.twitter.com/a", "@a", "https://x.com/a"},
		{"https://mobile.x.com/archivist_demo", "@archivist_demo", "https://x.com/archivist_demo"},
		{"https://x.com/abcdefghij12345", "@abcdefghij12345", "https://x.com/abcdefghij12345"},
		{"https://x.com/archivist_demo/media", "@archivist_demo", "https://x.com/archivist_demo"},
		{"https://x.com/archivist_demo/with_replies", "@archivist_demo", "https://x.com/archivist_demo"},
		// A handle of digits stays apart from the user id of the same digits.
		{"https://x.com/12345", "@12345", "https://x.com/12345"},
		// By id: already the canonical target Fetch answers with.
		{"https://x.com/i/user/1455903129074348039", "1455903129074348039", "https://x.com/i/user/1455903129074348039"},
		{"https://x.com/i/user/1455903129074348039/?s=1", "1455903129074348039", "https://x.com/i/user/1455903129074348039"},
		{"https://twitter.com/i/user/0012", "12", "https://x.com/i/user/12"},
		{"https://www.fixupx.com/i/user/12", "12", "https://x.com/i/user/12"},
	}
	for _, tt := range tests {
		resp := resolve(tt.in)
		require.Nil(t, resp.GetError(), "%q: %v", tt.in, resp.GetError())
		want := &adapterv1.Target{Platform: "x", EntityType: "x.profile", ExternalId: tt.externalID, CanonicalUrl: tt.canonical}
		require.Equal(t, want.String(), resp.GetTarget().String(), tt.in)
		require.True(t, resp.GetRefreshOnSubmit(), tt.in)
		require.True(t, resp.GetCollection(), tt.in)
	}
}

func TestResolveRejects(t *testing.T) {
	t.Parallel()
	const (
		notThis     = adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER
		invalid     = adapterv1.ErrorCode_ERROR_CODE_INVALID_URL
		unsupported = adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED
	)
	tests := []struct {
		in   string
		code adapterv1.ErrorCode
		msg  string // a part of the message
	}{
		{"https://example.com/a/status/1", notThis, `"example.com" is not an X host`},
		{"https://t.me/durov/1", notThis, "not an X host"},
		{"javascript:alert(1)", notThis, "only http and https links"},
		{"file:///etc/passwd", notThis, "only http and https links"},
		{"data:text/html,x", notThis, "only http and https links"},
		{"ftp://x.com/a/status/1", notThis, "only http and https links"},
		{"x.com/a/status/1", notThis, "only http and https links"},
		{"https:x.com/a/status/1", notThis, "no host"},
		{"https://x.com.evil.example/a/status/1", notThis, `"x.com.evil.example" is not an X host`},
		{"https://evilx.com/a/status/1", notThis, "not an X host"},
		{"https://evil.example/x.com/a/status/1", notThis, `"evil.example" is not an X host`},
		{"https://x.com@evil.example/a/status/1", notThis, `"evil.example" is not an X host`},
		{"https://user@x.com.evil.example/a/status/1", notThis, "not an X host"},
		{"https://user:pw@x.com/a/status/1", notThis, "user name before the host"},
		{"https://x.com:8443/a/status/1", notThis, `port "8443"`},
		{"https://x.com:80/a/status/1", notThis, `port "80"`},
		{"https://x.com./a/status/1", notThis, "not an X host"},
		{"https://[::1]/a/status/1", notThis, "not an X host"},
		{"https://x.com/%zz", notThis, "not a valid URL"},
		{"https://" + strings.Repeat("a", 5000), notThis, "longer than"},
		{"https://x.com/a/status/18446744073709551616", invalid, `post id "18446744073709551616" is not a valid X post id`},
		{"https://x.com/a/status/0", invalid, `post id "0" is not a valid X post id`},
		{"https://x.com/a/status/000", invalid, "not a valid X post id"},
		{"https://x.com/a/status/abc", invalid, `post id "abc" is not a valid X post id`},
		{"https://x.com/a/status/-1", invalid, "not a valid X post id"},
		{"https://x.com/a/status/+1", invalid, "not a valid X post id"},
		{"https://x.com/a/status/1e5", invalid, "not a valid X post id"},
		{"https://x.com/a/status/", invalid, "no post id"},
		{"https://x.com/i/status/abc", invalid, "not a valid X post id"},
		{"https://x.com/i/web/status/0", invalid, "not a valid X post id"},
		{"https://x.com/i/status", invalid, "missing its id"},
		{"https://x.com/i/user/abc", invalid, `user id "abc" is not a valid X user id`},
		{"https://x.com/i/user/0", invalid, "not a valid X user id"},
		{"https://x.com/" + strings.Repeat("a", 51), invalid, "is not a valid X handle (1 to 50 letters, digits or _)"},
		{"https://x.com/" + strings.Repeat("a", 51) + "/status/1", invalid, "not a valid X handle"},
		{"https://x.com/a-b/status/1", invalid, "not a valid X handle"},
		{"https://x.com/a%2Fstatus/1", invalid, "not a valid X handle"},
		{"https://x.com/%E2%82%AC", invalid, "not a valid X handle"},
		{"https://x.com//a/status/1", invalid, "empty segment"},
		{"https://x.com", unsupported, "home page"},
		{"https://x.com/", unsupported, "home page"},
		{"https://x.com/?lang=en", unsupported, "home page"},
		{"https://x.com/home", unsupported, "x.com/home is an X page"},
		{"https://x.com/explore", unsupported, "x.com/explore is an X page"},
		{"https://x.com/search?q=cats", unsupported, "x.com/search is an X page"},
		{"https://x.com/Settings/account", unsupported, "x.com/settings is an X page"},
		{"https://x.com/messages", unsupported, "is an X page"},
		{"https://x.com/notifications", unsupported, "is an X page"},
		{"https://x.com/compose/post", unsupported, "is an X page"},
		{"https://x.com/hashtag/cats", unsupported, "is an X page"},
		{"https://x.com/login", unsupported, "is an X page"},
		{"https://x.com/logout", unsupported, "is an X page"},
		{"https://x.com/signup", unsupported, "is an X page"},
		{"https://x.com/tos", unsupported, "is an X page"},
		{"https://x.com/privacy", unsupported, "is an X page"},
		{"https://x.com/intent/post?text=hi", unsupported, "is an X page"},
		{"https://x.com/share?url=a", unsupported, "is an X page"},
		{"https://x.com/i", unsupported, "x.com/i/ page"},
		{"https://x.com/i/bookmarks", unsupported, "x.com/i/ page"},
		{"https://x.com/i/web/home", unsupported, "x.com/i/ page"},
		{"https://x.com/i/user/1/extra", unsupported, "x.com/i/ page"},
		{"https://x.com/a/lists", unsupported, "not supported"},
		{"https://x.com/a/photo", unsupported, "not supported"},
	}
	for _, tt := range tests {
		resp := resolve(tt.in)
		require.Nil(t, resp.GetTarget(), tt.in)
		require.NotNil(t, resp.GetError(), tt.in)
		require.Equal(t, tt.code, resp.GetError().GetCode(), "%q: %s", tt.in, resp.GetError().GetMessage())
		require.Contains(t, resp.GetError().GetMessage(), tt.msg, tt.in)
		require.False(t, resp.GetError().GetRetryable(), tt.in)
	}
}

func TestResolveRPC(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	for _, req := range []*adapterv1.ResolveRequest{nil, {}, {Url: "  "}} {
		_, err := a.Resolve(context.Background(), req)
		require.Equal(t, codes.InvalidArgument, status.Code(err))
	}
	resp, err := a.Resolve(context.Background(), &adapterv1.ResolveRequest{Url: "javascript:alert(1)"})
	require.NoError(t, err, "bad URLs are answered, not RPC errors")
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER, resp.GetError().GetCode())
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"https://x.com/archivist_demo/status/2078399740166950912",
		"https://twitter.com/a/statuses/1/photo/1?s=20#x",
		"https://x.com/i/web/status/18446744073709551615",
		"https://x.com/i/status/18446744073709551616",
		"https://x.com/i/user/1455903129074348039",
		"https://mobile.x.com/Archivist_Demo/",
		"https://www.vxtwitter.com/a/status/0",
		"http://fixupx.com:80/a/status/1",
		"https://x.com:8443/a/status/1",
		"https://x.com.evil.example/a/status/1",
		"https://evil.example/x.com/a/status/1",
		"https://x.com@evil.example/a/status/1",
		"https://user@x.com/a/status/1",
		"https://x.com\\@evil.example/a/status/1",
		"javascript:alert(1)//x.com/a/status/1",
		"file:///etc/passwd",
		"data:text/html,x",
		"https://x.com/%61/status/%31",
		"https://x.com//a/status/1",
		"https://x.com/home",
		"https://X.COM/i/web/status/007",
		"https://x.com/abcdefghij123456",
		"https://x%2Ecom/a/status/1",
		"https://[::1]:443/a/status/1",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		resp := resolve(in)
		target, e := resp.GetTarget(), resp.GetError()
		if (target == nil) == (e == nil) {
			t.Fatalf("%q: want exactly one of target and error, got %v / %v", in, target, e)
		}
		if e != nil {
			if e.GetCode() == adapterv1.ErrorCode_ERROR_CODE_UNSPECIFIED || e.GetMessage() == "" {
				t.Fatalf("%q: error without code or message: %v", in, e)
			}
			if !utf8.ValidString(e.GetMessage()) {
				t.Fatalf("%q: message is not UTF-8: %q", in, e.GetMessage())
			}
			return
		}
		u, err := url.Parse(strings.TrimSpace(in))
		if err != nil {
			t.Fatalf("%q resolved but does not parse: %v", in, err)
		}
		if host := strings.ToLower(u.Hostname()); !slices.Contains(Hosts(), host) {
			t.Fatalf("%q resolved but its host %q is not declared", in, host)
		}
		if u.User != nil {
			t.Fatalf("%q resolved with user info", in)
		}
		if !strings.HasPrefix(target.GetCanonicalUrl(), "https://x.com/") {
			t.Fatalf("%q: canonical %q is not on https://x.com/", in, target.GetCanonicalUrl())
		}
		switch target.GetEntityType() {
		case EntityTypePost:
			n, err := strconv.ParseUint(target.GetExternalId(), 10, 64)
			if err != nil || n == 0 {
				t.Fatalf("%q: post id %q is not a non-zero uint64", in, target.GetExternalId())
			}
		case EntityTypeProfile:
			if target.GetExternalId() == "" {
				t.Fatalf("%q: empty profile id", in)
			}
		default:
			t.Fatalf("%q: entity type %q", in, target.GetEntityType())
		}
		// The canonical URL is a fixed point.
		again := resolve(target.GetCanonicalUrl())
		if again.GetTarget().String() != target.String() {
			t.Fatalf("%q: canonical %q resolves to %v, want %v", in, target.GetCanonicalUrl(), again.GetTarget(), target)
		}
	})
}

// BenchmarkResolve measures resolving a typical shared post link.
func BenchmarkResolve(b *testing.B) {
	a := New(Options{})
	req := &adapterv1.ResolveRequest{Url: "https://twitter.com/archivist_demo/status/2078399740166950912/photo/1?s=20&t=abc"}
	for b.Loop() {
		resp, err := a.Resolve(context.Background(), req)
		if err != nil || resp.GetTarget() == nil {
			b.Fatal(err, resp.GetError())
		}
	}
}
