package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// JoinRequest is a tenant's request to join a chat by invite link through
// one of its connections (migration sqlite 0021, postgres 0028). It is the
// tenant's; operators decide it.
type JoinRequest struct {
	ID           uuid.UUID
	TenantID     uuid.UUID
	ConnectionID uuid.UUID
	// Invite is the adapter's stable form of the invite link.
	Invite string
	// Title is the chat's title, as the adapter read it.
	Title string
	// State is one of the JoinPending… constants.
	State string
	// Reason says why a request failed or was denied, or what Telegram
	// asked for (a wait).
	Reason string
	// ChannelURL is the joined channel's link, which the tenant archives
	// through the connection.
	ChannelURL string
	AskedBy    string
	DecidedBy  string
	CreatedAt  time.Time
	DecidedAt  *time.Time
	UpdatedAt  time.Time
}

// Join request states.
const (
	JoinPending   = "pending"
	JoinJoined    = "joined"
	JoinRequested = "requested"
	JoinFailed    = "failed"
	JoinDenied    = "denied"
)

const joinRequestColumns = `id, tenant_id, connection_id, invite, title, state, reason, channel_url, asked_by, decided_by,
	created_at, decided_at, updated_at`

func scanJoinRequest(row interface{ Scan(...any) error }) (JoinRequest, error) {
	var (
		r       JoinRequest
		decided sql.NullTime
	)
	err := row.Scan(&r.ID, &r.TenantID, &r.ConnectionID, &r.Invite, &r.Title, &r.State, &r.Reason, &r.ChannelURL,
		&r.AskedBy, &r.DecidedBy, &r.CreatedAt, &decided, &r.UpdatedAt)
	r.DecidedAt = nullTime(decided)
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return r, err
}

func scanJoinRequests(rows *sql.Rows, err error) ([]JoinRequest, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []JoinRequest
	for rows.Next() {
		r, err := scanJoinRequest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// JoinRequestInsert stores a new pending request. A pending request of
// the same connection and invite already is ErrConflict.
func (tx *Tx) JoinRequestInsert(ctx context.Context, r JoinRequest) (JoinRequest, error) {
	if r.ID == uuid.Nil {
		r.ID = uuid.Must(uuid.NewV7())
	}
	r.State, r.CreatedAt = JoinPending, tx.now()
	r.UpdatedAt, r.DecidedAt, r.DecidedBy = r.CreatedAt, nil, ""
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO join_requests (id, tenant_id, connection_id, invite, title, state, reason,
			channel_url, asked_by, decided_by, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, '', '', $7, '', $8, $8)`,
		r.ID, r.TenantID, r.ConnectionID, r.Invite, r.Title, r.State, r.AskedBy, r.CreatedAt)
	return r, wrap(tx.d, "insert join request", err)
}

// JoinRequestGet finds the tenant's request id (ErrNotFound: none, or
// another tenant's).
func (s *Store) JoinRequestGet(ctx context.Context, tenantID, id uuid.UUID) (r JoinRequest, err error) {
	err = s.view(ctx, func(q querier) error {
		r, err = scanJoinRequest(q.QueryRowContext(ctx, `SELECT `+joinRequestColumns+` FROM join_requests
			WHERE id = $1 AND tenant_id = $2`, id, tenantID))
		return err
	})
	return r, wrap(s.d, "get join request", err)
}

// JoinRequestGet finds the tenant's request id inside the transaction.
func (tx *Tx) JoinRequestGet(ctx context.Context, tenantID, id uuid.UUID) (JoinRequest, error) {
	r, err := scanJoinRequest(tx.tx.QueryRowContext(ctx, `SELECT `+joinRequestColumns+` FROM join_requests
		WHERE id = $1 AND tenant_id = $2`, id, tenantID))
	return r, wrap(tx.d, "get join request", err)
}

// JoinRequestList lists the tenant's requests, newest first, at most
// limit.
func (s *Store) JoinRequestList(ctx context.Context, tenantID uuid.UUID, limit int) ([]JoinRequest, error) {
	var out []JoinRequest
	err := s.view(ctx, func(q querier) error {
		var err error
		out, err = scanJoinRequests(q.QueryContext(ctx, `SELECT `+joinRequestColumns+` FROM join_requests
			WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, tenantID, limit))
		return err
	})
	return out, wrap(s.d, "list join requests", err)
}

// JoinRequestListAll lists every tenant's requests in a state ("" = any),
// oldest first, at most limit: for operators.
func (s *Store) JoinRequestListAll(ctx context.Context, state string, limit int) ([]JoinRequest, error) {
	q := `SELECT ` + joinRequestColumns + ` FROM join_requests WHERE ($1 = '' OR state = $1) ORDER BY created_at, id LIMIT $2`
	if s.d.name() == "postgres" {
		q = `SELECT ` + joinRequestColumns + ` FROM monitor_join_request_list_all($1, $2)`
	}
	var out []JoinRequest
	err := s.view(ctx, func(qr querier) error {
		var err error
		out, err = scanJoinRequests(qr.QueryContext(ctx, q, state, limit))
		return err
	})
	return out, wrap(s.d, "list all join requests", err)
}

// JoinRequestTenant finds whose request id is, across tenants
// (ErrNotFound: no such request).
func (s *Store) JoinRequestTenant(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	q := `SELECT tenant_id FROM join_requests WHERE id = $1`
	if s.d.name() == "postgres" {
		q = `SELECT monitor_join_request_tenant($1)`
	}
	var tenant uuid.NullUUID
	err := s.view(ctx, func(qr querier) error { return qr.QueryRowContext(ctx, q, id).Scan(&tenant) })
	if err == nil && !tenant.Valid {
		err = sql.ErrNoRows
	}
	return tenant.UUID, wrap(s.d, "find the tenant of a join request", err)
}

// JoinRequestDecide records a decision on a pending request: its new
// state, reason, title and channel, by whom. A request no longer pending
// is ErrNotFound, so two decisions at once cannot both win.
func (tx *Tx) JoinRequestDecide(ctx context.Context, r JoinRequest) (JoinRequest, error) {
	now := tx.now()
	res, err := tx.tx.ExecContext(ctx, `UPDATE join_requests SET state = $1, reason = $2, title = $3, channel_url = $4,
			decided_by = $5, decided_at = $6, updated_at = $6
		WHERE id = $7 AND tenant_id = $8 AND state = 'pending'`,
		r.State, r.Reason, r.Title, r.ChannelURL, r.DecidedBy, now, r.ID, r.TenantID)
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			err = sql.ErrNoRows
		}
	}
	if err != nil {
		return JoinRequest{}, wrap(tx.d, "decide join request", err)
	}
	r.DecidedAt, r.UpdatedAt = &now, now
	return r, nil
}

// JoinRequestNote keeps a pending request pending with a note (e.g.
// Telegram asked to wait before joining).
func (tx *Tx) JoinRequestNote(ctx context.Context, tenantID, id uuid.UUID, reason string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE join_requests SET reason = $1, updated_at = $2
		WHERE id = $3 AND tenant_id = $4 AND state = 'pending'`, reason, tx.now(), id, tenantID)
	return wrap(tx.d, "note join request", err)
}
