package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Connection is a tenant's account on an upstream platform, used by one
// provider of an adapter (tables connections and account_credentials of
// migration 0001). A revoked connection keeps its row, without a
// credential, so the captures made with it keep their audit trail.
type Connection struct {
	ID        uuid.UUID
	TenantID  uuid.UUID
	AdapterID string
	Provider  string
	// AccountID and Handle are the upstream account, as the adapter's
	// connection check named it.
	AccountID string
	Handle    string
	// Status is ConnectionActive, ConnectionReauth or ConnectionRevoked.
	Status string
	// CredentialID is the current sealed credential (nil after revoke).
	CredentialID *uuid.UUID
	// CredentialRevision counts the credentials the connection has had;
	// a capture records the one it ran with.
	CredentialRevision int
	CheckedAt          *time.Time
	RevokedAt          *time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// Connection states.
const (
	ConnectionActive  = "active"
	ConnectionReauth  = "reauth_required"
	ConnectionRevoked = "revoked"
)

// AccountCredential is one sealed credential of a connection. The store
// keeps the bytes as they come; sealing and opening is app's.
type AccountCredential struct {
	ID           uuid.UUID
	TenantID     uuid.UUID
	ConnectionID uuid.UUID
	Ciphertext   []byte
	Nonce        []byte
	KeyVersion   int
	Revision     int
	CreatedAt    time.Time
}

const connectionColumns = `id, tenant_id, adapter_id, provider_id, account_id, handle, status, credential_id,
	credential_revision, checked_at, revoked_at, created_at, updated_at`

func scanConnection(row interface{ Scan(...any) error }) (Connection, error) {
	var c Connection
	var cred uuid.NullUUID
	var checked, revoked sql.NullTime
	err := row.Scan(&c.ID, &c.TenantID, &c.AdapterID, &c.Provider, &c.AccountID, &c.Handle, &c.Status, &cred,
		&c.CredentialRevision, &checked, &revoked, &c.CreatedAt, &c.UpdatedAt)
	if cred.Valid {
		c.CredentialID = &cred.UUID
	}
	if checked.Valid {
		t := checked.Time.UTC()
		c.CheckedAt = &t
	}
	if revoked.Valid {
		t := revoked.Time.UTC()
		c.RevokedAt = &t
	}
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return c, err
}

func connectionGet(ctx context.Context, q querier, tenantID, id uuid.UUID) (Connection, error) {
	return scanConnection(q.QueryRowContext(ctx, `SELECT `+connectionColumns+` FROM connections
		WHERE id = $1 AND tenant_id = $2`, id, tenantID))
}

// ConnectionGet finds the tenant's connection id (ErrNotFound: none, or
// another tenant's).
func (s *Store) ConnectionGet(ctx context.Context, tenantID, id uuid.UUID) (c Connection, err error) {
	err = s.view(ctx, func(q querier) error {
		c, err = connectionGet(ctx, q, tenantID, id)
		return err
	})
	return c, wrap(s.d, "get connection", err)
}

// ConnectionGet finds the tenant's connection id inside the transaction.
func (tx *Tx) ConnectionGet(ctx context.Context, tenantID, id uuid.UUID) (Connection, error) {
	c, err := connectionGet(ctx, tx.tx, tenantID, id)
	return c, wrap(tx.d, "get connection", err)
}

// ConnectionGetByAccount finds the tenant's connection to one upstream
// account through one provider (ErrNotFound: none yet).
func (tx *Tx) ConnectionGetByAccount(ctx context.Context, tenantID uuid.UUID, adapterID, provider, accountID string) (Connection, error) {
	c, err := scanConnection(tx.tx.QueryRowContext(ctx, `SELECT `+connectionColumns+` FROM connections
		WHERE tenant_id = $1 AND adapter_id = $2 AND provider_id = $3 AND account_id = $4`,
		tenantID, adapterID, provider, accountID))
	return c, wrap(tx.d, "get connection by account", err)
}

// ConnectionList lists the tenant's connections, revoked ones included,
// oldest first.
func (s *Store) ConnectionList(ctx context.Context, tenantID uuid.UUID) ([]Connection, error) {
	var out []Connection
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+connectionColumns+` FROM connections
			WHERE tenant_id = $1 ORDER BY created_at, id`, tenantID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanConnection(rows)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list connections", err)
}

// ConnectionInsert creates an active connection without a credential yet
// (ConnectionSetCredential gives it one in the same transaction). A second
// connection to the same account through the same provider is ErrConflict.
func (tx *Tx) ConnectionInsert(ctx context.Context, c Connection) (Connection, error) {
	if c.ID == uuid.Nil {
		c.ID = uuid.Must(uuid.NewV7())
	}
	c.Status = ConnectionActive
	c.CreatedAt = tx.now()
	c.UpdatedAt = c.CreatedAt
	c.CredentialID, c.CredentialRevision = nil, 0
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO connections (id, tenant_id, adapter_id, provider_id, account_id, handle,
			status, credential_revision, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8)`,
		c.ID, c.TenantID, c.AdapterID, c.Provider, c.AccountID, c.Handle, c.Status, c.CreatedAt)
	return c, wrap(tx.d, "insert connection", err)
}

// ConnectionSetCredential stores cred as the connection's credential, at
// revision one past the connection's current one, removes every earlier
// credential of the connection, and makes the connection active and
// checked now under the handle. cred's ID and Nonce/Ciphertext must be
// set (the AAD that sealed it names the ID); its revision and time are
// filled in.
func (tx *Tx) ConnectionSetCredential(ctx context.Context, tenantID, connectionID uuid.UUID, handle string, cred AccountCredential) (Connection, error) {
	c, err := connectionGet(ctx, tx.tx, tenantID, connectionID)
	if err != nil {
		return Connection{}, wrap(tx.d, "set credential", err)
	}
	now := tx.now()
	cred.TenantID, cred.ConnectionID, cred.Revision, cred.CreatedAt = tenantID, connectionID, c.CredentialRevision+1, now
	if _, err := tx.tx.ExecContext(ctx, `INSERT INTO account_credentials
			(id, tenant_id, connection_id, ciphertext, nonce, key_version, revision, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		cred.ID, cred.TenantID, cred.ConnectionID, cred.Ciphertext, cred.Nonce, cred.KeyVersion, cred.Revision, cred.CreatedAt); err != nil {
		return Connection{}, wrap(tx.d, "insert credential", err)
	}
	c, err = scanConnection(tx.tx.QueryRowContext(ctx, `UPDATE connections
		SET credential_id = $3, credential_revision = $4, handle = $5, status = $6, checked_at = $7,
			revoked_at = NULL, updated_at = $7
		WHERE id = $1 AND tenant_id = $2 RETURNING `+connectionColumns,
		connectionID, tenantID, cred.ID, cred.Revision, handle, ConnectionActive, now))
	if err != nil {
		return Connection{}, wrap(tx.d, "set credential", err)
	}
	if _, err := tx.tx.ExecContext(ctx, `DELETE FROM account_credentials
		WHERE connection_id = $1 AND tenant_id = $2 AND id <> $3`, connectionID, tenantID, cred.ID); err != nil {
		return Connection{}, wrap(tx.d, "delete replaced credentials", err)
	}
	return c, nil
}

// ConnectionSetStatus records a connection check's outcome: the status
// (active or reauth_required), the handle when the check named one, and
// the time. A revoked connection is left alone (ErrNotFound is not
// returned for it: it reads back unchanged).
func (tx *Tx) ConnectionSetStatus(ctx context.Context, tenantID, id uuid.UUID, status, handle string) (Connection, error) {
	now := tx.now()
	c, err := scanConnection(tx.tx.QueryRowContext(ctx, `UPDATE connections
		SET status = CASE WHEN status = $3 THEN status ELSE $4 END,
			handle = CASE WHEN $5 = '' OR status = $3 THEN handle ELSE $5 END,
			checked_at = CASE WHEN status = $3 THEN checked_at ELSE $6 END,
			updated_at = $6
		WHERE id = $1 AND tenant_id = $2 RETURNING `+connectionColumns,
		id, tenantID, ConnectionRevoked, status, handle, now))
	return c, wrap(tx.d, "set connection status", err)
}

// ConnectionRevoke deletes the connection's credentials and marks it
// revoked; the row stays for the captures that name it. Revoking a revoked
// connection changes nothing.
func (tx *Tx) ConnectionRevoke(ctx context.Context, tenantID, id uuid.UUID) (Connection, error) {
	c, err := connectionGet(ctx, tx.tx, tenantID, id)
	if err != nil {
		return Connection{}, wrap(tx.d, "revoke connection", err)
	}
	if c.Status == ConnectionRevoked {
		return c, nil
	}
	now := tx.now()
	c, err = scanConnection(tx.tx.QueryRowContext(ctx, `UPDATE connections
		SET credential_id = NULL, status = $3, revoked_at = $4, updated_at = $4
		WHERE id = $1 AND tenant_id = $2 RETURNING `+connectionColumns, id, tenantID, ConnectionRevoked, now))
	if err != nil {
		return Connection{}, wrap(tx.d, "revoke connection", err)
	}
	if _, err := tx.tx.ExecContext(ctx, `DELETE FROM account_credentials WHERE connection_id = $1 AND tenant_id = $2`,
		id, tenantID); err != nil {
		return Connection{}, wrap(tx.d, "delete credentials", err)
	}
	if _, err := tx.tx.ExecContext(ctx, `DELETE FROM connection_peers WHERE connection_id = $1 AND tenant_id = $2`,
		id, tenantID); err != nil {
		return Connection{}, wrap(tx.d, "delete the connection's peers", err)
	}
	return c, nil
}

// maxPeerValue bounds what a provider may keep per object scope.
const maxPeerValue = 1024

// ConnectionPeerGet reads what a connection's provider keeps for an
// object scope (a Telegram channel's access hash); "" when nothing.
func (tx *Tx) ConnectionPeerGet(ctx context.Context, tenantID, connectionID uuid.UUID, scope string) (string, error) {
	var v string
	err := tx.tx.QueryRowContext(ctx, `SELECT value FROM connection_peers
		WHERE connection_id = $1 AND tenant_id = $2 AND object_scope = $3`, connectionID, tenantID, scope).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, wrap(tx.d, "get connection peer", err)
}

// ConnectionPeerPut keeps what a connection's provider asked to keep for
// an object scope, while the connection is active (a revoked one keeps
// nothing). Values over 1 KiB are not kept.
func (tx *Tx) ConnectionPeerPut(ctx context.Context, tenantID, connectionID uuid.UUID, scope, value string) error {
	if value == "" || len(value) > maxPeerValue || scope == "" {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO connection_peers (tenant_id, connection_id, object_scope, value, updated_at)
		SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM connections WHERE id = $2 AND tenant_id = $1 AND status = $6)
		ON CONFLICT (connection_id, object_scope) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		tenantID, connectionID, scope, value, tx.now(), ConnectionActive)
	return wrap(tx.d, "keep connection peer", err)
}

const credentialColumns = `id, tenant_id, connection_id, ciphertext, nonce, key_version, revision, created_at`

// AccountCredentialGet reads the tenant's sealed credential id
// (ErrNotFound: none, e.g. deleted by a revoke or a replacement).
func (s *Store) AccountCredentialGet(ctx context.Context, tenantID, id uuid.UUID) (AccountCredential, error) {
	var c AccountCredential
	err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT `+credentialColumns+` FROM account_credentials
			WHERE id = $1 AND tenant_id = $2`, id, tenantID).
			Scan(&c.ID, &c.TenantID, &c.ConnectionID, &c.Ciphertext, &c.Nonce, &c.KeyVersion, &c.Revision, &c.CreatedAt)
	})
	return c, wrap(s.d, "get credential", err)
}

// AccountCredentialCount is how many credential rows the connection has
// (0 after a revoke, 1 otherwise).
func (s *Store) AccountCredentialCount(ctx context.Context, tenantID, connectionID uuid.UUID) (int, error) {
	var n int
	err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT count(*) FROM account_credentials WHERE connection_id = $1 AND tenant_id = $2`,
			connectionID, tenantID).Scan(&n)
	})
	return n, wrap(s.d, "count credentials", err)
}

// TenantPreferenceGet is the tenant's default connection of an adapter
// (ErrNotFound: none chosen).
func (s *Store) TenantPreferenceGet(ctx context.Context, tenantID uuid.UUID, adapterID string) (id uuid.UUID, err error) {
	err = s.view(ctx, func(q querier) error {
		id, err = tenantPreferenceGet(ctx, q, tenantID, adapterID)
		return err
	})
	return id, wrap(s.d, "get default connection", err)
}

func tenantPreferenceGet(ctx context.Context, q querier, tenantID uuid.UUID, adapterID string) (uuid.UUID, error) {
	var id uuid.UUID
	err := q.QueryRowContext(ctx, `SELECT default_connection_id FROM tenant_preferences
		WHERE tenant_id = $1 AND adapter_id = $2`, tenantID, adapterID).Scan(&id)
	return id, err
}

// TenantPreferenceList maps each adapter to the tenant's default
// connection of it.
func (s *Store) TenantPreferenceList(ctx context.Context, tenantID uuid.UUID) (map[string]uuid.UUID, error) {
	out := map[string]uuid.UUID{}
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT adapter_id, default_connection_id FROM tenant_preferences
			WHERE tenant_id = $1`, tenantID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var adapter string
			var id uuid.UUID
			if err := rows.Scan(&adapter, &id); err != nil {
				return err
			}
			out[adapter] = id
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list default connections", err)
}

// TenantPreferenceSet makes connectionID the tenant's default connection
// of the adapter. The foreign key holds it to the tenant's own connection
// of that adapter.
func (tx *Tx) TenantPreferenceSet(ctx context.Context, tenantID uuid.UUID, adapterID string, connectionID uuid.UUID) error {
	now := tx.now()
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO tenant_preferences (tenant_id, adapter_id, default_connection_id, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (tenant_id, adapter_id) DO UPDATE SET default_connection_id = excluded.default_connection_id,
			updated_at = excluded.updated_at`, tenantID, adapterID, connectionID, now)
	return wrap(tx.d, "set default connection", err)
}

// TenantPreferenceGet is the tenant's default connection of an adapter,
// inside the transaction.
func (tx *Tx) TenantPreferenceGet(ctx context.Context, tenantID uuid.UUID, adapterID string) (uuid.UUID, error) {
	id, err := tenantPreferenceGet(ctx, tx.tx, tenantID, adapterID)
	return id, wrap(tx.d, "get default connection", err)
}

// TenantPreferenceDelete forgets the tenant's default connection of the
// adapter, if any.
func (tx *Tx) TenantPreferenceDelete(ctx context.Context, tenantID uuid.UUID, adapterID string) error {
	_, err := tx.tx.ExecContext(ctx, `DELETE FROM tenant_preferences WHERE tenant_id = $1 AND adapter_id = $2`, tenantID, adapterID)
	return wrap(tx.d, "delete default connection", err)
}

// TenantCollectionSetRefreshConnection records the connection a tenant's
// saved collection was archived through, so a refresh reads it through the
// same account.
func (tx *Tx) TenantCollectionSetRefreshConnection(ctx context.Context, tenantID, collectionID, connectionID uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE tenant_collections SET refresh_connection_id = $3
		WHERE tenant_id = $1 AND collection_id = $2`, tenantID, collectionID, connectionID)
	return wrap(tx.d, "set refresh connection", err)
}

// TenantCollectionRefreshConnection is the connection the tenant's saved
// collection is refreshed through (nil: the public provider).
func (s *Store) TenantCollectionRefreshConnection(ctx context.Context, tenantID, collectionID uuid.UUID) (*uuid.UUID, error) {
	var id uuid.NullUUID
	err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT refresh_connection_id FROM tenant_collections
			WHERE tenant_id = $1 AND collection_id = $2`, tenantID, collectionID).Scan(&id)
	})
	if err != nil {
		return nil, wrap(s.d, "get refresh connection", err)
	}
	if !id.Valid {
		return nil, nil
	}
	return &id.UUID, nil
}
