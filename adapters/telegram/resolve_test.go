package telegram

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

func TestResolveMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, channel string
		id          int64
	}{
		{"https://t.me/tidewatch_demo/120", "tidewatch_demo", 120},
		{"https://t.me/TideWatch_Demo/120", "tidewatch_demo", 120},
		{"http://t.me/tidewatch_demo/120/", "tidewatch_demo", 120},
		{"https://t.me/tidewatch_demo/102?single", "tidewatch_demo", 102},
		{"https://t.me/tidewatch_demo/102?single=", "tidewatch_demo", 102},
		{"https://t.me/tidewatch_demo/120?embed=1", "tidewatch_demo", 120},
		{"https://t.me/tidewatch_demo/120?embed=1&mode=tme", "tidewatch_demo", 120},
		{"https://t.me/tidewatch_demo/120?comment=4471", "tidewatch_demo", 120},
		{"https://t.me/tidewatch_demo/120?thread=7#c", "tidewatch_demo", 120},
		{"https://t.me/s/tidewatch_demo/120", "tidewatch_demo", 120},
		{"https://t.me/S/tidewatch_demo/120?before=3", "tidewatch_demo", 120},
		{"https://telegram.me/tidewatch_demo/120", "tidewatch_demo", 120},
		{"https://www.telegram.me/tidewatch_demo/120", "tidewatch_demo", 120},
		{"https://telegram.dog/tidewatch_demo/120", "tidewatch_demo", 120},
		{"HTTPS://T.ME/tidewatch_demo/120", "tidewatch_demo", 120},
		{"https://t.me:443/tidewatch_demo/120", "tidewatch_demo", 120},
		{"http://t.me:80/tidewatch_demo/120", "tidewatch_demo", 120},
		{"  https://t.me/tidewatch_demo/120\n", "tidewatch_demo", 120},
		{"https://t.me/tidewatch_demo/000120", "tidewatch_demo", 120},
		{"https://t.me/durov/1", "durov", 1},
		{"https://t.me/news/5", "news", 5}, // a 4-letter collectible username
		{"https://t.me/a" + strings.Repeat("b", 31) + "/9", "a" + strings.Repeat("b", 31), 9},
		{"https://t.me/old__name_/9", "old__name_", 9},
		{"https://t.me/harbour_chat/77/1204", "harbour_chat", 1204}, // a message in a forum topic
		{"https://t.me/tidewatch_demo/9223372036854775807", "tidewatch_demo", 9223372036854775807},
	}
	for _, tt := range tests {
		resp := resolve(tt.in, false)
		require.Nil(t, resp.GetError(), "%q: %v", tt.in, resp.GetError())
		ext := tt.channel + "/" + strconv.FormatInt(tt.id, 10)
		want := &adapterv1.Target{
			Platform:     "telegram",
			EntityType:   "telegram.message",
			ObjectScope:  tt.channel,
			ExternalId:   ext,
			CanonicalUrl: "https://t.me/" + ext,
		}
		require.Equal(t, want.String(), resp.GetTarget().String(), tt.in)
		require.False(t, resp.GetRefreshOnSubmit(), tt.in)
		require.False(t, resp.GetCollection(), tt.in)
	}
}

func TestResolveChannels(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"https://t.me/tidewatch_demo",
		"https://t.me/TideWatch_Demo/",
		"https://t.me/s/tidewatch_demo",
		"https://t.me/s/tidewatch_demo?before=120",
		"https://telegram.me/tidewatch_demo?start=x",
		"https://telegram.dog/tidewatch_demo#top",
	} {
		resp := resolve(in, false)
		require.Nil(t, resp.GetError(), "%q: %v", in, resp.GetError())
		want := &adapterv1.Target{Platform: "telegram", EntityType: "telegram.channel", ExternalId: "tidewatch_demo",
			CanonicalUrl: "https://t.me/tidewatch_demo"}
		require.Equal(t, want.String(), resp.GetTarget().String(), in)
		require.True(t, resp.GetRefreshOnSubmit(), in)
		require.True(t, resp.GetCollection(), "a channel expands its posts")
	}
}

func TestResolveRejects(t *testing.T) {
	t.Parallel()
	const (
		notThis     = adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER
		invalid     = adapterv1.ErrorCode_ERROR_CODE_INVALID_URL
		unsupported = adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED
		account     = adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT
	)
	tests := []struct {
		in   string
		code adapterv1.ErrorCode
		msg  string // a part of the message
	}{
		{"https://example.com/tidewatch_demo/1", notThis, `"example.com" is not a Telegram host`},
		{"https://x.com/a/status/1", notThis, "not a Telegram host"},
		{"https://www.t.me/tidewatch_demo/1", notThis, `"www.t.me" is not a Telegram host`},
		{"https://web.telegram.org/k/#@durov", notThis, "not a Telegram host"},
		{"https://telegram.org/blog", notThis, "not a Telegram host"},
		{"tg://resolve?domain=durov&post=1", notThis, "only http and https links"},
		{"javascript:alert(1)", notThis, "only http and https links"},
		{"t.me/tidewatch_demo/1", notThis, "only http and https links"},
		{"https:t.me/tidewatch_demo/1", notThis, "no host"},
		{"https://t.me.evil.example/tidewatch_demo/1", notThis, `"t.me.evil.example" is not a Telegram host`},
		{"https://evilt.me/tidewatch_demo/1", notThis, "not a Telegram host"},
		{"https://t.me@evil.example/tidewatch_demo/1", notThis, `"evil.example" is not a Telegram host`},
		{"https://user:pw@t.me/tidewatch_demo/1", notThis, "user name before the host"},
		{"https://t.me:8443/tidewatch_demo/1", notThis, `port "8443"`},
		{"https://t.me./tidewatch_demo/1", notThis, "not a Telegram host"},
		{"https://t.me/%zz", notThis, "not a valid URL"},
		{"https://t.me/" + strings.Repeat("a", 5000), notThis, "longer than"},
		{"https://t.me/tidewatch_demo/9223372036854775808", invalid, `message id "9223372036854775808" is not a valid Telegram message id`},
		{"https://t.me/tidewatch_demo/0", invalid, `message id "0" is not a valid`},
		{"https://t.me/tidewatch_demo/-5", invalid, "not a valid Telegram message id"},
		{"https://t.me/tidewatch_demo/1e5", invalid, "not a valid Telegram message id"},
		{"https://t.me/tidewatch_demo/abc", invalid, `message id "abc"`},
		{"https://t.me/abc/1", invalid, `"abc" is not a valid Telegram username (4 to 32 letters, digits or _, starting with a letter)`},
		{"https://t.me/" + strings.Repeat("a", 33) + "/1", invalid, "not a valid Telegram username"},
		{"https://t.me/1channel/1", invalid, "not a valid Telegram username"},
		{"https://t.me/_channel", invalid, "not a valid Telegram username"},
		{"https://t.me/tide-watch/1", invalid, "not a valid Telegram username"},
		{"https://t.me/tide.watch", invalid, "not a valid Telegram username"},
		{"https://t.me/%E2%82%ACuro/1", invalid, "not a valid Telegram username"},
		{"https://t.me/tidewatch%2Fdemo/1", invalid, "not a valid Telegram username"},
		{"https://t.me//tidewatch_demo/1", invalid, "empty segment"},
		{"https://t.me/s", invalid, "no channel after t.me/s/"},
		{"https://t.me/c/1874921563/120", account, "needs a Telegram account connection"},
		{"https://t.me/c/1874921563/77/120", account, "needs a Telegram account connection"},
		{"https://t.me/c/1874921563", account, "needs a Telegram account connection"},
		{"https://t.me/C/1874921563/120?single", account, "private channel or group"},
		{"https://t.me/c/abc/120", invalid, "not a valid private channel id"},
		{"https://t.me/c/1874921563/0", invalid, "not a valid Telegram message id"},
		{"https://t.me/c", invalid, "no channel id after t.me/c/"},
		{"https://t.me/+AbCdEf123_-x", unsupported, "invite link"},
		{"https://t.me/%2BAbCdEf123", unsupported, "invite link"},
		{"https://t.me/joinchat/AbCdEf123", unsupported, "invite link"},
		{"https://telegram.me/joinchat/AbCdEf123", unsupported, "invite link"},
		{"https://t.me", unsupported, "home page"},
		{"https://t.me/", unsupported, "home page"},
		{"https://t.me/?lang=en", unsupported, "home page"},
		{"https://t.me/addstickers/HarbourPack", unsupported, "t.me/addstickers is a Telegram page"},
		{"https://t.me/addemoji/Waves", unsupported, "is a Telegram page"},
		{"https://t.me/share/url?url=https://a.example", unsupported, "t.me/share is a Telegram page"},
		{"https://t.me/proxy?server=a&port=1", unsupported, "is a Telegram page"},
		{"https://t.me/socks?server=a", unsupported, "is a Telegram page"},
		{"https://t.me/setlanguage/de", unsupported, "is a Telegram page"},
		{"https://t.me/iv?url=https://a.example&rhash=1", unsupported, "is a Telegram page"},
		{"https://t.me/boost/tidewatch_demo", unsupported, "is a Telegram page"},
		{"https://t.me/m/AbCdEf", unsupported, "is a Telegram page"},
		{"https://t.me/tidewatch_demo/120/4/5", unsupported, "not supported"},
		{"https://t.me/harbour_chat/topic/1204", unsupported, "not supported"},
	}
	for _, tt := range tests {
		resp := resolve(tt.in, false)
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

// FuzzResolve: no panic, exactly one of target and error, and a target
// only for a declared host, with a valid username and an int64 id > 0.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"https://t.me/tidewatch_demo/120",
		"https://t.me/tidewatch_demo/102?single",
		"https://t.me/s/tidewatch_demo/120?embed=1&mode=tme",
		"https://telegram.me/TideWatch_Demo/000120/",
		"https://telegram.dog/tidewatch_demo",
		"https://www.telegram.me/s/tidewatch_demo",
		"https://t.me/harbour_chat/77/1204",
		"https://t.me/tidewatch_demo/9223372036854775807",
		"https://t.me/tidewatch_demo/9223372036854775808",
		"https://t.me/c/1874921563/120",
		"https://t.me/+AbCdEf",
		"https://t.me/joinchat/AbCdEf",
		"https://t.me/addstickers/Pack",
		"https://t.me:8443/tidewatch_demo/1",
		"https://t.me.evil.example/tidewatch_demo/1",
		"https://t.me@evil.example/tidewatch_demo/1",
		"https://user@t.me/tidewatch_demo/1",
		"https://t.me\\@evil.example/tidewatch_demo/1",
		"javascript:alert(1)//t.me/tidewatch_demo/1",
		"tg://resolve?domain=durov",
		"https://t.me/%61bcde/%31",
		"https://t.me//tidewatch_demo/1",
		"https://t%2Eme/tidewatch_demo/1",
		"https://[::1]:443/tidewatch_demo/1",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		resp := resolve(in, false)
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
		if target.GetPlatform() != Platform {
			t.Fatalf("%q: platform %q", in, target.GetPlatform())
		}
		switch target.GetEntityType() {
		case EntityTypeMessage:
			ch, idText, ok := strings.Cut(target.GetExternalId(), "/")
			n, err := strconv.ParseInt(idText, 10, 64)
			if !ok || err != nil || n <= 0 || strconv.FormatInt(n, 10) != idText {
				t.Fatalf("%q: message id %q is not <channel>/<int64 > 0>", in, target.GetExternalId())
			}
			if !validUsername(ch) || ch != strings.ToLower(ch) || target.GetObjectScope() != ch {
				t.Fatalf("%q: channel %q, scope %q", in, ch, target.GetObjectScope())
			}
			if target.GetCanonicalUrl() != "https://t.me/"+target.GetExternalId() {
				t.Fatalf("%q: canonical %q", in, target.GetCanonicalUrl())
			}
		case EntityTypeChannel:
			ch := target.GetExternalId()
			if !validUsername(ch) || ch != strings.ToLower(ch) || target.GetCanonicalUrl() != "https://t.me/"+ch {
				t.Fatalf("%q: channel %q, canonical %q", in, ch, target.GetCanonicalUrl())
			}
		default:
			t.Fatalf("%q: entity type %q", in, target.GetEntityType())
		}
		// The canonical URL is a fixed point.
		again := resolve(target.GetCanonicalUrl(), false)
		if again.GetTarget().String() != target.String() {
			t.Fatalf("%q: canonical %q resolves to %v, want %v", in, target.GetCanonicalUrl(), again.GetTarget(), target)
		}
	})
}

// BenchmarkResolve measures resolving a typical shared album link.
func BenchmarkResolve(b *testing.B) {
	a := New(Options{})
	req := &adapterv1.ResolveRequest{Url: "https://t.me/tidewatch_demo/102?single"}
	for b.Loop() {
		resp, err := a.Resolve(context.Background(), req)
		if err != nil || resp.GetTarget() == nil {
			b.Fatal(err, resp.GetError())
		}
	}
}
