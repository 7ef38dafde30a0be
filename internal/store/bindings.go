package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Channel bindings (migrations sqlite 0019 / postgres 0026_delivery.sql):
// a channel or supergroup a tenant bound through a channel instance, so
// that each archived post of the tenant is copied there, and the copies
// themselves (one "copy" work item each).

// Binding states and unbind reasons.
const (
	BindingActive  = "active"
	BindingUnbound = "unbound"

	UnbindManual      = "manual"
	UnbindChannelGone = "channel_gone"
)

// WorkCopy is the work kind that copies a submission's result to a bound
// chat.
const WorkCopy = "copy"

// Binding is one bound chat of a tenant.
type Binding struct {
	ID         uuid.UUID
	TenantID   uuid.UUID
	ChannelID  uuid.UUID
	IdentityID *uuid.UUID
	// ChatID is the platform's id of the bound chat; ChatType channel or
	// supergroup.
	ChatID   string
	ChatType string
	Username string
	Title    string
	// OwnerChatID is the private chat of the person who bound it.
	OwnerChatID  string
	State        string
	UnbindReason string
	UnboundAt    *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

const bindingColumns = `id, tenant_id, channel_id, identity_id, chat_id, chat_type, username, title, owner_chat_id, state,
	unbind_reason, unbound_at, created_at, updated_at`

func scanBinding(row interface{ Scan(...any) error }) (Binding, error) {
	var (
		b        Binding
		identity uuid.NullUUID
		unbound  sql.NullTime
	)
	err := row.Scan(&b.ID, &b.TenantID, &b.ChannelID, &identity, &b.ChatID, &b.ChatType, &b.Username, &b.Title,
		&b.OwnerChatID, &b.State, &b.UnbindReason, &unbound, &b.CreatedAt, &b.UpdatedAt)
	if identity.Valid {
		b.IdentityID = &identity.UUID
	}
	b.UnboundAt = nullTime(unbound)
	b.CreatedAt, b.UpdatedAt = b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	return b, err
}

// BindingInsert binds a chat for a tenant. A chat bound (active) to any
// tenant already is ErrConflict, whoever's it is.
func (tx *Tx) BindingInsert(ctx context.Context, b Binding) (Binding, error) {
	if b.ID == uuid.Nil {
		b.ID = uuid.Must(uuid.NewV7())
	}
	b.State, b.UnbindReason, b.UnboundAt = BindingActive, "", nil
	b.CreatedAt = tx.now()
	b.UpdatedAt = b.CreatedAt
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO channel_bindings (id, tenant_id, channel_id, identity_id, chat_id, chat_type,
			username, title, owner_chat_id, state, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
		b.ID, b.TenantID, b.ChannelID, nullUUID(b.IdentityID), b.ChatID, b.ChatType, b.Username, b.Title, b.OwnerChatID,
		b.State, b.CreatedAt)
	return b, wrap(tx.d, "insert channel binding", err)
}

// BindingList lists a tenant's bindings through a channel instance, oldest
// first: the active ones, or with all the unbound ones too.
func (tx *Tx) BindingList(ctx context.Context, tenantID, channelID uuid.UUID, all bool) ([]Binding, error) {
	return bindingList(ctx, tx.tx, tx.d, tenantID, channelID, all)
}

// BindingList is Tx.BindingList outside a transaction; channelID uuid.Nil
// lists the bindings of every channel instance.
func (s *Store) BindingList(ctx context.Context, tenantID, channelID uuid.UUID, all bool) (out []Binding, err error) {
	err = s.view(ctx, func(q querier) error {
		out, err = bindingList(ctx, q, s.d, tenantID, channelID, all)
		return err
	})
	return out, err
}

func bindingList(ctx context.Context, q querier, d dialect, tenantID, channelID uuid.UUID, all bool) ([]Binding, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+bindingColumns+` FROM channel_bindings
		WHERE tenant_id = $1 AND ($2 OR channel_id = $3) AND ($4 OR state = 'active')
		ORDER BY created_at, id`, tenantID, channelID == uuid.Nil, channelID, all)
	if err != nil {
		return nil, wrap(d, "list channel bindings", err)
	}
	defer rows.Close()
	var out []Binding
	for rows.Next() {
		b, err := scanBinding(rows)
		if err != nil {
			return nil, wrap(d, "list channel bindings", err)
		}
		out = append(out, b)
	}
	return out, wrap(d, "list channel bindings", rows.Err())
}

// BindingGet reads one of the tenant's bindings.
func (tx *Tx) BindingGet(ctx context.Context, tenantID, id uuid.UUID) (Binding, error) {
	b, err := scanBinding(tx.tx.QueryRowContext(ctx,
		`SELECT `+bindingColumns+` FROM channel_bindings WHERE tenant_id = $1 AND id = $2`, tenantID, id))
	return b, wrap(tx.d, "get channel binding", err)
}

// BindingUnbind ends an active binding with reason; changed is false when
// it was unbound already (the binding is returned as it stands).
func (tx *Tx) BindingUnbind(ctx context.Context, tenantID, id uuid.UUID, reason string) (b Binding, changed bool, err error) {
	now := tx.now()
	res, err := tx.tx.ExecContext(ctx, `UPDATE channel_bindings SET state = 'unbound', unbind_reason = $3, unbound_at = $4,
			updated_at = $4
		 WHERE tenant_id = $1 AND id = $2 AND state = 'active'`, tenantID, id, reason, now)
	if err != nil {
		return Binding{}, false, wrap(tx.d, "unbind channel", err)
	}
	n, _ := res.RowsAffected()
	b, err = tx.BindingGet(ctx, tenantID, id)
	return b, n > 0, err
}

// ChannelCopyInsert records the copy of a submission to a binding, made by
// the work item workID; a second copy of the same pair is ErrConflict.
func (tx *Tx) ChannelCopyInsert(ctx context.Context, tenantID, workID, bindingID, submissionID uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO channel_copies (work_id, tenant_id, binding_id, submission_id, created_at)
		 VALUES ($1, $2, $3, $4, $5)`, workID, tenantID, bindingID, submissionID, tx.now())
	return wrap(tx.d, "insert channel copy", err)
}

// ChannelCopyBinding is the binding a copy work item sends to.
func (s *Store) ChannelCopyBinding(ctx context.Context, tenantID, workID uuid.UUID) (b Binding, err error) {
	err = s.view(ctx, func(q querier) error {
		b, err = scanBinding(q.QueryRowContext(ctx, `SELECT `+prefixed("b.", bindingColumns)+`
			FROM channel_copies c JOIN channel_bindings b ON b.id = c.binding_id
			WHERE c.tenant_id = $1 AND c.work_id = $2`, tenantID, workID))
		return err
	})
	return b, wrap(s.d, "get the binding of a channel copy", err)
}

// prefixed qualifies each column of a column list with a table alias.
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
