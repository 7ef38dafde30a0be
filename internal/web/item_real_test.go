package web_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// Real FxTwitter answers (shared/fixtures/real/fxtwitter/fxembed-run,
// never copied here) captured through the core and drawn on the item
// page: what a person sees on the live post, read from each sample by
// hand.
func TestRealXSamplesOnTheItemPage(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "fxtwitter/fxembed-run")
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		s := newItemSite(t, c, "alice")
		open := func(file, id, url string) *goquery.Selection {
			t.Helper()
			body, err := os.ReadFile(filepath.Join(dir, file))
			require.NoError(t, err)
			// The sample's twimg addresses point at the fake's media hosts.
			c.FX.SetOverride("/2/status/"+id, http.StatusOK, "application/json", []byte(c.FX.MediaURL(string(body))))
			status, doc := s.get(t, "/c/"+s.save(t, url).String(), "")
			require.Equal(t, http.StatusOK, status)
			return doc.Find(".entity-x-post").First()
		}

		// The Star Citizen poll: ended, Origin 600i ahead with 40.9%.
		post := open("2_status_1899954694652309701.json", "1899954694652309701", "https://x.com/Vyseroy/status/1899954694652309701")
		var opts []string
		post.Find(".poll li").Each(func(_ int, li *goquery.Selection) {
			opts = append(opts, words(li.Find(".option"))+" "+words(li.Find(".pct"))+" "+li.Find("meter").AttrOr("value", ""))
		})
		require.Equal(t, []string{"MISC Freelancer 9% 9", "Anvil Carrack 27% 27", "Drake Cutlass (Any?) 23% 23", "Origin 600i ✓ 41% 41"}, opts)
		require.Equal(t, "22 votes · Final results", words(post.Find(".poll .meta")))
		require.Equal(t, "https://x.com/hashtag/starcitizen", post.ChildrenFiltered(".text").Find("a.hashtag").First().AttrOr("href", ""))
		require.Equal(t, "#starcitizen", words(post.ChildrenFiltered(".text").Find("a.hashtag").First()))

		// A photo posted in the community Fox Twitter.
		post = open("2_status_1964084223871971826.json", "1964084223871971826", "https://x.com/vo1twasdowned/status/1964084223871971826")
		require.Equal(t, "Posted in the community Fox Twitter", words(post.Find(".context.community")))
		require.Equal(t, "https://x.com/i/communities/1506777270324764673", post.Find(".context.community a").AttrOr("href", ""))
		require.Equal(t, 1, post.Find(".gallery img").Length())
		require.Empty(t, words(post.ChildrenFiltered(".text")), "the post has no words, and its pic.x.com link is not shown")

		// A quote of a post from a suspended account says so.
		post = open("2_status_991004.json", "991004", "https://x.com/quotehost991/status/991004")
		require.Equal(t, "sus", words(post.ChildrenFiltered(".text")))
		require.Equal(t, "The quoted post is from a suspended account.", words(post.Find(".quoted.gone .gone-reason")))

		// The cockatoo: @fred_od_photo is a link to the account; SpaceX's
		// post shows its check mark, the cockatoo's author has none.
		post = open("2_status_1841206275088290279.json", "1841206275088290279", "https://x.com/DivineDropbear/status/1841206275088290279")
		mention := post.ChildrenFiltered(".text").Find("a.mention")
		require.Equal(t, "@fred_od_photo", words(mention))
		require.Equal(t, "https://x.com/fred_od_photo", mention.AttrOr("href", ""))
		require.NotContains(t, words(post.ChildrenFiltered(".text")), "t.co")
		require.Equal(t, 1, post.Find(".gallery video").Length())
		require.Zero(t, post.Find(".entity-head .verified").Length())
		post = open("2_status_1848831595014459513.json", "1848831595014459513", "https://x.com/SpaceX/status/1848831595014459513")
		require.Equal(t, 1, post.Find(".entity-head .verified").Length(), "SpaceX's check mark")
		require.Equal(t, 3, post.Find(".gallery img").Length())
	})
}
