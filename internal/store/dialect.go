package store

import (
	"context"
	"database/sql"
	"io/fs"
	"time"

	"github.com/google/uuid"
)

// dialect is everything that differs between the databases Monitor runs on.
// Queries elsewhere in this package are written once, in the SQL both
// understand ($1 placeholders, ON CONFLICT, RETURNING).
type dialect interface {
	webDialect
	// name is "sqlite" or "postgres".
	name() string
	// idSet is a subquery over the ids passed as one argument $n, for
	// "x IN (<idSet>)": one parameter and one statement text whatever
	// the number of ids (SQLite's parser spends time per numbered
	// parameter).
	idSet(n int) string
	// idArg is ids as idSet's one argument.
	idArg(ids []uuid.UUID) string
	// migrations holds this dialect's numbered migration files.
	migrations() fs.FS
	// isUniqueViolation reports whether err is a unique or primary key
	// constraint failure.
	isUniqueViolation(err error) bool
	// tableExistsQuery counts the tables named $1 in the current schema.
	tableExistsQuery() string
	// tenantSQL sets the transaction's tenant from $1 ("" when the
	// dialect has no row-level security).
	tenantSQL() string
	// tokenTenantByDigestQuery finds a token by its digest $1 before the
	// tenant is known, without a transaction: id, tenant_id, name,
	// created_at, revoked_at, admin, then the tenant's name, status and
	// library version (NULL: none kept).
	tokenTenantByDigestQuery() string
	// tenantByNameQuery finds a tenant by name $1 across tenants, with
	// tenantColumns.
	tenantByNameQuery() string
	// tenantListQuery lists every tenant by name, with tenantColumns.
	tenantListQuery() string
	// markDeliverableQuery marks the channel submissions of capture $1
	// deliverable, whoever submitted them.
	markDeliverableQuery() string
	// wakeDeliveriesQuery makes the waiting deliver items of capture $1's
	// submissions claimable now ("" when markDeliverableQuery does it).
	wakeDeliveriesQuery() string
	// identityLookupQuery finds the identity of external user $2 on channel
	// $1 across tenants, with identityColumns.
	identityLookupQuery() string
	// claimWorkQuery leases up to $3 ready items of channel $1 to owner $2
	// as of $4 until $5, across tenants, returning workColumns.
	claimWorkQuery() string
	// workTenantQuery finds the tenant of work item $1 across tenants.
	workTenantQuery() string
	// lockTenantQuery locks tenant $1's row until the transaction ends (""
	// when transactions are serialized anyway).
	lockTenantQuery() string
	// lockKeyQuery takes a transaction-scoped lock on the text $1 ("" when
	// transactions are serialized anyway).
	lockKeyQuery() string
	// purgeCandidatesQuery lists collections to purge: cutoff $1, limit $2;
	// columns id, data_scope.
	purgeCandidatesQuery() string
	// gcObjectsQuery lists objects to collect: pending cutoff $1, limit $2;
	// columns id, tenant_id, key, state.
	gcObjectsQuery() string
	// staleCapturesQuery lists captures in flight without progress since
	// $1, limit $2; columns id, tenant_id.
	staleCapturesQuery() string
	// markGarbageQuery marks object $1 garbage when no blob holds it, across
	// tenants.
	markGarbageQuery() string
	// lockCollectionQuery locks collection $1 until the transaction ends
	// ("" when transactions are serialized anyway).
	lockCollectionQuery() string
	// lockCaptureQuery locks capture $1 until the transaction ends ("" when
	// transactions are serialized anyway).
	lockCaptureQuery() string
	// repointCapture moves in-flight capture $1 from collection $2 to its
	// canonical collection $3, with its submissions and their submitters'
	// saved references, across tenants (see Tx.CaptureRepoint); at is the
	// store's time for updated_at.
	repointCapture(ctx context.Context, q querier, capture, from, to uuid.UUID, at time.Time) error
	// adoptImports puts public collection $2 of complete capture $1 in the
	// place of its submitters' imported private copies of the same post,
	// across tenants (see Tx.CaptureAdoptImports); at is the store's time.
	adoptImports(ctx context.Context, q querier, capture, to uuid.UUID, at time.Time) error
	// channelPurge runs one batch of a channel retention step across
	// tenants and reports how many rows it deleted.
	channelPurge(ctx context.Context, q querier, step channelPurgeStep, cutoff time.Time, limit int) (int64, error)
	// schemaMigrationsDDL creates the migration record if missing.
	schemaMigrationsDDL() string
	// lockMigrations serializes migrators until unlock is called.
	lockMigrations(ctx context.Context, db *sql.DB) (unlock func(), err error)
}
