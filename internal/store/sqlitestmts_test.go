package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// keptConn is the write pool's one connection, as the statement cache sees it.
func keptConn(t *testing.T, db *sql.DB) *stmtConn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	var kc *stmtConn
	require.NoError(t, conn.Raw(func(c any) error {
		var ok bool
		kc, ok = c.(*stmtConn)
		require.True(t, ok, "the SQLite connection keeps its statements")
		return nil
	}))
	return kc
}

// TestSQLiteStatementsKept runs a query twice on one connection: the second
// run reuses the first one's statement and gets the same answer with other
// arguments.
func TestSQLiteStatementsKept(t *testing.T) {
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "monitor.db"))
	db := st.WriteDB()
	_, err := db.ExecContext(ctx, `CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`)
	require.NoError(t, err)
	const ins = `INSERT INTO kv (k, v) VALUES ($1, $2)`
	for i := range 3 {
		_, err := db.ExecContext(ctx, ins, i, fmt.Sprintf("v%d", i))
		require.NoError(t, err)
	}
	kc := keptConn(t, db)
	require.Contains(t, kc.kept, ins)
	n := kc.order.Len()

	const get = `SELECT v FROM kv WHERE k = $1`
	for i := range 3 {
		var v string
		require.NoError(t, db.QueryRowContext(ctx, get, i).Scan(&v))
		require.Equal(t, fmt.Sprintf("v%d", i), v)
	}
	require.Equal(t, n+1, kc.order.Len(), "one statement for the three reads")

	// A unique violation on a kept statement leaves it usable.
	_, err = db.ExecContext(ctx, ins, 1, "again")
	require.Error(t, err)
	require.True(t, st.d.isUniqueViolation(err))
	_, err = db.ExecContext(ctx, ins, 3, "v3")
	require.NoError(t, err)
}

// TestSQLiteStatementInsideItsOwnRows asks a query again while its rows are
// still read, as a loop that looks up more of the same would: the inner
// query runs on a statement of its own and the outer rows go on unharmed.
func TestSQLiteStatementInsideItsOwnRows(t *testing.T) {
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "monitor.db"))
	err := st.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `CREATE TABLE n (i INTEGER PRIMARY KEY)`); err != nil {
			return err
		}
		for i := 1; i <= 5; i++ {
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO n (i) VALUES ($1)`, i); err != nil {
				return err
			}
		}
		const q = `SELECT i FROM n WHERE i >= $1 ORDER BY i`
		rows, err := tx.tx.QueryContext(ctx, q, 1)
		if err != nil {
			return err
		}
		defer rows.Close()
		var outer, inner []int
		for rows.Next() {
			var i int
			if err := rows.Scan(&i); err != nil {
				return err
			}
			outer = append(outer, i)
			var first int
			if err := tx.tx.QueryRowContext(ctx, q, i).Scan(&first); err != nil {
				return err
			}
			inner = append(inner, first)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		require.Equal(t, []int{1, 2, 3, 4, 5}, outer)
		require.Equal(t, []int{1, 2, 3, 4, 5}, inner)
		return nil
	})
	require.NoError(t, err)
}

// TestSQLiteStatementCacheBounded runs more distinct queries than a
// connection keeps: the oldest go, a query whose rows are open while it is
// pushed out is finalized once they close, and every query still answers.
func TestSQLiteStatementCacheBounded(t *testing.T) {
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "monitor.db"))
	db := st.WriteDB()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()

	open, err := conn.QueryContext(ctx, `SELECT value FROM json_each('[10, 20, 30]')`)
	require.NoError(t, err)
	require.True(t, open.Next())
	for i := range stmtCacheSize + 10 {
		var got int
		require.NoError(t, conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d + $1`, i), 1).Scan(&got))
		require.Equal(t, i+1, got)
	}
	var kc *stmtConn
	require.NoError(t, conn.Raw(func(c any) error { kc = c.(*stmtConn); return nil }))
	require.Equal(t, stmtCacheSize, kc.order.Len())
	require.Len(t, kc.kept, stmtCacheSize)
	require.NotContains(t, kc.kept, `SELECT value FROM json_each('[10, 20, 30]')`)

	// The pushed-out statement still reads its rows to the end.
	var vals []int
	for ok := true; ok; ok = open.Next() {
		var v int
		require.NoError(t, open.Scan(&v))
		vals = append(vals, v)
	}
	require.NoError(t, open.Err())
	require.NoError(t, open.Close())
	require.Equal(t, []int{10, 20, 30}, vals)
}
