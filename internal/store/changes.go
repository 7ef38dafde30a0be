package store

import (
	"context"
	"database/sql"
	"sync"

	"github.com/google/uuid"
)

// The change mark tells the layers above whether anything at all was
// committed to the database since they last looked, so that an answer
// computed from it (a listing's page, a token's tenant) may be given again
// without reading it again. On SQLite it is exact and cheap: SQLite's
// PRAGMA data_version on a connection that never writes changes after
// every commit of any other connection, this process's writer and other
// processes' alike (`monitor capture` or `admin` beside serve). PostgreSQL
// has no such counter that changes only once a commit is visible, so it
// gives no mark. For a tenant's library listing alone it has one of its
// own: LibraryMark.

// changeWatch asks SQLite's data_version on its own read connection.
type changeWatch struct {
	db *sql.DB
	mu sync.Mutex
	// version is the data_version last read; mark is bumped when it moves.
	version int64
	mark    uint64
}

func newChangeWatch(db *sql.DB) *changeWatch {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return &changeWatch{db: db}
}

// ChangeMark is a number that moves whenever a transaction was committed
// to the database since the previous call, and ok is true when the store
// can tell (SQLite). Data read after ChangeMark returned m is at least as
// new as m: a cache that keeps it under m and gives it only while the mark
// is still m never gives a stale answer. It fails closed: on any error
// ok is false.
func (s *Store) ChangeMark(ctx context.Context) (mark uint64, ok bool) {
	w := s.changes
	if w == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var v int64
	if err := w.db.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		w.mark++ // whatever was kept under the old mark is not given again
		return 0, false
	}
	if v != w.version {
		w.version = v
		w.mark++
	}
	return w.mark, true
}

// LibraryMark is ChangeMark for what a tenant's library listing shows (its
// saved references, their collections and those collections' captures),
// and ok is true when the store can tell. On SQLite it is ChangeMark. On
// PostgreSQL it is the tenant's library version (migration
// 0030_library_versions.sql): every commit that changes one of those rows
// gives each tenant saving it a new version in the same transaction, so it
// holds across replicas; it costs one query. Data read after LibraryMark
// returned m is at least as new as m. It fails closed: on any error ok is
// false.
func (s *Store) LibraryMark(ctx context.Context, tenantID uuid.UUID) (mark uint64, ok bool) {
	if s.changes != nil {
		return s.ChangeMark(ctx)
	}
	if s.d.name() != "postgres" {
		return 0, false
	}
	var v int64
	if err := s.read.QueryRowContext(ctx, `SELECT monitor_library_version($1)`, tenantID).Scan(&v); err != nil {
		return 0, false
	}
	return uint64(v), true
}
