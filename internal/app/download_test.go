package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/queue"
)

// downloadJobs counts the download jobs River holds, in any state.
func downloadJobs(t *testing.T, p *pipeline) int {
	t.Helper()
	res, err := p.q.Client().JobList(context.Background(), river.NewJobListParams().Kinds(queue.DownloadArgs{}.Kind()).First(100))
	require.NoError(t, err)
	return len(res.Jobs)
}

// A photo post's capture job stores its photos itself; a video still gets
// a download job of its own, so a long download never holds a capture
// worker.
func TestPhotosDownloadInTheirCaptureJob(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, coll.Media, 2)
		require.Zero(t, downloadJobs(t, p), "the photos were stored by the capture job")
		u, err := p.app.Usage(ctx, alice)
		require.NoError(t, err)
		require.Zero(t, u.ReservedBytes)

		_, c = p.capture(t, alice, videoPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		require.Equal(t, 1, downloadJobs(t, p), "the video had a download job")
	})
}

// A photo the media host refuses for now (429 with Retry-After) is tried
// again by a download job once the wait is over, and the capture ends
// complete.
func TestPhotoRetryWaitsForTheMediaHost(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	alice := p.tenant(t, "alice", nil)
	p.fx.SetRetryAfter("1")
	p.fx.FailMediaNext(1, 429)
	start := time.Now()
	_, c := p.capture(t, alice, photosPost)
	require.Equal(t, app.StateComplete, c.State, c.Error)
	require.GreaterOrEqual(t, time.Since(start), time.Second, "the retry waited for Retry-After")
	media := 0
	for _, r := range p.fx.Requests() {
		if strings.HasPrefix(r.Path, "/media/") {
			media++
		}
	}
	require.Equal(t, 5, media, "four media files, one of them asked twice")
	require.Equal(t, 1, downloadJobs(t, p), "the refused photo went on as a download job")
}
