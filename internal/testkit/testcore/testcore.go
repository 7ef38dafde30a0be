// Package testcore is the one in-process Monitor core of the tests: a real
// store (SQLite or PostgreSQL), blob store (files or S3), queue, business
// layer and the built-in X and Telegram adapters over gRPC, with only the
// outside world faked (testkit's FxTwitter, X GraphQL, t.me and media hosts) and media
// fetches allowed to reach them (fetch_allow_hosts=127.0.0.1). One clock
// drives store and business layer, and waiting on a capture waits on the
// signal the business layer fires when it ends, never on a poll loop.
//
// New assembles the core from its parts, for tests of app, capsule and the
// channel protocol; Run starts the runtime's whole process from a config,
// for tests of runtime and the servers. It lives beside testkit, not in it,
// because it imports the adapters, whose own tests import testkit.
package testcore

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// WaitTimeout is how long WaitCapture waits for a capture to end.
const WaitTimeout = 30 * time.Second

// Options choose what New builds. The zero value is SQLite, files, the
// test limits and a started queue.
type Options struct {
	// DB is "sqlite" (default) or "postgres".
	DB string
	// Store, when set, is an open, migrated store to use instead of a
	// fresh one of DB. The core then runs on that store's clock and
	// Core.Clock is nil: only a fresh store gets a clock tests can move.
	Store *store.Store
	// Blob is "file" (default) or "s3" (a versitygw server of the test).
	Blob string
	// Limits bound the pipeline; zero means TestLimits.
	Limits app.Limits
	// Queue sizes the workers; zero means 4 capture, 8 download and 4
	// control workers.
	Queue config.Queue
	// NoAdapters leaves the adapter registry out: enough to import, export
	// and read, without a pipeline.
	NoAdapters bool
	// NoStart builds the queue without starting it; call StartQueue.
	NoStart bool
	// HTTPAddr and TelegramToken are app.Deps' (sign-in links and Telegram
	// sign-in); zero means 127.0.0.1:8080 and none.
	HTTPAddr      string
	TelegramToken string
	// MasterKey is app.Deps' (MONITOR_MASTER_KEY): "" means none, so
	// accounts and secret settings are refused.
	MasterKey string
	// TelegramMTProto configures the Telegram adapter's mtproto provider
	// (a fake Telegram's address, testkit.Telegram); nil: none.
	TelegramMTProto *telegram.MTProto
	// Adapters are served beside the built-in ones, e.g. a third party's
	// adapter that misbehaves.
	Adapters []adapterv1.AdapterServer
}

// TestLimits are the pipeline's limits in tests: as in production, with
// retries 100 times sooner and media up to 64 MiB.
func TestLimits() app.Limits {
	return app.Limits{MaxMediaBytes: 64 << 20, TenantCaptures: 2, ConnectionCaptures: 1, Attempts: 3, RetryDelay: 20 * time.Millisecond}
}

// Core is one running in-process core of a test.
type Core struct {
	// Store is the core's database.
	Store *store.Store
	// StoreURL is the connection string of Store (PostgreSQL: monitor_app's;
	// "" for Options.Store).
	StoreURL string
	// Blob holds the media bytes.
	Blob blob.Store
	// App is the business layer, its hooks armed (Signals).
	App *app.App
	// Queue is nil with Options.NoAdapters.
	Queue *queue.Queue
	// FX and Tme are the fake FxTwitter (and its media hosts) and t.me the
	// adapters talk to (nil with Options.NoAdapters).
	FX  *testkit.FxTwitter
	Tme *testkit.Tme
	// X is the fake X web GraphQL API the X adapter's x-session provider
	// asks with a tenant's session (nil with Options.NoAdapters); its
	// media URLs point at FX.
	X *testkit.XGraphQL
	// Clock is the one clock of Store and App (nil with Options.Store).
	Clock *testkit.Clock
	// SigningKey is the instance key App signs exports and proofs with,
	// made for the test.
	SigningKey ed25519.PrivateKey
	// Signals fire when captures end.
	*Signals
}

// Each runs fn as a subtest on a fresh core of every database this machine
// offers (storetest.Drivers); o.DB is ignored.
func Each(t *testing.T, o Options, fn func(t *testing.T, c *Core)) {
	t.Helper()
	for _, d := range storetest.Drivers() {
		t.Run(d, func(t *testing.T) {
			o := o
			o.DB = d
			fn(t, New(t, o))
		})
	}
}

// New starts a core for the test; everything stops when the test ends.
func New(t testing.TB, o Options) *Core {
	t.Helper()
	ctx := context.Background()
	log := storetest.Logger(t)
	if o.DB == "" {
		o.DB = "sqlite"
	}
	if o.Limits == (app.Limits{}) {
		o.Limits = TestLimits()
	}
	if o.Queue == (config.Queue{}) {
		o.Queue = config.Queue{CaptureWorkers: 4, DownloadWorkers: 8, ControlWorkers: 4}
	}
	c := &Core{Signals: NewSignals()}
	if c.Store = o.Store; c.Store == nil {
		c.Clock = &testkit.Clock{}
		c.Store, c.StoreURL = storetest.NewWithURL(t, o.DB, store.WithClock(c.Clock.Now))
	}
	c.Blob = newBlob(t, o.Blob)
	// No Now: the business layer runs on the store's clock.
	if o.HTTPAddr == "" {
		o.HTTPAddr = "127.0.0.1:8080"
	}
	_, c.SigningKey, _ = ed25519.GenerateKey(rand.Reader)
	deps := app.Deps{Store: c.Store, Blob: c.Blob, Log: log, Limits: o.Limits, Hooks: c.Hooks(),
		HTTPAddr: o.HTTPAddr, TelegramToken: o.TelegramToken, MasterKey: o.MasterKey, SigningKey: c.SigningKey,
		CollectionFile: export.CollectionFile}
	if o.NoAdapters {
		c.App = app.New(deps)
		return c
	}
	c.FX, c.Tme = testkit.NewFxTwitter(t), testkit.NewTme(t)
	c.X = testkit.NewXGraphQL(t, c.FX.URL())
	tgAdapter := telegram.New(telegram.Options{BaseURL: c.Tme.URL()})
	if o.TelegramMTProto != nil {
		tgAdapter = telegram.NewWithMTProto(telegram.Options{BaseURL: c.Tme.URL()}, *o.TelegramMTProto)
	}
	deps.Adapters = serveAdapters(t, log, append([]adapterv1.AdapterServer{
		x.NewWithSession(x.Options{BaseURL: c.FX.URL()}, x.Options{BaseURL: c.X.URL()}), tgAdapter}, o.Adapters...)...)
	c.App = app.New(deps)
	must(t, "allow fetches from the fakes", func() error {
		_, err := c.App.SetSetting(ctx, "test", "fetch_allow_hosts", testkit.FetchAllowHosts)
		return err
	}())
	q, err := queue.New(c.Store, o.Queue, log, c.App.RegisterWorkers)
	must(t, "build the queue", err)
	c.Queue = q
	c.App.AttachQueue(q)
	if !o.NoStart {
		c.StartQueue(t)
	}
	return c
}

// StartQueue starts working jobs (again, after a Stop of Queue) until the
// test ends.
func (c *Core) StartQueue(t testing.TB) {
	t.Helper()
	must(t, "start the queue", c.Queue.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Queue.Stop(ctx)
	})
}

// Tenant creates a tenant and returns its id.
func (c *Core) Tenant(t testing.TB, name string, quota *int64) uuid.UUID {
	t.Helper()
	tn, err := c.App.CreateTenant(context.Background(), "test", name, quota)
	must(t, "create tenant "+name, err)
	return tn.ID
}

// Capture submits url for the tenant and waits until its capture ends.
func (c *Core) Capture(t testing.TB, tenantID uuid.UUID, url string) (app.SubmitResult, app.CaptureView) {
	t.Helper()
	res, err := c.App.Submit(context.Background(), app.SubmitRequest{TenantID: tenantID, URL: url})
	must(t, "submit "+url, err)
	return res, c.WaitCapture(t, tenantID, res.CaptureID)
}

// WaitCapture waits until the capture ends (complete, partial or failed)
// and returns it, or fails the test after WaitTimeout.
func (c *Core) WaitCapture(t testing.TB, tenantID, captureID uuid.UUID) app.CaptureView {
	t.Helper()
	ended := c.Ended(captureID) // before reading, so an end in between is seen
	read := func() app.CaptureView {
		v, err := c.App.Capture(context.Background(), tenantID, captureID)
		must(t, "read capture", err)
		return v
	}
	if v := read(); Ended(v.State) {
		return v
	}
	select {
	case <-ended:
	case <-time.After(WaitTimeout):
		t.Fatalf("testcore: capture %s did not end within %s", captureID, WaitTimeout)
	}
	v := read()
	if !Ended(v.State) {
		t.Fatalf("testcore: capture %s signalled its end but reads %s", captureID, v.State)
	}
	return v
}

// Ended reports whether a capture state is final.
func Ended(state string) bool {
	switch state {
	case app.StateComplete, app.StatePartial, app.StateFailed:
		return true
	}
	return false
}

// Signals are the business layer's hooks, armed: a test waits on them
// instead of polling.
type Signals struct {
	mu    sync.Mutex
	ended map[uuid.UUID]chan struct{}
	// next is closed at the next end of any capture.
	next chan struct{}
}

// NewSignals returns signals to arm a business layer with (Hooks).
func NewSignals() *Signals {
	return &Signals{ended: map[uuid.UUID]chan struct{}{}, next: make(chan struct{})}
}

// Hooks are the app hooks that fire these signals.
func (s *Signals) Hooks() app.Hooks {
	return app.Hooks{CaptureEnded: func(_, captureID uuid.UUID) { s.fire(captureID) }}
}

// Ended is closed once the capture has ended.
func (s *Signals) Ended(captureID uuid.UUID) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endedLocked(captureID)
}

// NextEnd is closed at the next end of any capture after this call: take
// it before looking for what that end makes ready.
func (s *Signals) NextEnd() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

func (s *Signals) endedLocked(id uuid.UUID) chan struct{} {
	ch, ok := s.ended[id]
	if !ok {
		ch = make(chan struct{})
		s.ended[id] = ch
	}
	return ch
}

func (s *Signals) fire(id uuid.UUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.endedLocked(id)
	select {
	case <-ch:
	default:
		close(ch)
	}
	close(s.next)
	s.next = make(chan struct{})
}

func newBlob(t testing.TB, kind string) blob.Store {
	t.Helper()
	switch kind {
	case "", "file":
		bs, err := blob.NewFS(t.TempDir())
		must(t, "open the file blob store", err)
		return bs
	case "s3":
		srv := testkit.StartS3(t)
		bs, err := blob.NewS3(context.Background(), srv.Options(srv.NewBucket(t)))
		must(t, "open the S3 blob store", err)
		return bs
	}
	t.Fatalf("testcore: unknown blob store %q (file or s3)", kind)
	return nil
}

// serveAdapters serves each adapter over gRPC on a loopback port, as the
// runtime's built-ins are, and dials them.
func serveAdapters(t testing.TB, log *slog.Logger, ads ...adapterv1.AdapterServer) *adapterapi.Registry {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, len(ads))
	var addrs []string
	for _, ad := range ads {
		lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
		if err != nil {
			stop()
			t.Fatalf("testcore: listen for an adapter: %v", err)
		}
		addrs = append(addrs, lis.Addr().String())
		go func() { served <- adapterapi.Serve(ctx, lis, ad, log) }()
	}
	t.Cleanup(func() {
		stop()
		for range ads {
			<-served
		}
	})
	reg, err := adapterapi.Dial(context.Background(), addrs, log)
	must(t, "dial the adapters", err)
	t.Cleanup(reg.Close)
	return reg
}

func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("testcore: %s: %v", what, err)
	}
}

// JobDone returns a function that waits until a job of the kind has
// completed, through the queue's completions (queue.Completed). Call it before the
// queue starts, so a job that runs at start is seen.
func JobDone(t testing.TB, q *queue.Queue, kind string) (wait func()) {
	t.Helper()
	events, cancel := q.Completed()
	t.Cleanup(cancel)
	return func() {
		t.Helper()
		deadline := time.NewTimer(WaitTimeout)
		defer deadline.Stop()
		for {
			select {
			case job, ok := <-events:
				if !ok {
					t.Fatalf("testcore: the queue stopped before a %s job completed", kind)
				}
				if job.Kind == kind {
					return
				}
			case <-deadline.C:
				t.Fatalf("testcore: no %s job completed within %s", kind, WaitTimeout)
			}
		}
	}
}
