// Package runtime assembles a running Monitor core from its configuration:
// it opens the store, the blob store and the queue, and runs the servers.
// Commands in cmd/monitor call it; it holds no business logic.
package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
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
	if Embedded(cfg) {
		err = migrate(ctx, st, log)
	} else {
		err = errors.Join(st.Verify(ctx), queue.Verify(ctx, st))
	}
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	return st, nil
}

// Migrate opens the database and applies every pending migration: Monitor's
// own first, then River's. It returns the names of the files it applied.
func Migrate(ctx context.Context, cfg *config.Config, log *slog.Logger) ([]string, error) {
	if err := prepareDataDir(cfg); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.Database, log)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	applied, err := st.Migrate(ctx)
	if err != nil {
		return applied, err
	}
	return applied, queue.Migrate(ctx, st, log)
}

func migrate(ctx context.Context, st *store.Store, log *slog.Logger) error {
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	return queue.Migrate(ctx, st, log)
}

// OpenBlob opens the media store that cfg names.
func OpenBlob(cfg *config.Config) (blob.Store, error) {
	switch cfg.Blob.Kind {
	case "file":
		return blob.NewFS(cfg.Blob.Dir)
	case "s3":
		return nil, errors.New("blob: S3 storage is not available in this build of monitor yet; use the default file store (unset MONITOR_BLOB_URL)")
	}
	return nil, fmt.Errorf("blob: unknown store kind %q", cfg.Blob.Kind)
}

// prepareDataDir creates the data directory when the database or the media
// live in it, and proves it is writable before anything else is opened.
func prepareDataDir(cfg *config.Config) error {
	if cfg.Database.Driver != "sqlite" && cfg.Blob.Kind != "file" {
		return nil
	}
	dir := cfg.DataDir
	if cfg.Database.Driver == "sqlite" {
		dir = filepath.Dir(cfg.Database.Path)
	}
	fail := func(err error) error {
		return fmt.Errorf("data dir %s is not writable: %v; fix its permissions or set MONITOR_DATA_DIR to a writable directory", dir, unwrapPathError(err))
	}
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
	return nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Core is a running Monitor core process.
type Core struct {
	cfg      *config.Config
	log      *slog.Logger
	store    *store.Store
	blob     blob.Store
	queue    *queue.Queue
	builtins *builtins
	adapters *adapterapi.Registry
	instance string
	listener net.Listener
	server   *http.Server
}

// Open assembles a core: store (migrated on the embedded default), blob
// store, queue, and the HTTP listener, bound now so that a taken or invalid
// address fails here rather than after start-up.
func Open(ctx context.Context, cfg *config.Config, log *slog.Logger) (*Core, error) {
	st, err := OpenStore(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	c := &Core{cfg: cfg, log: log, store: st, instance: instanceID()}
	fail := func(err error) (*Core, error) {
		_ = c.close()
		return nil, err
	}
	if c.blob, err = OpenBlob(cfg); err != nil {
		return fail(err)
	}
	if c.queue, err = queue.New(st, cfg.Queue, log); err != nil {
		return fail(err)
	}
	addrs := cfg.Adapters.Addrs
	if cfg.Adapters.Builtin {
		if c.builtins, err = startBuiltins(cfg, log); err != nil {
			return fail(err)
		}
		addrs = append(append([]string(nil), c.builtins.addrs...), addrs...)
	}
	if c.adapters, err = adapterapi.Dial(ctx, addrs, log); err != nil {
		return fail(err)
	}
	var lc net.ListenConfig
	if c.listener, err = lc.Listen(ctx, "tcp", cfg.HTTPAddr); err != nil {
		return fail(fmt.Errorf("http: cannot listen on MONITOR_HTTP_ADDR=%s: %v", cfg.HTTPAddr, unwrapOpError(err)))
	}
	c.server = &http.Server{
		Handler:           httpapi.NewHandler(httpapi.Deps{Ready: c.ready, Log: log}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	return c, nil
}

// Adapters is the adapter registry of this core.
func (c *Core) Adapters() *adapterapi.Registry { return c.adapters }

// Addr is the address the HTTP server listens on.
func (c *Core) Addr() string { return c.listener.Addr().String() }

// Run serves until ctx is cancelled, then stops within StopTimeout: the HTTP
// server stops taking requests, running jobs get the rest of the time to
// finish, and the store closes.
func (c *Core) Run(ctx context.Context) error {
	if err := c.queue.Start(ctx); err != nil {
		_ = c.close()
		return err
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- c.server.Serve(c.listener) }()
	healthCtx, stopHealth := context.WithCancel(ctx)
	healthDone := make(chan struct{})
	go func() { defer close(healthDone); c.adapters.WatchHealth(healthCtx, adapterHealthInterval) }()
	c.log.InfoContext(ctx, "monitor is serving",
		slog.String("http", "http://"+c.Addr()),
		slog.String("database", c.store.Driver()),
		slog.String("blob", c.cfg.Blob.Kind),
		slog.String("instance", c.instance))

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
	if err := c.queue.Stop(stopCtx); err != nil {
		c.log.Warn("queue did not stop cleanly", slog.Any("err", err))
	}
	stopHealth()
	<-healthDone
	if err := c.close(); err != nil {
		runErr = errors.Join(runErr, err)
	}
	c.log.Info("stopped")
	return runErr
}

// ready is the readiness check: a committed database write read back, and a
// blob written and deleted.
func (c *Core) ready(ctx context.Context) error {
	if err := c.store.CheckReady(ctx, c.instance); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	key := "_health/" + c.instance
	if _, err := c.blob.Put(ctx, key, strings.NewReader(c.instance)); err != nil {
		return fmt.Errorf("blob store: %w", err)
	}
	if err := c.blob.Delete(ctx, key); err != nil {
		return fmt.Errorf("blob store: %w", err)
	}
	return nil
}

// close releases what Open acquired, in reverse order.
func (c *Core) close() error {
	var errs []error
	if c.listener != nil {
		if err := c.listener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if c.adapters != nil {
		c.adapters.Close()
	}
	if c.builtins != nil {
		c.builtins.stop()
	}
	if c.store != nil {
		errs = append(errs, c.store.Close())
	}
	return errors.Join(errs...)
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
