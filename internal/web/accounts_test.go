package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// webAlice is a signed-in X session on the fake X.
var webAlice = testkit.XSession{AuthToken: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", CT0: "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
	AccountID: "1800000000000000001", Handle: "alice_archivist"}

// accountsSite is the library of a core that can keep accounts, its fake
// X knowing Alice's session.
func accountsSite(t *testing.T) *site {
	t.Helper()
	core := testcore.New(t, testcore.Options{MasterKey: "web-accounts-test-master-key-0123456789"})
	core.X.AddSession(webAlice)
	return newSite(t, core, "alice", nil)
}

// The Accounts page: linked in the nav; the add form with its CSRF token
// and the platform's help; an account added, listed with its handle,
// state, revision and check; wrong cookies refused on the page without
// the secret echoed back; a check; a removal. (The CSRF check of every
// write is the middleware's, as for every form.)
func TestAccountsPage(t *testing.T) {
	t.Parallel()
	s := accountsSite(t)

	p := s.get("/accounts")
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, `<a href="/accounts" aria-current="page">Accounts</a>`)
	require.Contains(t, p.Body, "You have no connected accounts yet.")
	require.Contains(t, p.Body, `<form class="add-account" action="/accounts" method="post"`)
	require.Contains(t, p.Body, `name="csrf" value="`+s.csrf+`"`)
	require.Contains(t, p.Body, `<option value="telegram" selected>Telegram</option><option value="x">X</option>`)
	require.Contains(t, p.Body, "Paste for Telegram, a Telegram user session: gotd&#39;s session.json or a Telethon string session")
	require.Contains(t, p.Body, "; for X, the auth_token and ct0 cookies of a signed-in x.com")
	require.Contains(t, s.get("/").Body, `<a href="/accounts">Accounts</a>`, "in the nav of every page")

	add := s.post("/accounts", url.Values{"adapter": {"x"}, "secret": {"Cookie: " + webAlice.Cookie()}})
	require.Equal(t, http.StatusSeeOther, add.Status, add.Body)
	require.Equal(t, "/accounts?done=added", add.Location)
	p = s.get(add.Location)
	require.Contains(t, p.Body, "Account added.")
	require.Contains(t, p.Body, "<strong>@alice_archivist</strong>")
	require.Contains(t, p.Body, "x · x-session · default")
	require.Contains(t, p.Body, `<span class="ok">Active</span>`)
	require.Contains(t, p.Body, "<dt>Revision</dt><dd>1</dd>")
	require.Contains(t, p.Body, "<dt>Last check</dt><dd><time datetime=")
	require.NotContains(t, p.Body, webAlice.AuthToken)

	// Wrong cookies: refused with the platform's words; the form is empty.
	wrong := "auth_token=ffffffffffffffffffffffffffffffffffffffff; ct0=" + webAlice.CT0
	bad := s.post("/accounts", url.Values{"adapter": {"x"}, "secret": {wrong}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "the account was not added")
	require.Contains(t, bad.Body, "X no longer accepts this session")
	require.NotContains(t, bad.Body, "ffffffffffffffffffffffffffffffffffffffff", "the secret is not echoed back")
	require.Contains(t, bad.Body, `aria-invalid="true"`)
	missing := s.post("/accounts", url.Values{"adapter": {"x"}, "secret": {"auth_token=" + webAlice.AuthToken}})
	require.Equal(t, http.StatusBadRequest, missing.Status)
	require.Contains(t, missing.Body, "the ct0 cookie is missing")
	require.NotContains(t, missing.Body, webAlice.AuthToken)

	id := between(t, p.Body, `action="/accounts/`, `/check"`)
	chk := s.post("/accounts/"+id+"/check", nil)
	require.Equal(t, http.StatusSeeOther, chk.Status, chk.Body)
	p = s.get(chk.Location)
	require.Contains(t, p.Body, "The platform still accepts the account.")
	require.NotContains(t, p.Body, ">never<", "the last check is shown")

	s.core.X.Expire(webAlice.AuthToken)
	chk = s.post("/accounts/"+id+"/check", nil)
	require.Equal(t, "/accounts?done=refused", chk.Location)
	require.Contains(t, s.get(chk.Location).Body, "Add it again: the platform no longer accepts it")

	rm := s.post("/accounts/"+id+"/revoke", nil)
	require.Equal(t, http.StatusSeeOther, rm.Status, rm.Body)
	p = s.get(rm.Location)
	require.Contains(t, p.Body, "Account removed: its credential is deleted.")
	require.Contains(t, p.Body, "Removed ")
	require.NotContains(t, p.Body, `/accounts/`+id+`/check`, "nothing to do with a removed account")
	require.Equal(t, http.StatusNotFound, s.post("/accounts/"+id+"/frobnicate", nil).Status)
}

// The page in Chinese.
func TestAccountsPageInChinese(t *testing.T) {
	t.Parallel()
	s := accountsSite(t)
	p := s.get("/accounts", "Accept-Language", "zh-CN")
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, "你的账号")
	require.Contains(t, p.Body, "添加账号")
	require.Contains(t, p.Body, "你还没有连接任何账号。")
}

// between is the text of s between the first from and the next to.
func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	require.GreaterOrEqual(t, i, 0, from)
	rest := s[i+len(from):]
	j := strings.Index(rest, to)
	require.GreaterOrEqual(t, j, 0, to)
	return rest[:j]
}
