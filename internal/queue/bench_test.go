package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// newBenchQueue opens a migrated store and a queue on it, not started.
func newBenchQueue(b *testing.B) (*store.Store, *queue.Queue) {
	b.Helper()
	st := storetest.New(b, "sqlite")
	if err := queue.Migrate(context.Background(), st, storetest.Logger(b)); err != nil {
		b.Fatal(err)
	}
	q, err := queue.New(st, testQueueConfig, storetest.Logger(b))
	if err != nil {
		b.Fatal(err)
	}
	return st, q
}

// BenchmarkInsertTx measures one business transaction that writes a row and
// inserts its job: the shape of every submit.
func BenchmarkInsertTx(b *testing.B) {
	ctx := context.Background()
	st, q := newBenchQueue(b)
	for b.Loop() {
		err := st.InTx(ctx, func(tx *store.Tx) error {
			_, err := q.InsertTx(ctx, tx, queue.NoopArgs{Note: "bench"}, nil)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWorkThroughput measures jobs inserted, fetched, worked and
// completed per second on the embedded default.
func BenchmarkWorkThroughput(b *testing.B) {
	ctx := context.Background()
	_, q := newBenchQueue(b)
	completed, cancel := q.Completed()
	defer cancel()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() {
		sctx, c := context.WithTimeout(ctx, 10*time.Second)
		defer c()
		_ = q.Stop(sctx)
	}()
	const batch = 100
	start := time.Now()
	jobs := 0
	for b.Loop() {
		params := make([]river.InsertManyParams, batch)
		for i := range params {
			params[i] = river.InsertManyParams{Args: queue.NoopArgs{}}
		}
		if _, err := q.Client().InsertMany(ctx, params); err != nil {
			b.Fatal(err)
		}
		for range batch {
			select {
			case ev := <-completed:
				if ev.State != rivertype.JobStateCompleted {
					b.Fatalf("job %d: %s", ev.ID, ev.State)
				}
			case <-time.After(30 * time.Second):
				b.Fatal("jobs did not complete")
			}
		}
		jobs += batch
	}
	b.ReportMetric(float64(jobs)/time.Since(start).Seconds(), "jobs/s")
}
