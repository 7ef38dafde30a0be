package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

type probeArgs struct{}

func (probeArgs) Kind() string { return "periodic_probe" }

func (probeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queue.Control} }

type probeWorker struct {
	river.WorkerDefaults[probeArgs]
	ran chan struct{}
}

func (w *probeWorker) Work(context.Context, *river.Job[probeArgs]) error {
	select {
	case w.ran <- struct{}{}:
	default:
	}
	return nil
}

func TestPeriodicJobRunsOnStart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		log := storetest.Logger(t)
		require.NoError(t, queue.Migrate(ctx, st, log))
		w := &probeWorker{ran: make(chan struct{}, 1)}
		q, err := queue.New(st, testQueueConfig, log, func(ws *river.Workers) { river.AddWorker(ws, w) })
		require.NoError(t, err)
		job := queue.Periodic{ID: "probe", Interval: time.Hour, Args: probeArgs{}}
		require.NoError(t, q.AddPeriodic(job))
		require.Error(t, q.AddPeriodic(job), "a periodic job id is unique")
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			require.NoError(t, q.Stop(ctx))
		})
		select {
		case <-w.ran:
		case <-time.After(30 * time.Second):
			t.Fatal("the periodic job did not run at start")
		}
	})
}

func TestScheduleIsWellFormed(t *testing.T) {
	t.Parallel()
	st := storetest.New(t, "sqlite")
	q, err := queue.New(st, testQueueConfig, storetest.Logger(t))
	require.NoError(t, err)
	require.NotEmpty(t, queue.Schedule())
	require.NoError(t, q.AddPeriodic(queue.Schedule()...), "ids are unique")
}
