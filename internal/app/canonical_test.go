package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// The album 101–104 of the fake t.me: every member's link is the album,
// whose identity is its first message.
const (
	albumFirst  = "https://t.me/tidewatch_demo/101"
	albumMember = "https://t.me/tidewatch_demo/102?single"
	albumLast   = "https://t.me/tidewatch_demo/104?single"
)

// A member's link archives the album under the album's collection: two
// tenants asking for a member together share the capture and both end up
// with the album saved; a later member link of one of them adds nothing;
// a third tenant asking for the member later gets the album at once,
// without fetching again. The media (and the channel's avatar) is stored once.
func TestAlbumMemberLinksResolveToTheAlbum(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		st := p.st
		album := app.PublicCollectionID("telegram", "telegram.message", "tidewatch_demo", "tidewatch_demo/101")
		alice, bob, carol := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil), p.tenant(t, "carol", nil)

		// Hold the queue so that bob joins alice's capture.
		require.NoError(t, p.q.Stop(ctx))
		ra, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: albumMember})
		require.NoError(t, err)
		rb, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: albumMember})
		require.NoError(t, err)
		require.Equal(t, ra.CaptureID, rb.CaptureID, "one capture for both")
		require.NotEqual(t, album, ra.CollectionID, "the member's own collection until the adapter says otherwise")
		p.start(t)

		for _, who := range []struct {
			tenant  string
			id      [16]byte
			capture [16]byte
		}{{"alice", alice, ra.CaptureID}, {"bob", bob, rb.CaptureID}} {
			c := p.wait(t, who.id, who.capture)
			require.Equal(t, app.StateComplete, c.State, c.Error)
			require.Equal(t, album, c.CollectionID, "%s: the capture moved to the album", who.tenant)
			page, err := p.app.Collections(ctx, who.id, 10, "")
			require.NoError(t, err)
			require.Len(t, page.Items, 1, who.tenant)
			require.Equal(t, album, page.Items[0].ID, who.tenant)
			require.Len(t, page.Items[0].Media, 4, who.tenant)
			// The id the submit answered still finds the album.
			v, err := p.app.Collection(ctx, who.id, ra.CollectionID)
			require.NoError(t, err)
			require.Equal(t, album, v.ID)
		}

		blobs, err := st.BlobCount(ctx)
		require.NoError(t, err)

		// Bob's link to another member: a capture of its own, which moves to
		// the album too, and bob still has one saved album.
		rb2, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: albumLast})
		require.NoError(t, err)
		c := p.wait(t, bob, rb2.CaptureID)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		require.Equal(t, album, c.CollectionID)
		page, err := p.app.Collections(ctx, bob, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1)

		// Carol asks later: the member resolves to the album, already
		// archived, with no new fetch.
		fetches := p.tme.Hits("/tidewatch_demo/102")
		rc, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: carol, URL: albumMember})
		require.NoError(t, err)
		require.Equal(t, album, rc.CollectionID)
		require.Equal(t, app.StateComplete, rc.State)
		require.Equal(t, fetches, p.tme.Hits("/tidewatch_demo/102"))
		rf, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: carol, URL: albumFirst})
		require.NoError(t, err)
		require.Equal(t, album, rf.CollectionID)

		after, err := st.BlobCount(ctx)
		require.NoError(t, err)
		require.Equal(t, blobs, after, "the album's media stored once")
	})
}
