package main

import (
	"database/sql"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

func requirePostgres(t *testing.T) {
	t.Helper()
	if !slices.Contains(storetest.Drivers(), "postgres") {
		t.Skip("PostgreSQL is not reachable (MONITOR_TEST_POSTGRES_URL)")
	}
}

func withUser(t *testing.T, raw, user, password string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	u.User = url.UserPassword(user, password)
	return u.String()
}

// TestPostgresMigrateAndServeChecks drives monitor migrate and serve on a
// fresh PostgreSQL database through the bad inputs of scale mode.
func TestPostgresMigrateAndServeChecks(t *testing.T) {
	t.Parallel()
	requirePostgres(t)
	ownerURL, appURL := storetest.NewPostgresDatabase(t)
	owner := map[string]string{"MONITOR_DATABASE_URL": ownerURL, "MONITOR_LOG_LEVEL": "warn", "MONITOR_DATA_DIR": t.TempDir()}

	_, errOut, code := cli(t, owner, "migrate")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: store: set MONITOR_APP_PASSWORD (or _FILE): the password `monitor migrate` gives the monitor_app role that `monitor serve` connects as\n", errOut)

	owner["MONITOR_APP_PASSWORD"] = storetest.AppPassword
	out, errOut, code := cli(t, owner, "migrate")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "applied 0003_security.sql\n")

	app := map[string]string{"MONITOR_DATABASE_URL": appURL, "MONITOR_LOG_LEVEL": "warn", "MONITOR_DATA_DIR": t.TempDir()}
	out, errOut, code = cli(t, app, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, "monitor_app creates tenants through row-level security: %s", errOut)
	require.Regexp(t, `^[0-9a-f-]{36}\n$`, out)
	_, errOut, code = cli(t, app, "admin", "token", "create", "--tenant", "alice")
	require.Equal(t, 0, code, errOut)

	db, err := sql.Open("pgx", ownerURL)
	require.NoError(t, err)
	defer db.Close()
	bypass := "monitor_test_bypass"
	_, _ = db.Exec(`CREATE ROLE ` + bypass + ` LOGIN BYPASSRLS PASSWORD 'bypass'`)

	cases := []struct {
		name string
		url  string
		want string
	}{
		// The local server trusts every password, so a fake one refuses it
		// the way a server with password authentication does.
		{"wrong password", "postgres://monitor_app:wrong@" + testkit.RefusingPostgres(t, "28P01", `password authentication failed for user "monitor_app"`) + "/monitor",
			`refused the password of role "monitor_app"; check the password in MONITOR_DATABASE_URL`},
		{"missing role", withUser(t, appURL, "nobody_here", "x"),
			`has no role "nobody_here"; run ` + "`monitor migrate`" + ` with the owner's connection first`},
		{"superuser", ownerURL, `is a superuser, which row-level security does not bind; connect as monitor_app instead`},
		{"bypass RLS", withUser(t, appURL, bypass, "bypass"), `can bypass row-level security (BYPASSRLS)`},
		{"missing database", strings.Replace(appURL, "/monitor_test_", "/nodb_", 1), `has no database "nodb_`},
		{"unreachable", "postgres://monitor_app:x@127.0.0.1:1/monitor?connect_timeout=2", `cannot reach PostgreSQL at 127.0.0.1:1`},
	}
	for _, tc := range cases {
		env := map[string]string{"MONITOR_DATABASE_URL": tc.url, "MONITOR_LOG_LEVEL": "warn", "MONITOR_DATA_DIR": t.TempDir()}
		_, errOut, code := cli(t, env, "serve", "--http-addr", "127.0.0.1:0")
		require.Equal(t, 1, code, "%s: %s", tc.name, errOut)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "%s: one line: %q", tc.name, errOut)
		require.Contains(t, errOut, tc.want, tc.name)
		require.NotContains(t, errOut, "wrong", "%s: the password never appears", tc.name)
	}

	// A database migrated by a newer monitor.
	_, err = db.Exec(`INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ('0999_future.sql', 'x', now())`)
	require.NoError(t, err)
	_, errOut, code = cli(t, app, "serve", "--http-addr", "127.0.0.1:0")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "database schema is newer than this binary: the database has migration 0999_future.sql")
}

// TestPostgresConcurrentMigrate runs two monitor migrate processes at once
// on one empty database: they take turns and each file is applied once.
func TestPostgresConcurrentMigrate(t *testing.T) {
	t.Parallel()
	requirePostgres(t)
	ownerURL, _ := storetest.NewPostgresDatabase(t)
	env := map[string]string{"MONITOR_DATABASE_URL": ownerURL, "MONITOR_APP_PASSWORD": storetest.AppPassword, "MONITOR_LOG_LEVEL": "warn"}
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := map[string]string{"MONITOR_DATA_DIR": t.TempDir()}
			for k, v := range env {
				e[k] = v
			}
			outs[i], errs[i] = binary(t, e, "migrate").CombinedOutput()
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0], string(outs[0]))
	require.NoError(t, errs[1], string(outs[1]))
	applied := strings.Count(string(outs[0]), "applied ") + strings.Count(string(outs[1]), "applied ")
	db, err := sql.Open("pgx", ownerURL)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n))
	require.Equal(t, n, applied, "every file applied exactly once between the two")
	require.GreaterOrEqual(t, n, 4)
}

// TestPostgresMigrateAsOwnerRole migrates as a dedicated owner role, as
// docs/deploy.md sets it up (BYPASSRLS and CREATEROLE, not a superuser):
// twice, as every release does; and refuses an owner without BYPASSRLS
// before changing anything.
func TestPostgresMigrateAsOwnerRole(t *testing.T) {
	t.Parallel()
	requirePostgres(t)
	admin, err := sql.Open("pgx", storetest.PostgresURL())
	require.NoError(t, err)
	defer admin.Close()
	_, _ = admin.Exec(`CREATE ROLE monitor_test_owner LOGIN BYPASSRLS CREATEROLE PASSWORD 'owner'`)
	_, _ = admin.Exec(`CREATE ROLE monitor_test_plain LOGIN PASSWORD 'plain'`)

	ownerURL, _ := storetest.NewPostgresDatabase(t)
	u, err := url.Parse(ownerURL)
	require.NoError(t, err)
	name := strings.TrimPrefix(u.Path, "/")
	_, err = admin.Exec(`ALTER DATABASE ` + name + ` OWNER TO monitor_test_owner`)
	require.NoError(t, err)
	_, err = admin.Exec(`GRANT ALL ON DATABASE ` + name + ` TO monitor_test_owner`)
	require.NoError(t, err)
	// PostgreSQL 15: the public schema belongs to pg_database_owner.
	env := map[string]string{"MONITOR_DATABASE_URL": withUser(t, ownerURL, "monitor_test_plain", "plain"),
		"MONITOR_APP_PASSWORD": storetest.AppPassword, "MONITOR_LOG_LEVEL": "warn", "MONITOR_DATA_DIR": t.TempDir()}
	_, errOut, code := cli(t, env, "migrate")
	require.Equal(t, 1, code)
	require.Equal(t, "monitor: store: role \"monitor_test_plain\" cannot run monitor migrate: the database owner needs BYPASSRLS (a superuser runs: ALTER ROLE monitor_test_plain BYPASSRLS CREATEROLE); see docs/deploy.md\n", errOut)

	env["MONITOR_DATABASE_URL"] = withUser(t, ownerURL, "monitor_test_owner", "owner")
	for range 2 {
		_, errOut, code := cli(t, env, "migrate")
		require.Equal(t, 0, code, errOut)
	}
}
