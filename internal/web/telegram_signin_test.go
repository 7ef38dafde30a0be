package web_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/web"
)

const (
	tgBotToken = "987654321:AAEwebSIGNINtestTOKEN_abcdefghijklmno"
	tgBotID    = "987654321"
)

// telegramSign is Telegram's side, from its documentation: every field but
// hash, sorted, key=value lines joined by newlines, HMAC-SHA256, hex.
func telegramSign(fields url.Values, secret []byte) {
	fields.Del("hash")
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "=" + fields.Get(k)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strings.Join(lines, "\n")))
	fields.Set("hash", hex.EncodeToString(mac.Sum(nil)))
}

// The Login Widget's redirect and a Mini App's initData sign a browser in
// as the person the bot knows; a tampered field or an old auth_date gets
// the sign-in page with a refusal and no cookie.
func TestTelegramSignInRoutes(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{NoAdapters: true, TelegramToken: tgBotToken})
	ctx := context.Background()
	_, err := c.App.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: tgBotID, Name: "monitor_web_bot"})
	require.NoError(t, err)
	srv := signinServer(t, c)

	widgetSecret := sha256.Sum256([]byte(tgBotToken))
	widget := func(at time.Time) url.Values {
		f := url.Values{"id": {"4242"}, "first_name": {"Ada"}, "username": {"ada"}, "auth_date": {strconv.FormatInt(at.Unix(), 10)}}
		telegramSign(f, widgetSecret[:])
		return f
	}
	signedIn := func(resp *http.Response) bool {
		for _, ck := range resp.Cookies() {
			if ck.Name == web.SessionCookie && ck.Value != "" {
				return true
			}
		}
		return false
	}

	// The sign-in page offers Telegram once the bot is known.
	_, page := get(t, noRedirects(nil), srv.URL+"/login")
	require.Contains(t, page, `href="https://t.me/monitor_web_bot?start=web"`)

	jar, _ := cookiejar.New(nil)
	resp, _ := get(t, noRedirects(jar), srv.URL+"/auth/telegram/callback?"+widget(time.Now()).Encode())
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.True(t, signedIn(resp))
	u, _ := url.Parse(srv.URL)
	s, err := c.App.WebSession(ctx, jar.Cookies(u)[0].Value)
	require.NoError(t, err)
	require.Equal(t, "tg4242", s.TenantName, "the personal account the bot would give Ada")

	tampered := widget(time.Now())
	tampered.Set("id", "4243")
	resp, body := get(t, noRedirects(nil), srv.URL+"/auth/telegram/callback?"+tampered.Encode())
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.False(t, signedIn(resp))
	require.Contains(t, body, "Sign-in refused")

	resp, body = get(t, noRedirects(nil), srv.URL+"/auth/telegram/callback?"+widget(time.Now().Add(-25*time.Hour)).Encode(),
		"Accept-Language", "zh-CN")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.False(t, signedIn(resp))
	require.Contains(t, body, "登录被拒绝")

	// A Mini App posts its initData from the page Telegram opened.
	mac := hmac.New(sha256.New, []byte("WebAppData"))
	mac.Write([]byte(tgBotToken))
	appSecret := mac.Sum(nil)
	initData := func(at time.Time) string {
		f := url.Values{"query_id": {"AAH1"}, "user": {`{"id":4242,"first_name":"Ada","username":"ada"}`},
			"auth_date": {strconv.FormatInt(at.Unix(), 10)}}
		telegramSign(f, appSecret)
		return f.Encode()
	}
	post := func(initData string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/auth/telegram/webapp", strings.NewReader(url.Values{"initData": {initData}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", srv.URL)
		resp, err := noRedirects(nil).Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp
	}
	resp = post(initData(time.Now()))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.True(t, signedIn(resp))
	old := post(initData(time.Now().Add(-2 * time.Hour)))
	require.Equal(t, http.StatusForbidden, old.StatusCode, "initData older than an hour")
	require.False(t, signedIn(old))
	bad := strings.Replace(initData(time.Now()), "Ada", "Eve", 1)
	require.Equal(t, http.StatusForbidden, post(bad).StatusCode, "a tampered field")
}
