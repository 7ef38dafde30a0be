package store

import (
	"container/list"
	"context"
	"database/sql/driver"

	"modernc.org/sqlite"
)

// SQLite parses every statement it runs; the driver prepares a statement
// for each call and finalizes it after, so a busy archive spent about a
// fifth of its CPU time in SQLite's parser, on the same few hundred
// queries. Each connection here keeps its prepared statements by query
// text, least recently used first out, and runs a query on its kept
// statement. River's queries, on the shared write connection, are kept the
// same way.

// stmtCacheSize is how many prepared statements one connection keeps.
// Monitor's and River's fixed queries fit; queries built from a search or
// a filter come and go.
const stmtCacheSize = 512

// sqliteConnector opens SQLite connections that keep their statements.
// uncancelled connections run every statement to its end even when its
// context is cancelled: SQLite rolls the whole transaction back when a
// write is interrupted, and the writer's transaction holds other callers'
// changes too (txgroup.go). database/sql still refuses to start a
// statement on a cancelled context.
type sqliteConnector struct {
	driver.Connector
	uncancelled bool
}

func newSQLiteConnector(dsn string) (sqliteConnector, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return sqliteConnector{}, err
	}
	return sqliteConnector{Connector: base}, nil
}

func (c sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(sqliteConn)
	if !ok {
		return conn, nil // a driver without what the cache needs: unkept statements
	}
	return &stmtConn{sqliteConn: inner, kept: map[string]*list.Element{}, order: list.New(), uncancelled: c.uncancelled}, nil
}

// sqliteConn is what the driver's connection offers and the pool uses.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// sqliteStmt is what the driver's statements offer.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// sqliteRows is what the driver's rows offer, column types included.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// stmtConn is a connection with its kept statements. The pool hands a
// connection to one caller at a time, so it needs no lock of its own.
type stmtConn struct {
	sqliteConn
	kept        map[string]*list.Element // query → element of order holding a *keptStmt
	order       *list.List               // most recently used first
	uncancelled bool                     // see sqliteConnector
}

// stmtContext is the context a statement runs with.
func (c *stmtConn) stmtContext(ctx context.Context) context.Context {
	if c.uncancelled {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// keptStmt is one prepared statement. busy is set while rows read from it:
// the same query asked again meanwhile (a query inside a loop over its own
// rows) gets a statement of its own.
type keptStmt struct {
	query   string
	stmt    sqliteStmt
	busy    bool
	evicted bool // out of the cache while busy: closed when its rows close
}

// take returns the kept statement for query, preparing and keeping it
// first; nil when it is busy (the caller runs the query unkept).
func (c *stmtConn) take(ctx context.Context, query string) (*keptStmt, error) {
	if e, ok := c.kept[query]; ok {
		c.order.MoveToFront(e)
		k := e.Value.(*keptStmt)
		if k.busy {
			return nil, nil
		}
		return k, nil
	}
	st, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s, ok := st.(sqliteStmt)
	if !ok {
		_ = st.Close()
		return nil, nil
	}
	k := &keptStmt{query: query, stmt: s}
	c.kept[query] = c.order.PushFront(k)
	for c.order.Len() > stmtCacheSize {
		old := c.order.Back()
		c.order.Remove(old)
		o := old.Value.(*keptStmt)
		delete(c.kept, o.query)
		if o.busy {
			o.evicted = true
		} else {
			_ = o.stmt.Close()
		}
	}
	return k, nil
}

func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	ctx = c.stmtContext(ctx)
	k, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return k.stmt.ExecContext(ctx, args)
}

func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	ctx = c.stmtContext(ctx)
	k, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	r, err := k.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	rows, ok := r.(sqliteRows)
	if !ok {
		return r, nil
	}
	k.busy = true
	return &keptRows{sqliteRows: rows, k: k}, nil
}

// Unwrap is the driver's own connection.
func (c *stmtConn) Unwrap() driver.Conn { return c.sqliteConn }

// Close finalizes the kept statements before the connection, which SQLite
// would otherwise keep open as a zombie until they were.
func (c *stmtConn) Close() error {
	for e := c.order.Front(); e != nil; e = e.Next() {
		_ = e.Value.(*keptStmt).stmt.Close()
	}
	c.kept, c.order = nil, list.New()
	return c.sqliteConn.Close()
}

// keptRows frees its statement for the next query when closed.
type keptRows struct {
	sqliteRows
	k *keptStmt
}

func (r *keptRows) Close() error {
	err := r.sqliteRows.Close()
	r.k.busy = false
	if r.k.evicted {
		if e := r.k.stmt.Close(); err == nil {
			err = e
		}
	}
	return err
}
