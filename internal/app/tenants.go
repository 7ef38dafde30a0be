package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// ErrInvalid marks an error in what the caller asked for; the message says
// what is accepted.
var ErrInvalid = errors.New("invalid input")

// userError is an error whose message is written for the person who asked;
// it still matches the underlying sentinel with errors.Is.
type userError struct {
	msg string
	err error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// errorf builds a userError around the sentinel err.
func errorf(err error, format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...), err: err}
}

// maxNameLen bounds tenant and token names.
const maxNameLen = 64

// CreateTenant creates a managed tenant, enabled at once, with an optional
// storage quota (nil: unlimited).
func (a *App) CreateTenant(ctx context.Context, actor, name string, quotaBytes *int64) (TenantView, error) {
	if err := checkName("tenant name", name); err != nil {
		return TenantView{}, err
	}
	if quotaBytes != nil && *quotaBytes < 0 {
		return TenantView{}, errorf(ErrInvalid, "quota must be zero or more bytes")
	}
	// The new tenant's own rights are what may create its row.
	id := uuid.Must(uuid.NewV7())
	ctx = store.WithTenant(ctx, id)
	var t store.Tenant
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		t, err = tx.TenantInsert(ctx, store.Tenant{
			ID:         id,
			Name:       name,
			Kind:       store.TenantManaged,
			Status:     store.TenantEnabled,
			QuotaBytes: quotaBytes,
		})
		if err != nil {
			return err
		}
		return audit(ctx, tx, actor, "tenant.create", "tenant:"+name, nil, tenantView(t))
	})
	if errors.Is(err, store.ErrConflict) {
		return TenantView{}, errorf(fmt.Errorf("%w: %w", ErrConflict, err), "tenant %q already exists; choose another name", name)
	}
	if err != nil {
		return TenantView{}, err
	}
	return tenantView(t), nil
}

// tenantByName finds a tenant, saying how to create one when it is missing
// (an error matching both ErrNotFound and store.ErrNotFound).
func (a *App) tenantByName(ctx context.Context, name string) (store.Tenant, error) {
	t, err := a.store.TenantGetByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return t, errorf(fmt.Errorf("%w: %w", ErrNotFound, err), "no tenant named %q; create it with `monitor admin tenant create %s`", name, name)
	}
	return t, err
}

// checkName accepts 1–64 letters, digits, '.', '_' and '-'.
func checkName(what, name string) error {
	if name == "" || len(name) > maxNameLen {
		return errorf(ErrInvalid, "%s must be 1 to %d characters", what, maxNameLen)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return errorf(ErrInvalid, "%s %q may only contain letters, digits, '.', '_' and '-'", what, name)
		}
	}
	return nil
}

// TenantByName finds a tenant by name, saying how to create one when it is
// missing.
func (a *App) TenantByName(ctx context.Context, name string) (TenantView, error) {
	t, err := a.tenantByName(ctx, name)
	if err != nil {
		return TenantView{}, err
	}
	return tenantView(t), nil
}

// CreateSelfServiceTenant creates the personal tenant of someone who signs
// up through a channel: enabled or pending by the approval mode, with the
// self-service limits and default quota of the runtime settings.
func (a *App) CreateSelfServiceTenant(ctx context.Context, name string) (TenantView, error) {
	if err := checkName("tenant name", name); err != nil {
		return TenantView{}, err
	}
	s, err := a.Settings(ctx)
	if err != nil {
		return TenantView{}, err
	}
	id := uuid.Must(uuid.NewV7())
	ctx = store.WithTenant(ctx, id)
	var t store.Tenant
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		t, err = insertSelfServiceTenant(ctx, tx, s, id, name)
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		return TenantView{}, errorf(fmt.Errorf("%w: %w", ErrConflict, err), "tenant %q already exists", name)
	}
	if err != nil {
		return TenantView{}, err
	}
	return tenantView(t), nil
}

// insertSelfServiceTenant creates a self-service tenant inside a
// transaction that acts for id: enabled, or pending when the approval mode
// asks for it, with the self-service limits and default quota, and audited
// as a sign-up. A taken name is store.ErrConflict.
func insertSelfServiceTenant(ctx context.Context, tx *store.Tx, s Settings, id uuid.UUID, name string) (store.Tenant, error) {
	status := store.TenantEnabled
	if s.ApprovalMode == "approval" {
		status = store.TenantPending
	}
	t, err := tx.TenantInsert(ctx, store.Tenant{
		ID: id, Name: name, Kind: store.TenantPersonal, Status: status, QuotaBytes: s.DefaultQuotaBytes,
		SubmitIntervalSeconds: s.SelfService.IntervalSeconds, DailyLimit: s.SelfService.Daily, ConcurrentLimit: s.SelfService.Concurrent,
	})
	if err != nil {
		return t, err
	}
	return t, audit(ctx, tx, ActorSystem, "tenant.signup", "tenant:"+name, nil, tenantView(t))
}
