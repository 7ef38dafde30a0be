package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

//go:embed migrations/postgres/*.sql
var postgresMigrations embed.FS

// AppRole is the PostgreSQL role core connects as in scale mode: no
// superuser, no BYPASSRLS, owns nothing, so row-level security holds.
const AppRole = "monitor_app"

// migrationLockKey is the session advisory lock that serializes `monitor
// migrate` runs on one database ("monitor" in ASCII).
const migrationLockKey = 0x6d6f6e69746f72

// postgresDialect is scale mode: PostgreSQL with forced row-level security.
type postgresDialect struct{}

func (postgresDialect) name() string { return "postgres" }

func (postgresDialect) migrations() fs.FS {
	sub, err := fs.Sub(postgresMigrations, "migrations/postgres")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

func (postgresDialect) isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

func (postgresDialect) tableExistsQuery() string {
	return `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1`
}

func (postgresDialect) purgeCandidatesQuery() string {
	return `SELECT collection_id, data_scope FROM monitor_purge_candidates($1, $2)`
}

func (postgresDialect) gcObjectsQuery() string {
	return `SELECT id, tenant_id, key, state FROM monitor_gc_objects($1, $2)`
}

func (postgresDialect) staleCapturesQuery() string {
	return `SELECT id, tenant_id FROM monitor_stale_captures($1, $2)`
}

func (postgresDialect) markGarbageQuery() string {
	return `SELECT monitor_object_mark_garbage($1)`
}

func (postgresDialect) lockCollectionQuery() string {
	return `SELECT 1 FROM collections WHERE id = $1 FOR UPDATE`
}

func (postgresDialect) lockKeyQuery() string {
	return `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`
}

func (postgresDialect) lockCaptureQuery() string {
	return `SELECT 1 FROM captures WHERE id = $1 FOR UPDATE`
}

func (postgresDialect) tenantSQL() string { return `SELECT set_config('app.tenant_id', $1, true)` }

func (postgresDialect) tokenTenantByDigestQuery() string {
	return `SELECT token_id, tenant_id, name, created_at, revoked_at, admin, tenant_name, tenant_status, library_version FROM monitor_token_tenant($1)`
}

func (postgresDialect) tenantByNameQuery() string {
	return `SELECT ` + tenantColumns + ` FROM monitor_tenant_by_name($1)`
}

func (postgresDialect) tenantListQuery() string {
	return `SELECT ` + tenantColumns + ` FROM monitor_tenant_list()`
}

func (postgresDialect) markDeliverableQuery() string {
	return `SELECT monitor_capture_mark_deliverable($1)`
}

// wakeDeliveriesQuery is empty: monitor_capture_mark_deliverable wakes them.
func (postgresDialect) wakeDeliveriesQuery() string { return "" }

func (postgresDialect) identityLookupQuery() string {
	return `SELECT ` + identityColumns + ` FROM monitor_identity_lookup($1, $2)`
}

func (postgresDialect) claimWorkQuery() string {
	return `SELECT ` + workColumns + ` FROM monitor_channel_work_claim($1, $2, $3, $4, $5)`
}

func (postgresDialect) workTenantQuery() string {
	return `SELECT tenant_id FROM monitor_channel_work_tenant($1)`
}

func (postgresDialect) idSet(n int) string { return fmt.Sprintf("SELECT unnest($%d::uuid[])", n) }

// idArg is an array literal of the ids.
func (postgresDialect) idArg(ids []uuid.UUID) string { return joinIDs(ids, "{", "}", "") }

func (postgresDialect) lockTenantQuery() string {
	return `SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE`
}

func (postgresDialect) schemaMigrationsDDL() string {
	return `CREATE TABLE IF NOT EXISTS schema_migrations (
	name TEXT PRIMARY KEY,
	sha256 TEXT NOT NULL,
	applied_at TIMESTAMPTZ NOT NULL
)`
}

// lockMigrations holds a session advisory lock on its own connection until
// unlock, so two migrators on one database take turns.
func (postgresDialect) lockMigrations(ctx context.Context, db *sql.DB) (func(), error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLockKey)); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLockKey))
		_ = conn.Close()
	}, nil
}

func openPostgres(ctx context.Context, url string, log *slog.Logger) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: MONITOR_DATABASE_URL is not a PostgreSQL connection string: %v", unwrapPgParse(err))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 16 // workers, requests and River's listener share it
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, postgresOpenError(cfg, err)
	}
	db := stdlib.OpenDBFromPool(pool)
	return &Store{d: postgresDialect{}, write: db, read: db, pool: pool, log: log, clock: time.Now}, nil
}

// postgresOpenError turns a failed first connection into one line that
// names the setting to fix.
func postgresOpenError(cfg *pgxpool.Config, err error) error {
	cc := cfg.ConnConfig
	where := fmt.Sprintf("%s:%d", cc.Host, cc.Port)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01":
			return fmt.Errorf("store: PostgreSQL at %s refused the password of role %q; check the password in MONITOR_DATABASE_URL", where, cc.User)
		case "28000":
			if strings.Contains(pe.Message, "does not exist") {
				return fmt.Errorf("store: PostgreSQL at %s has no role %q; run `monitor migrate` with the owner's connection first (it creates %s), or fix the user in MONITOR_DATABASE_URL", where, cc.User, AppRole)
			}
			return fmt.Errorf("store: PostgreSQL at %s refused role %q: %s; check MONITOR_DATABASE_URL and pg_hba.conf", where, cc.User, pe.Message)
		case "3D000":
			return fmt.Errorf("store: PostgreSQL at %s has no database %q; create it (see docs/deploy.md) or fix MONITOR_DATABASE_URL", where, cc.Database)
		}
		return fmt.Errorf("store: PostgreSQL at %s: %s; check MONITOR_DATABASE_URL", where, pe.Message)
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) {
		return fmt.Errorf("store: cannot reach PostgreSQL at %s: %v; check the host and port in MONITOR_DATABASE_URL", where, rootCause(err))
	}
	return fmt.Errorf("store: cannot connect to PostgreSQL at %s: %v; check MONITOR_DATABASE_URL", where, rootCause(err))
}

// rootCause is the innermost error, without the layers pgx adds.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// unwrapPgParse drops the connection string (and any password) from a parse
// error.
func unwrapPgParse(err error) string {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return rootCause(pe).Error()
	}
	return "cannot parse it"
}

// EnsureAppRole creates or updates the login role core connects as, with
// the given password, and grants it exactly what core needs: connect, use
// the schema, read and write the tables (row-level security decides which
// rows), read the migration record, use sequences and call the functions.
// It runs with the owner's connection, from `monitor migrate`.
func (s *Store) EnsureAppRole(ctx context.Context, password string) error {
	if s.d.name() != "postgres" {
		return nil
	}
	if password == "" {
		return errors.New("store: set MONITOR_APP_PASSWORD (or _FILE): the password `monitor migrate` gives the monitor_app role that `monitor serve` connects as")
	}
	exists, err := s.CheckMigrator(ctx)
	if err != nil {
		return err
	}
	// Creating sets every attribute; an existing role only gets its
	// password (only superusers may restate NOSUPERUSER), then is checked.
	role := `SELECT format('CREATE ROLE %I WITH LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD %L', $1::text, $2::text)`
	verb := "CREATE"
	if exists {
		role = `SELECT format('ALTER ROLE %I WITH LOGIN PASSWORD %L', $1::text, $2::text)`
		verb = "ALTER"
	}
	stmts := []string{
		role,
		`SELECT format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), $1::text)`,
		`SELECT format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), $1::text)`,
		`SELECT format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO %I', current_schema(), $1::text)`,
		`SELECT format('REVOKE INSERT, UPDATE, DELETE ON schema_migrations FROM %I', $1::text)`,
		`SELECT format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA %I TO %I', current_schema(), $1::text)`,
		`SELECT format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA %I TO %I', current_schema(), $1::text)`,
	}
	for i, q := range stmts {
		var ddl string
		args := []any{AppRole}
		if i == 0 {
			args = append(args, password)
		}
		if err := s.write.QueryRowContext(ctx, q, args...).Scan(&ddl); err != nil {
			return wrap(s.d, "prepare role statement", err)
		}
		if err := execRetryingCatalogRace(ctx, s.write, ddl); err != nil {
			if i == 0 {
				return wrap(s.d, verb+" role "+AppRole, err) // never echo the statement: it holds the password
			}
			return wrap(s.d, ddl, err)
		}
	}
	return nil
}

// CheckMigrator checks, before anything changes, that the connection may
// run `monitor migrate`: the security migration's functions run as the
// owner, which forced row-level security binds unless it is a superuser or
// has BYPASSRLS; creating monitor_app needs CREATEROLE. It reports whether
// monitor_app exists, and refuses an existing one that could see past
// row-level security.
func (s *Store) CheckMigrator(ctx context.Context) (appRoleExists bool, err error) {
	if s.d.name() != "postgres" {
		return false, nil
	}
	var user string
	var super, bypass, createRole bool
	var appSuper, appBypass sql.NullBool
	if err := s.write.QueryRowContext(ctx,
		`SELECT r.rolname, r.rolsuper, r.rolbypassrls, r.rolcreaterole, a.rolsuper, a.rolbypassrls
		 FROM pg_roles r LEFT JOIN pg_roles a ON a.rolname = $1
		 WHERE r.rolname = current_user`, AppRole).Scan(&user, &super, &bypass, &createRole, &appSuper, &appBypass); err != nil {
		return false, wrap(s.d, "check the migrating role", err)
	}
	appRoleExists = appSuper.Valid
	switch {
	case !super && !bypass:
		return false, fmt.Errorf("store: role %q cannot run monitor migrate: the database owner needs BYPASSRLS (a superuser runs: ALTER ROLE %s BYPASSRLS CREATEROLE); see docs/deploy.md", user, user)
	case !super && !createRole && !appRoleExists:
		return false, fmt.Errorf("store: role %q cannot create the %s role: it needs CREATEROLE (a superuser runs: ALTER ROLE %s CREATEROLE); see docs/deploy.md", user, AppRole, user)
	case appSuper.Bool || appBypass.Bool:
		return false, fmt.Errorf("store: the existing role %s is a superuser or has BYPASSRLS, so row-level security would not bind it; a superuser runs: ALTER ROLE %s NOSUPERUSER NOBYPASSRLS", AppRole, AppRole)
	}
	return appRoleExists, nil
}

// CheckUnprivileged refuses a connection whose role could see past
// row-level security: a superuser, a role with BYPASSRLS, or the owner of a
// table (owners bypass RLS unless it is forced, and own the schema).
func (s *Store) CheckUnprivileged(ctx context.Context) error {
	if s.d.name() != "postgres" {
		return nil
	}
	var user string
	var super, bypass bool
	var owned int
	if err := s.read.QueryRowContext(ctx,
		`SELECT current_user, rolsuper, rolbypassrls,
			(SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			 WHERE c.relowner = r.oid AND n.nspname = current_schema())
		 FROM pg_roles r WHERE r.rolname = current_user`).Scan(&user, &super, &bypass, &owned); err != nil {
		return wrap(s.d, "check role", err)
	}
	fix := fmt.Sprintf("connect as %s instead: set MONITOR_DATABASE_URL to postgres://%s:…@host/db (`monitor migrate` creates it)", AppRole, AppRole)
	switch {
	case super:
		return fmt.Errorf("store: role %q is a superuser, which row-level security does not bind; %s", user, fix)
	case bypass:
		return fmt.Errorf("store: role %q can bypass row-level security (BYPASSRLS); %s", user, fix)
	case owned > 0:
		return fmt.Errorf("store: role %q owns %d tables or other objects of the schema; %s", user, owned, fix)
	}
	return nil
}

// execRetryingCatalogRace runs a role or grant statement, retrying when
// another session changed the same catalog row at the same moment (roles
// are shared by every database of the cluster, so migrations of two
// databases can meet there).
func execRetryingCatalogRace(ctx context.Context, db *sql.DB, stmt string) error {
	var err error
	for attempt := range 5 {
		if _, err = db.ExecContext(ctx, stmt); err == nil {
			return nil
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || !(pe.Code == "XX000" && strings.Contains(pe.Message, "concurrently") || pe.Code == "40001" || pe.Code == "40P01") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
		}
	}
	return err
}

// repointCapture calls the database function of migration 0006, which
// stamps updated_at with the database's now(); migrations are frozen by
// their checksums, so at is not passed.
func (postgresDialect) repointCapture(ctx context.Context, q querier, capture, from, to uuid.UUID, _ time.Time) error {
	_, err := q.ExecContext(ctx, `SELECT monitor_capture_repoint($1, $2, $3)`, capture, from, to)
	return err
}

func (postgresDialect) adoptImports(ctx context.Context, q querier, capture, to uuid.UUID, _ time.Time) error {
	_, err := q.ExecContext(ctx, `SELECT monitor_capture_adopt_imports($1, $2)`, capture, to)
	return err
}

func (postgresDialect) channelPurge(ctx context.Context, q querier, step channelPurgeStep, cutoff time.Time, limit int) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT `+step.function+`($1, $2)`, cutoff, limit).Scan(&n)
	return n, err
}
