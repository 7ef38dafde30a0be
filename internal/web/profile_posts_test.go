package web_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// A profile's page lists that profile's posts in the tenant's archive —
// and only its posts: the demo archive holds an X profile with nine posts
// and a Telegram channel with its own.
func TestProfilePageListsItsPostsInTheArchive(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{NoAdapters: true})
	s := newItemSite(t, c, "alice")
	n, err := demo.Import(context.Background(), c.App, s.tenant)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 14)

	lib, err := c.App.Library(context.Background(), s.tenant, app.LibraryQuery{Limit: 100})
	require.NoError(t, err)
	var profile string
	posts := 0
	for _, card := range lib.Items {
		switch {
		case card.EntityType == "x.profile":
			profile = card.ID.String()
		case card.Platform == "x" && card.AuthorHandle == "monitor_demo":
			posts++
		}
	}
	require.NotEmpty(t, profile, "the demo has an X profile")
	require.Greater(t, posts, 3)

	status, doc := s.get(t, "/c/"+profile, "")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, words(doc.Find("section.author-posts h2")), "Posts in your archive")
	items := doc.Find("ol.author-posts li")
	require.Equal(t, posts, items.Length(), "every post by the profile, nothing else")
	items.Each(func(_ int, li *goquery.Selection) {
		require.Regexp(t, `^/c/[0-9a-f-]{36}$`, li.Find("a").AttrOr("href", ""))
	})
	require.NotContains(t, words(items), "Tide Watch", "the Telegram channel's posts are not the profile's")
}
