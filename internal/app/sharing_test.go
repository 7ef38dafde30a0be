package app_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/store"
)

func TestTwoTenantsShareOneBlob(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		st := p.st
		ctx := context.Background()
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		ra, ca := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, ca.State, ca.Error)
		blobs, err := st.BlobCount(ctx)
		require.NoError(t, err)

		rb, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: "https://twitter.com/archivist_demo/status/2078399740166950912/photo/2"})
		require.NoError(t, err)
		require.Equal(t, ra.CollectionID, rb.CollectionID, "the same post is one collection")
		require.Equal(t, app.StateComplete, rb.State, "an archived post answers at once")
		require.NotEqual(t, ra.SubmissionID, rb.SubmissionID)

		after, err := st.BlobCount(ctx)
		require.NoError(t, err)
		require.Equal(t, blobs, after, "no new blob")
		coll, err := p.app.Collection(ctx, bob, rb.CollectionID)
		require.NoError(t, err)
		for _, m := range coll.Media {
			rc, _, err := p.app.OpenMedia(ctx, bob, m.SHA256, nil)
			require.NoError(t, err)
			require.NoError(t, rc.Close())
		}
		ua, err := p.app.Usage(ctx, alice)
		require.NoError(t, err)
		ub, err := p.app.Usage(ctx, bob)
		require.NoError(t, err)
		require.Equal(t, ua.UsedBytes, ub.UsedBytes, "both are charged the same")
		require.Positive(t, ub.UsedBytes)

		// Deleting only drops bob's reference; alice keeps hers and the bytes.
		require.NoError(t, p.app.DeleteCollection(ctx, bob, rb.CollectionID))
		ub, err = p.app.Usage(ctx, bob)
		require.NoError(t, err)
		require.Zero(t, ub.UsedBytes)
		_, err = p.app.Collection(ctx, bob, rb.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, _, err = p.app.OpenMedia(ctx, bob, coll.Media[0].SHA256, nil)
		require.ErrorIs(t, err, app.ErrNotFound, "media of deleted collections is not served")
		_, err = p.app.Collection(ctx, alice, ra.CollectionID)
		require.NoError(t, err)
	})
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	ctx := context.Background()
	alice := p.tenant(t, "alice", nil)
	req := app.SubmitRequest{TenantID: alice, URL: photosPost, IdemKey: "k-1"}
	first, err := p.app.Submit(ctx, req)
	require.NoError(t, err)
	second, err := p.app.Submit(ctx, req)
	require.NoError(t, err)
	require.Equal(t, first.SubmissionID, second.SubmissionID)
	require.Equal(t, first.CaptureID, second.CaptureID)

	_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: videoPost, IdemKey: "k-1"})
	require.ErrorIs(t, err, app.ErrIdempotencyMismatch)

	bob := p.tenant(t, "bob", nil)
	other, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: photosPost, IdemKey: "k-1"})
	require.NoError(t, err, "keys are per tenant")
	require.NotEqual(t, first.SubmissionID, other.SubmissionID)
	require.Equal(t, first.CaptureID, other.CaptureID, "bob joins the capture in flight or answers from it")
	p.wait(t, alice, first.CaptureID)
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		first := *c.RevisionID

		// Unchanged upstream: a new capture, the same revision, and the
		// photos found by their cache keys instead of downloaded again.
		mediaGets := func() (n int) {
			for _, r := range p.fx.Requests() {
				if strings.HasPrefix(r.Path, "/media/") {
					n++
				}
			}
			return n
		}
		before := mediaGets()
		require.Positive(t, before)
		rr, err := p.app.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		require.NotEqual(t, res.CaptureID, rr.CaptureID)
		c2 := p.wait(t, alice, rr.CaptureID)
		require.Equal(t, app.StateComplete, c2.State, c2.Error)
		require.Equal(t, first, *c2.RevisionID)
		require.Equal(t, before, mediaGets(), "the refresh downloaded media it had under the same cache keys")
		revs, err := p.app.Revisions(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, revs, 1)

		// Changed text: a new revision; the old one stays readable.
		body := bytes.Replace(p.fx.Raw("status-photos.json"), []byte("Two frames from this morning"), []byte("Two frames from this evening"), 1)
		p.fx.SetOverride("/2/status/2078399740166950912", 200, "application/json", body)
		rr, err = p.app.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		c3 := p.wait(t, alice, rr.CaptureID)
		require.Equal(t, app.StateComplete, c3.State, c3.Error)
		require.NotEqual(t, first, *c3.RevisionID)
		revs, err = p.app.Revisions(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, revs, 2)
		require.Equal(t, *c3.RevisionID, revs[0].ID, "newest first")
		require.Contains(t, revs[0].Text, "this evening")
		old, err := p.app.Revision(ctx, alice, first)
		require.NoError(t, err)
		require.Contains(t, old.Text, "this morning")
		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, *c3.RevisionID, *coll.RevisionID, "the current revision moved")
	})
}

func TestRateLimitedThenOK(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	alice := p.tenant(t, "alice", nil)
	p.fx.SetRetryAfter("1")
	p.fx.RateLimitNext(1)
	start := time.Now()
	_, c := p.capture(t, alice, photosPost)
	require.Equal(t, app.StateComplete, c.State, c.Error)
	require.GreaterOrEqual(t, time.Since(start), time.Second, "the retry waited for Retry-After")
}

func TestOnePhotoFailsCapturePartial(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	ctx := context.Background()
	alice := p.tenant(t, "alice", nil)
	p.fx.FailMediaPath("/media/pbs.twimg.com/media/GwQx7fHa0AEzY9k.jpg", 500)
	res, c := p.capture(t, alice, photosPost)
	require.Equal(t, app.StatePartial, c.State)
	require.Contains(t, c.Error, "1 of 4 media files could not be stored: #2 (image): the media host answered 500 Internal Server Error (gave up after 3 attempts)")
	require.Equal(t, 3, p.fx.Hits("/media/pbs.twimg.com/media/GwQx7fHa0AEzY9k.jpg"))
	coll, err := p.app.Collection(ctx, alice, res.CollectionID)
	require.NoError(t, err)
	require.Len(t, coll.Media, 1, "the other photo is stored")
	u, err := p.app.Usage(ctx, alice)
	require.NoError(t, err)
	require.Zero(t, u.ReservedBytes)
}

func TestQuota(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		ua, err := p.app.Usage(ctx, alice)
		require.NoError(t, err)

		// Saving the archived post would exceed a small quota: refused whole.
		small := p.tenant(t, "small", ptr(ua.UsedBytes-1))
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: small, URL: photosPost})
		var qe *app.QuotaError
		require.ErrorAs(t, err, &qe)
		require.Equal(t, ua.UsedBytes-1, qe.QuotaBytes)
		require.Equal(t, int64(0), qe.UsedBytes)
		require.Equal(t, ua.UsedBytes, qe.AddBytes)
		page, err := p.app.Collections(ctx, small, 10, "")
		require.NoError(t, err)
		require.Empty(t, page.Items, "nothing saved")
		_, err = p.app.Collection(ctx, small, res.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound)
		us, err := p.app.Usage(ctx, small)
		require.NoError(t, err)
		require.Zero(t, us.ReservedBytes)
		require.Zero(t, us.UsedBytes)

		// Quota 0 saves nothing.
		zero := p.tenant(t, "zero", ptr(int64(0)))
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: zero, URL: videoPost})
		require.ErrorIs(t, err, app.ErrQuota)

		// A new post whose media do not fit: the reservation fails them.
		tight := p.tenant(t, "tight", ptr(int64(10<<10)))
		_, c = p.capture(t, tight, gifPost)
		require.Equal(t, app.StatePartial, c.State)
		require.Contains(t, c.Error, "storage quota exceeded")
		ut, err := p.app.Usage(ctx, tight)
		require.NoError(t, err)
		require.Zero(t, ut.ReservedBytes, "reservations go back when the capture ends")
	})
}

func TestStopMidDownloadAndResume(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	st := p.st
	ctx := context.Background()
	alice := p.tenant(t, "alice", nil)
	p.fx.SetMediaSize(1 << 20)
	p.fx.Delay(time.Second)
	res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: photosPost})
	require.NoError(t, err)

	// Wait for the fetch to finish and a download to hang on the media host.
	p.fx.WaitMediaHeld(t, 1)
	stopCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_ = p.q.Stop(stopCtx) // deadline passes: running downloads are cancelled
	cancel()
	c, err := p.app.Capture(ctx, alice, res.CaptureID)
	require.NoError(t, err)
	require.Equal(t, app.StateDownloading, c.State, "interrupted, not finished")

	p.fx.Delay(0)
	p.start(t)
	c = p.wait(t, alice, res.CaptureID)
	require.Equal(t, app.StateComplete, c.State, c.Error)
	u, err := p.app.Usage(ctx, alice)
	require.NoError(t, err)
	require.Zero(t, u.ReservedBytes)
	counts, err := st.ObjectCounts(ctx)
	require.NoError(t, err)
	blobs, err := st.BlobCount(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int{store.ObjectAttached: blobs}, counts, "no pending, garbage or duplicate objects")
	files := 0
	require.NoError(t, p.blob.List(ctx, "", func(blob.Info) error { files++; return nil }))
	require.Equal(t, blobs, files, "one file per blob")
}

func TestMediaOverMaxSizeFailsThatAsset(t *testing.T) {
	t.Parallel()
	limits := testLimits()
	limits.MaxMediaBytes = 32 << 10
	p := newPipeline(t, "sqlite", limits)
	p.fx.SetMediaSize(48 << 10)
	alice := p.tenant(t, "alice", nil)
	_, c := p.capture(t, alice, gifPost)
	require.Equal(t, app.StatePartial, c.State)
	require.Contains(t, c.Error, "media is 49152 bytes, over the 32768-byte limit for one file")
	u, err := p.app.Usage(context.Background(), alice)
	require.NoError(t, err)
	require.Zero(t, u.ReservedBytes)
}
