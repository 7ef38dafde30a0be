package x

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// The x-session provider reads X through a tenant's own signed-in web
// session: the auth_token and ct0 cookies of x.com, sent to X's web
// GraphQL API the way the x.com web app sends them. Core keeps the
// credential sealed and hands it to every Fetch; the adapter keeps
// nothing between calls.

// ProviderXSession reads posts through a tenant's X account.
const ProviderXSession = "x-session"

// DefaultXAPIURL is X's web API, under which the GraphQL operations live.
const DefaultXAPIURL = "https://x.com/i/api"

// webBearer is the public bearer token of the x.com web app, the same in
// every browser (it identifies the app, not a person); the session is in
// the cookies.
const webBearer = "AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA"

// gqlQueryIDs are the web app's query ids of the operations the provider
// asks, as the path /graphql/<id>/<operation> names them. X changes them
// when it ships its web app; a stale one answers 404, which the adapter
// reports as needing an update.
var gqlQueryIDs = map[string]string{
	opViewer:              "W62NnYgkgziw9bwyoVht0g",
	opTweetResultByRestID: "Xl5pC_lBk_gcO2ItU39DQw",
	opTweetDetail:         "Ez6kRPyXbqNlhBwcNMpU-Q",
	opUserTweets:          "HeWHY26ItCfUmm1e6ITjeA",
}

// The GraphQL operations the provider asks.
const (
	opViewer              = "Viewer"
	opTweetResultByRestID = "TweetResultByRestId"
	opTweetDetail         = "TweetDetail"
	opUserTweets          = "UserTweets"
)

// gqlFeatures are the feature switches the web app sends with every
// query; X refuses a query that lacks one it requires.
const gqlFeatures = `{"rweb_tipjar_consumption_enabled":true,"responsive_web_graphql_exclude_directive_enabled":true,` +
	`"verified_phone_label_enabled":false,"creator_subscriptions_tweet_preview_api_enabled":true,` +
	`"responsive_web_graphql_timeline_navigation_enabled":true,"responsive_web_graphql_skip_user_profile_image_extensions_enabled":false,` +
	`"communities_web_enable_tweet_community_results_fetch":true,"c9s_tweet_anatomy_moderator_badge_enabled":true,` +
	`"articles_preview_enabled":true,"tweetypie_unmention_optimization_enabled":true,"responsive_web_edit_tweet_api_enabled":true,` +
	`"graphql_is_translatable_rweb_tweet_is_translatable_enabled":true,"view_counts_everywhere_api_enabled":true,` +
	`"longform_notetweets_consumption_enabled":true,"responsive_web_twitter_article_tweet_consumption_enabled":true,` +
	`"tweet_awards_web_tipping_enabled":false,"creator_subscriptions_quote_tweet_preview_enabled":false,` +
	`"freedom_of_speech_not_reach_fetch_enabled":true,"standardized_nudges_misinfo":true,` +
	`"tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled":true,"rweb_video_timestamps_enabled":true,` +
	`"longform_notetweets_rich_text_read_enabled":true,"longform_notetweets_inline_media_enabled":true,` +
	`"responsive_web_enhance_cards_enabled":false}`

// credentialHelp tells a person what to paste.
const credentialHelp = "the auth_token and ct0 cookies of a signed-in x.com: a Cookie header " +
	"(auth_token=…; ct0=…), the x.com lines of a cookies.txt file, or a cookie extension's JSON export"

// sessionCredential is the provider's credential format (version 1). Core
// stores it sealed and never reads it.
type sessionCredential struct {
	V         int    `json:"v"`
	AuthToken string `json:"auth_token"`
	CT0       string `json:"ct0"`
}

// maxCookieLen bounds a cookie value; X's are 40 (auth_token) and 32 or
// 160 (ct0) characters.
const maxCookieLen = 512

// cookieValue accepts what X's session cookies are made of: letters and
// digits, so nothing pasted can smuggle a header.
func cookieValue(s string) bool {
	if s == "" || len(s) > maxCookieLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// xCookieDomain reports whether a cookie's domain is X's ("" counts: a
// Cookie header names none).
func xCookieDomain(d string) bool {
	d = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(d)), ".")
	switch d {
	case "", "x.com", "twitter.com", "www.x.com", "www.twitter.com", "mobile.x.com", "mobile.twitter.com":
		return true
	}
	return false
}

// parseCookies reads the cookies of what a person pasted: a JSON export
// (an array of {name, value, domain}, or an object with such a "cookies"
// array), Netscape cookies.txt lines (seven tab-separated fields), or a
// Cookie header ("Cookie: a=b; c=d", the prefix optional). Cookies of
// other sites are ignored.
func parseCookies(input string) map[string]string {
	out := map[string]string{}
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(input), "\ufeff"))
	if strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{") {
		type jsonCookie struct {
			Name   string `json:"name"`
			Value  string `json:"value"`
			Domain string `json:"domain"`
		}
		var list []jsonCookie
		if json.Unmarshal([]byte(s), &list) != nil {
			var wrapped struct {
				Cookies []jsonCookie `json:"cookies"`
			}
			if json.Unmarshal([]byte(s), &wrapped) == nil {
				list = wrapped.Cookies
			}
		}
		for _, c := range list {
			if xCookieDomain(c.Domain) {
				out[strings.TrimSpace(c.Name)] = strings.TrimSpace(c.Value)
			}
		}
		return out
	}
	if strings.Contains(s, "\t") {
		sc := bufio.NewScanner(strings.NewReader(s))
		sc.Buffer(make([]byte, 0, 4096), maxSecretLine)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			line = strings.TrimPrefix(line, "#HttpOnly_")
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Split(line, "\t")
			if len(f) >= 7 && xCookieDomain(f[0]) {
				out[strings.TrimSpace(f[5])] = strings.TrimSpace(f[6])
			}
		}
		return out
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "cookie") {
			line = v
		}
		for _, part := range strings.Split(line, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(part), "="); ok {
				out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
	}
	return out
}

// maxSecretLine bounds one line of a cookies.txt.
const maxSecretLine = 64 << 10

// PrepareCredential turns pasted cookies into the provider's credential.
// It says which of auth_token and ct0 is missing or malformed; the twid
// cookie, when present, already names the account.
func (a *Adapter) PrepareCredential(_ context.Context, req *adapterv1.PrepareCredentialRequest) (*adapterv1.PrepareCredentialResponse, error) {
	if req.GetProviderId() != ProviderXSession {
		return &adapterv1.PrepareCredentialResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s takes no account; the X adapter's account provider is %s", kit.Quote(req.GetProviderId()), ProviderXSession))}, nil
	}
	cookies := parseCookies(string(req.GetInput()))
	var missing, bad []string
	for _, name := range []string{"auth_token", "ct0"} {
		switch v, ok := cookies[name]; {
		case !ok || v == "":
			missing = append(missing, name)
		case !cookieValue(v):
			bad = append(bad, name)
		}
	}
	refuse := func(msg string) (*adapterv1.PrepareCredentialResponse, error) {
		return &adapterv1.PrepareCredentialResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, msg)}, nil
	}
	switch {
	case len(missing) == 2:
		return refuse("no auth_token or ct0 cookie of x.com found; paste " + credentialHelp)
	case len(missing) == 1:
		return refuse("the " + missing[0] + " cookie is missing; copy both auth_token and ct0 from a signed-in x.com")
	case len(bad) > 0:
		return refuse("the " + strings.Join(bad, " and ") + " cookie is not what x.com sets (letters and digits); copy it again")
	}
	cred, err := json.Marshal(sessionCredential{V: 1, AuthToken: cookies["auth_token"], CT0: cookies["ct0"]})
	if err != nil {
		return nil, err
	}
	return &adapterv1.PrepareCredentialResponse{Credential: cred, AccountId: twidAccount(cookies["twid"])}, nil
}

// twidAccount reads the account id from X's twid cookie ("u=123",
// URL-encoded as "u%3D123"), or "".
func twidAccount(v string) string {
	if u, err := url.QueryUnescape(strings.Trim(v, `"`)); err == nil {
		v = u
	}
	if id, ok := strings.CutPrefix(v, "u="); ok && canonicalID(id) {
		return id
	}
	return ""
}

// openCredential reads the credential core handed back.
func openCredential(b []byte) (sessionCredential, *adapterv1.Error) {
	var c sessionCredential
	if json.Unmarshal(b, &c) != nil || c.V != 1 || !cookieValue(c.AuthToken) || !cookieValue(c.CT0) {
		return c, kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a credential of the x-session provider; add the account again")
	}
	return c, nil
}

// msgSessionRefused is what a person reads when X refuses the session.
const msgSessionRefused = "X no longer accepts this session (%s); sign in to x.com again and add the account anew"

// gql asks one GraphQL operation with the session and classifies the
// answer: 401 and 403, and the error codes of a refused or locked
// session, are AUTH_FAILED; 429 and X's code 88 are RATE_LIMITED; server
// faults are UNAVAILABLE. Other GraphQL errors beside data are left to the
// caller, which reads what data there is.
func (a *Adapter) gql(ctx context.Context, c sessionCredential, op string, vars any) (*kit.Response, *adapterv1.Error) {
	vb, err := json.Marshal(vars)
	if err != nil {
		return nil, kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "cannot encode the X request: "+err.Error())
	}
	q := url.Values{"variables": {string(vb)}, "features": {gqlFeatures}}
	h := http.Header{
		"Authorization":         {"Bearer " + webBearer},
		"Cookie":                {"auth_token=" + c.AuthToken + "; ct0=" + c.CT0},
		"X-Csrf-Token":          {c.CT0},
		"X-Twitter-Auth-Type":   {"OAuth2Session"},
		"X-Twitter-Active-User": {"yes"},
	}
	resp, e := a.xapi.GetWith(ctx, "/graphql/"+gqlQueryIDs[op]+"/"+op+"?"+q.Encode(), h)
	if e != nil {
		return nil, e
	}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return nil, kit.Err(adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, fmt.Sprintf(msgSessionRefused, "HTTP "+strconv.Itoa(code)))
	case code == http.StatusTooManyRequests:
		return nil, a.rateLimited(resp)
	case code == http.StatusNotFound:
		return nil, kit.BadResponse(fmt.Sprintf("X does not know the %s query any more (HTTP 404); the X adapter needs an update", op))
	case code < 200 || code >= 300:
		return nil, a.xapi.StatusError(code, resp.Header)
	}
	var ge gqlErrors
	_ = json.Unmarshal(resp.Body, &ge)
	for _, er := range ge.Errors {
		switch er.Code {
		case 32, 89, 215, 326, 64, 141:
			// Could not authenticate, expired token, bad authentication
			// data, locked, suspended: the session does not work.
			return nil, kit.Err(adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, fmt.Sprintf(msgSessionRefused, "X error "+strconv.Itoa(er.Code)))
		case 88:
			return nil, a.rateLimited(resp)
		}
	}
	return resp, nil
}

// rateLimited is RATE_LIMITED with X's wait: Retry-After, else the
// x-rate-limit-reset time.
func (a *Adapter) rateLimited(resp *kit.Response) *adapterv1.Error {
	e := kit.Retryable(adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, "X asked this account to slow down; the capture will be retried")
	e.RetryAfterSeconds = kit.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if resp.Header.Get("Retry-After") == "" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-Rate-Limit-Reset"), 10, 64); err == nil {
			e.RetryAfterSeconds = kit.RetryAfter(strconv.FormatInt(reset-time.Now().Unix(), 10), time.Now())
		}
	}
	return e
}

// missingData is the error of a 2xx answer without the data asked for:
// with GraphQL errors beside it, X failed (a server-side fault such as
// DeadlineExceeded may pass; a client error will not); without any, ok
// is false and the caller decides what nothing means.
func missingData(resp *kit.Response) (*adapterv1.Error, bool) {
	var ge gqlErrors
	if json.Unmarshal(resp.Body, &ge) != nil || len(ge.Errors) == 0 {
		return nil, false
	}
	er := ge.Errors[0]
	name := shortReason(er.Name)
	if name == "" {
		name = "code " + strconv.Itoa(er.Code)
	}
	if er.Kind == "Validation" || er.Code == 214 {
		return kit.BadResponse("X refused the query (" + name + "); the X adapter needs an update"), true
	}
	return kit.Retryable(adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, "X failed to answer ("+name+"); try again later"), true
}

// decodeGQL reads a 2xx GraphQL answer into v.
func decodeGQL(resp *kit.Response, v any) *adapterv1.Error {
	if e := decodeJSON(resp, v); e != nil {
		e.Message = strings.ReplaceAll(e.Message, "FxTwitter", "X")
		return e
	}
	return nil
}

// viewerResponse is the answer of the Viewer query.
type viewerResponse struct {
	Data struct {
		Viewer struct {
			UserResults struct {
				Result *gqlUser `json:"result"`
			} `json:"user_results"`
		} `json:"viewer"`
	} `json:"data"`
}

// CheckConnection asks X's Viewer query whose session the credential is.
func (a *Adapter) CheckConnection(ctx context.Context, req *adapterv1.CheckConnectionRequest) (*adapterv1.CheckConnectionResponse, error) {
	if req.GetProviderId() != ProviderXSession {
		return &adapterv1.CheckConnectionResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s takes no account", kit.Quote(req.GetProviderId())))}, nil
	}
	c, e := openCredential(req.GetCredential())
	if e != nil {
		return &adapterv1.CheckConnectionResponse{Error: e}, nil
	}
	resp, e := a.gql(ctx, c, opViewer, map[string]any{"withCommunitiesMemberships": false})
	if e != nil {
		return &adapterv1.CheckConnectionResponse{Error: e}, nil
	}
	var v viewerResponse
	if e := decodeGQL(resp, &v); e != nil {
		return &adapterv1.CheckConnectionResponse{Error: e}, nil
	}
	u := v.Data.Viewer.UserResults.Result
	if u == nil || u.RestID == "" {
		// Signed out, X answers an empty viewer.
		return &adapterv1.CheckConnectionResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED,
			fmt.Sprintf(msgSessionRefused, "no signed-in account"))}, nil
	}
	if !canonicalID(u.RestID) {
		return &adapterv1.CheckConnectionResponse{Error: kit.BadResponse(fmt.Sprintf("X's viewer id %s is not an X user id", kit.Quote(u.RestID)))}, nil
	}
	return &adapterv1.CheckConnectionResponse{Ok: true, AccountId: u.RestID, Handle: u.screenName()}, nil
}

// private marks a raw answer read with an account: always private.
func private(src *adapterv1.SourceResponse) *adapterv1.SourceResponse {
	src.Visibility = adapterv1.Visibility_VISIBILITY_PRIVATE
	return src
}
