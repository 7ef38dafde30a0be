package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// firstWords is the start of a post's text as a card shows it (escaped
// the way html/template escapes text).
func firstWords(t *testing.T, s *site, collectionID uuid.UUID) string {
	t.Helper()
	c, err := s.core.App.Collection(context.Background(), s.tenant, collectionID)
	require.NoError(t, err)
	require.NotEmpty(t, c.Text)
	w := []rune(strings.Fields(c.Text)[0])
	return string(w[:min(len(w), 12)])
}

var collectionHref = regexp.MustCompile(`href="/c/([0-9a-f-]{36})"`)

func TestLibraryShowsWhatWasSaved(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		s := newSite(t, c, "alice", nil)
		empty := s.get("/")
		require.Equal(t, http.StatusOK, empty.Status)
		require.Contains(t, empty.Body, "Nothing saved yet")

		photos := s.capture(photosPost)
		video := s.capture(videoPost)
		s.capture(gonePost)
		pv, err := c.App.Capture(context.Background(), s.tenant, uuid.MustParse(photos))
		require.NoError(t, err)
		vv, err := c.App.Capture(context.Background(), s.tenant, uuid.MustParse(video))
		require.NoError(t, err)

		lib := s.get("/")
		require.Equal(t, http.StatusOK, lib.Status)
		require.Contains(t, lib.Body, `<html lang="en"`)
		require.Contains(t, lib.Body, firstWords(t, s, pv.CollectionID))
		require.Contains(t, lib.Body, firstWords(t, s, vv.CollectionID))
		require.Contains(t, lib.Body, `href="/c/`+pv.CollectionID.String()+`"`)
		require.Contains(t, lib.Body, `href="https://x.com/archivist_demo/status/2078399740166950912"`, "open original")
		require.Contains(t, lib.Body, `src="/v1/media/`, "thumbnails and avatars from the archive")
		require.Contains(t, lib.Body, "Capture failed", "the failed capture is marked, not an empty card")
		require.Contains(t, lib.Body, "likes")
		require.Contains(t, lib.Body, `class="library grid"`)
		require.NotContains(t, lib.Body, "https://pbs.twimg.com", "nothing from another host")
		ids := collectionHref.FindAllStringSubmatch(lib.Body, -1)
		require.NotEmpty(t, ids)
		require.NotEqual(t, pv.CollectionID.String(), ids[0][1], "newest save first")

		zh := s.get("/", "Accept-Language", "zh-CN,zh;q=0.9,en;q=0.5")
		require.Contains(t, zh.Body, `<html lang="zh-CN"`)
		require.Contains(t, zh.Body, "采集失败")
		require.Contains(t, zh.Body, "存档链接")

		list := s.get("/?view=list")
		require.Contains(t, list.Body, `class="library list"`)
		require.Contains(t, s.get("/").Body, `class="library list"`, "the layout is remembered")
		require.Contains(t, s.get("/?view=grid").Body, `class="library grid"`)

		videos := s.get("/?kind=video")
		require.Equal(t, http.StatusOK, videos.Status)
		require.Contains(t, videos.Body, `href="/c/`+vv.CollectionID.String()+`"`)
		require.NotContains(t, videos.Body, `href="/c/`+pv.CollectionID.String()+`"`)
		require.Contains(t, s.get("/?platform=telegram").Body, "Nothing matches these filters")

		bad := s.get("/?from=yesterday&author=someone")
		require.Equal(t, http.StatusBadRequest, bad.Status)
		require.Contains(t, bad.Body, "is not a date")
		require.Contains(t, bad.Body, `value="someone"`, "the form keeps what was typed")
		badZh := s.get("/?visibility=secret", "Accept-Language", "zh-CN")
		require.Equal(t, http.StatusBadRequest, badZh.Status)
		require.Contains(t, badZh.Body, "无法使用这些筛选条件")
	})
}

func TestLibraryPages(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{})
	s := newSite(t, c, "alice", nil)
	for i := range 30 {
		s.capture(c.FX.AddPost(testkitPost(i)))
	}
	first := s.get("/")
	require.Equal(t, 24, strings.Count(first.Body, `<li class="card`))
	next := regexp.MustCompile(`<a rel="next" href="([^"]+)"`).FindStringSubmatch(first.Body)
	require.NotNil(t, next, "a link to older saves")
	second := s.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	require.Equal(t, 6, strings.Count(second.Body, `<li class="card`))
	require.NotContains(t, second.Body, `rel="next"`)
	require.Contains(t, second.Body, "Newest")
	bad := s.get("/?cursor=garbage")
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "start again without a cursor")
}

func TestCaptureForm(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		s := newSite(t, c, "alice", nil)
		id := s.capture(photosPost)
		done := s.get("/captures/" + id)
		require.Equal(t, http.StatusOK, done.Status)
		require.Contains(t, done.Body, "Archived")
		require.Contains(t, done.Body, "Open the archived post")
		require.NotContains(t, done.Body, `http-equiv="refresh"`, "an ended capture does not reload")

		for _, tc := range []struct{ link, en, zh string }{
			{"", "url is required", "这不是 Monitor 可以存档的链接"},
			{"not a link", "This", "无法存档这个链接"},
			{"https://example.org/post/1", "cannot be archived", "无法存档这个链接"},
			{"https://x.com/" + strings.Repeat("a", 3000), "longer than 2048", "超过 2048"},
		} {
			p := s.post("/captures", url.Values{"url": {tc.link}})
			require.GreaterOrEqual(t, p.Status, 400, tc.link)
			require.Less(t, p.Status, 500, tc.link)
			require.Contains(t, p.Body, tc.en, tc.link)
			require.Contains(t, p.Body, `aria-invalid="true"`)
			if len(tc.link) < 100 {
				require.Contains(t, p.Body, `value="`+tc.link+`"`, "the link stays in the field")
			}
			zh := s.post("/captures", url.Values{"url": {tc.link}}, "Accept-Language", "zh-CN")
			require.Contains(t, zh.Body, tc.zh, tc.link)
		}

		other := newSite(t, c, "bob", nil)
		require.Equal(t, http.StatusNotFound, other.get("/captures/"+id).Status, "another tenant's capture")
		require.Equal(t, http.StatusNotFound, s.get("/captures/not-an-id").Status)

		slow := newSite(t, c, "dave", nil)
		_, err := c.App.UpdateTenant(context.Background(), "test", "dave", app.TenantChange{Limits: &app.TenantLimits{IntervalSeconds: 3600}})
		require.NoError(t, err)
		slow.capture(photosPost)
		limited := slow.post("/captures", url.Values{"url": {videoPost}})
		require.Equal(t, http.StatusTooManyRequests, limited.Status)
		require.Contains(t, limited.Body, "Too soon: wait 3600 seconds between links.")
		require.Contains(t, limited.Body, "Try again after")
		require.Contains(t, slow.post("/captures", url.Values{"url": {videoPost}}, "Accept-Language", "zh-CN").Body, "两次提交之间请等待 3600 秒")

		zero := int64(0)
		broke := newSite(t, c, "carol", &zero)
		p := broke.post("/captures", url.Values{"url": {videoPost}})
		require.Equal(t, http.StatusForbidden, p.Status)
		require.Contains(t, p.Body, "storage quota is 0 bytes")
		require.Contains(t, broke.post("/captures", url.Values{"url": {videoPost}}, "Accept-Language", "zh-CN").Body, "存储配额为 0 字节")
	})
}

func TestCaptureInFlightReloads(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{NoStart: true})
	s := newSite(t, c, "alice", nil)
	p := s.post("/captures", url.Values{"url": {photosPost}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	live := s.get(p.Location)
	require.Contains(t, live.Body, `<meta http-equiv="refresh" content="2">`)
	require.Contains(t, live.Body, "Waiting to be captured")
	require.Contains(t, live.Body, `data-capture="`)
	lib := s.get("/")
	require.Contains(t, lib.Body, "state-running", "a capture in flight shows its state")
	require.Contains(t, lib.Body, "Waiting to be captured")

	same := s.do(http.MethodPost, "/captures", url.Values{"url": {photosPost}, "csrf": {s.csrf}, "idem": {"0b8f7a9e-3c1d-4e5f-8a9b-1c2d3e4f5a6b"}})
	again := s.do(http.MethodPost, "/captures", url.Values{"url": {photosPost}, "csrf": {s.csrf}, "idem": {"0b8f7a9e-3c1d-4e5f-8a9b-1c2d3e4f5a6b"}})
	require.Equal(t, same.Location, again.Location, "a form sent twice is one submission")
}

func TestDeleteUndoAndRefresh(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		s := newSite(t, c, "alice", nil)
		pv, err := c.App.Capture(context.Background(), s.tenant, uuid.MustParse(s.capture(photosPost)))
		require.NoError(t, err)
		s.capture(videoPost)
		item := pv.CollectionID.String()

		del := s.post("/c/"+item+"/delete", nil)
		require.Equal(t, http.StatusSeeOther, del.Status, del.Body)
		require.True(t, strings.HasPrefix(del.Location, "/?deleted="+item), del.Location)
		after := s.get(del.Location)
		require.NotContains(t, after.Body, `href="/c/`+item+`"`, "gone from the library")
		require.Contains(t, after.Body, "Removed from your library.")
		require.Contains(t, after.Body, `action="/c/`+item+`/restore"`, "an Undo")
		saved := regexp.MustCompile(`name="saved" value="(\d+)"`).FindStringSubmatch(after.Body)
		require.NotNil(t, saved)

		require.Equal(t, http.StatusNotFound, s.post("/c/"+item+"/delete", nil).Status, "deleted already")
		undo := s.post("/c/"+item+"/restore", url.Values{"saved": {saved[1]}})
		require.Equal(t, http.StatusSeeOther, undo.Status, undo.Body)
		back := s.get(undo.Location)
		require.Contains(t, back.Body, "Put back in your library.")
		ids := collectionHref.FindAllStringSubmatch(back.Body, -1)
		require.Equal(t, item, ids[len(ids)-1][1], "back in its old place, below the newer save")

		require.Equal(t, http.StatusNotFound, s.post("/c/"+uuid.NewString()+"/restore", nil).Status)
		require.Equal(t, http.StatusNotFound, s.post("/c/nonsense/delete", nil).Status)

		ref := s.post("/c/"+item+"/refresh", nil)
		require.Equal(t, http.StatusSeeOther, ref.Status, ref.Body)
		require.True(t, strings.HasPrefix(ref.Location, "/captures/"), ref.Location)
		c.WaitCapture(t, s.tenant, uuid.MustParse(strings.TrimPrefix(ref.Location, "/captures/")))
		require.Contains(t, s.get(ref.Location).Body, "Open the archived post")

		other := newSite(t, c, "bob", nil)
		require.Equal(t, http.StatusNotFound, other.post("/c/"+item+"/refresh", nil).Status, "not bob's")
		require.Equal(t, http.StatusNotFound, other.post("/c/"+item+"/delete", nil).Status, "not bob's")
	})
}

// The library's words filter: /?q= keeps the cards whose text, summary
// or author has every word, CJK substrings included, in the person's
// language; too many words are refused with the reason.
func TestLibraryWordsFilter(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		s := newSite(t, c, "alice", nil)
		n, err := demo.Import(context.Background(), c.App, s.tenant)
		require.NoError(t, err)
		require.Greater(t, n, 10)

		tide := s.get("/?q=" + url.QueryEscape("Storm warning"))
		require.Equal(t, http.StatusOK, tide.Status)
		require.Contains(t, tide.Body, "Storm warning for the coast tonight")
		require.NotContains(t, tide.Body, "Which do you keep of a post you archive?", "a post without the words")
		require.Contains(t, tide.Body, `value="Storm warning"`, "the box keeps the words")
		require.Contains(t, tide.Body, "<title>Search: Storm warning")

		zh := s.get("/?q="+url.QueryEscape("满潮"), "Accept-Language", "zh-CN")
		require.Equal(t, http.StatusOK, zh.Status)
		require.Contains(t, zh.Body, "今晚满潮", "a Chinese substring matches")
		require.NotContains(t, zh.Body, "潮の満ち引き", "満 (Japanese) is not 满 (Chinese)")
		require.NotContains(t, zh.Body, "Storm warning for the coast tonight")
		ja := s.get("/?q=" + url.QueryEscape("満ち引き"))
		require.Contains(t, ja.Body, "潮の満ち引き", "a Japanese substring matches")

		none := s.get("/?q=" + url.QueryEscape("nothing-says-this"))
		require.Contains(t, none.Body, "Nothing matches these filters")

		many := s.get("/?q=" + url.QueryEscape("a b c d e f g h i"))
		require.Equal(t, http.StatusBadRequest, many.Status)
		require.Contains(t, many.Body, "at most 8 words")
	})
}
