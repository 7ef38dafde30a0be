package testkit

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// XGraphQL is a fake of X's web GraphQL API (x.com/i/api/graphql/<id>/<op>)
// on an httptest server: the outside world of the X adapter's x-session
// provider. It answers only signed-in sessions the test added, the way X
// does: the auth_token and ct0 cookies plus an x-csrf-token header equal to
// ct0 and a bearer token; anything else is HTTP 401 with X's "Could not
// authenticate you" (code 32). Operations are routed by name (the query
// id is ignored): Viewer answers the session's account; TweetResultByRestId,
// TweetDetail and UserTweets answer the bodies the test set (real ones
// read from shared/fixtures/real/x-graphql, or its own), with twimg media
// URLs pointed at mediaBase. Safe for concurrent use.
type XGraphQL struct {
	t         testing.TB
	srv       *httptest.Server
	mediaBase string

	mu       sync.Mutex
	sessions map[string]XSession // by auth_token
	expired  map[string]bool
	tweets   map[string][]byte
	details  map[string][]byte
	pages    map[string][]byte // by userId + "|" + cursor
	viewers  map[string][]byte // by auth_token
	faults   []xFault
	hits     map[string]int
}

// XSession is a signed-in session of the fake.
type XSession struct {
	AuthToken, CT0 string
	AccountID      string
	Handle         string
}

// Cookie is the session as a person pastes it from a browser.
func (s XSession) Cookie() string { return "auth_token=" + s.AuthToken + "; ct0=" + s.CT0 }

type xFault struct {
	status int
	header map[string]string
	body   []byte
}

// XUnauthorizedBody is X's answer to a signed-out or refused session.
const XUnauthorizedBody = `{"errors":[{"message":"Could not authenticate you","code":32}]}`

// NewXGraphQL starts the fake; media URLs in the bodies it serves are
// rewritten to mediaBase's /media/<host>/ paths (a FxTwitter fake's URL)
// when mediaBase is not empty.
func NewXGraphQL(t testing.TB, mediaBase string) *XGraphQL {
	t.Helper()
	f := &XGraphQL{t: t, mediaBase: mediaBase, sessions: map[string]XSession{}, expired: map[string]bool{},
		tweets: map[string][]byte{}, details: map[string][]byte{}, pages: map[string][]byte{}, viewers: map[string][]byte{}, hits: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the fake's base, for MONITOR_X_API_URL (https://x.com/i/api).
func (f *XGraphQL) URL() string { return f.srv.URL }

// AddSession signs a session in.
func (f *XGraphQL) AddSession(s XSession) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions[s.AuthToken] = s
	delete(f.expired, s.AuthToken)
}

// Expire makes X refuse a session from now on (HTTP 401).
func (f *XGraphQL) Expire(authToken string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.expired[authToken] = true
}

func (f *XGraphQL) media(body []byte) []byte {
	if f.mediaBase == "" {
		return bytes.Clone(body)
	}
	return rewriteMediaURLs(body, f.mediaBase)
}

// SetViewer is the Viewer answer of a session instead of the one the fake
// builds from it.
func (f *XGraphQL) SetViewer(authToken string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.viewers[authToken] = bytes.Clone(body)
}

// SetTweet is the TweetResultByRestId answer for post id.
func (f *XGraphQL) SetTweet(id string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tweets[id] = f.media(body)
}

// SetDetail is the TweetDetail answer for focal post id.
func (f *XGraphQL) SetDetail(id string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.details[id] = f.media(body)
}

// SetUserTweets is the UserTweets answer for a user's page at cursor (""
// for the first).
func (f *XGraphQL) SetUserTweets(userID, cursor string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages[userID+"|"+cursor] = f.media(body)
}

// FailNext makes the next n signed-in requests answer status with body
// and headers (a 429, a 5xx, X's errors).
func (f *XGraphQL) FailNext(n, status int, header map[string]string, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		f.faults = append(f.faults, xFault{status: status, header: header, body: bytes.Clone(body)})
	}
}

// Hits is how many times an operation was asked (signed in or not).
func (f *XGraphQL) Hits(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[op]
}

func (f *XGraphQL) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(parts) != 3 || parts[0] != "graphql" || r.Method != http.MethodGet {
		writeBody(w, http.StatusNotFound, jsonHeaders(nil), []byte(`{"errors":[{"message":"Sorry, that page does not exist","code":34}]}`))
		return
	}
	op := parts[2]
	f.mu.Lock()
	f.hits[op]++
	var sess XSession
	ok := strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
	if at, err := r.Cookie("auth_token"); ok && err == nil {
		sess, ok = f.sessions[at.Value]
		ok = ok && !f.expired[at.Value]
	} else {
		ok = false
	}
	if ct0, err := r.Cookie("ct0"); !ok || err != nil || ct0.Value != sess.CT0 || r.Header.Get("X-Csrf-Token") != sess.CT0 {
		ok = false
	}
	var fault *xFault
	if ok && len(f.faults) > 0 {
		fault = &f.faults[0]
		f.faults = f.faults[1:]
	}
	var vars map[string]any
	_ = json.Unmarshal([]byte(r.URL.Query().Get("variables")), &vars)
	str := func(k string) string { s, _ := vars[k].(string); return s }
	var body []byte
	switch op {
	case "TweetResultByRestId":
		body = f.tweets[str("tweetId")]
		if body == nil {
			body = []byte(`{"data":{"tweetResult":{}}}`)
		}
	case "TweetDetail":
		body = f.details[str("focalTweetId")]
		if body == nil {
			body = []byte(`{"data":{"threaded_conversation_with_injections_v2":{"instructions":[]}}}`)
		}
	case "UserTweets":
		body = f.pages[str("userId")+"|"+str("cursor")]
		if body == nil {
			body = []byte(`{"data":{"user":{"result":{"__typename":"User","timeline":{"timeline":{"instructions":[]}}}}}}`)
		}
	case "Viewer":
		if b, ok := f.viewers[sess.AuthToken]; ok {
			body = b
			break
		}
		body, _ = json.Marshal(map[string]any{"data": map[string]any{"viewer": map[string]any{"user_results": map[string]any{
			"result": map[string]any{"__typename": "User", "rest_id": sess.AccountID,
				"core": map[string]any{"screen_name": sess.Handle, "name": sess.Handle}}}}}})
	}
	f.mu.Unlock()
	switch {
	case !ok:
		writeBody(w, http.StatusUnauthorized, jsonHeaders(nil), []byte(XUnauthorizedBody))
	case fault != nil:
		h := map[string]string{"Content-Type": "application/json"}
		for k, v := range fault.header {
			h[k] = v
		}
		writeBody(w, fault.status, h, fault.body)
	case body == nil:
		writeBody(w, http.StatusNotFound, jsonHeaders(nil), []byte(`{"errors":[{"message":"Query not found","code":34}]}`))
	default:
		writeBody(w, http.StatusOK, jsonHeaders(nil), body)
	}
}
