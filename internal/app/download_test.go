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

// A photo the media host says is gone (404) is not asked for again: the
// capture ends partial with the host's answer, the other photo is kept,
// nothing stays reserved and the error log says which medium failed.
func TestPhotoGoneFailsOnceAndIsLogged(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	ctx := context.Background()
	alice := p.tenant(t, "alice", nil)
	const gone = "/media/pbs.twimg.com/media/GwQx7fHa0AEzY9k.jpg"
	p.fx.FailMediaPath(gone, 404)
	res, c := p.capture(t, alice, photosPost)
	require.Equal(t, app.StatePartial, c.State)
	require.Contains(t, c.Error, "1 of 4 media files could not be stored: #2 (image): the media host answered 404 Not Found")
	require.Equal(t, 1, p.fx.Hits(gone), "a permanent answer is not retried")
	require.Zero(t, downloadJobs(t, p))
	coll, err := p.app.Collection(ctx, alice, res.CollectionID)
	require.NoError(t, err)
	require.Len(t, coll.Media, 1, "the other photo is stored")
	u, err := p.app.Usage(ctx, alice)
	require.NoError(t, err)
	require.Zero(t, u.ReservedBytes)
	logs, err := p.app.ErrorLogs(ctx, app.SourceDownload, 10)
	require.NoError(t, err)
	require.Len(t, logs, 1)
	require.Equal(t, "media download failed", logs[0].Message)
	require.Contains(t, logs[0].Detail, "404 Not Found")
	require.Equal(t, c.ID, *logs[0].CaptureID)
}
