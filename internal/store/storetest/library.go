package storetest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// SeedLibrary gives tenantID n more saved collections, copies of the
// complete, saved collection template (each its own collection, capture
// and revision with the template's content), saved one second apart
// before now, so a benchmark has a large library without n real captures.
// url is the store's connection string (NewWithURL).
func SeedLibrary(tb testing.TB, url string, tenantID, template uuid.UUID, n int) {
	tb.Helper()
	SeedLibraryContent(tb, url, tenantID, template, n, nil)
}

// SeedLibraryContent is SeedLibrary with each copy's revision content
// (its content JSON) given by contentFn(i, the template's content JSON),
// or the template's when contentFn is nil. It returns the new revisions'
// ids in order; they are not in the search index (SearchIndexRevision
// them, as a migration's backfill would, then Analyze).
func SeedLibraryContent(tb testing.TB, url string, tenantID, template uuid.UUID, n int,
	contentFn func(i int, template string) string) []uuid.UUID {
	tb.Helper()
	ctx := context.Background()
	driver, dsn := "pgx", url
	if p, ok := strings.CutPrefix(url, "sqlite://"); ok {
		driver, dsn = "sqlite", "file:"+p+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatalf("storetest: seed library: %v", err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatalf("storetest: seed library: %v", err)
	}
	defer func() { _ = tx.Rollback() }()
	if driver == "pgx" {
		if _, err := tx.ExecContext(ctx, `SELECT set_config('app.tenant_id', $1, true)`, tenantID.String()); err != nil {
			tb.Fatalf("storetest: seed library: %v", err)
		}
	}
	var (
		visibility, scope, access, platform, etype, oscope, extID, adapter, source string
		hash, content, provider                                                    string
		bytes                                                                      int64
	)
	err = tx.QueryRowContext(ctx, `SELECT c.visibility, c.data_scope, c.access_scope, c.platform, c.entity_type, c.object_scope,
			c.external_id, c.adapter_id, c.source_url, r.content_hash, r.content_json, r.content_bytes, p.provider_id
		 FROM collections c JOIN revisions r ON r.id = c.current_revision_id JOIN captures p ON p.id = r.capture_id
		 WHERE c.id = $1`, template).Scan(&visibility, &scope, &access, &platform, &etype, &oscope, &extID, &adapter, &source,
		&hash, &content, &bytes, &provider)
	if err != nil {
		tb.Fatalf("storetest: seed library: read the template: %v", err)
	}
	now := time.Now().UTC()
	ids := make([]uuid.UUID, 0, n)
	const batch = 100
	for start := 0; start < n; start += batch {
		end := min(n, start+batch)
		var cols, caps, revs, saves []any
		for i := start; i < end; i++ {
			cid, pid, rid := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
			at := now.Add(-time.Duration(i+1) * time.Second)
			cols = append(cols, cid, tenantID, visibility, scope, access, platform, etype, oscope,
				extID+"-seed-"+strconv.Itoa(i), adapter, source, rid, at, at)
			caps = append(caps, pid, cid, tenantID, visibility, scope, access, adapter, provider, "complete", rid, at, at, at)
			body, bodyHash, bodyBytes := content, hash, bytes
			if contentFn != nil {
				body = contentFn(i, content)
				sum := sha256.Sum256([]byte(body))
				bodyHash, bodyBytes = hex.EncodeToString(sum[:]), int64(len(body))
			}
			ids = append(ids, rid)
			revs = append(revs, rid, cid, scope, visibility, pid, bodyHash, body, bodyBytes, at, at)
			saves = append(saves, tenantID, cid, at, at)
		}
		for _, step := range []struct {
			sql  string
			args []any
			cols int
		}{
			{`INSERT INTO collections (id, tenant_id, visibility, data_scope, access_scope, platform, entity_type, object_scope,
				external_id, adapter_id, source_url, current_revision_id, created_at, updated_at) VALUES `, cols, 14},
			{`INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id,
				state, revision_id, created_at, updated_at, finished_at) VALUES `, caps, 13},
			{`INSERT INTO revisions (id, collection_id, data_scope, visibility, capture_id, content_hash, content_json,
				content_bytes, observed_at, created_at) VALUES `, revs, 10},
			{`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES `, saves, 4},
		} {
			if _, err := tx.ExecContext(ctx, step.sql+values(len(step.args)/step.cols, step.cols), step.args...); err != nil {
				tb.Fatalf("storetest: seed library: %v", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatalf("storetest: seed library: %v", err)
	}
	analyze(tb, driver, url, db)
	return ids
}

// Analyze refreshes the planner's statistics of the store at url (as
// NewWithURL gave it) after a bulk write of the test's own.
func Analyze(tb testing.TB, url string) {
	tb.Helper()
	driver, dsn := "pgx", url
	if p, ok := strings.CutPrefix(url, "sqlite://"); ok {
		driver, dsn = "sqlite", "file:"+p+"?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatalf("storetest: analyze: %v", err)
	}
	defer db.Close()
	analyze(tb, driver, url, db)
}

// analyze refreshes the planner's statistics after a bulk load, as
// autovacuum (PostgreSQL) or the periodic optimize would in production.
// On PostgreSQL only the owner may, so it connects as the superuser the
// test database was made with.
func analyze(tb testing.TB, driver, url string, db *sql.DB) {
	tb.Helper()
	if driver == "pgx" {
		app, err := neturl.Parse(url)
		if err != nil {
			tb.Fatalf("storetest: analyze: %v", err)
		}
		owner, err := neturl.Parse(PostgresURL())
		if err != nil {
			tb.Fatalf("storetest: analyze: %v", err)
		}
		owner.Path = app.Path
		if db, err = sql.Open("pgx", owner.String()); err != nil {
			tb.Fatalf("storetest: analyze: %v", err)
		}
		defer db.Close()
	}
	if _, err := db.Exec(`ANALYZE`); err != nil {
		tb.Fatalf("storetest: analyze: %v", err)
	}
}

// values is "($1, $2), ($3, $4)" for rows rows of cols columns.
func values(rows, cols int) string {
	var b strings.Builder
	n := 0
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := 0; c < cols; c++ {
			if c > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString("$" + strconv.Itoa(n))
		}
		b.WriteByte(')')
	}
	return b.String()
}
