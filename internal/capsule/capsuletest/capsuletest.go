// Package capsuletest gives capsule tests an archive to work on: a real
// store, blob store, queue and X adapter over gRPC, with only FxTwitter and
// the media hosts faked, and the recorded fixture posts captured into it.
// Nothing here is used outside tests.
package capsuletest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/x"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// FixturePosts are the recorded posts of shared/fixtures/fxtwitter: photos,
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
}

// New opens an instance without a pipeline: enough to import, export and
// read.
func New(t testing.TB, st *store.Store) *Instance {
	t.Helper()
	bs, err := blob.NewFS(t.TempDir())
	require.NoError(t, err)
	return &Instance{Store: st, Blob: bs, App: app.New(app.Deps{Store: st, Blob: bs, Log: storetest.Logger(t)})}
}

// NewPipeline opens an instance with a running capture pipeline.
func NewPipeline(t testing.TB, st *store.Store) *Instance {
	t.Helper()
	ctx := context.Background()
	log := storetest.Logger(t)
	bs, err := blob.NewFS(t.TempDir())
	require.NoError(t, err)
	fx := testkit.NewFxTwitter(t)
	lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	actx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- adapterapi.Serve(actx, lis, x.New(x.Options{BaseURL: fx.URL()}), log) }()
	t.Cleanup(func() { stop(); <-served })
	reg, err := adapterapi.Dial(ctx, []string{lis.Addr().String()}, log)
	require.NoError(t, err)
	t.Cleanup(reg.Close)
	a := app.New(app.Deps{Store: st, Blob: bs, Adapters: reg, Log: log,
		Limits: app.Limits{MaxMediaBytes: 64 << 20, TenantCaptures: 2, ConnectionCaptures: 1, Attempts: 3, RetryDelay: 20 * time.Millisecond}})
	_, err = a.SetSetting(ctx, "test", "fetch_allow_hosts", testkit.FetchAllowHosts)
	require.NoError(t, err)
	q, err := queue.New(st, config.Queue{CaptureWorkers: 4, DownloadWorkers: 8, ControlWorkers: 4}, log, a.RegisterWorkers)
	require.NoError(t, err)
	a.AttachQueue(q)
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = q.Stop(sctx)
	})
	return &Instance{Store: st, Blob: bs, App: a, FX: fx}
}

// Tenant creates a tenant and returns its id.
func (in *Instance) Tenant(t testing.TB, name string, quota *int64) uuid.UUID {
	t.Helper()
	tn, err := in.App.CreateTenant(context.Background(), "test", name, quota)
	require.NoError(t, err)
	return tn.ID
}

// Capture archives each URL for the tenant and waits until it completes.
func (in *Instance) Capture(t testing.TB, tenantID uuid.UUID, urls ...string) []uuid.UUID {
	t.Helper()
	ctx := context.Background()
	var ids []uuid.UUID
	for _, u := range urls {
		res, err := in.App.Submit(ctx, app.SubmitRequest{TenantID: tenantID, URL: u})
		require.NoError(t, err)
		deadline := time.Now().Add(30 * time.Second)
		for {
			c, err := in.App.Capture(ctx, tenantID, res.CaptureID)
			require.NoError(t, err)
			if c.State == app.StateComplete {
				break
			}
			require.NotContains(t, []string{app.StateFailed, app.StatePartial}, c.State, c.Error)
			require.True(t, time.Now().Before(deadline), "capture of %s still %s", u, c.State)
			time.Sleep(10 * time.Millisecond)
		}
		ids = append(ids, res.CollectionID)
	}
	return ids
}
