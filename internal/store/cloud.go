package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// Cloud destinations and pushes (migrations sqlite 0019 / postgres
// 0026_delivery.sql): an operator's rclone remotes, which tenants may use
// them, and each push of a collection with its uploaded files.

// Push and upload states.
const (
	PushQueued    = "queued"
	PushRunning   = "running"
	PushSucceeded = "succeeded"
	PushFailed    = "failed"

	UploadUploading = "uploading"
	UploadSucceeded = "succeeded"
	UploadFailed    = "failed"
)

// Destination is an rclone remote; ConfigSealed is its rclone config,
// sealed with the master key.
type Destination struct {
	ID           uuid.UUID
	Name         string
	Remote       string
	ConfigSealed string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// IsDefault: the tenant's default (DestinationsOfTenant only).
	IsDefault bool
}

const destinationColumns = `id, name, remote, config_sealed, created_at, updated_at`

func scanDestination(row interface{ Scan(...any) error }, extra ...any) (Destination, error) {
	var d Destination
	err := row.Scan(append([]any{&d.ID, &d.Name, &d.Remote, &d.ConfigSealed, &d.CreatedAt, &d.UpdatedAt}, extra...)...)
	d.CreatedAt, d.UpdatedAt = d.CreatedAt.UTC(), d.UpdatedAt.UTC()
	return d, err
}

// DestinationInsert adds a destination; a taken name is ErrConflict.
func (tx *Tx) DestinationInsert(ctx context.Context, d Destination) (Destination, error) {
	d.ID = uuid.Must(uuid.NewV7())
	d.CreatedAt = tx.now()
	d.UpdatedAt = d.CreatedAt
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO cloud_destinations (id, name, remote, config_sealed, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $5)`, d.ID, d.Name, d.Remote, d.ConfigSealed, d.CreatedAt)
	return d, wrap(tx.d, "insert destination", err)
}

// DestinationGetByName finds a destination by name.
func (tx *Tx) DestinationGetByName(ctx context.Context, name string) (Destination, error) {
	d, err := scanDestination(tx.tx.QueryRowContext(ctx, `SELECT `+destinationColumns+` FROM cloud_destinations WHERE name = $1`, name))
	return d, wrap(tx.d, "get destination", err)
}

// DestinationGet finds a destination by id.
func (s *Store) DestinationGet(ctx context.Context, id uuid.UUID) (d Destination, err error) {
	err = s.view(ctx, func(q querier) error {
		d, err = scanDestination(q.QueryRowContext(ctx, `SELECT `+destinationColumns+` FROM cloud_destinations WHERE id = $1`, id))
		return err
	})
	return d, wrap(s.d, "get destination", err)
}

// DestinationList lists every destination by name.
func (s *Store) DestinationList(ctx context.Context) (out []Destination, err error) {
	err = s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+destinationColumns+` FROM cloud_destinations ORDER BY name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDestination(rows)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list destinations", err)
}

// DestinationDelete removes a destination, its allowances and pushes.
func (tx *Tx) DestinationDelete(ctx context.Context, id uuid.UUID) error {
	res, err := tx.tx.ExecContext(ctx, `DELETE FROM cloud_destinations WHERE id = $1`, id)
	if err != nil {
		return wrap(tx.d, "delete destination", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return wrap(tx.d, "delete destination", sql.ErrNoRows)
	}
	return nil
}

// TenantDestinationAllow lets a tenant push to a destination; with
// isDefault it becomes the tenant's default (the old default stays
// allowed).
func (tx *Tx) TenantDestinationAllow(ctx context.Context, tenantID, destinationID uuid.UUID, isDefault bool) error {
	if isDefault {
		if _, err := tx.tx.ExecContext(ctx, `UPDATE tenant_destinations SET is_default = $2 WHERE tenant_id = $1`, tenantID, false); err != nil {
			return wrap(tx.d, "allow destination", err)
		}
	}
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO tenant_destinations (tenant_id, destination_id, is_default, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, destination_id) DO UPDATE SET is_default = excluded.is_default`,
		tenantID, destinationID, isDefault, tx.now())
	return wrap(tx.d, "allow destination", err)
}

// DestinationsOfTenant lists the destinations a tenant may push to, by
// name, each with IsDefault.
func (tx *Tx) DestinationsOfTenant(ctx context.Context, tenantID uuid.UUID) ([]Destination, error) {
	rows, err := tx.tx.QueryContext(ctx, `SELECT `+prefixed("d.", destinationColumns)+`, t.is_default
		FROM tenant_destinations t JOIN cloud_destinations d ON d.id = t.destination_id
		WHERE t.tenant_id = $1 ORDER BY d.name`, tenantID)
	if err != nil {
		return nil, wrap(tx.d, "list a tenant's destinations", err)
	}
	defer rows.Close()
	var out []Destination
	for rows.Next() {
		var def bool
		d, err := scanDestination(rows, &def)
		if err != nil {
			return nil, wrap(tx.d, "list a tenant's destinations", err)
		}
		d.IsDefault = def
		out = append(out, d)
	}
	return out, wrap(tx.d, "list a tenant's destinations", rows.Err())
}

// Push is one push of a collection to a destination.
type Push struct {
	ID            uuid.UUID
	TenantID      uuid.UUID
	CollectionID  uuid.UUID
	DestinationID uuid.UUID
	// SubmissionID is the submission a /download waits for; ChannelID and
	// NotifyChatID where its person is told how it ended (nil, "": none).
	SubmissionID *uuid.UUID
	ChannelID    *uuid.UUID
	NotifyChatID string
	// RemoteDir is the folder under the destination's path.
	RemoteDir  string
	State      string
	Attempts   int
	Error      string
	CreatedAt  time.Time
	FinishedAt *time.Time
}

const pushColumns = `id, tenant_id, collection_id, destination_id, submission_id, channel_id, notify_chat_id, remote_dir, state,
	attempts, error, created_at, finished_at`

func scanPush(row interface{ Scan(...any) error }) (Push, error) {
	var p Push
	var fin sql.NullTime
	var sub, ch uuid.NullUUID
	err := row.Scan(&p.ID, &p.TenantID, &p.CollectionID, &p.DestinationID, &sub, &ch, &p.NotifyChatID, &p.RemoteDir, &p.State,
		&p.Attempts, &p.Error, &p.CreatedAt, &fin)
	p.CreatedAt, p.FinishedAt = p.CreatedAt.UTC(), nullTime(fin)
	if sub.Valid {
		p.SubmissionID = &sub.UUID
	}
	if ch.Valid {
		p.ChannelID = &ch.UUID
	}
	return p, err
}

// PushInsert records a queued push; a second push of the same submission
// to the same destination is ErrConflict.
func (tx *Tx) PushInsert(ctx context.Context, p Push) (Push, error) {
	p.ID = uuid.Must(uuid.NewV7())
	p.State, p.CreatedAt = PushQueued, tx.now()
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO cloud_pushes (id, tenant_id, collection_id, destination_id, submission_id,
			channel_id, notify_chat_id, remote_dir, state, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		p.ID, p.TenantID, p.CollectionID, p.DestinationID, nullUUID(p.SubmissionID), nullUUID(p.ChannelID), p.NotifyChatID,
		p.RemoteDir, p.State, p.CreatedAt)
	return p, wrap(tx.d, "insert push", err)
}

// PushGet reads one of the tenant's pushes.
func (s *Store) PushGet(ctx context.Context, tenantID, id uuid.UUID) (p Push, err error) {
	err = s.view(ctx, func(q querier) error {
		p, err = scanPush(q.QueryRowContext(ctx, `SELECT `+pushColumns+` FROM cloud_pushes WHERE tenant_id = $1 AND id = $2`, tenantID, id))
		return err
	})
	return p, wrap(s.d, "get push", err)
}

// PushSetState records a push's state: running (an attempt starts; the
// last attempt's error stays until it ends), queued again after a failed
// attempt, or finished when it succeeded or failed for good.
func (tx *Tx) PushSetState(ctx context.Context, tenantID, id uuid.UUID, state string, attempts int, errText string) error {
	var fin *time.Time
	if state == PushSucceeded || state == PushFailed {
		now := tx.now()
		fin = &now
	}
	_, err := tx.tx.ExecContext(ctx, `UPDATE cloud_pushes SET state = $3, attempts = $4,
			error = CASE WHEN $3 = 'running' THEN error ELSE $5 END, finished_at = $6
		WHERE tenant_id = $1 AND id = $2`, tenantID, id, state, attempts, errText, fin)
	return wrap(tx.d, "set push state", err)
}

// Upload is one file a push uploads.
type Upload struct {
	PushID     uuid.UUID
	TenantID   uuid.UUID
	FileName   string
	RemotePath string
	Bytes      int64
	State      string
	Error      string
	CreatedAt  time.Time
	FinishedAt *time.Time
}

// UploadSet records a file's upload as it stands (one row per push and
// file name, updated on each attempt).
func (tx *Tx) UploadSet(ctx context.Context, u Upload) error {
	now := tx.now()
	var fin *time.Time
	if u.State != UploadUploading {
		fin = &now
	}
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO cloud_uploads (id, push_id, tenant_id, file_name, remote_path, bytes, state, error,
			created_at, finished_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (push_id, file_name) DO UPDATE SET remote_path = excluded.remote_path, bytes = excluded.bytes,
			state = excluded.state, error = excluded.error, finished_at = excluded.finished_at`,
		uuid.Must(uuid.NewV7()), u.PushID, u.TenantID, u.FileName, u.RemotePath, u.Bytes, u.State, u.Error, now, fin)
	return wrap(tx.d, "record an upload", err)
}

// UploadList lists a push's files by name.
func (s *Store) UploadList(ctx context.Context, tenantID, pushID uuid.UUID) (out []Upload, err error) {
	err = s.view(ctx, func(q querier) error {
		out, err = uploadList(ctx, q, s.d, tenantID, pushID)
		return err
	})
	return out, err
}

func uploadList(ctx context.Context, q querier, d dialect, tenantID, pushID uuid.UUID) ([]Upload, error) {
	rows, err := q.QueryContext(ctx, `SELECT push_id, tenant_id, file_name, remote_path, bytes, state, error, created_at, finished_at
		FROM cloud_uploads WHERE tenant_id = $1 AND push_id = $2 ORDER BY file_name`, tenantID, pushID)
	if err != nil {
		return nil, wrap(d, "list uploads", err)
	}
	defer rows.Close()
	var out []Upload
	for rows.Next() {
		var u Upload
		var fin sql.NullTime
		if err := rows.Scan(&u.PushID, &u.TenantID, &u.FileName, &u.RemotePath, &u.Bytes, &u.State, &u.Error, &u.CreatedAt, &fin); err != nil {
			return nil, wrap(d, "list uploads", err)
		}
		u.FinishedAt = nullTime(fin)
		out = append(out, u)
	}
	return out, wrap(d, "list uploads", rows.Err())
}

// PushSetDir records the folder a push writes to.
func (tx *Tx) PushSetDir(ctx context.Context, tenantID, id uuid.UUID, dir string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE cloud_pushes SET remote_dir = $3 WHERE tenant_id = $1 AND id = $2`, tenantID, id, dir)
	return wrap(tx.d, "set push folder", err)
}

// PushGet reads one of the tenant's pushes inside the transaction.
func (tx *Tx) PushGet(ctx context.Context, tenantID, id uuid.UUID) (Push, error) {
	p, err := scanPush(tx.tx.QueryRowContext(ctx, `SELECT `+pushColumns+` FROM cloud_pushes WHERE tenant_id = $1 AND id = $2`, tenantID, id))
	return p, wrap(tx.d, "get push", err)
}

// PushGetBySubmission finds the push of a submission to a destination.
func (tx *Tx) PushGetBySubmission(ctx context.Context, tenantID, submissionID, destinationID uuid.UUID) (Push, error) {
	p, err := scanPush(tx.tx.QueryRowContext(ctx, `SELECT `+pushColumns+` FROM cloud_pushes
		WHERE tenant_id = $1 AND submission_id = $2 AND destination_id = $3`, tenantID, submissionID, destinationID))
	return p, wrap(tx.d, "get push of a submission", err)
}

// DestinationGet finds a destination by id inside the transaction.
func (tx *Tx) DestinationGet(ctx context.Context, id uuid.UUID) (Destination, error) {
	d, err := scanDestination(tx.tx.QueryRowContext(ctx, `SELECT `+destinationColumns+` FROM cloud_destinations WHERE id = $1`, id))
	return d, wrap(tx.d, "get destination", err)
}

// UploadList lists a push's files by name inside the transaction.
func (tx *Tx) UploadList(ctx context.Context, tenantID, pushID uuid.UUID) ([]Upload, error) {
	return uploadList(ctx, tx.tx, tx.d, tenantID, pushID)
}
