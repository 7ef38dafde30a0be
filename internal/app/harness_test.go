package app_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// Fixture post ids (shared/fixtures/fxtwitter/routes.json).
const (
	photosPost = "https://x.com/archivist_demo/status/2078399740166950912"
	videoPost  = "https://x.com/archivist_demo/status/2079251421658238976"
	quotePost  = "https://x.com/archivist_demo/status/2079906847374594048"
	gifPost    = "https://x.com/archivist_demo/status/2080424850067443712"
	goncePost  = "https://x.com/archivist_demo/status/1000000000000000001" // 404
)

// pipeline is a running capture pipeline on a real store, blob store, queue
// and X adapter over gRPC; only FxTwitter and the media hosts are fake.
type pipeline struct {
	st    *store.Store
	blob  blob.Store
	fx    *testkit.FxTwitter
	tme   *testkit.Tme
	app   *app.App
	q     *queue.Queue
	clock *clock
}

// clock is the app's clock in tests: real time moved by an offset.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

func testLimits() app.Limits {
	return app.Limits{MaxMediaBytes: 64 << 20, TenantCaptures: 2, ConnectionCaptures: 1, Attempts: 3, RetryDelay: 20 * time.Millisecond}
}

func newPipeline(t testing.TB, st *store.Store, limits app.Limits) *pipeline {
	t.Helper()
	bs, err := blob.NewFS(t.TempDir())
	require.NoError(t, err)
	return newPipelineOn(t, st, bs, limits)
}

// newPipelineOn is newPipeline with a given blob store (S3 in benchmarks).
func newPipelineOn(t testing.TB, st *store.Store, bs blob.Store, limits app.Limits) *pipeline {
	t.Helper()
	ctx := context.Background()
	log := storetest.Logger(t)
	fx := testkit.NewFxTwitter(t)
	tme := testkit.NewTme(t)

	actx, stop := context.WithCancel(ctx)
	var addrs []string
	served := make(chan error, 2)
	for _, ad := range []adapterv1.AdapterServer{x.New(x.Options{BaseURL: fx.URL()}), telegram.New(telegram.Options{BaseURL: tme.URL()})} {
		lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addrs = append(addrs, lis.Addr().String())
		go func() { served <- adapterapi.Serve(actx, lis, ad, log) }()
	}
	t.Cleanup(func() { stop(); <-served; <-served })
	reg, err := adapterapi.Dial(ctx, addrs, log)
	require.NoError(t, err)
	t.Cleanup(reg.Close)

	clk := &clock{}
	a := app.New(app.Deps{Store: st, Blob: bs, Adapters: reg, Log: log, Limits: limits, Now: clk.Now})
	_, err = a.SetSetting(ctx, "test", "fetch_allow_hosts", testkit.FetchAllowHosts)
	require.NoError(t, err)
	require.NoError(t, queue.Migrate(ctx, st, log))
	q, err := queue.New(st, config.Queue{CaptureWorkers: 4, DownloadWorkers: 8, ControlWorkers: 4}, log, a.RegisterWorkers)
	require.NoError(t, err)
	a.AttachQueue(q)
	p := &pipeline{st: st, blob: bs, fx: fx, tme: tme, app: a, q: q, clock: clk}
	p.start(t)
	return p
}

func (p *pipeline) start(t testing.TB) {
	t.Helper()
	require.NoError(t, p.q.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.q.Stop(ctx)
	})
}

func (p *pipeline) tenant(t testing.TB, name string, quota *int64) uuid.UUID {
	t.Helper()
	tn, err := p.app.CreateTenant(context.Background(), "test", name, quota)
	require.NoError(t, err)
	return tn.ID
}

// wait polls a capture until it ends, or fails the test after a deadline.
func (p *pipeline) wait(t testing.TB, tenantID, captureID uuid.UUID) app.CaptureView {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := p.app.Capture(context.Background(), tenantID, captureID)
		require.NoError(t, err)
		switch c.State {
		case app.StateComplete, app.StatePartial, app.StateFailed:
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("capture %s still %s after 30 s", captureID, c.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *pipeline) capture(t *testing.T, tenantID uuid.UUID, url string) (app.SubmitResult, app.CaptureView) {
	t.Helper()
	res, err := p.app.Submit(context.Background(), app.SubmitRequest{TenantID: tenantID, URL: url})
	require.NoError(t, err)
	return res, p.wait(t, tenantID, res.CaptureID)
}

func ptr[T any](v T) *T { return &v }
