package app

import (
	"context"
	"fmt"
	"time"

	"github.com/monitorhq/monitor/internal/store"
)

// operatingDay is the day key of usage_daily in the operating timezone.
func operatingDay(t time.Time, tz *time.Location) string {
	return t.In(tz).Format(time.DateOnly)
}

// nextMidnight is when the operating day after t begins.
func nextMidnight(t time.Time, tz *time.Location) time.Time {
	y, m, d := t.In(tz).Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, tz)
}

// statusLimit refuses a tenant that is not enabled: a *LimitError whose
// Limit is the status (pending, disabled, archived); nil when enabled.
func statusLimit(t store.Tenant) error {
	switch t.Status {
	case store.TenantEnabled:
		return nil
	case store.TenantPending:
		return &LimitError{Limit: "pending", msg: "this account is waiting for an administrator's approval"}
	case store.TenantDisabled:
		return &LimitError{Limit: "disabled", msg: "this account has been disabled by an administrator"}
	case store.TenantArchived:
		return &LimitError{Limit: "archived", msg: "this account has been archived; ask an administrator to restore it"}
	}
	return &LimitError{Limit: t.Status, msg: "this account is not active; ask an administrator"}
}

// checkLimits refuses a submit the tenant's status or limits do not allow,
// saying which limit and when it lifts. It runs in the submit transaction.
func checkLimits(ctx context.Context, tx *store.Tx, t store.Tenant, tz *time.Location, now time.Time) error {
	if err := statusLimit(t); err != nil {
		return err
	}
	if t.SubmitIntervalSeconds > 0 && t.LastSubmitAt != nil {
		next := t.LastSubmitAt.Add(time.Duration(t.SubmitIntervalSeconds) * time.Second)
		if now.Before(next) {
			return &LimitError{Limit: "interval", Max: t.SubmitIntervalSeconds, ResetAt: &next,
				msg: fmt.Sprintf("one link every %d s: try again in %d s", t.SubmitIntervalSeconds, int(next.Sub(now).Seconds()+0.999))}
		}
	}
	if t.DailyLimit > 0 {
		u, err := tx.UsageDayGet(ctx, t.ID, operatingDay(now, tz))
		if err != nil {
			return err
		}
		if u.Used >= t.DailyLimit {
			reset := nextMidnight(now, tz)
			return &LimitError{Limit: "daily", Max: t.DailyLimit, ResetAt: &reset,
				msg: fmt.Sprintf("the daily limit of %d captures is used up; it resets at %s", t.DailyLimit, reset.Format(time.RFC3339))}
		}
	}
	if t.ConcurrentLimit > 0 {
		n, err := tx.TenantUnfinished(ctx, t.ID)
		if err != nil {
			return err
		}
		if n >= t.ConcurrentLimit {
			return &LimitError{Limit: "concurrent", Max: t.ConcurrentLimit,
				msg: fmt.Sprintf("%d captures are still running, the most at once; try again when one finishes", n)}
		}
	}
	return nil
}

// recordDenial keeps, outside the refused transaction, why the tenant was
// last refused.
func (a *App) recordDenial(ctx context.Context, t store.Tenant, le *LimitError) {
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.TenantDenied(ctx, t.ID, a.now().UTC(), le.Limit)
	})
	if err != nil {
		a.log.WarnContext(ctx, "could not record a denial", "tenant", t.ID, "err", err)
	}
}
