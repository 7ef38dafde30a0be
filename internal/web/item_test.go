package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

const (
	photosPost = "https://x.com/archivist_demo/status/2078399740166950912"
	videoPost  = "https://x.com/archivist_demo/status/2079251421658238976"
	quotePost  = "https://x.com/archivist_demo/status/2079906847374594048"
	tgAlbum    = "https://t.me/tidewatch_demo/101"
)

func TestItemPageThroughTheCore(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		s := newItemSite(t, c, "alice")

		// An X post with a quote: the author, the text, the counts, the quote.
		id := s.save(t, quotePost)
		status, doc := s.get(t, "/c/"+id.String(), "")
		require.Equal(t, http.StatusOK, status)
		post := doc.Find(".entity-x-post").First()
		require.Equal(t, 1, post.Length(), "the X post renderer draws it")
		require.Contains(t, words(post.Find(".entity-head h1").First()), "@archivist_demo")
		require.NotEmpty(t, words(post.ChildrenFiltered(".text")))
		require.Equal(t, 1, post.Find("blockquote.quoted").Length(), "the quoted post is shown")
		require.Contains(t, words(post.ChildrenFiltered("ul.counts")), "likes")
		require.Equal(t, "/v1/media/", post.Find(".entity-head img.avatar").AttrOr("src", "")[:10], "the avatar comes from the archive")
		require.Equal(t, quotePost, doc.Find(".item-actions a.button").AttrOr("href", ""), "open original")
		require.Equal(t, "/c/"+id.String()+"/refresh", doc.Find(`.item-actions form`).First().AttrOr("action", ""))
		require.Equal(t, "/c/"+id.String()+"/delete", doc.Find(`.item-actions form`).Eq(1).AttrOr("action", ""))
		require.NotEmpty(t, doc.Find(`.item-actions input[name=csrf]`).AttrOr("value", ""), "the forms carry the CSRF token")
		require.Equal(t, 1, doc.Find(".timeline li").Length(), "one revision so far")
		require.Equal(t, 12, len(words(doc.Find(".timeline li code"))), "the timeline shows a hash prefix")

		// The avatar the page shows is served to the same session.
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+post.Find(".entity-head img.avatar").AttrOr("src", ""), nil)
		req.AddCookie(&http.Cookie{Name: "monitor_session", Value: s.key})
		req.Header.Set("Range", "bytes=0-1")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusPartialContent, resp.StatusCode)

		// A Telegram album: every member in the order the post shows them.
		album := s.save(t, tgAlbum)
		status, doc = s.get(t, "/c/"+album.String(), "zh-CN")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "zh-CN", doc.Find("html").AttrOr("lang", ""))
		tg := doc.Find(".entity-telegram-post")
		require.Equal(t, 1, tg.Length(), "the Telegram post renderer draws it")
		v, err := c.App.Collection(context.Background(), s.tenant, album)
		require.NoError(t, err)
		var want []string
		for _, m := range v.Media {
			want = append(want, "/v1/media/"+m.SHA256)
		}
		var got []string
		tg.Find(".gallery figure").Each(func(_ int, f *goquery.Selection) {
			src := f.Find("img, video").AttrOr("src", "")
			got = append(got, src)
		})
		require.Greater(t, len(want), 1, "the fixture is an album")
		require.Equal(t, want, got, "the album in its stored order")
		require.Contains(t, words(doc.Find(".revisions h2")), "版本")

		// Another tenant gets 404 for what it did not save.
		b := newItemSite(t, c, "bob")
		status, doc = b.get(t, "/c/"+id.String(), "")
		require.Equal(t, http.StatusNotFound, status)
		require.Zero(t, doc.Find(".entity").Length())
		status, _ = s.get(t, "/c/not-a-uuid", "")
		require.Equal(t, http.StatusNotFound, status)
	})
}

func TestItemRevisionsAndDiff(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{})
	s := newItemSite(t, c, "alice")
	ctx := context.Background()
	id := s.save(t, photosPost)

	// The post is edited upstream: a refresh makes a second revision.
	var doc map[string]any
	require.NoError(t, json.Unmarshal(c.FX.Raw("status-photos.json"), &doc))
	st := doc["status"].(map[string]any)
	before := st["text"].(string)
	st["text"] = strings.Replace(before, "fog over the harbour", "sun over the harbour", 1)
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	c.FX.SetOverride("/2/status/2078399740166950912", http.StatusOK, "application/json", body)
	res, err := c.App.Refresh(ctx, s.tenant, id, "")
	require.NoError(t, err)
	require.Equal(t, "complete", c.WaitCapture(t, s.tenant, res.CaptureID).State)

	status, page := s.get(t, "/c/"+id.String(), "")
	require.Equal(t, http.StatusOK, status)
	rows := page.Find(".timeline li")
	require.Equal(t, 2, rows.Length(), "two revisions, newest first")
	require.True(t, rows.First().HasClass("current"), "the newest is the current one")
	form := page.Find("form.diff-form")
	require.Equal(t, "/c/"+id.String()+"/diff", form.AttrOr("action", ""))
	from := form.Find("select[name=from] option[selected]").AttrOr("value", "")
	to := form.Find("select[name=to] option[selected]").AttrOr("value", "")
	require.NotEqual(t, from, to)

	status, page = s.get(t, "/c/"+id.String()+"/diff?from="+from+"&to="+to, "")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "fog", words(page.Find(".diff del")))
	require.Equal(t, "sun", words(page.Find(".diff ins")))
	require.Contains(t, words(page.Find(".diff")), "over the harbour")
	require.Equal(t, "Words added: 1 · removed: 1", words(page.Find(".diff-page > p.meta")))

	// A revision of another collection, or none, is not found here.
	other := s.save(t, videoPost)
	revs, err := c.App.Revisions(ctx, s.tenant, other)
	require.NoError(t, err)
	status, _ = s.get(t, "/c/"+id.String()+"/diff?from="+from+"&to="+revs[0].ID.String(), "")
	require.Equal(t, http.StatusNotFound, status)
	status, _ = s.get(t, "/c/"+id.String()+"/diff", "")
	require.Equal(t, http.StatusNotFound, status)
}

func TestTelegramItemsThroughTheCore(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{})
	s := newItemSite(t, c, "alice")
	page := func(url string) *goquery.Selection {
		t.Helper()
		status, doc := s.get(t, "/c/"+s.save(t, url).String(), "")
		require.Equal(t, http.StatusOK, status, url)
		return doc.Find(".entity").First()
	}

	fwd := page("https://t.me/tidewatch_demo/140")
	require.True(t, fwd.HasClass("entity-telegram-post"))
	require.Contains(t, words(fwd.Find(".context.forwarded")), "Forwarded from")
	require.Contains(t, words(fwd.Find("ul.counts")), "views")

	reply := page("https://t.me/tidewatch_demo/141")
	require.Contains(t, words(reply.Find(".context.reply")), "Replying to")
	require.Contains(t, reply.Find(".context.reply a").AttrOr("href", ""), "https://t.me/")

	lp := page("https://t.me/tidewatch_demo/143")
	require.Equal(t, 1, lp.Find("a.link-card").Length(), "the link preview card")
	require.NotEmpty(t, words(lp.Find("a.link-card strong")))

	ch := page("https://t.me/tidewatch_demo")
	require.True(t, ch.HasClass("entity-telegram-channel"), "the channel renderer")
	require.Contains(t, words(ch.Find(".handle")), "@tidewatch_demo")
	require.Contains(t, words(ch.Find("ul.counts")), "subscribers")
	require.Equal(t, "/v1/media/", ch.Find("img.avatar").AttrOr("src", "")[:min(10, len(ch.Find("img.avatar").AttrOr("src", "")))], "the channel photo from the archive")
}
