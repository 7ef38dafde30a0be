package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// SQLite has one writer, and every commit writes the pages the transaction
// changed to the WAL. Write transactions that queue behind each other touch
// the same pages (the ends of the same indexes, the same tenant row), so
// they are committed together: a caller that finds others waiting leaves
// the transaction open for the next one, which runs its function in the
// same transaction, and the last in line commits for all. Each function
// runs in a savepoint of its own, so one that fails is rolled back alone;
// every caller returns only after the commit its changes are in, with the
// commit's error if there is one. The group's first function runs without
// a savepoint: when it fails, the transaction is rolled back and the
// callers queued behind it start a new one.
//
// What a caller shares with the others in its group:
//   - Time: it waits for the functions after it in the group: at most
//     groupMax of them, and none that would start later than groupWindow
//     after the group's first function ended.
//   - Failure of the whole transaction: when the commit fails (a full disk,
//     an I/O error) or SQLite rolls the transaction back itself, every
//     caller in the group gets that error, as a caller alone would.
//
// A function's statements cannot be interrupted (sqliteConnector strips
// the cancellation from the writer's statements), because SQLite rolls the
// whole transaction back when a write is interrupted; a cancelled context
// still stops the function at its next statement, and its savepoint is
// rolled back.

// groupMax is how many callers' functions one commit holds at most.
const groupMax = 16

// groupWindow is how long after its first function ended a group still
// takes another: it bounds what the first caller waits.
const groupWindow = 2 * time.Millisecond

// txGroup is the write transaction being filled, and the callers queued
// for it.
type txGroup struct {
	mu      sync.Mutex   // held while a function runs
	waiting atomic.Int32 // callers queued on mu
	open    *groupTx     // nil when no transaction is open
	window  time.Duration
}

func newTxGroup() *txGroup { return &txGroup{window: groupWindow} }

// groupTx is one transaction shared by a group of callers.
type groupTx struct {
	tx      *sql.Tx
	started time.Time     // when its first function ended
	n       int           // functions run in it
	kept    int           // of them, those that succeeded
	lost    error         // SQLite rolled the transaction back: it cannot commit
	done    chan struct{} // closed once committed or rolled back
	err     error         // the commit's error, set before done is closed
}

// inGroup is InTx on SQLite: fn runs in the group's open transaction, in
// a savepoint of its own, or first in a new one.
func (s *Store) inGroup(ctx context.Context, fn func(tx *Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	g := s.group
	g.waiting.Add(1)
	g.mu.Lock()
	g.waiting.Add(-1)
	gt := g.open
	if gt == nil {
		// The transaction outlives this caller's context: others join it.
		sqlTx, err := s.write.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			g.mu.Unlock()
			return fmt.Errorf("store: begin: %w", err)
		}
		gt = &groupTx{tx: sqlTx, done: make(chan struct{})}
		g.open = gt
	}
	tx := &Tx{tx: gt.tx, d: s.d, clock: s.clock}
	first := gt.n == 0
	var (
		ferr     error
		panicked any
	)
	if first {
		// Alone in the transaction: no savepoint, whose journal of every
		// page it changes would slow a long transaction (an import) down
		// by a fifth. If fn fails, the transaction is rolled back whole.
		ferr, panicked = call(tx, fn)
	} else {
		ferr, panicked = gt.run(ctx, tx, fn)
	}
	if ferr == nil {
		gt.kept++
	}
	if gt.n++; first {
		gt.started = time.Now()
	}
	if gt.lost != nil || (first && ferr != nil) || g.waiting.Load() == 0 || gt.n >= groupMax || time.Since(gt.started) >= g.window {
		g.open = nil
		gt.finish()
	}
	g.mu.Unlock()
	if panicked != nil {
		panic(panicked)
	}
	if ferr != nil {
		return ferr
	}
	<-gt.done
	if gt.err != nil {
		return gt.err
	}
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}

// groupSavepoint holds one caller's changes inside the group's
// transaction. Tx.Savepoint nests inside it under a name of its own.
const groupSavepoint = "monitor_caller"

// call runs fn, returning its error and what it panicked with.
func call(tx *Tx, fn func(tx *Tx) error) (ferr error, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
			ferr = errors.New("store: the transaction's function panicked")
		}
	}()
	return fn(tx), nil
}

// run runs fn in a savepoint, rolled back when fn fails or panics. It
// returns fn's error and what it panicked with.
func (gt *groupTx) run(ctx context.Context, tx *Tx, fn func(tx *Tx) error) (ferr error, panicked any) {
	bg := context.WithoutCancel(ctx)
	if _, err := gt.tx.ExecContext(bg, "SAVEPOINT "+groupSavepoint); err != nil {
		gt.lost = err
		return fmt.Errorf("store: begin: %w", err), nil
	}
	ferr, panicked = call(tx, fn)
	if ferr != nil {
		if _, err := gt.tx.ExecContext(bg, "ROLLBACK TO SAVEPOINT "+groupSavepoint); err != nil {
			// No savepoint left: SQLite rolled the whole transaction back
			// (an I/O error, a full disk). Nothing in it can commit.
			gt.lost = err
			return ferr, panicked
		}
	}
	if _, err := gt.tx.ExecContext(bg, "RELEASE SAVEPOINT "+groupSavepoint); err != nil {
		gt.lost = err
		if ferr == nil {
			ferr = fmt.Errorf("store: commit: %w", err)
		}
	}
	return ferr, panicked
}

// finish commits the group's transaction, or rolls it back when it was
// lost or nothing in it is to be kept, and lets its callers go.
func (gt *groupTx) finish() {
	if gt.lost == nil && gt.kept == 0 {
		// Committing it empty would still write: a reader would see a
		// commit (PRAGMA data_version) where nothing changed.
		_ = gt.tx.Rollback()
	} else if gt.lost != nil {
		_ = gt.tx.Rollback()
		gt.err = fmt.Errorf("store: commit: the transaction was rolled back: %w", gt.lost)
	} else if err := gt.tx.Commit(); err != nil {
		gt.err = fmt.Errorf("store: commit: %w", err)
	}
	close(gt.done)
}
