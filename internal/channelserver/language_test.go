package channelserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// The language a work item carries is the one the person's Telegram
// client reports, on their messages and on the deliveries of the links
// they sent; the summaries core sends for the item have their media
// markers in it, while the stored summary stays locale-neutral.
func TestWorkCarriesThePersonsLanguageAndSummariesFollowIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		c := newCore(t, st)
		ctx := context.Background()
		as := func(u channelapi.Update, code string) channelapi.Update { u.From.Language = code; return u }

		w := c.send(t, as(private(7, photosPost), "zh-hans"))
		require.Equal(t, channelapi.LangChinese, w.Language)
		captured, err := c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: photosPost, StatusMessageID: 70})
		require.NoError(t, err)
		require.NoError(t, c.api.Done(ctx, w.ID, owner))

		d := c.next(t)
		require.Equal(t, channelapi.WorkDeliver, d.Kind)
		require.Equal(t, channelapi.LangChinese, d.Language, "the delivery speaks the language of whoever sent the link")
		got := c.deliver(t, d)
		require.Equal(t, channelapi.DeliveryReady, got.State, got.Error)
		require.True(t, strings.HasSuffix(got.Item.Summary, " [图片][图片]"), got.Item.Summary)
		require.NoError(t, c.api.Done(ctx, d.ID, owner))

		tctx := store.WithTenant(ctx, d.Tenant.ID)
		coll, err := st.CollectionGet(tctx, captured.CollectionID)
		require.NoError(t, err)
		rev, err := st.RevisionGet(tctx, *coll.CurrentRevisionID)
		require.NoError(t, err)
		require.Contains(t, string(rev.Content), "⟦image⟧⟦image⟧", "stored locale-neutral")

		for _, tc := range []struct{ code, lang, markers string }{
			{"zh-CN", channelapi.LangChinese, " [图片][图片]"},
			{"en-GB", channelapi.LangEnglish, " [photo][photo]"},
			{"", channelapi.LangEnglish, " [photo][photo]"},
			{"de", channelapi.LangEnglish, " [photo][photo]"},
		} {
			w := c.send(t, as(private(7, "/list"), tc.code))
			require.Equal(t, tc.lang, w.Language, "language_code %q", tc.code)
			page, err := c.api.List(ctx, w.ID, channelapi.ListRequest{Owner: owner})
			require.NoError(t, err)
			require.Len(t, page.Items, 1)
			require.True(t, strings.HasSuffix(page.Items[0].Summary, tc.markers), "%q: %s", tc.code, page.Items[0].Summary)
			it, err := c.api.Get(ctx, w.ID, channelapi.ItemRequest{Owner: owner, ID: captured.CollectionID.String()})
			require.NoError(t, err)
			require.True(t, strings.HasSuffix(it.Summary, tc.markers), "%q: %s", tc.code, it.Summary)
			require.NoError(t, c.api.Done(ctx, w.ID, owner))
		}
	})
}
