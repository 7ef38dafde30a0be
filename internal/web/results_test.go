package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The search page runs the query language over what the tenant saved: the
// cards with the match marked, the query's parts as chips that each
// remove themselves, the count, and the parser's refusal with its place.
func TestSearchPage(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		s := newSite(t, c, "alice", nil)
		_, err := demo.Import(context.Background(), c.App, s.tenant)
		require.NoError(t, err)

		fog := s.get("/search?q=" + url.QueryEscape("harbour has:photo -storm"))
		require.Equal(t, http.StatusOK, fog.Status, fog.Body)
		require.Contains(t, fog.Body, "<title>Search: harbour has:photo -storm")
		require.Contains(t, fog.Body, "<mark>harbour</mark>", "the match is marked")
		require.Contains(t, fog.Body, `class="text snippet"`)
		require.NotContains(t, fog.Body, "Storm warning for the coast tonight", "an excluded word")
		require.Contains(t, fog.Body, `value="harbour has:photo -storm"`, "the boxes keep the query")
		require.Regexp(t, `<p class="result-count" role="status">\d+ results?</p>`, fog.Body)
		chips := regexp.MustCompile(`<li class="chip chip-(\w+)"><span>([^<]+)</span><a href="([^"]+)"`).FindAllStringSubmatch(fog.Body, -1)
		require.Len(t, chips, 3)
		for _, c := range chips {
			c[3] = html.UnescapeString(c[3])
		}
		require.Equal(t, []string{"word", "harbour", "/search?q=has%3Aphoto+-storm"}, chips[0][1:])
		require.Equal(t, []string{"filter", "has:photo", "/search?q=harbour+-storm"}, chips[1][1:])
		require.Equal(t, []string{"not", "-storm", "/search?q=harbour+has%3Aphoto"}, chips[2][1:])
		without := s.get(chips[1][3])
		require.Equal(t, http.StatusOK, without.Status)
		require.Contains(t, without.Body, `value="harbour -storm"`)

		// A group stays one chip, printed canonically; sort is kept.
		or := s.get("/search?sort=relevance&q=" + url.QueryEscape("(tide OR 潮汐) from:@MONITOR_DEMO"))
		require.Equal(t, http.StatusOK, or.Status)
		require.Contains(t, or.Body, `<span>tide OR 潮汐</span>`)
		require.Contains(t, or.Body, `<span>from:monitor_demo</span><a href="/search?q=tide&#43;OR&#43;%E6%BD%AE%E6%B1%90&amp;sort=relevance"`)
		require.Contains(t, or.Body, `<option value="relevance" selected>`)

		// CJK snippets, in Chinese.
		zh := s.get("/search?q="+url.QueryEscape("满潮"), "Accept-Language", "zh-CN")
		require.Equal(t, http.StatusOK, zh.Status)
		require.Contains(t, zh.Body, "今晚<mark>满潮</mark>")
		require.Contains(t, zh.Body, "1 条结果")
		require.Contains(t, zh.Body, "保存这个搜索")

		// The text is escaped before the marks go in.
		require.NotContains(t, s.get("/search?q="+url.QueryEscape("<script>")).Body, "<script>alert")

		none := s.get("/search?q=" + url.QueryEscape("nothing-says-this"))
		require.Equal(t, http.StatusOK, none.Status)
		require.Contains(t, none.Body, "Nothing you saved matches this search.")
		help := s.get("/search")
		require.Equal(t, http.StatusOK, help.Status)
		require.Contains(t, help.Body, "has:video")
		require.NotContains(t, help.Body, `class="library`)

		// Refusals: the parser's message and where, the query kept.
		bad := s.get("/search?q=" + url.QueryEscape("tide after:2026-13-01"))
		require.Equal(t, http.StatusBadRequest, bad.Status)
		require.Contains(t, bad.Body, "at character 12: 2026-13-01 is not a date: there is no month 13")
		require.Contains(t, bad.Body, `value="tide after:2026-13-01"`)
		require.Contains(t, bad.Body, "tide after:2026-13-01\n           <span class=\"caret-mark\">^</span>", "the caret under character 12")
		require.Contains(t, bad.Body, `aria-invalid="true"`)
		require.NotContains(t, bad.Body, `class="chip`)
		badZh := s.get("/search?q="+url.QueryEscape(`潮 "unclosed`), "Accept-Language", "zh-CN")
		require.Equal(t, http.StatusBadRequest, badZh.Status)
		require.Contains(t, badZh.Body, "第 12 个字符处：第 3 个字符处开始的短语没有结束")
		require.Contains(t, badZh.Body, "\u3000          <span class=\"caret-mark\">^</span>", "a wide space under the wide character")
		require.Contains(t, badZh.Body, `value="潮 &#34;unclosed"`)
		require.Equal(t, http.StatusBadRequest, s.get("/search?q=tide&sort=oldest").Status)
		require.Contains(t, s.get("/search?q=tide&cursor=garbage").Body, "start again without a cursor")
	})
}

// signedIn signs a browser in to srv as tenant through a login link.
func signedIn(t *testing.T, c *testcore.Core, srv *httptest.Server, tenant string) *http.Client {
	t.Helper()
	link, _, err := c.App.CreateLoginLink(context.Background(), "test", tenant, false, 0)
	require.NoError(t, err)
	jar, _ := cookiejar.New(nil)
	cl := noRedirects(jar)
	resp, _ := get(t, cl, srv.URL+linkPath(t, link))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	return cl
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// postForm sends a form from srv's own page.
func postForm(t *testing.T, cl *http.Client, srv *httptest.Server, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	resp, err := cl.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// A saved search is made from the search page's form (with its CSRF
// token), listed in the navigation of every page, renamed and deleted;
// another tenant neither sees nor touches it.
func TestSavedSearchesRoundTrip(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		c.Tenant(t, "bob", nil)
		_, err := demo.Import(ctx, c.App, alice)
		require.NoError(t, err)
		srv := signinServer(t, c)
		cl := signedIn(t, c, srv, "alice")

		_, page := get(t, cl, srv.URL+"/search?q="+url.QueryEscape("harbour  has:PHOTO"))
		require.Contains(t, page, "No saved searches yet")
		m := csrfField.FindStringSubmatch(page)
		require.NotNil(t, m)
		csrf := m[1]

		form := url.Values{"q": {"harbour  has:PHOTO"}, "name": {"Harbour photos"}}
		resp, _ := postForm(t, cl, srv, "/searches", form)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, "no CSRF token")
		form.Set("csrf", csrf)
		resp, _ = postForm(t, cl, srv, "/searches", form)
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		require.Equal(t, "/search?q=harbour+has%3Aphoto&saved=Harbour+photos", resp.Header.Get("Location"))
		_, shown := get(t, cl, srv.URL+resp.Header.Get("Location"))
		require.Contains(t, shown, "Saved the search as “Harbour photos”.")
		require.Contains(t, shown, "Saved as “Harbour photos”.", "the page knows it is saved")
		require.Contains(t, shown, `<a href="/search?q=harbour&#43;has%3Aphoto" aria-current="page">Harbour photos</a>`)

		// Every signed-in page lists it.
		for _, p := range []string{"/", "/usage", "/settings"} {
			_, body := get(t, cl, srv.URL+p)
			require.Contains(t, body, `aria-label="Saved searches"`, p)
			require.Contains(t, body, ">Harbour photos</a>", p)
		}
		_, zh := get(t, cl, srv.URL+"/usage", "Accept-Language", "zh-CN")
		require.Contains(t, zh, `aria-label="已保存的搜索"`)

		// The same name again: refused, the form keeps what was typed.
		resp, body := postForm(t, cl, srv, "/searches", url.Values{"csrf": {csrf}, "q": {"tide"}, "name": {"Harbour photos"}})
		require.Equal(t, http.StatusConflict, resp.StatusCode)
		require.Contains(t, body, "You have a saved search of this name already")
		resp, body = postForm(t, cl, srv, "/searches", url.Values{"csrf": {csrf}, "q": {`"tide`}, "name": {"x"}})
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		require.Contains(t, body, "at character 6")
		resp, body = postForm(t, cl, srv, "/searches", url.Values{"csrf": {csrf}, "q": {"tide"}, "name": {strings.Repeat("n", 81)}})
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		require.Contains(t, body, "1 to 80 characters")

		id := regexp.MustCompile(`action="/searches/([0-9a-f-]{36})/delete"`).FindStringSubmatch(shown)
		require.NotNil(t, id)

		// Bob sees nothing of it and cannot touch it.
		bob := signedIn(t, c, srv, "bob")
		_, bobPage := get(t, bob, srv.URL+"/search?q=harbour")
		require.NotContains(t, bobPage, "Harbour photos")
		bobCSRF := csrfField.FindStringSubmatch(bobPage)[1]
		resp, _ = postForm(t, bob, srv, "/searches/"+id[1]+"/delete", url.Values{"csrf": {bobCSRF}})
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
		resp, _ = postForm(t, bob, srv, "/searches/"+id[1]+"/rename", url.Values{"csrf": {bobCSRF}, "name": {"mine"}})
		require.Equal(t, http.StatusNotFound, resp.StatusCode)

		// Rename, then delete.
		resp, _ = postForm(t, cl, srv, "/searches/"+id[1]+"/rename", url.Values{"csrf": {csrf}, "name": {"港口照片"}, "q": {"harbour"}})
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		_, body = get(t, cl, srv.URL+resp.Header.Get("Location"))
		require.Contains(t, body, ">港口照片</a>")
		require.Contains(t, body, "Renamed the saved search to “港口照片”.")
		resp, _ = postForm(t, cl, srv, "/searches/"+id[1]+"/delete", url.Values{"csrf": {csrf}, "q": {"harbour"}})
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		_, body = get(t, cl, srv.URL+resp.Header.Get("Location"))
		require.Contains(t, body, "Deleted the saved search “港口照片”.")
		require.NotContains(t, body, `aria-label="Saved searches"`)
		list, err := c.App.SavedSearches(ctx, alice)
		require.NoError(t, err)
		require.Empty(t, list)
	})
}

// More results than a page: a link to the next page by cursor, and back
// to the first.
func TestSearchPages(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{NoAdapters: true})
	s := newSite(t, c, "alice", nil)
	var posts []app.ImportCollection
	for i := range 30 {
		id := fmt.Sprintf("21000000000000000%02d", i)
		saved := time.Date(2026, 3, 1, 9, i, 0, 0, time.UTC)
		text := fmt.Sprintf("tide log %d", i)
		posts = append(posts, app.ImportCollection{
			ID: uuid.Must(uuid.NewV7()), Platform: "x", EntityType: "x.post", ExternalID: id,
			SourceURL: "https://x.com/tide_log/status/" + id, Visibility: "private", SavedAt: saved, Label: id,
			Revisions: []app.ImportRevision{{CapturedAt: saved, Text: text, AuthorName: "Tide Log", Graph: app.ImportGraph{Root: "post:1",
				Entities: []app.ImportEntity{{Key: "post:1", Type: "x.post", ExternalID: id, Data: json.RawMessage(`{"id":"` + id + `","text":"` + text + `"}`)}}}}},
		})
	}
	_, err := c.App.ImportCollections(context.Background(), s.tenant, posts, app.ImportOptions{})
	require.NoError(t, err)

	first := s.get("/search?q=tide&sort=relevance")
	require.Equal(t, http.StatusOK, first.Status)
	require.Equal(t, 24, strings.Count(first.Body, `<li class="card`))
	require.Contains(t, first.Body, "24 results on this page")
	next := regexp.MustCompile(`<a rel="next" href="([^"]+)"`).FindStringSubmatch(first.Body)
	require.NotNil(t, next)
	second := s.get(html.UnescapeString(next[1]))
	require.Equal(t, http.StatusOK, second.Status)
	require.Equal(t, 6, strings.Count(second.Body, `<li class="card`))
	require.NotContains(t, second.Body, `rel="next"`)
	require.Contains(t, second.Body, `<a href="/search?q=tide&amp;sort=relevance">← First results</a>`)
}
