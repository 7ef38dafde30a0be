package channelserver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// archive captures url for the person behind a private update and waits
// until its delivery is ready.
func (c *core) archive(t *testing.T, user int64, url string) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	w := c.send(t, private(user, url))
	r, err := c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: url})
	require.NoError(t, err)
	require.NoError(t, c.api.Done(ctx, w.ID, owner))
	d := c.next(t)
	require.Equal(t, channelapi.DeliveryReady, c.deliver(t, d).State)
	require.NoError(t, c.api.Done(ctx, d.ID, owner))
	return r.CollectionID
}

func TestSearchPagesByNumberAndExplainsBadQueries(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, tc *testcore.Core) {
		c := newCoreOn(t, tc)
		ctx := context.Background()
		const alice, bob = 1, 2
		const videoPost = "https://x.com/archivist_demo/status/2079251421658238976"
		photos := c.archive(t, alice, photosPost)
		tc.Clock.Advance(time.Second) // distinct save times
		video := c.archive(t, alice, videoPost)

		w := c.send(t, private(alice, "/search harbour"))
		r, err := c.api.Search(ctx, w.ID, channelapi.SearchRequest{Owner: owner, Query: "harbour", Page: 1, Limit: 10})
		require.NoError(t, err)
		require.False(t, r.More)
		require.Len(t, r.Items, 1)
		require.Equal(t, photos, r.Items[0].ID)
		require.Contains(t, r.Items[0].Snippet, "the «harbour» & the old crane")
		require.Contains(t, r.Items[0].Summary, "[photo][photo]", "media markers in the person's language")

		// Numbered pages, newest save first; past the end is empty.
		var got []uuid.UUID
		for page := 1; page <= 3; page++ {
			r, err := c.api.Search(ctx, w.ID, channelapi.SearchRequest{Owner: owner, Query: "from:archivist_demo", Page: page, Limit: 1})
			require.NoError(t, err)
			require.Equal(t, page == 1, r.More, "page %d", page)
			for _, it := range r.Items {
				got = append(got, it.ID)
			}
		}
		require.Equal(t, []uuid.UUID{video, photos}, got)
		// Resuming after the last result of page 1 is page 2, and so is
		// counting when that result is no longer saved.
		for _, after := range []uuid.UUID{video, uuid.New()} {
			r, err := c.api.Search(ctx, w.ID, channelapi.SearchRequest{Owner: owner, Query: "from:archivist_demo", Page: 2, After: &after, Limit: 1})
			require.NoError(t, err)
			require.Len(t, r.Items, 1)
			require.Equal(t, photos, r.Items[0].ID)
			require.False(t, r.More)
		}

		// A query it cannot read: where and why, in both languages.
		_, err = c.api.Search(ctx, w.ID, channelapi.SearchRequest{Owner: owner, Query: `tide "moon`, Page: 1, Limit: 10})
		var e *channelapi.Error
		require.True(t, errors.As(err, &e))
		require.Equal(t, channelapi.CodeInvalid, e.Code)
		require.NotNil(t, e.Query)
		require.Equal(t, 10, e.Query.Position)
		require.Equal(t, "a closing quote", e.Query.Expected)
		require.NotEmpty(t, e.Query.MessageZH)
		require.NotEmpty(t, e.Query.ExpectedZH)
		require.Contains(t, e.Message, "at character 11")
		for _, page := range []int{0, channelapi.MaxSearchPage + 1} {
			_, err = c.api.Search(ctx, w.ID, channelapi.SearchRequest{Owner: owner, Query: "tide", Page: page, Limit: 10})
			require.True(t, errors.As(err, &e))
			require.Equal(t, channelapi.CodeInvalid, e.Code, "page %d", page)
			require.Nil(t, e.Query)
		}
		_, err = c.api.Search(ctx, w.ID, channelapi.SearchRequest{Owner: owner, Query: "tide", Page: 1, Limit: 21})
		require.Equal(t, channelapi.CodeInvalid, code(t, err))
		require.NoError(t, c.api.Messages(ctx, w.ID, channelapi.MessagesRequest{Owner: owner, ChatID: alice, MessageIDs: []int64{700}}))
		require.NoError(t, c.api.Done(ctx, w.ID, owner))

		// Bob finds nothing of Alice's, and may not turn her pages.
		w = c.send(t, private(bob, "/search harbour"))
		r, err = c.api.Search(ctx, w.ID, channelapi.SearchRequest{Owner: owner, Query: "harbour", Page: 1, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, r.Items)
		require.NotNil(t, r.Items, "an empty list, never null")
		require.NoError(t, c.api.Done(ctx, w.ID, owner))
		p := c.send(t, press(bob, alice, 700, "f:2"))
		_, err = c.api.Search(ctx, p.ID, channelapi.SearchRequest{Owner: owner, Query: "harbour", Page: 2, Limit: 10})
		require.Equal(t, channelapi.CodeForbidden, code(t, err))
		require.NoError(t, c.api.Done(ctx, p.ID, owner))
		p = c.send(t, press(alice, alice, 700, "f:2"))
		r, err = c.api.Search(ctx, p.ID, channelapi.SearchRequest{Owner: owner, Query: "from:archivist_demo", Page: 2, Limit: 1})
		require.NoError(t, err)
		require.Len(t, r.Items, 1, "her own button")
	})
}
