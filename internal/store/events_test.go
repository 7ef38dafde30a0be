package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestEventDedupAndReopen(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		record := func(at time.Time, severity, msg string) store.Event {
			t.Helper()
			var e store.Event
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				var err error
				e, err = tx.EventRecord(ctx, "queue.backlog", severity, msg, at)
				return err
			}))
			return e
		}
		resolve := func(at time.Time) (store.Event, bool) {
			t.Helper()
			var e store.Event
			var changed bool
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				var err error
				e, changed, err = tx.EventResolve(ctx, "queue.backlog", at)
				return err
			}))
			return e, changed
		}

		first := record(t0, "warn", "one")
		require.Equal(t, int64(1), first.Count)
		require.Equal(t, store.EventOpen, first.Status)

		second := record(t0.Add(time.Minute), "error", "two")
		require.Equal(t, first.ID, second.ID, "the same key is one row")
		require.Equal(t, int64(2), second.Count)
		require.True(t, second.FirstAt.Equal(t0))
		require.True(t, second.LastAt.Equal(t0.Add(time.Minute)))
		require.Equal(t, "error", second.Severity)
		require.Equal(t, "two", second.Message)

		resolved, changed := resolve(t0.Add(2 * time.Minute))
		require.True(t, changed)
		require.Equal(t, store.EventResolved, resolved.Status)
		require.True(t, resolved.ResolvedAt.Equal(t0.Add(2*time.Minute)))
		_, changed = resolve(t0.Add(3 * time.Minute))
		require.False(t, changed, "resolving twice changes nothing")

		open, err := st.EventList(ctx, store.EventOpen, 10)
		require.NoError(t, err)
		require.Empty(t, open)

		again := record(t0.Add(4*time.Minute), "warn", "three")
		require.Equal(t, store.EventOpen, again.Status, "a resolved event that happens again opens")
		require.Nil(t, again.ResolvedAt)
		require.Equal(t, int64(3), again.Count)

		record2 := func(key string, at time.Time) {
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				_, err := tx.EventRecord(ctx, key, "info", "x", at)
				return err
			}))
		}
		record2("adapter.offline.x", t0.Add(5*time.Minute))
		all, err := st.EventList(ctx, "", 10)
		require.NoError(t, err)
		require.Len(t, all, 2)
		require.Equal(t, "adapter.offline.x", all[0].Key, "most recent first")

		err = st.InTx(ctx, func(tx *store.Tx) error {
			_, _, err := tx.EventResolve(ctx, "no.such.event", t0)
			return err
		})
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

func TestErrorLogs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		capture, tenant := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
		insert := func(source string, at time.Time, ctxJSON string) {
			t.Helper()
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				_, err := tx.ErrorLogInsert(ctx, store.ErrorLog{Source: source, Code: "not_found", Stage: "fetch", Severity: "error",
					Message: "capture failed", Detail: "gone", Context: json.RawMessage(ctxJSON), CaptureID: &capture, TenantID: &tenant, CreatedAt: at})
				return err
			}))
		}
		insert("capture", t0, `{"adapter": "x"}`)
		insert("download", t0.Add(time.Hour), "")
		insert("capture", t0.Add(2*time.Hour), "")

		all, err := st.ErrorLogList(ctx, store.ErrorLogFilter{Limit: 10})
		require.NoError(t, err)
		require.Len(t, all, 3)
		require.True(t, all[0].CreatedAt.Equal(t0.Add(2*time.Hour)), "newest first")
		require.JSONEq(t, `{}`, string(all[0].Context))
		oldest := all[2]
		require.JSONEq(t, `{"adapter": "x"}`, string(oldest.Context))
		require.Equal(t, capture, *oldest.CaptureID)
		require.Equal(t, tenant, *oldest.TenantID)
		require.Nil(t, oldest.SubmissionID)
		require.Equal(t, "not_found", oldest.Code)

		captures, err := st.ErrorLogList(ctx, store.ErrorLogFilter{Source: "capture", Limit: 10})
		require.NoError(t, err)
		require.Len(t, captures, 2)
		before, err := st.ErrorLogList(ctx, store.ErrorLogFilter{Before: t0.Add(90 * time.Minute), Limit: 1})
		require.NoError(t, err)
		require.Len(t, before, 1)
		require.Equal(t, "download", before[0].Source)

		var n int64
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			n, err = tx.ErrorLogDeleteBefore(ctx, t0.Add(time.Hour), 100)
			return err
		}))
		require.Equal(t, int64(1), n, "only the row older than the cutoff")
		left, err := st.ErrorLogList(ctx, store.ErrorLogFilter{Limit: 10})
		require.NoError(t, err)
		require.Len(t, left, 2)
	})
}

// A failed step inside a savepoint leaves nothing behind, not even its
// after-commit signals, and the transaction goes on to commit what came
// before and after it; a step that succeeds stays. On PostgreSQL the
// failing statement would otherwise abort the whole transaction.
func TestSavepointUndoesOnlyItsStep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		var signals []string
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.EventRecord(ctx, "before", "info", "written before the step", at); err != nil {
				return err
			}
			err := tx.Savepoint(ctx, func() error {
				if _, err := tx.EventRecord(ctx, "undone", "info", "written by the failed step", at); err != nil {
					return err
				}
				tx.AfterCommit(func() { signals = append(signals, "undone") })
				_, err := tx.EventRecord(ctx, "undone", "no such severity", "violates the check", at)
				return err
			})
			require.Error(t, err, "the step's own failure is returned")
			require.NoError(t, tx.Savepoint(ctx, func() error {
				tx.AfterCommit(func() { signals = append(signals, "kept") })
				_, err := tx.EventRecord(ctx, "kept", "info", "written by the step that worked", at)
				return err
			}))
			_, err = tx.EventRecord(ctx, "after", "info", "written after the step", at)
			return err
		}))
		events, err := st.EventList(ctx, "", 10)
		require.NoError(t, err)
		var keys []string
		for _, e := range events {
			keys = append(keys, e.Key)
		}
		require.ElementsMatch(t, []string{"before", "kept", "after"}, keys)
		require.Equal(t, []string{"kept"}, signals)
	})
}
