// Package capsuletest gives capsule tests an archive to work on: the test
// core (testcore) on a given store, with the recorded fixture posts
// captured into it. Nothing here is used outside tests.
package capsuletest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// FixturePosts are the recorded posts of internal/testkit/testdata/fxtwitter: photos,
// a video, a quote and a sensitive GIF.
func FixturePosts() []string {
	return []string{
		"https://x.com/archivist_demo/status/2078399740166950912",
		"https://x.com/archivist_demo/status/2079251421658238976",
		"https://x.com/archivist_demo/status/2079906847374594048",
		"https://x.com/archivist_demo/status/2080424850067443712",
	}
}

// Instance is one Monitor instance for a test: its store, blob store and
// business layer.
type Instance struct {
	Store *store.Store
	Blob  blob.Store
	App   *app.App
	FX    *testkit.FxTwitter
	// Core is the test core underneath.
	Core *testcore.Core
}

// New opens an instance without a pipeline: enough to import, export and
// read.
func New(t testing.TB, st *store.Store) *Instance {
	t.Helper()
	return instanceOf(testcore.New(t, testcore.Options{Store: st, NoAdapters: true}))
}

// NewPipeline opens an instance with a running capture pipeline.
func NewPipeline(t testing.TB, st *store.Store) *Instance {
	t.Helper()
	return instanceOf(testcore.New(t, testcore.Options{Store: st}))
}

func instanceOf(c *testcore.Core) *Instance {
	return &Instance{Store: c.Store, Blob: c.Blob, App: c.App, FX: c.FX, Core: c}
}

// Tenant creates a tenant and returns its id.
func (in *Instance) Tenant(t testing.TB, name string, quota *int64) uuid.UUID {
	t.Helper()
	return in.Core.Tenant(t, name, quota)
}

// Capture archives each URL for the tenant, waits until it completes and
// returns the collections.
func (in *Instance) Capture(t testing.TB, tenantID uuid.UUID, urls ...string) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	for _, u := range urls {
		res, c := in.Core.Capture(t, tenantID, u)
		require.Equal(t, app.StateComplete, c.State, "capture of %s: %s", u, c.Error)
		ids = append(ids, res.CollectionID)
	}
	return ids
}

// WaitCapture waits until a capture ends and requires it complete.
func (in *Instance) WaitCapture(t testing.TB, tenantID, captureID uuid.UUID) app.CaptureView {
	t.Helper()
	c := in.Core.WaitCapture(t, tenantID, captureID)
	require.Equal(t, app.StateComplete, c.State, c.Error)
	return c
}
