package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// TenantView is a tenant as operators see it.
type TenantView struct {
	ID               uuid.UUID    `json:"id"`
	Name             string       `json:"name"`
	Kind             string       `json:"kind"`
	Status           string       `json:"status"`
	QuotaBytes       *int64       `json:"quota_bytes"`
	ReservedBytes    int64        `json:"reserved_bytes"`
	Limits           TenantLimits `json:"limits"`
	LastSubmitAt     *time.Time   `json:"last_submit_at,omitempty"`
	LastDeniedAt     *time.Time   `json:"last_denied_at,omitempty"`
	LastDeniedReason string       `json:"last_denied_reason,omitempty"`
	CreatedAt        time.Time    `json:"created_at"`
	// Admin marks an operator, who may sign in to the console through the
	// bot (/admin).
	Admin bool `json:"admin"`
	// ChannelLimit is how many channels the tenant may bind.
	ChannelLimit int `json:"channel_limit"`
	// UsedBytes and UsedToday are filled by TenantShow.
	UsedBytes *int64 `json:"used_bytes,omitempty"`
	UsedToday *int   `json:"used_today,omitempty"`
}

func tenantView(t store.Tenant) TenantView {
	return TenantView{
		ID: t.ID, Name: t.Name, Kind: t.Kind, Status: t.Status, QuotaBytes: t.QuotaBytes, ReservedBytes: t.ReservedBytes,
		Limits:       TenantLimits{IntervalSeconds: t.SubmitIntervalSeconds, Daily: t.DailyLimit, Concurrent: t.ConcurrentLimit},
		LastSubmitAt: t.LastSubmitAt, LastDeniedAt: t.LastDeniedAt, LastDeniedReason: t.LastDeniedReason, CreatedAt: t.CreatedAt,
		Admin: t.Admin, ChannelLimit: t.ChannelLimit,
	}
}

// maxChannelLimit bounds a tenant's channel limit.
const maxChannelLimit = 20

// Tenants lists every tenant by name.
func (a *App) Tenants(ctx context.Context) ([]TenantView, error) {
	ts, err := a.store.TenantList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]TenantView, 0, len(ts))
	for _, t := range ts {
		out = append(out, tenantView(t))
	}
	return out, nil
}

// TenantShow shows one tenant with its storage use and today's captures.
func (a *App) TenantShow(ctx context.Context, name string) (TenantView, error) {
	t, err := a.tenantByName(ctx, name)
	if err != nil {
		return TenantView{}, err
	}
	ctx = store.WithTenant(ctx, t.ID)
	settings, err := a.Settings(ctx)
	if err != nil {
		return TenantView{}, err
	}
	u, err := a.store.TenantUsage(ctx, t.ID)
	if err != nil {
		return TenantView{}, err
	}
	var day store.UsageDay
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		day, err = tx.UsageDayGet(ctx, t.ID, operatingDay(a.now(), settings.Timezone))
		return err
	})
	if err != nil {
		return TenantView{}, err
	}
	v := tenantView(t)
	v.UsedBytes, v.UsedToday = &u.UsedBytes, &day.Used
	return v, nil
}

// TenantChange is what an operator changes about a tenant; nil fields stay.
type TenantChange struct {
	Status *string
	// Quota: set QuotaSet with QuotaBytes nil for unlimited.
	QuotaSet   bool
	QuotaBytes *int64
	Limits     *TenantLimits
	// Admin marks (or unmarks) the tenant as an operator.
	Admin *bool
	// ChannelLimit is how many channels the tenant may bind.
	ChannelLimit *int
}

// UpdateTenant applies an operator's change to a tenant, audited with the
// tenant before and after. Approving or rejecting a pending tenant that
// came through a channel tells its person there, in the same transaction
// (queueApprovalNotice).
func (a *App) UpdateTenant(ctx context.Context, actor, name string, ch TenantChange) (TenantView, error) {
	t, err := a.tenantByName(ctx, name)
	if err != nil {
		return TenantView{}, err
	}
	if ch.Status != nil {
		switch *ch.Status {
		case store.TenantPending, store.TenantEnabled, store.TenantDisabled, store.TenantArchived:
		default:
			return TenantView{}, errorf(ErrInvalid, "status %q is not one of pending, enabled, disabled, archived", *ch.Status)
		}
	}
	if ch.QuotaBytes != nil && *ch.QuotaBytes < 0 {
		return TenantView{}, errorf(ErrInvalid, "quota must be zero or more bytes")
	}
	if ch.ChannelLimit != nil && (*ch.ChannelLimit < 0 || *ch.ChannelLimit > maxChannelLimit) {
		return TenantView{}, errorf(ErrInvalid, "the channel limit must be from 0 to %d", maxChannelLimit)
	}
	if l := ch.Limits; l != nil && (l.IntervalSeconds < 0 || l.Daily < 0 || l.Concurrent < 0) {
		return TenantView{}, errorf(ErrInvalid, "limits must be zero (no limit) or more")
	}
	ctx = store.WithTenant(ctx, t.ID)
	var after store.Tenant
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		before, err := tx.TenantGetByID(ctx, t.ID)
		if err != nil {
			return err
		}
		after = before
		action := "tenant.update"
		if ch.Status != nil {
			after.Status = *ch.Status
			action = "tenant.status"
			if before.Status == store.TenantPending {
				switch *ch.Status {
				case store.TenantEnabled:
					action = "tenant.approve"
				case store.TenantDisabled, store.TenantArchived:
					action = "tenant.reject"
				}
			}
		}
		if ch.QuotaSet {
			after.QuotaBytes = ch.QuotaBytes
			action = "tenant.quota"
		}
		if l := ch.Limits; l != nil {
			after.SubmitIntervalSeconds, after.DailyLimit, after.ConcurrentLimit = l.IntervalSeconds, l.Daily, l.Concurrent
			action = "tenant.limits"
		}
		if ch.ChannelLimit != nil {
			after.ChannelLimit = *ch.ChannelLimit
			action = "tenant.channel_limit"
		}
		if ch.Admin != nil {
			after.Admin = *ch.Admin
			action = "tenant.admin"
		}
		if err := tx.TenantUpdate(ctx, after); err != nil {
			return err
		}
		if err := a.queueApprovalNotice(ctx, tx, before, after); err != nil {
			return err
		}
		return audit(ctx, tx, actor, action, "tenant:"+t.Name, tenantView(before), tenantView(after))
	})
	if err != nil {
		return TenantView{}, err
	}
	return tenantView(after), nil
}

// ResetTenantDay gives a tenant its daily captures back for today.
func (a *App) ResetTenantDay(ctx context.Context, actor, name string) error {
	t, err := a.tenantByName(ctx, name)
	if err != nil {
		return err
	}
	settings, err := a.Settings(ctx)
	if err != nil {
		return err
	}
	ctx = store.WithTenant(ctx, t.ID)
	day := operatingDay(a.now(), settings.Timezone)
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		before, err := tx.UsageDayGet(ctx, t.ID, day)
		if err != nil {
			return err
		}
		if err := tx.UsageDayReset(ctx, t.ID, day); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "tenant.reset_day", "tenant:"+t.Name,
			map[string]any{"day": day, "used": before.Used}, map[string]any{"day": day, "used": 0})
	})
}

// TokenView is a token as operators see it; the secret is never shown.
type TokenView struct {
	ID        uuid.UUID  `json:"id"`
	Name      string     `json:"name"`
	Admin     bool       `json:"admin"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Tokens lists a tenant's tokens.
func (a *App) Tokens(ctx context.Context, tenantName string) ([]TokenView, error) {
	t, err := a.tenantByName(ctx, tenantName)
	if err != nil {
		return nil, err
	}
	toks, err := a.store.TokenList(store.WithTenant(ctx, t.ID), t.ID)
	if err != nil {
		return nil, err
	}
	out := make([]TokenView, 0, len(toks))
	for _, tk := range toks {
		out = append(out, tokenView(tk))
	}
	return out, nil
}

func tokenView(t store.Token) TokenView {
	return TokenView{ID: t.ID, Name: t.Name, Admin: t.Admin, CreatedAt: t.CreatedAt, RevokedAt: t.RevokedAt}
}

// RevokeToken revokes one of a tenant's tokens at once.
func (a *App) RevokeToken(ctx context.Context, actor, tenantName string, id uuid.UUID) error {
	t, err := a.tenantByName(ctx, tenantName)
	if err != nil {
		return err
	}
	ctx = store.WithTenant(ctx, t.ID)
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.TokenRevoke(ctx, t.ID, id); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "token.revoke", "tenant:"+t.Name, map[string]any{"token": id}, map[string]any{"token": id, "revoked": true})
	})
	if isNotFound(err) {
		return errorf(ErrNotFound, "tenant %s has no active token %s", t.Name, id)
	}
	return err
}

// AdminUsage is one tenant's accounting, for operators.
type AdminUsage struct {
	Tenant string `json:"tenant"`
	Usage
	UsedToday int `json:"used_today"`
}

// UsageAll reports every tenant's storage and today's captures.
func (a *App) UsageAll(ctx context.Context) ([]AdminUsage, error) {
	ts, err := a.store.TenantList(ctx)
	if err != nil {
		return nil, err
	}
	settings, err := a.Settings(ctx)
	if err != nil {
		return nil, err
	}
	day := operatingDay(a.now(), settings.Timezone)
	out := make([]AdminUsage, 0, len(ts))
	for _, t := range ts {
		tctx := store.WithTenant(ctx, t.ID)
		u, err := a.store.TenantUsage(tctx, t.ID)
		if err != nil {
			return nil, err
		}
		var d store.UsageDay
		if err := a.store.InTx(tctx, func(tx *store.Tx) error {
			var err error
			d, err = tx.UsageDayGet(tctx, t.ID, day)
			return err
		}); err != nil {
			return nil, err
		}
		out = append(out, AdminUsage{Tenant: t.Name, Usage: Usage{UsedBytes: u.UsedBytes, ReservedBytes: u.ReservedBytes, QuotaBytes: u.QuotaBytes}, UsedToday: d.Used})
	}
	return out, nil
}
