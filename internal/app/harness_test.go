package app_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// Fixture post ids (internal/testkit/testdata/fxtwitter/routes.json).
const (
	photosPost = "https://x.com/archivist_demo/status/2078399740166950912"
	videoPost  = "https://x.com/archivist_demo/status/2079251421658238976"
	quotePost  = "https://x.com/archivist_demo/status/2079906847374594048"
	gifPost    = "https://x.com/archivist_demo/status/2080424850067443712"
	goncePost  = "https://x.com/archivist_demo/status/1000000000000000001" // 404
)

// pipeline is the test core (testcore) under its short names: a running
// capture pipeline on a real store, blob store, queue and X and Telegram
// adapters over gRPC; only FxTwitter, t.me and the media hosts are fake.
type pipeline struct {
	core  *testcore.Core
	st    *store.Store
	blob  blob.Store
	fx    *testkit.FxTwitter
	tme   *testkit.Tme
	app   *app.App
	q     *queue.Queue
	clock *testkit.Clock
}

func testLimits() app.Limits { return testcore.TestLimits() }

// newPipeline starts a core on a fresh store of the driver.
func newPipeline(t testing.TB, driver string, limits app.Limits) *pipeline {
	t.Helper()
	return pipelineOf(testcore.New(t, testcore.Options{DB: driver, Limits: limits}))
}

// newPipelineOn builds a pipeline on a store the test made.
func newPipelineOn(t testing.TB, st *store.Store, limits app.Limits) *pipeline {
	t.Helper()
	return pipelineOf(testcore.New(t, testcore.Options{Store: st, Limits: limits}))
}

// eachPipeline runs fn on a fresh core of every database.
func eachPipeline(t *testing.T, limits app.Limits, fn func(t *testing.T, p *pipeline)) {
	t.Helper()
	testcore.Each(t, testcore.Options{Limits: limits}, func(t *testing.T, c *testcore.Core) { fn(t, pipelineOf(c)) })
}

func pipelineOf(c *testcore.Core) *pipeline {
	return &pipeline{core: c, st: c.Store, blob: c.Blob, fx: c.FX, tme: c.Tme, app: c.App, q: c.Queue, clock: c.Clock}
}

// start starts the queue again after a stop.
func (p *pipeline) start(t testing.TB) { t.Helper(); p.core.StartQueue(t) }

func (p *pipeline) tenant(t testing.TB, name string, quota *int64) uuid.UUID {
	t.Helper()
	return p.core.Tenant(t, name, quota)
}

// wait waits for a capture's end signal, or fails the test after a deadline.
func (p *pipeline) wait(t testing.TB, tenantID, captureID uuid.UUID) app.CaptureView {
	t.Helper()
	return p.core.WaitCapture(t, tenantID, captureID)
}

func (p *pipeline) capture(t *testing.T, tenantID uuid.UUID, url string) (app.SubmitResult, app.CaptureView) {
	t.Helper()
	return p.core.Capture(t, tenantID, url)
}

func ptr[T any](v T) *T { return &v }
