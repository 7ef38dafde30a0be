// Package queue runs Monitor's background work on River: the capture,
// download and control queues, the job kinds (jobs.go) and River's own
// migrations. Jobs are inserted in the same transaction as the business
// change that asks for them, so both commit or neither does.
package queue

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/store"
)

// Queue names.
const (
	// Capture calls adapters to fetch a target.
	Capture = "capture"
	// Download streams media into the blob store.
	Download = "download"
	// Control finalizes captures and schedules follow-up work.
	Control = "control"
)

// stopCancelGrace is how long cancelled jobs get to return after Stop's
// deadline has passed.
const stopCancelGrace = 2 * time.Second

// fetchCooldown is the least time between two fetches of one queue.
const fetchCooldown = 5 * time.Millisecond

// Queue is a River client bound to the store's write connection.
type Queue struct {
	client *river.Client[*sql.Tx]
	log    *slog.Logger
	// waker wakes queues after business transactions on SQLite (wake.go);
	// nil on PostgreSQL, where River listens.
	waker *waker
	// sleep lets an idle SQLite queue hibernate (hibernate.go); nil on
	// PostgreSQL. periodic is its schedule there.
	sleep    *hibernator
	periodic []Periodic
	// done hands out completed jobs across River's restarts.
	done *completions
}

// Periodic is a job inserted every Interval, and once when the queue
// starts. ID names it; it is unique among a queue's periodic jobs.
type Periodic struct {
	ID       string
	Interval time.Duration
	Args     river.JobArgs
}

// Register adds job workers to River's bundle; business packages pass their
// workers in through it.
type Register func(w *river.Workers)

// New builds the queue on st's write connection. Workers of every kind in
// jobs.go must be registered by the given functions or by this package.
func New(st *store.Store, cfg config.Queue, log *slog.Logger, register ...Register) (*Queue, error) {
	driver, err := driverFor(st)
	if err != nil {
		return nil, err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &noopWorker{})
	river.AddWorker(workers, &wakeWorker{})
	for _, r := range register {
		r(workers)
	}
	rc := &river.Config{
		Logger: log.With(slog.String("component", "river")),
		Queues: map[string]river.QueueConfig{
			Capture:  {MaxWorkers: cfg.CaptureWorkers},
			Download: {MaxWorkers: cfg.DownloadWorkers},
			Control:  {MaxWorkers: cfg.ControlWorkers},
		},
		Workers: workers,
		// A queue fetches at most as many jobs as it has free workers, then
		// waits out the cooldown; River's 100 ms default caps a 4-worker
		// queue near 40 jobs/s (measured by BenchmarkWorkThroughput).
		FetchCooldown: fetchCooldown,
	}
	var wk *waker
	if !driver.SupportsListener() {
		// Woken after each business transaction and after each short
		// snooze (wake.go), a queue needs its poll only for retries and
		// jobs it was not told of.
		wk = newWaker(log)
		rc.FetchPollInterval = idlePollInterval
		rc.Middleware = []rivertype.Middleware{snoozeWaker{wk}}
		rc.RetryPolicy = retryWaker{w: wk, policy: &river.DefaultClientRetryPolicy{}}
	}
	client, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	q := &Queue{client: client, log: log, waker: wk, done: newCompletions()}
	if wk != nil {
		q.sleep = newHibernator(client, log, q.done)
		wk.sleep = q.sleep
	}
	wk.setClient(client)
	return q, nil
}

// AddPeriodic adds jobs inserted on a schedule (see Schedule), before
// Start. On PostgreSQL River's elected leader inserts them, so every
// process should add the same set and whichever leads runs them; on SQLite,
// one process per data dir, the queue's hibernator does (hibernate.go). A
// duplicate ID is an error.
func (q *Queue) AddPeriodic(jobs ...Periodic) error {
	seen := map[string]bool{}
	for _, p := range q.periodic {
		seen[p.ID] = true
	}
	for _, p := range jobs {
		if seen[p.ID] {
			return fmt.Errorf("queue: periodic job %q added twice", p.ID)
		}
		seen[p.ID] = true
	}
	q.periodic = append(q.periodic, jobs...)
	if q.sleep != nil {
		return nil
	}
	rj := make([]*river.PeriodicJob, len(jobs))
	for i, p := range jobs {
		args := p.Args
		rj[i] = river.NewPeriodicJob(river.PeriodicInterval(p.Interval),
			func() (river.JobArgs, *river.InsertOpts) { return args, nil },
			&river.PeriodicJobOpts{ID: p.ID, RunOnStart: true})
	}
	if _, err := q.client.PeriodicJobs().AddManySafely(rj); err != nil {
		return fmt.Errorf("queue: add periodic jobs: %w", err)
	}
	return nil
}

// Start begins working jobs until Stop.
func (q *Queue) Start(ctx context.Context) error {
	detach := q.done.attach(q.client)
	if err := q.client.Start(ctx); err != nil {
		detach()
		return fmt.Errorf("queue: start: %w", err)
	}
	q.waker.start()
	if q.sleep != nil {
		q.sleep.begin(ctx, q.periodic)
	}
	return nil
}

// Stop waits for running jobs to finish until ctx ends, then cancels them.
func (q *Queue) Stop(ctx context.Context) error {
	defer q.done.closeAll()
	asleep := q.sleep != nil && !q.sleep.halt()
	q.waker.stop()
	if asleep {
		return nil // hibernating: nothing runs
	}
	err := q.client.Stop(ctx)
	if err == nil {
		return nil
	}
	q.log.WarnContext(ctx, "jobs did not finish in time; cancelling them", slog.Any("err", err))
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopCancelGrace)
	defer cancel()
	return q.client.StopAndCancel(cctx)
}

// Completed returns the jobs that complete from now on, until cancel or
// Stop (for tests and operations checks). A reader that falls 1,000 behind
// misses jobs.
func (q *Queue) Completed() (<-chan *rivertype.JobRow, func()) {
	return q.done.subscribe()
}

// InsertTx adds a job inside a business transaction: it exists only if tx
// commits.
func (q *Queue) InsertTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error) {
	res, err := q.client.InsertTx(ctx, tx.SQL(), args, opts)
	if err != nil {
		return nil, fmt.Errorf("queue: insert %s: %w", args.Kind(), err)
	}
	q.waker.afterCommit(tx, res.Job.Queue)
	return res.Job, nil
}

// Insert adds a job in a transaction of its own, for operations and
// tests; business changes use InsertTx.
func (q *Queue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error) {
	release := q.sleep.hold()
	res, err := q.client.Insert(ctx, args, opts)
	release()
	if err != nil {
		return nil, fmt.Errorf("queue: insert %s: %w", args.Kind(), err)
	}
	q.sleep.wake()
	return res.Job, nil
}

// InsertManyTx adds jobs inside a business transaction in one batch: they
// exist only if tx commits.
func (q *Queue) InsertManyTx(ctx context.Context, tx *store.Tx, args []river.JobArgs) error {
	if len(args) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(args))
	for i, a := range args {
		params[i] = river.InsertManyParams{Args: a}
	}
	res, err := q.client.InsertManyTx(ctx, tx.SQL(), params)
	if err != nil {
		return fmt.Errorf("queue: insert %d %s jobs: %w", len(args), args[0].Kind(), err)
	}
	woken := map[string]bool{}
	for _, r := range res {
		if !woken[r.Job.Queue] {
			woken[r.Job.Queue] = true
			q.waker.afterCommit(tx, r.Job.Queue)
		}
	}
	return nil
}

// Client is the River client, for the admin queue view and tests.
func (q *Queue) Client() *river.Client[*sql.Tx] { return q.client }

// Migrate applies River's pending migrations, one version per transaction.
func Migrate(ctx context.Context, st *store.Store, log *slog.Logger) error {
	m, err := migrator(st)
	if err != nil {
		return err
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("queue: migrate: %w", err)
	}
	for _, v := range res.Versions {
		log.InfoContext(ctx, "applied queue migration", slog.Int("version", v.Version), slog.String("name", v.Name))
	}
	return nil
}

// MigrateTo applies River's migrations up to and including version, and
// none after it, so that a fresh database shows the queue tables of an
// older one. It fails when this monitor's River has no such version.
func MigrateTo(ctx context.Context, st *store.Store, version int) error {
	m, err := migrator(st)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: version}); err != nil {
		return fmt.Errorf("queue: migrate to version %d: %w", version, err)
	}
	return nil
}

// Verify reports whether River's migrations are all applied.
func Verify(ctx context.Context, st *store.Store) error {
	m, err := migrator(st)
	if err != nil {
		return err
	}
	res, err := m.Validate(ctx, nil)
	if err != nil {
		return fmt.Errorf("queue: check migrations: %w", err)
	}
	if !res.OK {
		return fmt.Errorf("queue: migrations pending (%v); run `monitor migrate`", res.Messages)
	}
	return nil
}

// driverFor picks River's driver for the store's database. Both run over
// database/sql, so a job joins the business transaction (*sql.Tx); on
// PostgreSQL River listens for new jobs on a connection of the store's pgx
// pool instead of polling, on SQLite it polls and is woken (wake.go).
func driverFor(st *store.Store) (riverdriver.Driver[*sql.Tx], error) {
	switch st.Driver() {
	case "sqlite":
		return pollOnly{riversqlite.New(st.WriteDB())}, nil
	case "postgres":
		return riverdatabasesql.NewWithPgxListener(st.WriteDB(), st.Pool()), nil
	}
	return nil, fmt.Errorf("queue: no River driver for %s", st.Driver())
}

func migrator(st *store.Store) (*rivermigrate.Migrator[*sql.Tx], error) {
	driver, err := driverFor(st)
	if err != nil {
		return nil, err
	}
	// River's migrator logs every no-op run; Migrate logs what it applied
	// and errors are returned, so its own log adds nothing.
	m, err := rivermigrate.New(driver, &rivermigrate.Config{
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return m, nil
}

// Hibernating reports whether the queue's River client is stopped because
// it had nothing to do (hibernate.go); never on PostgreSQL.
func (q *Queue) Hibernating() bool {
	return q.sleep != nil && q.sleep.started() && !q.sleep.isAwake()
}
