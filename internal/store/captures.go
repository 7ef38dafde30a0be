package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// Capture is one fetch of a collection.
type Capture struct {
	ID           uuid.UUID
	CollectionID uuid.UUID
	TenantID     uuid.UUID // executing tenant
	Visibility   string
	DataScope    uuid.UUID
	AccessScope  string
	AdapterID    string
	Provider     string
	ConnectionID *uuid.UUID
	// CredentialRevision is the revision of the connection's credential
	// the capture runs with (nil without a connection).
	CredentialRevision *int
	State              string
	// Staged is the fetched content awaiting finalize (nil: not fetched).
	Staged      []byte
	Error       string
	ErrorCode   string
	Attempts    int
	RevisionID  *uuid.UUID
	StartedAt   *time.Time
	FinishedAt  *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	AdapterVers string
	// Automatic: created by a collection's expansion, not by a person.
	Automatic bool
	// PageCursor is where the page of a collection starts ("" = the first
	// page); NextPageCursor where the next one would ("" = none, known
	// once fetched). Expand names what else the adapter lists ("" or
	// "thread"); PageSize how many related targets a page holds (0 = the
	// adapter's default).
	PageCursor     string
	NextPageCursor string
	Expand         string
	PageSize       int
}

// Capture states that are still in flight.
const (
	CaptureQueued      = "queued"
	CaptureDownloading = "downloading"
	CaptureComplete    = "complete"
	CapturePartial     = "partial"
	CaptureFailed      = "failed"
)

const captureColumns = `id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id,
	connection_id, state, staged_json, error, attempts, revision_id, started_at, finished_at, created_at, updated_at, adapter_version,
	error_code, automatic, page_cursor, next_page_cursor, expand, page_size, credential_revision`

func scanCapture(row interface{ Scan(...any) error }) (Capture, error) {
	var c Capture
	var conn, rev uuid.NullUUID
	var staged sql.NullString
	var started, finished sql.NullTime
	var cursor, next sql.NullString
	var credRev sql.NullInt64
	err := row.Scan(&c.ID, &c.CollectionID, &c.TenantID, &c.Visibility, &c.DataScope, &c.AccessScope, &c.AdapterID,
		&c.Provider, &conn, &c.State, &staged, &c.Error, &c.Attempts, &rev, &started, &finished, &c.CreatedAt, &c.UpdatedAt, &c.AdapterVers,
		&c.ErrorCode, &c.Automatic, &cursor, &next, &c.Expand, &c.PageSize, &credRev)
	c.PageCursor, c.NextPageCursor = cursor.String, next.String
	if credRev.Valid {
		n := int(credRev.Int64)
		c.CredentialRevision = &n
	}
	if conn.Valid {
		c.ConnectionID = &conn.UUID
	}
	if rev.Valid {
		c.RevisionID = &rev.UUID
	}
	if staged.Valid {
		c.Staged = []byte(staged.String)
	}
	if started.Valid {
		c.StartedAt = &started.Time
	}
	if finished.Valid {
		c.FinishedAt = &finished.Time
	}
	return c, err
}

// CaptureInsert creates a queued capture.
func (tx *Tx) CaptureInsert(ctx context.Context, c Capture) (Capture, error) {
	if c.ID == uuid.Nil {
		c.ID = uuid.Must(uuid.NewV7())
	}
	c.State = CaptureQueued
	c.CreatedAt = tx.now()
	c.UpdatedAt = c.CreatedAt
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id,
			connection_id, state, created_at, updated_at, automatic, page_cursor, expand, page_size, credential_revision)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13, $14, $15, $16)`,
		c.ID, c.CollectionID, c.TenantID, c.Visibility, c.DataScope, c.AccessScope, c.AdapterID, c.Provider,
		nullUUID(c.ConnectionID), c.State, c.CreatedAt, c.Automatic, nullString(c.PageCursor), c.Expand, c.PageSize, nullIntOf(c.CredentialRevision))
	return c, wrap(tx.d, "insert capture", err)
}

// CaptureGet finds a capture inside the transaction.
func (tx *Tx) CaptureGet(ctx context.Context, id uuid.UUID) (Capture, error) {
	c, err := scanCapture(tx.tx.QueryRowContext(ctx, `SELECT `+captureColumns+` FROM captures WHERE id = $1`, id))
	return c, wrap(tx.d, "get capture", err)
}

// CaptureGet finds a capture.
func (s *Store) CaptureGet(ctx context.Context, id uuid.UUID) (c Capture, err error) {
	err = s.view(ctx, func(q querier) error {
		c, err = scanCapture(q.QueryRowContext(ctx, `SELECT `+captureColumns+` FROM captures WHERE id = $1`, id))
		return err
	})
	return c, wrap(s.d, "get capture", err)
}

// CaptureKey is what makes two in-flight captures of a collection the
// same one: a submission joins the capture with its key.
type CaptureKey struct {
	CollectionID uuid.UUID
	Provider     string
	ConnectionID *uuid.UUID
	Automatic    bool
	PageCursor   string
	Expand       string
	PageSize     int
}

// CaptureInFlight finds the queued or downloading capture with the key,
// one a new submission can join.
func (tx *Tx) CaptureInFlight(ctx context.Context, k CaptureKey) (Capture, error) {
	q := `SELECT ` + captureColumns + ` FROM captures
		 WHERE collection_id = $1 AND provider_id = $2 AND automatic = $3 AND COALESCE(page_cursor, '') = $4
		   AND expand = $5 AND page_size = $6 AND state IN ('queued', 'downloading')`
	args := []any{k.CollectionID, k.Provider, k.Automatic, k.PageCursor, k.Expand, k.PageSize}
	if k.ConnectionID == nil {
		q += ` AND connection_id IS NULL`
	} else {
		q += ` AND connection_id = $7`
		args = append(args, *k.ConnectionID)
	}
	c, err := scanCapture(tx.tx.QueryRowContext(ctx, q, args...))
	return c, wrap(tx.d, "get in-flight capture", err)
}

// CaptureOfRevision finds the latest finished capture that produced or
// confirmed a revision.
func (tx *Tx) CaptureOfRevision(ctx context.Context, revisionID uuid.UUID) (Capture, error) {
	c, err := scanCapture(tx.tx.QueryRowContext(ctx,
		`SELECT `+captureColumns+` FROM captures WHERE revision_id = $1 ORDER BY finished_at DESC, id DESC LIMIT 1`, revisionID))
	return c, wrap(tx.d, "get capture of revision", err)
}

// CaptureClaimSlot takes an execution slot for a capture until the given
// time when its tenant holds fewer than tenantLimit slots and its connection
// fewer than connectionLimit (0: no limit). It reports whether it did.
func (tx *Tx) CaptureClaimSlot(ctx context.Context, c Capture, until time.Time, tenantLimit, connectionLimit int) (bool, error) {
	// Count and claim under the tenant's slot lock, so concurrent workers
	// (other replicas too) cannot both take the last slot.
	if q := tx.d.lockKeyQuery(); q != "" {
		if _, err := tx.tx.ExecContext(ctx, q, "slots/"+c.TenantID.String()); err != nil {
			return false, wrap(tx.d, "lock capture slots", err)
		}
	}
	at := tx.now()
	if tenantLimit > 0 {
		var n int
		if err := tx.tx.QueryRowContext(ctx,
			`SELECT count(*) FROM captures WHERE tenant_id = $1 AND slot_until > $2 AND id <> $3`,
			c.TenantID, at, c.ID).Scan(&n); err != nil {
			return false, wrap(tx.d, "count capture slots", err)
		}
		if n >= tenantLimit {
			return false, nil
		}
	}
	if connectionLimit > 0 && c.ConnectionID != nil {
		var n int
		if err := tx.tx.QueryRowContext(ctx,
			`SELECT count(*) FROM captures WHERE connection_id = $1 AND slot_until > $2 AND id <> $3`,
			*c.ConnectionID, at, c.ID).Scan(&n); err != nil {
			return false, wrap(tx.d, "count capture slots", err)
		}
		if n >= connectionLimit {
			return false, nil
		}
	}
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE captures SET slot_until = $2, started_at = COALESCE(started_at, $3), updated_at = $3 WHERE id = $1`,
		c.ID, until, at)
	return err == nil, wrap(tx.d, "claim capture slot", err)
}

// CaptureReleaseSlot gives a capture's execution slot back.
func (tx *Tx) CaptureReleaseSlot(ctx context.Context, id uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE captures SET slot_until = NULL WHERE id = $1`, id)
	return wrap(tx.d, "release capture slot", err)
}

// CaptureSetAttempts records how many fetches a capture has tried.
func (tx *Tx) CaptureSetAttempts(ctx context.Context, id uuid.UUID, attempts int, lastError string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE captures SET attempts = $2, error = $3, slot_until = NULL, updated_at = $4 WHERE id = $1`, id, attempts, lastError, tx.now())
	return wrap(tx.d, "count capture attempt", err)
}

// CaptureStage stores fetched content and moves the capture to downloading.
func (tx *Tx) CaptureStage(ctx context.Context, id uuid.UUID, staged []byte, adapterVersion string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE captures SET staged_json = $2, adapter_version = $3, state = 'downloading', error = '', slot_until = NULL, updated_at = $4
		 WHERE id = $1`, id, string(staged), adapterVersion, tx.now())
	return wrap(tx.d, "stage capture", err)
}

// CaptureFinish ends a capture in a terminal state with its revision (nil
// when it failed), error text and machine-readable error code.
func (tx *Tx) CaptureFinish(ctx context.Context, id uuid.UUID, state string, revisionID *uuid.UUID, errText, errCode string) error {
	at := tx.now()
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE captures SET state = $2, revision_id = $3, error = $4, error_code = $5, finished_at = $6, slot_until = NULL, updated_at = $6
		 WHERE id = $1`, id, state, nullUUID(revisionID), errText, errCode, at)
	return wrap(tx.d, "finish capture", err)
}

func nullIntOf(v *int) any {
	if v == nil {
		return nil
	}
	return *v
}

func nullUUID(id *uuid.UUID) any {
	if id == nil {
		return nil
	}
	return *id
}

// CaptureLock holds a capture's row lock until the transaction ends, so
// transactions that end the capture's assets see each other's work: exactly
// one of them finds none left pending.
func (tx *Tx) CaptureLock(ctx context.Context, id uuid.UUID) error {
	q := tx.d.lockCaptureQuery()
	if q == "" {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, q, id)
	return wrap(tx.d, "lock capture", err)
}

// CaptureSetCredentialRevision records the revision of its connection's
// credential a capture fetches with.
func (tx *Tx) CaptureSetCredentialRevision(ctx context.Context, id uuid.UUID, revision int) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE captures SET credential_revision = $2, updated_at = $3 WHERE id = $1`, id, revision, tx.now())
	return wrap(tx.d, "set capture credential revision", err)
}
