package queue_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

var testQueueConfig = config.Queue{CaptureWorkers: 4, DownloadWorkers: 8, ControlWorkers: 4}

func startQueue(t *testing.T, st *store.Store) *queue.Queue {
	t.Helper()
	ctx := context.Background()
	log := storetest.Logger(t)
	require.NoError(t, queue.Migrate(ctx, st, log))
	require.NoError(t, queue.Verify(ctx, st))
	q, err := queue.New(st, testQueueConfig, log)
	require.NoError(t, err)
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, q.Stop(ctx))
	})
	return q
}

func waitForState(t *testing.T, q *queue.Queue, id int64, want rivertype.JobState) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		job, err := q.Client().JobGet(context.Background(), id)
		require.NoError(t, err)
		if job.State == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s, want %s", id, job.State, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestJobCommitsWithTransaction(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		q := startQueue(t, st)
		id := uuid.Must(uuid.NewV7())
		ctx := store.WithTenant(context.Background(), id)
		var job *rivertype.JobRow
		err := st.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.TenantInsert(ctx, store.Tenant{ID: id, Name: "erin", Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
				return err
			}
			var err error
			job, err = q.InsertTx(ctx, tx, queue.NoopArgs{Note: "commit"}, nil)
			return err
		})
		require.NoError(t, err)
		require.Equal(t, queue.Control, job.Queue)
		_, err = st.TenantGetByName(ctx, "erin")
		require.NoError(t, err)
		waitForState(t, q, job.ID, rivertype.JobStateCompleted)
	})
}

func TestJobRollsBackWithTransaction(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		q := startQueue(t, st)
		id := uuid.Must(uuid.NewV7())
		ctx := store.WithTenant(context.Background(), id)
		failed := errors.New("business rule said no")
		var job *rivertype.JobRow
		err := st.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.TenantInsert(ctx, store.Tenant{ID: id, Name: "frank", Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
				return err
			}
			var err error
			job, err = q.InsertTx(ctx, tx, queue.NoopArgs{Note: "rollback"}, nil)
			if err != nil {
				return err
			}
			return failed
		})
		require.ErrorIs(t, err, failed)

		_, err = q.Client().JobGet(ctx, job.ID)
		require.ErrorIs(t, err, river.ErrNotFound)
		res, err := q.Client().JobList(ctx, river.NewJobListParams().Kinds(queue.NoopArgs{}.Kind()))
		require.NoError(t, err)
		require.Empty(t, res.Jobs)
		_, err = st.TenantGetByName(ctx, "frank")
		require.ErrorIs(t, err, store.ErrNotFound)

		// The queue still works after the rollback.
		err = st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			job, err = q.InsertTx(ctx, tx, queue.NoopArgs{Note: "after"}, nil)
			return err
		})
		require.NoError(t, err)
		waitForState(t, q, job.ID, rivertype.JobStateCompleted)
	})
}

func TestVerifyReportsPendingMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "monitor.db")
	st, err := store.Open(ctx, config.Database{Driver: "sqlite", Path: p}, storetest.Logger(t))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Migrate(ctx)
	require.NoError(t, err)
	err = queue.Verify(ctx, st)
	require.ErrorContains(t, err, "run `monitor migrate`")
}
