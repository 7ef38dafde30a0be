package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/store"
)

// Accounts (seed 000 "账号执行与凭据"). A tenant connects its own account
// on an upstream platform to an adapter's account provider. Core treats
// what the person pastes and what the adapter makes of it as opaque bytes:
// the adapter's PrepareCredential turns the input into its credential,
// CheckConnection says whose account it is, and core seals the credential
// (secrets.go) before it is stored. Nothing of it is ever logged, audited,
// returned or exported.

// maxSecretInput bounds what a person may paste as a credential.
const maxSecretInput = 64 << 10

// ConnectionView is a tenant's connection as surfaces show it. It never
// carries the credential.
type ConnectionView struct {
	ID        uuid.UUID `json:"id"`
	Adapter   string    `json:"adapter"`
	Provider  string    `json:"provider"`
	AccountID string    `json:"account_id"`
	Handle    string    `json:"handle"`
	// Status is active, reauth_required or revoked.
	Status string `json:"status"`
	// CredentialRevision counts the credentials the connection has had.
	CredentialRevision int `json:"credential_revision"`
	// Default: the tenant's default connection of its adapter.
	Default   bool       `json:"default"`
	CheckedAt *time.Time `json:"checked_at,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

func connectionView(c store.Connection, defaults map[string]uuid.UUID) ConnectionView {
	return ConnectionView{ID: c.ID, Adapter: c.AdapterID, Provider: c.Provider, AccountID: c.AccountID, Handle: c.Handle,
		Status: c.Status, CredentialRevision: c.CredentialRevision, Default: defaults[c.AdapterID] == c.ID,
		CheckedAt: c.CheckedAt, RevokedAt: c.RevokedAt, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// auditConnection is what the audit log keeps of a connection: who and
// what, never the credential.
func auditConnection(c store.Connection) map[string]any {
	return map[string]any{"tenant_id": c.TenantID, "adapter": c.AdapterID, "provider": c.Provider, "account_id": c.AccountID,
		"handle": c.Handle, "status": c.Status, "credential_revision": c.CredentialRevision}
}

// AddConnectionRequest connects a tenant's account.
type AddConnectionRequest struct {
	TenantID uuid.UUID
	// Adapter is the adapter's id (e.g. "x"); Provider one of its account
	// providers ("": the adapter's default account provider).
	Adapter  string
	Provider string
	// Secret is what the person pasted (cookies, a session); it is read
	// only by the adapter.
	Secret []byte
	// Actor is who asked, for the audit log.
	Actor string
}

// AddConnectionResult is a connected account.
type AddConnectionResult struct {
	Connection ConnectionView
	// Replaced: the account was connected already; its credential was
	// replaced and its revision bumped, the connection id kept.
	Replaced bool
}

// AddConnection connects a tenant's account: without a master key it is
// refused before the secret goes anywhere; the adapter prepares the
// credential and checks it with the upstream (a refusal stores nothing,
// so an existing credential stays as it was); then the sealed credential
// is stored. The same upstream account again keeps its connection and
// gets the new credential at the next revision. The first connection of
// an adapter becomes the tenant's default one.
func (a *App) AddConnection(ctx context.Context, req AddConnectionRequest) (AddConnectionResult, error) {
	ctx = store.WithTenant(ctx, req.TenantID)
	if _, err := a.credentialBox(); err != nil {
		return AddConnectionResult{}, err
	}
	if len(req.Secret) == 0 {
		return AddConnectionResult{}, errorf(ErrInvalid, "the credential is empty: paste what the platform's sign-in gave you (on standard input or in a file)")
	}
	if len(req.Secret) > maxSecretInput {
		return AddConnectionResult{}, errorf(ErrInvalid, "the credential is longer than %d KiB; paste only what the adapter asks for", maxSecretInput>>10)
	}
	if a.adapters == nil {
		return AddConnectionResult{}, errorf(ErrInvalid, "this process has no adapters; connect accounts through a running instance")
	}
	if _, err := a.store.TenantGetByID(ctx, req.TenantID); err != nil {
		if isNotFound(err) {
			return AddConnectionResult{}, errorf(ErrNotFound, "no tenant with id %s", req.TenantID)
		}
		return AddConnectionResult{}, err
	}
	p, err := a.adapters.AccountProvider(req.Adapter, req.Provider)
	if err != nil {
		return AddConnectionResult{}, connectionRefusal(err)
	}
	// Both adapter calls happen before, never inside, the transaction.
	prepared, err := a.adapters.PrepareCredential(ctx, req.Adapter, p.GetId(), req.Secret)
	if err != nil {
		return AddConnectionResult{}, connectionRefusal(err)
	}
	checked, err := a.adapters.CheckConnection(ctx, req.Adapter, p.GetId(), prepared.GetCredential())
	if err != nil {
		return AddConnectionResult{}, connectionRefusal(err)
	}
	if !checked.GetOk() {
		return AddConnectionResult{}, errorf(ErrInvalid, "the account was not added: %s refused the credential (%s); nothing was stored",
			req.Adapter, checkMessage(checked))
	}

	credID := uuid.Must(uuid.NewV7())
	nonce, sealed, err := a.sealCredential(req.TenantID, credID, prepared.GetCredential())
	if err != nil {
		return AddConnectionResult{}, err
	}
	var (
		res      AddConnectionResult
		defaults map[string]uuid.UUID
	)
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		c, err := tx.ConnectionGetByAccount(ctx, req.TenantID, req.Adapter, p.GetId(), checked.GetAccountId())
		var before any
		switch {
		case err == nil:
			res.Replaced = true
			before = auditConnection(c)
		case isNotFound(err):
			c, err = tx.ConnectionInsert(ctx, store.Connection{TenantID: req.TenantID, AdapterID: req.Adapter, Provider: p.GetId(),
				AccountID: checked.GetAccountId(), Handle: checked.GetHandle()})
			if err != nil {
				return err
			}
		default:
			return err
		}
		c, err = tx.ConnectionSetCredential(ctx, req.TenantID, c.ID, checked.GetHandle(), store.AccountCredential{
			ID: credID, Nonce: nonce, Ciphertext: sealed, KeyVersion: credentialKeyVersion})
		if err != nil {
			return err
		}
		if _, err := tx.TenantPreferenceGet(ctx, req.TenantID, req.Adapter); isNotFound(err) {
			if err := tx.TenantPreferenceSet(ctx, req.TenantID, req.Adapter, c.ID); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		action := "connection.add"
		if res.Replaced {
			action = "connection.replace_credential"
		}
		if err := audit(ctx, tx, actorOr(req.Actor), action, "connection:"+c.ID.String(), before, auditConnection(c)); err != nil {
			return err
		}
		res.Connection = connectionView(c, nil)
		return nil
	})
	if errors.Is(err, store.ErrConflict) {
		return AddConnectionResult{}, errorf(ErrConflict, "this account is being added by another request at the same moment; try again")
	}
	if err != nil {
		return AddConnectionResult{}, err
	}
	if defaults, err = a.store.TenantPreferenceList(ctx, req.TenantID); err != nil {
		return AddConnectionResult{}, err
	}
	res.Connection.Default = defaults[res.Connection.Adapter] == res.Connection.ID
	a.log.InfoContext(ctx, "account connected", "tenant", req.TenantID, "connection", res.Connection.ID,
		"adapter", req.Adapter, "provider", p.GetId(), "revision", res.Connection.CredentialRevision)
	return res, nil
}

// actorOr is the actor, or the system when none was named.
func actorOr(actor string) string {
	if actor == "" {
		return ActorSystem
	}
	return actor
}

// checkMessage is what a refused check said, for people.
func checkMessage(r *adapterv1.CheckConnectionResponse) string {
	if m := r.GetError().GetMessage(); m != "" {
		return m
	}
	return "the upstream did not accept it"
}

// connectionRefusal words an adapter's refusal of a credential or an
// account provider for the person: the adapter's own message, as an
// invalid request when retrying the same input cannot help.
func connectionRefusal(err error) error {
	var ae *adapterapi.Error
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.Code {
	case adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED,
		adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT:
		return errorf(ErrInvalid, "the account was not added: %s", ae.Error())
	}
	return err
}

// Connections lists the tenant's connections, revoked ones included.
func (a *App) Connections(ctx context.Context, tenantID uuid.UUID) ([]ConnectionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	list, err := a.store.ConnectionList(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	defaults, err := a.store.TenantPreferenceList(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	out := make([]ConnectionView, 0, len(list))
	for _, c := range list {
		out = append(out, connectionView(c, defaults))
	}
	return out, nil
}

// Connection is one of the tenant's connections.
func (a *App) Connection(ctx context.Context, tenantID, id uuid.UUID) (ConnectionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	c, err := a.connection(ctx, tenantID, id)
	if err != nil {
		return ConnectionView{}, err
	}
	defaults, err := a.store.TenantPreferenceList(ctx, tenantID)
	if err != nil {
		return ConnectionView{}, err
	}
	return connectionView(c, defaults), nil
}

func (a *App) connection(ctx context.Context, tenantID, id uuid.UUID) (store.Connection, error) {
	c, err := a.store.ConnectionGet(ctx, tenantID, id)
	if isNotFound(err) {
		return store.Connection{}, errorf(ErrNotFound, "no connection with id %s", id)
	}
	return c, err
}

// CheckResult is a connection check's outcome.
type CheckResult struct {
	Connection ConnectionView `json:"connection"`
	// OK: the upstream accepted the credential.
	OK bool `json:"ok"`
	// Message says what the upstream answered when it refused.
	Message string `json:"message,omitempty"`
}

// CheckConnection asks the adapter whether the connection's credential
// still works. A refusal by the upstream marks it reauth_required (the
// person adds the account again); a credential that works again makes it
// active. A rate limit or an upstream fault is returned as an error and
// changes nothing.
func (a *App) CheckConnection(ctx context.Context, tenantID, id uuid.UUID) (CheckResult, error) {
	ctx = store.WithTenant(ctx, tenantID)
	c, credential, err := a.connectionCredential(ctx, tenantID, id)
	if err != nil {
		return CheckResult{}, err
	}
	if a.adapters == nil {
		return CheckResult{}, errorf(ErrInvalid, "this process has no adapters; check accounts through a running instance")
	}
	checked, err := a.adapters.CheckConnection(ctx, c.AdapterID, c.Provider, credential)
	if err != nil {
		return CheckResult{}, err
	}
	status, handle, msg := store.ConnectionActive, checked.GetHandle(), ""
	switch {
	case !checked.GetOk():
		status, handle, msg = store.ConnectionReauth, "", checkMessage(checked)
	case checked.GetAccountId() != c.AccountID:
		// Another account's session under this connection: not usable
		// for what was archived under it.
		status, handle = store.ConnectionReauth, ""
		msg = fmt.Sprintf("the credential now signs in as account %s, not %s; add that account on its own", checked.GetAccountId(), c.AccountID)
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		before := auditConnection(c)
		c, err = tx.ConnectionSetStatus(ctx, tenantID, id, status, handle)
		if err != nil {
			return err
		}
		if c.Status != before["status"] {
			return audit(ctx, tx, ActorSystem, "connection.status", "connection:"+c.ID.String(), before, auditConnection(c))
		}
		return nil
	})
	if err != nil {
		return CheckResult{}, err
	}
	defaults, err := a.store.TenantPreferenceList(ctx, tenantID)
	if err != nil {
		return CheckResult{}, err
	}
	return CheckResult{Connection: connectionView(c, defaults), OK: status == store.ConnectionActive, Message: msg}, nil
}

// connectionCredential opens the connection's current credential. A
// revoked connection has none; a missing or wrong master key is said so.
func (a *App) connectionCredential(ctx context.Context, tenantID, id uuid.UUID) (store.Connection, []byte, error) {
	c, err := a.connection(ctx, tenantID, id)
	if err != nil {
		return store.Connection{}, nil, err
	}
	if c.Status == store.ConnectionRevoked || c.CredentialID == nil {
		return c, nil, errorf(ErrConflict, "connection %s is revoked; add the account again to use it", id)
	}
	cred, err := a.store.AccountCredentialGet(ctx, tenantID, *c.CredentialID)
	if isNotFound(err) {
		return c, nil, errorf(ErrConflict, "connection %s has no credential any more; add the account again", id)
	}
	if err != nil {
		return c, nil, err
	}
	plain, err := a.openCredential(tenantID, cred.ID, cred.Nonce, cred.Ciphertext)
	return c, plain, err
}

// RevokeConnection deletes the connection's credential and marks it
// revoked; the connection stays, so the captures made with it keep their
// trail. It stops being the tenant's default; another active connection
// of the adapter, if any, takes its place.
func (a *App) RevokeConnection(ctx context.Context, tenantID, id uuid.UUID, actor string) (ConnectionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	if _, err := a.connection(ctx, tenantID, id); err != nil {
		return ConnectionView{}, err
	}
	others, err := a.store.ConnectionList(ctx, tenantID)
	if err != nil {
		return ConnectionView{}, err
	}
	var c store.Connection
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		before, err := tx.ConnectionGet(ctx, tenantID, id)
		if err != nil {
			return err
		}
		if c, err = tx.ConnectionRevoke(ctx, tenantID, id); err != nil {
			return err
		}
		if def, err := tx.TenantPreferenceGet(ctx, tenantID, c.AdapterID); err == nil && def == id {
			if err := tx.TenantPreferenceDelete(ctx, tenantID, c.AdapterID); err != nil {
				return err
			}
			for _, o := range others {
				if o.ID != id && o.AdapterID == c.AdapterID && o.Status == store.ConnectionActive {
					if err := tx.TenantPreferenceSet(ctx, tenantID, c.AdapterID, o.ID); err != nil {
						return err
					}
					break
				}
			}
		} else if err != nil && !isNotFound(err) {
			return err
		}
		if before.Status == store.ConnectionRevoked {
			return nil
		}
		return audit(ctx, tx, actorOr(actor), "connection.revoke", "connection:"+c.ID.String(), auditConnection(before), auditConnection(c))
	})
	if err != nil {
		return ConnectionView{}, err
	}
	a.log.InfoContext(ctx, "account revoked", "tenant", tenantID, "connection", id)
	return connectionView(c, nil), nil
}

// SetDefaultConnection makes an active connection the tenant's default
// one of its adapter.
func (a *App) SetDefaultConnection(ctx context.Context, tenantID, id uuid.UUID) (ConnectionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	c, err := a.connection(ctx, tenantID, id)
	if err != nil {
		return ConnectionView{}, err
	}
	if c.Status == store.ConnectionRevoked {
		return ConnectionView{}, errorf(ErrConflict, "connection %s is revoked; add the account again first", id)
	}
	if err := a.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.TenantPreferenceSet(ctx, tenantID, c.AdapterID, c.ID)
	}); err != nil {
		return ConnectionView{}, err
	}
	return connectionView(c, map[string]uuid.UUID{c.AdapterID: c.ID}), nil
}
