package main

import (
	"archive/zip"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	srcDir := t.TempDir()
	src := map[string]string{"MONITOR_DATA_DIR": srcDir, "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, src, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	allowFakeMedia(t, src)
	for _, u := range []string{"https://x.com/archivist_demo/status/2078399740166950912", "https://x.com/archivist_demo/status/2079906847374594048"} {
		_, errOut, code = cli(t, src, "capture", u, "--tenant", "alice", "--wait")
		require.Equal(t, 0, code, errOut)
	}
	snap := filepath.Join(t.TempDir(), "snap.zip")
	out, errOut, code := cli(t, src, "export", "snapshot", "-o", snap)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote snapshot "+snap)

	dstDir := t.TempDir()
	dst := map[string]string{"MONITOR_DATA_DIR": dstDir, "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code = cli(t, dst, "admin", "tenant", "create", "zed")
	require.Equal(t, 0, code, errOut)

	_, errOut, code = cli(t, dst, "import", "snapshot", snap)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "add --yes")

	// Refused: a damaged database, a newer schema. Nothing is staged.
	for name, edit := range map[string]func(db string){
		"damaged": func(db string) {
			b, err := os.ReadFile(db)
			require.NoError(t, err)
			for i := 4096; i < len(b) && i < 4096*6; i++ {
				b[i] ^= 0x5a
			}
			require.NoError(t, os.WriteFile(db, b, 0o600))
		},
		"newer": func(db string) {
			conn, err := sql.Open("sqlite", db)
			require.NoError(t, err)
			_, err = conn.Exec(`INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ('9999_future.sql', 'abc', '2030-01-01 00:00:00+00:00')`)
			require.NoError(t, err)
			require.NoError(t, conn.Close())
		},
	} {
		bad := rewriteSnapshot(t, snap, edit)
		_, errOut, code = cli(t, dst, "import", "snapshot", bad, "--yes")
		require.Equal(t, 1, code, name)
		require.Contains(t, errOut, "snapshot refused, nothing was replaced", name)
		if name == "newer" {
			require.Contains(t, errOut, "newer than this binary")
		}
		require.NoDirExists(t, filepath.Join(dstDir, "restore"))
	}

	out, errOut, code = cli(t, dst, "import", "snapshot", snap, "--yes")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "verified (")
	require.DirExists(t, filepath.Join(dstDir, "restore"))

	// The next start swaps it in.
	out, errOut, code = cli(t, dst, "admin", "tenant", "list")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "alice")
	require.NotContains(t, out, "zed")
	require.NoDirExists(t, filepath.Join(dstDir, "restore"))
	rollbacks, err := filepath.Glob(filepath.Join(dstDir, "rollback-*", "monitor.db"))
	require.NoError(t, err)
	require.Len(t, rollbacks, 1, "the old database is kept")

	for _, table := range []string{"tenants", "collections", "captures", "revisions", "tenant_collections", "assets", "blobs", "objects",
		"entities", "entity_versions", "revision_entities", "entity_relations"} {
		require.Equal(t, dumpTable(t, filepath.Join(srcDir, "monitor.db"), table), dumpTable(t, filepath.Join(dstDir, "monitor.db"), table), table)
	}
	require.Equal(t, hashTree(t, filepath.Join(srcDir, "objects")), hashTree(t, filepath.Join(dstDir, "objects")))
}

// rewriteSnapshot copies a snapshot zip with its database changed by edit.
func rewriteSnapshot(t *testing.T, snap string, edit func(db string)) string {
	t.Helper()
	dir := t.TempDir()
	zr, err := zip.OpenReader(snap)
	require.NoError(t, err)
	defer zr.Close()
	out := filepath.Join(dir, "edited.zip")
	f, err := os.Create(out)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		rc, err := e.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		if e.Name == "monitor.db" {
			db := filepath.Join(dir, "monitor.db")
			require.NoError(t, os.WriteFile(db, b, 0o600))
			edit(db)
			b, err = os.ReadFile(db)
			require.NoError(t, err)
		}
		w, err := zw.Create(e.Name)
		require.NoError(t, err)
		_, err = w.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return out
}

func dumpTable(t *testing.T, db, table string) string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	require.NoError(t, err)
	defer conn.Close()
	rows, err := conn.Query(`SELECT * FROM ` + table + ` ORDER BY 1, 2`)
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		fmt.Fprintln(&b, vals...)
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, b.String(), table)
	return b.String()
}

func hashTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() {
			if fi.Name() == ".tmp" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	}))
	require.NotEmpty(t, out)
	return out
}

// lastMigration is the number of the newest SQLite migration, as refusals
// name it ("migration 0007").
func lastMigration(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "store", "migrations", "sqlite", "*.sql"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return filepath.Base(files[len(files)-1])[:4]
}

// A snapshot is the whole database, so it could carry code: a trigger
// restored with it would run inside the next instance (one on tokens minted
// a hidden admin token on the next `token create`). Import refuses any
// schema that differs from the one Monitor's migrations create, naming the
// difference, and stages nothing.
func TestSnapshotRefusesChangedSchema(t *testing.T) {
	t.Parallel()
	srcDir := t.TempDir()
	src := map[string]string{"MONITOR_DATA_DIR": srcDir, "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, src, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	snap := filepath.Join(t.TempDir(), "snap.zip")
	_, errOut, code = cli(t, src, "export", "snapshot", "-o", snap)
	require.Equal(t, 0, code, errOut)

	dstDir := t.TempDir()
	dst := map[string]string{"MONITOR_DATA_DIR": dstDir, "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code = cli(t, dst, "admin", "tenant", "create", "zed")
	require.Equal(t, 0, code, errOut)

	mig := "migration " + lastMigration(t)
	for _, tc := range []struct {
		name, sql, want string
	}{
		{"trigger", `CREATE TRIGGER mint_admin AFTER INSERT ON tokens BEGIN
			INSERT INTO tokens (id, tenant_id, name, digest, created_at, admin) VALUES (NEW.id || 'x', NEW.tenant_id, '', randomblob(32), NEW.created_at, 1); END`,
			"its database has trigger mint_admin on tokens, which " + mig + " does not create"},
		{"view", `CREATE VIEW token_digests AS SELECT digest FROM tokens`,
			"its database has view token_digests, which " + mig + " does not create"},
		{"extra index", `CREATE INDEX tokens_name_idx ON tokens (name)`,
			"its database has index tokens_name_idx on tokens, which " + mig + " does not create"},
		{"dropped index", `DROP INDEX tokens_tenant_id_idx`,
			"its database lacks index tokens_tenant_id_idx on tokens, which " + mig + " creates"},
		{"added column", `ALTER TABLE tokens ADD COLUMN plaintext TEXT`,
			"its table tokens has column plaintext TEXT, which " + mig + " does not create"},
		{"queue trigger", `CREATE TRIGGER wake AFTER INSERT ON river_job BEGIN DELETE FROM tokens; END`,
			"its database has trigger wake on river_job, which River's queue migration "},
	} {
		bad := rewriteSnapshot(t, snap, func(db string) {
			conn, err := sql.Open("sqlite", db)
			require.NoError(t, err)
			_, err = conn.Exec(tc.sql)
			require.NoError(t, err, tc.name)
			require.NoError(t, conn.Close())
		})
		_, errOut, code := cli(t, dst, "import", "snapshot", bad, "--yes")
		require.Equal(t, 1, code, tc.name)
		require.Contains(t, errOut, "snapshot refused, nothing was replaced: ", tc.name)
		require.Contains(t, errOut, tc.want, tc.name)
		require.NoDirExists(t, filepath.Join(dstDir, "restore"), tc.name)
		leftovers, err := filepath.Glob(filepath.Join(dstDir, ".restore-*"))
		require.NoError(t, err)
		require.Empty(t, leftovers, tc.name)
	}
	// Nothing was restored: the next start still has this instance's tenants.
	out, errOut, code := cli(t, dst, "admin", "tenant", "list")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "zed")
	require.NotContains(t, out, "alice")

	// The snapshot as exported restores.
	_, errOut, code = cli(t, dst, "import", "snapshot", snap, "--yes")
	require.Equal(t, 0, code, errOut)
	out, errOut, code = cli(t, dst, "admin", "tenant", "list")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "alice")
}
