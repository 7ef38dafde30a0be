package store

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// groupFixture is a SQLite store with a table of names and a way to hold
// the writer: the first caller's function blocks until release is closed,
// so that the callers after it queue for the same transaction.
type groupFixture struct {
	st *Store
}

func newGroupFixture(t *testing.T) groupFixture {
	t.Helper()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "g.db"))
	_, err := st.WriteDB().ExecContext(context.Background(), `CREATE TABLE names (name TEXT PRIMARY KEY)`)
	require.NoError(t, err)
	// A slow test machine must not cut the groups these tests build.
	st.group.window = time.Minute
	return groupFixture{st: st}
}

func (f groupFixture) insert(ctx context.Context, tx *Tx, name string) error {
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO names (name) VALUES ($1)`, name)
	return err
}

// committed is what a reader sees: only committed names.
func (f groupFixture) committed(t *testing.T) []string {
	t.Helper()
	rows, err := f.st.read.QueryContext(context.Background(), `SELECT name FROM names`)
	require.NoError(t, err)
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		names = append(names, n)
	}
	require.NoError(t, rows.Err())
	sort.Strings(names)
	return names
}

// hold starts a caller whose function inserts name and then waits until
// want others queue behind it. It returns the caller's result.
func (f groupFixture) hold(t *testing.T, name string, want int32) <-chan error {
	return f.holdThen(t, name, want, nil)
}

// holdThen is hold with the function ending in ends.
func (f groupFixture) holdThen(t *testing.T, name string, want int32, ends error) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	inside := make(chan struct{})
	go func() {
		done <- f.st.InTx(context.Background(), func(tx *Tx) error {
			if err := f.insert(context.Background(), tx, name); err != nil {
				return err
			}
			close(inside)
			for f.st.group.waiting.Load() < want {
				time.Sleep(time.Millisecond)
			}
			return ends
		})
	}()
	<-inside
	return done
}

// TestGroupedWritesCommitTogether queues three callers behind a first one:
// they run in its transaction (nothing any of them wrote is visible to a
// reader while the others run), a failing one is rolled back alone and
// returns its own error at once, and every other caller returns only once
// its write is committed and readable.
func TestGroupedWritesCommitTogether(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	ctx := context.Background()
	first := f.hold(t, "a", 3)

	boom := errors.New("no room for c")
	var wg sync.WaitGroup
	errs := map[string]error{}
	var mu sync.Mutex
	seen := map[string][]string{}
	for _, name := range []string{"b", "c", "d"} {
		wg.Go(func() {
			err := f.st.InTx(ctx, func(tx *Tx) error {
				mu.Lock()
				seen[name] = f.committed(t)
				mu.Unlock()
				if err := f.insert(ctx, tx, name); err != nil {
					return err
				}
				if name == "c" {
					return boom
				}
				return nil
			})
			mu.Lock()
			errs[name] = err
			mu.Unlock()
		})
	}
	require.NoError(t, <-first)
	wg.Wait()

	require.NoError(t, errs["b"])
	require.ErrorIs(t, errs["c"], boom)
	require.NoError(t, errs["d"])
	for name, names := range seen {
		require.Empty(t, names, "%s ran in the first caller's transaction, before anything was committed", name)
	}
	require.Equal(t, []string{"a", "b", "d"}, f.committed(t), "c's insert was rolled back alone")
}

// TestGroupedWritesPanicAndCancel: a caller that panics gets its panic back
// and its write is rolled back; a caller whose context is cancelled in the
// middle of its function stops at its next statement, with its first
// write rolled back; the others in the group commit.
func TestGroupedWritesPanicAndCancel(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	ctx := context.Background()
	first := f.hold(t, "a", 3)

	var wg sync.WaitGroup
	var panicked any
	wg.Go(func() {
		defer func() { panicked = recover() }()
		_ = f.st.InTx(ctx, func(tx *Tx) error {
			require.NoError(t, f.insert(ctx, tx, "p"))
			panic("p gave up")
		})
	})
	var cancelErr error
	wg.Go(func() {
		cctx, cancel := context.WithCancel(ctx)
		cancelErr = f.st.InTx(cctx, func(tx *Tx) error {
			if err := f.insert(cctx, tx, "x1"); err != nil {
				return err
			}
			cancel()
			return f.insert(cctx, tx, "x2")
		})
	})
	var lastErr error
	wg.Go(func() {
		lastErr = f.st.InTx(ctx, func(tx *Tx) error { return f.insert(ctx, tx, "z") })
	})
	require.NoError(t, <-first)
	wg.Wait()

	require.Equal(t, "p gave up", panicked)
	require.ErrorIs(t, cancelErr, context.Canceled)
	require.NoError(t, lastErr)
	require.Equal(t, []string{"a", "z"}, f.committed(t))
}

// TestGroupLostTransactionFailsEveryCaller: when SQLite rolls the shared
// transaction back (here a function ends it itself, as an I/O error would),
// no caller in the group is told its write was kept, and the next caller
// starts a new transaction.
func TestGroupLostTransactionFailsEveryCaller(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	ctx := context.Background()
	first := f.hold(t, "a", 1)

	lost := make(chan error, 1)
	go func() {
		lost <- f.st.InTx(ctx, func(tx *Tx) error {
			if _, err := tx.tx.ExecContext(ctx, `ROLLBACK`); err != nil {
				return err
			}
			return errors.New("the disk is full")
		})
	}()
	require.ErrorContains(t, <-first, "rolled back")
	require.ErrorContains(t, <-lost, "the disk is full")
	require.Empty(t, f.committed(t))

	require.NoError(t, f.st.InTx(ctx, func(tx *Tx) error { return f.insert(ctx, tx, "after") }))
	require.Equal(t, []string{"after"}, f.committed(t))
}

// TestGroupFirstFailingRollsBackAlone: the first function of a group runs
// without a savepoint; when it fails, only its write is gone and the
// callers queued behind it commit in a transaction of their own.
func TestGroupFirstFailingRollsBackAlone(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t)
	ctx := context.Background()
	refused := errors.New("a is refused")
	first := f.holdThen(t, "a", 2, refused)

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, name := range []string{"b", "c"} {
		wg.Go(func() { errs[i] = f.st.InTx(ctx, func(tx *Tx) error { return f.insert(ctx, tx, name) }) })
	}
	require.ErrorIs(t, <-first, refused)
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.Equal(t, []string{"b", "c"}, f.committed(t))
}
