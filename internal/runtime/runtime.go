// Package runtime assembles a running Monitor core from its configuration:
// it opens the store, the blob store and the queue, and runs the servers.
// Commands in cmd/monitor call it; it holds no business logic.
package runtime

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"riverqueue.com/riverui"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/channelserver"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/metrics"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/web"
)

// adapterHealthInterval is how often adapters' health is checked and
// unreachable adapters are tried again.
const adapterHealthInterval = 15 * time.Second

// StopTimeout is how long a stopping core waits for requests and jobs to
// finish before it cancels them.
const StopTimeout = 10 * time.Second

// Embedded reports whether cfg is the single-process default, where the
// binary migrates its own database.
func Embedded(cfg *config.Config) bool { return cfg.Database.Driver == "sqlite" }

// OpenStore opens the database. On the embedded default it applies pending
// migrations (app and queue); otherwise it only verifies that `monitor
// migrate` has run. Either way it refuses a database migrated by a newer
// binary or one whose applied migrations changed.
func OpenStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (*store.Store, error) {
	if err := prepareDataDir(cfg); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.Database, log)
	if err != nil {
		return nil, err
	}
	if err := readySchema(ctx, cfg, st, log); err != nil {
		_ = st.Close()
		return nil, err
	}
	return st, nil
}

// readySchema migrates the embedded default, or checks that scale mode's
// database is migrated and that core's role cannot see past row-level
// security.
func readySchema(ctx context.Context, cfg *config.Config, st *store.Store, log *slog.Logger) error {
	if Embedded(cfg) {
		return migrate(ctx, st, log)
	}
	if err := st.CheckUnprivileged(ctx); err != nil {
		return err
	}
	return errors.Join(st.Verify(ctx), queue.Verify(ctx, st))
}

// Migrate opens the database and applies every pending migration: Monitor's
// own first, then River's. It returns the names of the files it applied.
func Migrate(ctx context.Context, cfg *config.Config, log *slog.Logger) ([]string, error) {
	if cfg.Database.Driver == "postgres" && cfg.AppPassword == "" {
		return nil, errors.New("store: set MONITOR_APP_PASSWORD (or _FILE): the password `monitor migrate` gives the monitor_app role that `monitor serve` connects as")
	}
	lock, err := lockDataDir(cfg)
	if err != nil {
		return nil, err
	}
	defer lock.release()
	if err := prepareDataDir(cfg); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.Database, log)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	// Check the role before changing anything.
	if _, err := st.CheckMigrator(ctx); err != nil {
		return nil, err
	}
	var applied []string
	err = st.WithMigrationLock(ctx, func() error {
		var err error
		if applied, err = st.Migrate(ctx); err != nil {
			return err
		}
		if err := queue.Migrate(ctx, st, log); err != nil {
			return err
		}
		// Last, so the grants cover every table, River's included.
		return st.EnsureAppRole(ctx, cfg.AppPassword)
	})
	return applied, err
}

func migrate(ctx context.Context, st *store.Store, log *slog.Logger) error {
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	return queue.Migrate(ctx, st, log)
}

// blobCheckTimeout bounds the start-up check of an S3 bucket.
const blobCheckTimeout = 30 * time.Second

// OpenBlob opens the media store that cfg names. An S3 store is checked
// with one request, so an unreachable endpoint, refused credentials or a
// missing bucket stop the start with a message saying what to fix.
func OpenBlob(ctx context.Context, cfg *config.Config) (blob.Store, error) {
	switch cfg.Blob.Kind {
	case "file":
		return blob.NewFS(cfg.Blob.Dir)
	case "s3":
		s, err := newS3(ctx, cfg)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, blobCheckTimeout)
		defer cancel()
		if err := s.CheckBucket(ctx); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("blob: unknown store kind %q", cfg.Blob.Kind)
}

func newS3(ctx context.Context, cfg *config.Config) (*blob.S3, error) {
	return blob.NewS3(ctx, blob.S3Options{
		Endpoint:        cfg.Blob.Endpoint,
		Region:          cfg.Blob.Region,
		Bucket:          cfg.Blob.Bucket,
		Prefix:          cfg.Blob.Prefix,
		AccessKeyID:     cfg.Blob.AccessKeyID,
		SecretAccessKey: cfg.Blob.SecretAccessKey,
	})
}

// InitStorage prepares the media store for first use: it creates the S3
// bucket when missing (or the objects directory) and proves that a probe
// object can be written, read back and deleted. It reports what it did.
func InitStorage(ctx context.Context, cfg *config.Config) (string, error) {
	if cfg.Blob.Kind == "file" {
		if err := prepareDataDir(cfg); err != nil {
			return "", err
		}
		fs, err := blob.NewFS(cfg.Blob.Dir)
		if err != nil {
			return "", err
		}
		if err := probe(ctx, fs); err != nil {
			return "", err
		}
		return fmt.Sprintf("objects directory %s is ready (probe written, read and deleted)", fs.Root()), nil
	}
	s, err := newS3(ctx, cfg)
	if err != nil {
		return "", err
	}
	created, err := s.EnsureBucket(ctx)
	if err != nil {
		return "", err
	}
	if err := s.Probe(ctx); err != nil {
		return "", err
	}
	verb := "exists"
	if created {
		verb = "was created"
	}
	return fmt.Sprintf("S3 bucket %q at %s %s and works (probe written, read and deleted)", s.Bucket(), s.Endpoint(), verb), nil
}

// probe writes, reads back and deletes a small object.
func probe(ctx context.Context, st blob.Store) error {
	key := "_probe/" + uuid.Must(uuid.NewV7()).String()
	want := []byte("monitor storage probe")
	if _, err := st.Put(ctx, key, bytes.NewReader(want)); err != nil {
		return err
	}
	rc, _, err := st.Get(ctx, key, nil)
	if err != nil {
		return err
	}
	got, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("blob: probe object came back changed (%d bytes instead of %d)", len(got), len(want))
	}
	return st.Delete(ctx, key)
}

// prepareDataDir creates the directory of the embedded database and proves
// it is writable before anything else is opened. PostgreSQL needs no local
// directory; the file blob store creates its own.
// notWritable says that the data dir cannot be used, and what to do.
func notWritable(dir string, err error) error {
	return fmt.Errorf("data dir %s is not writable: %v; fix its permissions or set MONITOR_DATA_DIR to a writable directory", dir, unwrapPathError(err))
}

func prepareDataDir(cfg *config.Config) error {
	if cfg.Database.Driver != "sqlite" {
		return nil
	}
	dir := filepath.Dir(cfg.Database.Path)
	fail := func(err error) error { return notWritable(dir, err) }
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fail(err)
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return fail(err)
	}
	name := f.Name()
	_ = f.Close()
	if err := os.Remove(name); err != nil {
		return fail(err)
	}
	return applySnapshot(cfg)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Engine is Monitor's working parts without the HTTP surface: store,
// blob store, adapters, business layer and job queue. `monitor serve` wraps
// it in a Core; one-shot commands such as `monitor capture` use it alone.
type Engine struct {
	cfg      *config.Config
	log      *slog.Logger
	store    *store.Store
	blob     blob.Store
	builtins *builtins
	adapters *adapterapi.Registry
	app      *app.App
	queue    *queue.Queue
	// lock is the data dir's lock, held by a serving core (lock.go).
	lock *dataDirLock
	// metrics are the process's series, served on /metrics by a Core.
	metrics *metrics.Metrics
	// now is the one clock of the store, the business layer and the
	// runtime's own checks (River keeps its own time).
	now func() time.Time
}

// OpenEngine assembles the engine: the store (migrated on the embedded
// default), the blob store, the built-in and configured adapters, the
// business layer and its queue, not started yet.
func OpenEngine(ctx context.Context, cfg *config.Config, log *slog.Logger, opts ...Option) (*Engine, error) {
	if err := prepareDataDir(cfg); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	now := o.now
	st, err := store.Open(ctx, cfg.Database, log, store.WithClock(now))
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, log: log, store: st, now: now, metrics: metrics.New()}
	fail := func(err error) (*Engine, error) {
		_ = e.Close()
		return nil, err
	}
	// The media store before the schema: checking it changes nothing, so a
	// missing bucket stops start-up before any migration runs.
	if e.blob, err = OpenBlob(ctx, cfg); err != nil {
		return fail(err)
	}
	e.blob = countBlob(e.blob, e.metrics)
	if err := readySchema(ctx, cfg, st, log); err != nil {
		return fail(err)
	}
	addrs := cfg.Adapters.Addrs
	if cfg.Adapters.Builtin {
		if e.builtins, err = startBuiltins(cfg, log); err != nil {
			return fail(err)
		}
		addrs = append(append([]string(nil), e.builtins.addrs...), addrs...)
	}
	if e.adapters, err = adapterapi.Dial(ctx, addrs, log); err != nil {
		return fail(err)
	}
	if err := registerProcessMetrics(e.metrics, e.adapters, st, log); err != nil {
		return fail(err)
	}
	limits := app.DefaultLimits()
	limits.MaxMediaBytes = cfg.Capture.MaxMediaBytes
	limits.TenantCaptures = cfg.Capture.TenantConcurrency
	limits.ConnectionCaptures = cfg.Capture.ConnectionConcurrency
	limits.PageSize = o.pageSize
	key := instanceKeyOrWarn(ctx, cfg, log)
	e.app = app.New(app.Deps{Store: st, Blob: e.blob, Adapters: e.adapters, Log: log, Limits: limits, Now: now, MasterKey: cfg.MasterKey, Hooks: o.hooks, Metrics: e.metrics,
		HTTPAddr: cfg.HTTPAddr, TelegramToken: cfg.TelegramToken, TelegramAPIURL: cfg.TelegramAPIURL, Backups: backupConfig(cfg), SigningKey: key,
		CollectionFile: export.CollectionFile})
	if e.queue, err = queue.New(st, cfg.Queue, log, e.app.RegisterWorkers); err != nil {
		return fail(err)
	}
	if err := e.queue.AddPeriodic(queue.Schedule()...); err != nil {
		return fail(err)
	}
	e.app.AttachQueue(e.queue)
	return e, nil
}

// App is the business layer.
func (e *Engine) App() *app.App { return e.app }

// Adapters is the adapter registry.
func (e *Engine) Adapters() *adapterapi.Registry { return e.adapters }

// Start begins working jobs and watching adapters' health until Stop.
func (e *Engine) Start(ctx context.Context) error {
	return e.queue.Start(ctx)
}

// Stop waits up to the context's deadline for running jobs, cancels the
// rest (they resume at the next start), and closes everything.
func (e *Engine) Stop(ctx context.Context) error {
	if err := e.queue.Stop(ctx); err != nil {
		e.log.Warn("queue did not stop cleanly", slog.Any("err", err))
	}
	return e.Close()
}

// Close releases what OpenEngine acquired, in reverse order.
func (e *Engine) Close() error {
	if e.adapters != nil {
		e.adapters.Close()
	}
	if e.builtins != nil {
		e.builtins.stop()
	}
	var err error
	if e.store != nil {
		err = e.store.Close()
	}
	e.lock.release()
	return err
}

// Core is a running Monitor core process: the engine, the HTTP server and,
// when configured, the internal channel API.
type Core struct {
	*Engine
	instance string
	listener net.Listener
	server   *http.Server
	// channelListener and channelServer serve the channel API (nil: off);
	// channelSecret is the secret channel processes send.
	channelListener net.Listener
	channelServer   *http.Server
	channelSecret   string
	// telegramToken is the token of the bot run in this process ("" = none).
	telegramToken string
	// jobsUI is River's job UI, mounted by the console at /admin/river.
	jobsUI *riverui.Handler
	// conditions turns readiness, adapters and the queue into events.
	conditions *conditions
}

// Open assembles a core: the engine and the HTTP listener, bound now so
// that a taken or invalid address fails here rather than after start-up.
func Open(ctx context.Context, cfg *config.Config, log *slog.Logger, opts ...Option) (*Core, error) {
	if cfg.ChannelAddr != "" && cfg.ChannelSecret == "" {
		return nil, errors.New("channel API: MONITOR_CHANNEL_ADDR is set but MONITOR_CHANNEL_SECRET is empty; set a long random secret (or MONITOR_CHANNEL_SECRET_FILE) and give the same one to `monitor telegram`")
	}
	lock, err := lockDataDir(cfg)
	if err != nil {
		return nil, err
	}
	e, err := OpenEngine(ctx, cfg, log, opts...)
	if err != nil {
		lock.release()
		return nil, err
	}
	e.lock = lock
	if lock != nil {
		// This process owns the data dir: jobs marked running belong to
		// one that was killed (queue.RescueOrphans).
		n, err := queue.RescueOrphans(ctx, e.store)
		if err != nil {
			_ = e.Close()
			return nil, err
		}
		if n > 0 {
			log.InfoContext(ctx, "handed back jobs that a stopped process left running", slog.Int("jobs", n))
		}
	}
	c := &Core{Engine: e, instance: instanceID(), conditions: newConditions(e.app, e.now, log)}
	var lc net.ListenConfig
	if c.listener, err = lc.Listen(ctx, "tcp", cfg.HTTPAddr); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("http: cannot listen on MONITOR_HTTP_ADDR=%s: %v", cfg.HTTPAddr, unwrapOpError(err))
	}
	// Sign-in links name the address actually bound (a configured port 0
	// is a free one).
	e.app.SetHTTPAddr(c.listener.Addr().String())
	c.telegramToken = telegramToken(ctx, cfg, e.app, log)
	if err := c.openChannelAPI(ctx, cfg, log); err != nil {
		_ = c.listener.Close()
		_ = e.Close()
		return nil, err
	}
	api := httpapi.NewHandler(httpapi.Deps{Ready: c.ready, Log: log, App: e.app, Admin: e.app,
		Metrics: e.metrics.Handler(), StreamWindow: cfg.HTTP.WriteTimeout})
	if c.jobsUI, err = newJobsUI(e.queue, log); err != nil {
		_ = c.listener.Close()
		_ = e.Close()
		return nil, err
	}
	var bucket string
	if cfg.Blob.Kind == "s3" {
		bucket = "s3://" + cfg.Blob.Bucket
		if cfg.Blob.Prefix != "" {
			bucket += "/" + strings.Trim(cfg.Blob.Prefix, "/")
		}
	}
	pages, err := web.NewHandler(web.Deps{App: e.app, Log: log, Ready: c.ready, DataDir: cfg.DataDir, Bucket: bucket, Jobs: c.jobsUI})
	if err != nil {
		_ = c.listener.Close()
		_ = e.Close()
		return nil, err
	}
	// Counted around the front door: the mux inside that serves a request
	// names its route pattern on it, for REST and web library alike.
	c.server = newHTTPServer(e.metrics.Instrument(frontDoor(api, pages)), cfg.HTTP, log)
	return c, nil
}

// frontDoor sends the REST API, the probes and the metrics to api, and
// everything else to the web library: one server, one address.
func frontDoor(api, pages http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.HasPrefix(p, "/v1/") || p == "/v1" || p == "/healthz" || p == "/readyz" || p == "/metrics" {
			api.ServeHTTP(w, r)
			return
		}
		pages.ServeHTTP(w, r)
	})
}

// newHTTPServer is every HTTP server core runs, with the limits of
// cfg.HTTP: without them a client could hold a connection forever by
// trickling a body, never reading an answer or idling between requests.
func newHTTPServer(h http.Handler, lim config.HTTPLimits, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		WriteTimeout:      lim.WriteTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// openChannelAPI binds the internal channel API: on MONITOR_CHANNEL_ADDR
// with MONITOR_CHANNEL_SECRET, or, when only a Telegram token is set (the
// bot runs in this process), on a loopback port with a random secret.
func (c *Core) openChannelAPI(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	addr, secret := cfg.ChannelAddr, cfg.ChannelSecret
	if addr == "" {
		if c.telegramToken == "" {
			return nil
		}
		addr, secret = "127.0.0.1:0", randomSecret()
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("channel API: cannot listen on MONITOR_CHANNEL_ADDR=%s: %v", addr, unwrapOpError(err))
	}
	c.channelListener, c.channelSecret = lis, secret
	c.channelServer = newHTTPServer(c.metrics.Instrument(channelserver.NewServer(channelserver.Deps{Service: c.app, Secret: secret, Log: log,
		StreamWindow: cfg.HTTP.WriteTimeout})), cfg.HTTP, log)
	return nil
}

// randomSecret is a channel secret for a bot in the same process.
func randomSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// Addr is the address the HTTP server listens on.
func (c *Core) Addr() string { return c.listener.Addr().String() }

// ChannelAddr is the host:port the channel API listens on ("" when off).
func (c *Core) ChannelAddr() string {
	if c.channelListener == nil {
		return ""
	}
	return c.channelListener.Addr().String()
}

// ChannelSecret is the secret channel processes must send to the channel
// API: MONITOR_CHANNEL_SECRET, or the random one of an in-process bot.
func (c *Core) ChannelSecret() string { return c.channelSecret }

// Run serves until ctx is cancelled, then stops within StopTimeout: the HTTP
// server stops taking requests, running jobs get the rest of the time to
// finish, and the store closes.
func (c *Core) Run(ctx context.Context) error {
	if err := c.Start(ctx); err != nil {
		_ = c.listener.Close()
		if c.channelListener != nil {
			_ = c.channelListener.Close()
		}
		_ = c.Close()
		if ctx.Err() != nil {
			return nil // stopped before it started
		}
		return err
	}
	serveErr := make(chan error, 2)
	go func() { serveErr <- c.server.Serve(c.listener) }()
	if c.channelServer != nil {
		go func() {
			if err := c.channelServer.Serve(c.channelListener); !errors.Is(err, http.ErrServerClosed) {
				serveErr <- fmt.Errorf("channel API: %w", err)
			}
		}()
	}
	botCtx, stopBot := context.WithCancel(ctx)
	defer stopBot()
	botDone := c.runTelegram(botCtx)
	healthCtx, stopHealth := context.WithCancel(ctx)
	healthDone := make(chan struct{})
	go func() { defer close(healthDone); c.adapters.WatchHealth(healthCtx, adapterHealthInterval) }()
	if err := c.jobsUI.Start(healthCtx); err != nil {
		c.log.WarnContext(ctx, "the job UI did not start", slog.Any("err", err))
	}
	watchDone := make(chan struct{})
	go func() { defer close(watchDone); c.watchConditions(healthCtx) }()
	sampleDone := make(chan struct{})
	go func() { defer close(sampleDone); c.sampleMetrics(healthCtx) }()
	c.log.InfoContext(ctx, "monitor is serving",
		slog.String("http", "http://"+c.Addr()),
		slog.String("channel_api", c.ChannelAddr()),
		slog.String("database", c.store.Driver()),
		slog.String("blob", c.cfg.Blob.Kind),
		slog.String("instance", c.instance))
	releaseStartupPages()

	var runErr error
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		runErr = fmt.Errorf("http: %w", err)
	}
	c.log.Info("stopping", slog.Duration("timeout", StopTimeout))
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopTimeout)
	defer cancel()
	if err := c.server.Shutdown(stopCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		c.log.Warn("http server did not stop cleanly", slog.Any("err", err))
		_ = c.server.Close()
	}
	stopBot()
	<-botDone // the bot stops before the API it talks to
	if c.channelServer != nil {
		if err := c.channelServer.Shutdown(stopCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Warn("channel API server did not stop cleanly", slog.Any("err", err))
			_ = c.channelServer.Close()
		}
	}
	stopHealth()
	<-healthDone
	<-watchDone
	<-sampleDone
	if err := c.Stop(stopCtx); err != nil {
		runErr = errors.Join(runErr, err)
	}
	c.log.Info("stopped")
	return runErr
}

// ready is the readiness check: a committed database write read back, and a
// blob written and deleted. Failures open the events readiness.database and
// readiness.blob; passing resolves them.
func (c *Core) ready(ctx context.Context) error {
	err := c.store.CheckReady(ctx, c.instance)
	c.conditions.observe(ctx, app.EventReadinessDatabase, app.SeverityError, err != nil, fmt.Sprintf("the database failed the readiness check: %v", err))
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	key := "_health/" + c.instance
	_, err = c.blob.Put(ctx, key, strings.NewReader(c.instance))
	if err == nil {
		err = c.blob.Delete(ctx, key)
	}
	c.conditions.observe(ctx, app.EventReadinessBlob, app.SeverityError, err != nil, fmt.Sprintf("the blob store failed the readiness check: %v", err))
	if err != nil {
		return fmt.Errorf("blob store: %w", err)
	}
	return nil
}

// instanceID names this process in heartbeats and logs.
func instanceID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "monitor"
	}
	return fmt.Sprintf("%s-%d-%s", sanitize(host), os.Getpid(), uuid.Must(uuid.NewV7()).String()[24:])
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, s)
}

func unwrapOpError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}
