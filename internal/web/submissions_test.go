package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The synthetic profile of these tests, which the fake FxTwitter pages
// 10 posts at a time; pagesLimits' pages hold 30.
const (
	timelineHandle = "timeline_demo"
	timelineID     = "4400000000000000001"
)

// csrf is the session's CSRF token, read off the capture form as a
// browser has it.
func (s *itemSite) csrf(t testing.TB) string {
	t.Helper()
	_, doc := s.get(t, "/", "")
	token := doc.Find(`form.capture input[name=csrf]`).AttrOr("value", "")
	require.NotEmpty(t, token)
	return token
}

// post sends a form as the signed-in person (the caller sets csrf) and
// returns the status, the redirect and the page.
func (s *itemSite) post(t testing.TB, p string, form url.Values, lang string) (int, string, *goquery.Document) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+p, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.srv.URL)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: s.key})
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Location"), doc
}

// waitSubmission waits until a submission's pages and posts have ended.
func waitSubmission(t testing.TB, c *testcore.Core, tenant, id uuid.UUID) app.SubmissionView {
	t.Helper()
	deadline := time.Now().Add(4 * testcore.WaitTimeout)
	for {
		v, err := c.App.Submission(context.Background(), tenant, id)
		require.NoError(t, err)
		if testcore.Ended(v.State) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("submission %s did not end: %+v", id, v)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pagesLimits make pages of 30 posts (production's are 100), so that a
// few pages and the profile page's pager need few captures, and let a
// tenant run 8 captures at once.
func pagesLimits() app.Limits {
	l := testcore.TestLimits()
	l.TenantCaptures = 8
	l.PageSize = 30
	return l
}

// submissionID is the id of a /submissions/{id} address.
func submissionID(t testing.TB, location string) uuid.UUID {
	t.Helper()
	require.True(t, strings.HasPrefix(location, "/submissions/"), location)
	return uuid.MustParse(strings.TrimPrefix(location, "/submissions/"))
}

func TestProfileProgressPageMoreAndStop(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{Limits: pagesLimits()}, func(t *testing.T, c *testcore.Core) {
		tl := c.FX.AddTextTimeline(timelineHandle, timelineID, 75, 10)
		s := newItemSite(t, c, "alice")
		csrf := s.csrf(t)

		// A profile link lands on the progress page of its posts.
		status, loc, _ := s.post(t, "/captures", url.Values{"csrf": {csrf}, "url": {tl.ProfileURL}}, "")
		require.Equal(t, http.StatusSeeOther, status)
		id := submissionID(t, loc)
		status, doc := s.get(t, loc, "")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, id.String(), doc.Find("[data-submission]").AttrOr("data-submission", ""))
		if doc.Find("[data-submission]").AttrOr("data-state", "") != app.StateComplete {
			// While it runs: live, with a plain link to look again.
			require.Contains(t, words(doc.Find("main")), "This page updates by itself")
			require.Equal(t, loc, doc.Find(".live-hint a").AttrOr("href", ""))
		}

		root := waitSubmission(t, c, s.tenant, id)
		require.Equal(t, app.StateComplete, root.State, root.Error)
		_, doc = s.get(t, loc, "")
		main := words(doc.Find("main"))
		require.Contains(t, main, "The profile's posts are archived")
		require.Contains(t, main, "Synthetic "+timelineHandle)
		require.Contains(t, main, "30 of 30 posts done")
		require.Equal(t, "30", doc.Find("progress").AttrOr("value", ""))
		require.Equal(t, "30", doc.Find(`[data-count=complete]`).Text())
		require.Equal(t, "0", doc.Find(`[data-count=failed]`).Text())
		require.Zero(t, doc.Find(`form[action$="/stop"]`).Length(), "no Stop once it has ended")
		more := doc.Find(`form[action="/submissions/` + id.String() + `/more"]`)
		require.Equal(t, 1, more.Length(), "Fetch more while the profile has more")
		require.Contains(t, words(more), "Fetch more posts")
		require.Zero(t, doc.Find(`meta[http-equiv=refresh]`).Length(), "an ended page stays still")
		_, zh := s.get(t, loc, "zh-CN")
		require.Contains(t, words(zh.Find("main")), "已处理 30 / 30 条帖子")
		require.Contains(t, words(zh.Find("main")), "获取更多帖子")

		// Fetch more needs the CSRF token; sent twice it is one page.
		status, _, _ = s.post(t, "/submissions/"+id.String()+"/more", url.Values{"back": {id.String()}}, "")
		require.Equal(t, http.StatusForbidden, status)
		form := url.Values{"csrf": {csrf}, "back": {id.String()}}
		status, loc, _ = s.post(t, "/submissions/"+id.String()+"/more", form, "")
		require.Equal(t, http.StatusSeeOther, status)
		require.Equal(t, "/submissions/"+id.String(), loc, "back to the page the person was on")
		status, _, _ = s.post(t, "/submissions/"+id.String()+"/more", form, "")
		require.Equal(t, http.StatusSeeOther, status)
		root, err := c.App.Submission(context.Background(), s.tenant, id)
		require.NoError(t, err)
		require.NotNil(t, root.NextSubmission)
		second := *root.NextSubmission
		waitSubmission(t, c, s.tenant, second)
		root = waitSubmission(t, c, s.tenant, id)
		require.Equal(t, 60, root.Progress.Total, "two clicks, one page of 30")
		_, doc = s.get(t, "/submissions/"+id.String(), "")
		require.Contains(t, words(doc.Find("main")), "60 of 60 posts done")
		require.Equal(t, 1, doc.Find(`form[action="/submissions/`+second.String()+`/more"]`).Length(),
			"Fetch more goes on after the chain's last page")

		// The profile's page lists its posts, 20 a page, and offers more
		// when opened from its submission.
		item := "/c/" + root.CollectionID.String()
		status, doc = s.get(t, item, "")
		require.Equal(t, http.StatusOK, status)
		require.Contains(t, words(doc.Find("section.author-posts h2")), "Posts in your archive")
		require.Equal(t, 20, doc.Find("ol.author-posts li").Length())
		require.Zero(t, doc.Find(`section.author-posts form`).Length(), "no chain named: no Fetch more")
		seen := map[string]bool{}
		pages := 0
		for next := item; next != ""; pages++ {
			_, doc = s.get(t, next, "")
			doc.Find("ol.author-posts li a").Each(func(_ int, a *goquery.Selection) {
				href := a.AttrOr("href", "")
				require.False(t, seen[href], "%s listed twice", href)
				seen[href] = true
			})
			next = doc.Find(`nav.pager a[rel=next]`).AttrOr("href", "")
			require.Less(t, pages, 20)
		}
		require.Len(t, seen, 60, "every archived post, once")
		require.Equal(t, 3, pages)
		status, doc = s.get(t, item+"?posts=nonsense", "")
		require.Equal(t, http.StatusBadRequest, status)
		require.Contains(t, words(doc.Find("main")), "No such page of posts")

		_, doc = s.get(t, item+"?submission="+id.String(), "")
		chain := doc.Find("section.author-posts .members-more")
		require.Contains(t, words(chain), "How the archiving went")
		require.Equal(t, 1, chain.Find(`form[action="/submissions/`+second.String()+`/more"]`).Length())
		require.Equal(t, id.String(), chain.Find(`input[name=back]`).AttrOr("value", ""))

		// Another tenant sees none of it.
		bob := newItemSite(t, c, "bob")
		bobCSRF := bob.csrf(t)
		status, _ = bob.get(t, "/submissions/"+id.String(), "")
		require.Equal(t, http.StatusNotFound, status)
		status, _, _ = bob.post(t, "/submissions/"+id.String()+"/more", url.Values{"csrf": {bobCSRF}}, "")
		require.Equal(t, http.StatusNotFound, status)
		status, _, _ = bob.post(t, "/submissions/"+id.String()+"/stop", url.Values{"csrf": {bobCSRF}}, "")
		require.Equal(t, http.StatusNotFound, status)
		status, _ = bob.get(t, "/submissions/not-an-id", "")
		require.Equal(t, http.StatusNotFound, status)
		_, doc = bob.get(t, item, "")
		require.Zero(t, doc.Find("ol.author-posts").Length())

		// A batch, stopped at once: Stop needs the token, then nothing new
		// starts and the page says so.
		status, loc, _ = s.post(t, "/captures", url.Values{"csrf": {csrf}, "url": {"https://x.com/i/user/" + timelineID}, "limit": {"75"}}, "")
		require.Equal(t, http.StatusSeeOther, status)
		batch := submissionID(t, loc)
		status, _, _ = s.post(t, loc+"/stop", url.Values{}, "")
		require.Equal(t, http.StatusForbidden, status)
		status, loc, _ = s.post(t, loc+"/stop", url.Values{"csrf": {csrf}}, "")
		require.Equal(t, http.StatusSeeOther, status)
		require.Equal(t, "/submissions/"+batch.String(), loc)
		stopped := waitSubmission(t, c, s.tenant, batch)
		require.True(t, stopped.Stopped)
		require.Less(t, stopped.Progress.Total, 75)
		_, doc = s.get(t, loc, "")
		require.Contains(t, words(doc.Find("main")), "Stopped: nothing new starts")
		require.Zero(t, doc.Find(`form[action$="/stop"]`).Length())
		require.Zero(t, doc.Find(`form[action$="/more"]`).Length(), "a stopped chain has no more")
		status, _, doc = s.post(t, "/submissions/"+batch.String()+"/more", url.Values{"csrf": {csrf}}, "")
		require.Equal(t, http.StatusConflict, status)
		require.Contains(t, words(doc.Find("#submission-notice")), "Could not fetch more: this collection was stopped")
	})
}

func TestCaptureFormLimit(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{Limits: pagesLimits()})
	tl := c.FX.AddTextTimeline(timelineHandle, timelineID, 75, 10)
	s := newItemSite(t, c, "alice")
	csrf := s.csrf(t)
	for _, tc := range []struct {
		link, limit, lang string
		status            int
		says              string
	}{
		{tl.ProfileURL, "many", "", http.StatusBadRequest, "How many posts must be a whole number"},
		{tl.ProfileURL, "0", "zh-CN", http.StatusBadRequest, "帖子数量必须是不小于 1 的整数"},
		{tl.ProfileURL, "1001", "", http.StatusBadRequest, "Not archived: limit 1001 is more than the x adapter's largest batch, 1000 posts"},
		{tl.Posts[0], "5", "", http.StatusBadRequest, "Not archived: limit is for a profile or channel"},
	} {
		status, _, doc := s.post(t, "/captures", url.Values{"csrf": {csrf}, "url": {tc.link}, "limit": {tc.limit}}, tc.lang)
		require.Equal(t, tc.status, status, tc.limit)
		require.Contains(t, words(doc.Find("#capture-error")), tc.says)
		require.Equal(t, tc.limit, doc.Find("#capture-limit").AttrOr("value", ""), "the form keeps what was typed")
		require.Equal(t, tc.link, doc.Find("#capture-url").AttrOr("value", ""))
	}

	// A post goes to its capture page, as before.
	status, loc, _ := s.post(t, "/captures", url.Values{"csrf": {csrf}, "url": {tl.Posts[0]}}, "")
	require.Equal(t, http.StatusSeeOther, status)
	require.True(t, strings.HasPrefix(loc, "/captures/"), loc)

	// A batch of 40 ends at 40 over two pages, then offers more.
	status, loc, _ = s.post(t, "/captures", url.Values{"csrf": {csrf}, "url": {tl.ProfileURL}, "limit": {"40"}}, "")
	require.Equal(t, http.StatusSeeOther, status)
	id := submissionID(t, loc)
	v := waitSubmission(t, c, s.tenant, id)
	for v.Progress.Total < 40 && v.NextSubmission != nil {
		time.Sleep(20 * time.Millisecond)
		v = waitSubmission(t, c, s.tenant, id)
	}
	_, doc := s.get(t, loc, "")
	require.Contains(t, words(doc.Find("main")), "40 of 40 posts done")
	require.Equal(t, 1, doc.Find(`form[action$="/more"]`).Length())
	// A profile the upstream does not know ends with the reason.
	status, loc, _ = s.post(t, "/captures", url.Values{"csrf": {csrf}, "url": {"https://x.com/nobody_here_demo"}}, "")
	require.Equal(t, http.StatusSeeOther, status)
	failed := waitSubmission(t, c, s.tenant, submissionID(t, loc))
	require.Equal(t, app.StateFailed, failed.State)
	_, doc = s.get(t, loc, "")
	main := words(doc.Find("main"))
	require.Contains(t, main, "Archiving ended with a problem")
	require.Contains(t, main, "What went wrong: "+failed.Error)
	require.Contains(t, main, "No posts were found on this page.")
	require.Zero(t, doc.Find(`form[action$="/more"], form[action$="/stop"]`).Length())

	// A post's submission shows its capture page.
	res, err := c.App.Submit(context.Background(), app.SubmitRequest{TenantID: s.tenant, URL: tl.Posts[1]})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+"/submissions/"+res.SubmissionID.String(), nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: s.key})
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/captures/"+res.CaptureID.String(), resp.Header.Get("Location"))
}

func TestChannelProgressPage(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		s := newItemSite(t, c, "alice")
		status, loc, _ := s.post(t, "/captures", url.Values{"csrf": {s.csrf(t)}, "url": {"https://t.me/s/tidewatch_demo"}}, "zh-CN")
		require.Equal(t, http.StatusSeeOther, status)
		id := submissionID(t, loc)
		v := waitSubmission(t, c, s.tenant, id)
		require.Equal(t, "channel", v.Kind)
		require.Positive(t, v.Progress.Total)

		_, doc := s.get(t, loc, "zh-CN")
		main := words(doc.Find("main"))
		require.Contains(t, main, "该频道的帖子已存档")
		require.Contains(t, main, "已发现")
		open := doc.Find(`a.button.secondary`)
		require.Equal(t, "打开频道", words(open))
		status, doc = s.get(t, open.AttrOr("href", ""), "zh-CN")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, v.Progress.Total, doc.Find("ol.author-posts li").Length(), "the channel's page lists its archived posts")
		require.Contains(t, words(doc.Find(".members-more")), "查看存档结果")
	})
}
