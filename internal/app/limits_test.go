package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

func limitOf(t *testing.T, err error) *app.LimitError {
	t.Helper()
	var le *app.LimitError
	require.True(t, errors.As(err, &le), "want a limit error, got %v", err)
	return le
}

func TestSubmitLimits(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		st := p.st
		ctx := context.Background()
		p.tenant(t, "alice", nil)
		alice, err := p.app.TenantByName(ctx, "alice")
		require.NoError(t, err)
		post := func(i int) string {
			return p.fx.AddPost(testkit.SyntheticPost{ID: fmt.Sprintf("7%09d", i), NoAvatar: true})
		}
		submit := func(i int) error {
			_, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice.ID, URL: post(i)})
			return err
		}

		t.Run("interval", func(t *testing.T) {
			_, err := p.app.UpdateTenant(ctx, "test", "alice", app.TenantChange{Limits: &app.TenantLimits{IntervalSeconds: 10}})
			require.NoError(t, err)
			require.NoError(t, submit(1))
			le := limitOf(t, submit(2))
			require.Equal(t, "interval", le.Limit)
			require.Equal(t, 10, le.Max)
			require.NotNil(t, le.ResetAt)
			require.WithinDuration(t, p.clock.Now().Add(10*time.Second), *le.ResetAt, 2*time.Second)
			require.Contains(t, le.Error(), "one link every 10 s")
			p.clock.Advance(11 * time.Second)
			require.NoError(t, submit(3))
		})

		t.Run("daily", func(t *testing.T) {
			_, err := p.app.UpdateTenant(ctx, "test", "alice", app.TenantChange{Limits: &app.TenantLimits{Daily: 50}})
			require.NoError(t, err)
			require.NoError(t, p.app.ResetTenantDay(ctx, "test", "alice"))
			for i := range 50 {
				require.NoError(t, submit(100+i), "capture %d of the day", i+1)
			}
			le := limitOf(t, submit(150))
			require.Equal(t, "daily", le.Limit)
			require.Equal(t, 50, le.Max)
			y, m, d := p.clock.Now().UTC().Date()
			require.Equal(t, time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC), le.ResetAt.UTC(), "resets at the next midnight of the operating timezone")
			show, err := p.app.TenantShow(ctx, "alice")
			require.NoError(t, err)
			require.Equal(t, "daily", show.LastDeniedReason)
			require.NotNil(t, show.LastDeniedAt)
			require.Equal(t, 50, *show.UsedToday)

			require.NoError(t, p.app.ResetTenantDay(ctx, "test", "alice"))
			require.NoError(t, submit(151), "an admin gave the day back")
		})

		t.Run("concurrent", func(t *testing.T) {
			_, err := p.app.UpdateTenant(ctx, "test", "alice", app.TenantChange{Limits: &app.TenantLimits{Concurrent: 2}})
			require.NoError(t, err)
			// Let the earlier captures finish, then hold new ones in flight.
			deadline := time.After(30 * time.Second)
			for {
				ended := p.core.NextEnd()
				var n int
				err := st.InTx(store.WithTenant(ctx, alice.ID), func(tx *store.Tx) error {
					var err error
					n, err = tx.TenantUnfinished(store.WithTenant(ctx, alice.ID), alice.ID)
					return err
				})
				require.NoError(t, err)
				if n == 0 {
					break
				}
				select {
				case <-ended:
				case <-deadline:
					t.Fatal("earlier captures did not finish")
				}
			}
			p.fx.Delay(2 * time.Second)
			defer p.fx.Delay(0)
			require.NoError(t, submit(200))
			require.NoError(t, submit(201))
			le := limitOf(t, submit(202))
			require.Equal(t, "concurrent", le.Limit)
			require.Equal(t, 2, le.Max)
			require.Nil(t, le.ResetAt)
		})
	})
}

func TestApprovalAndStatus(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		bob := p.tenant(t, "bob", nil)
		pending := store.TenantPending
		_, err := p.app.UpdateTenant(ctx, "test", "bob", app.TenantChange{Status: &pending})
		require.NoError(t, err)
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: photosPost})
		le := limitOf(t, err)
		require.Equal(t, "pending", le.Limit)
		require.True(t, le.Status())

		enabled := store.TenantEnabled
		v, err := p.app.UpdateTenant(ctx, "admin", "bob", app.TenantChange{Status: &enabled})
		require.NoError(t, err)
		require.Equal(t, store.TenantEnabled, v.Status)
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: photosPost})
		require.NoError(t, err)

		disabled := store.TenantDisabled
		_, err = p.app.UpdateTenant(ctx, "admin", "bob", app.TenantChange{Status: &disabled})
		require.NoError(t, err)
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: videoPost})
		require.Equal(t, "disabled", limitOf(t, err).Limit)

		entries, err := p.app.Audit(ctx, 100)
		require.NoError(t, err)
		var actions []string
		for _, e := range entries {
			actions = append(actions, e.Actor+" "+e.Action)
		}
		require.Contains(t, actions, "admin tenant.approve")
		require.Contains(t, actions, "admin tenant.status")
		require.Contains(t, actions, "test tenant.create")
	})
}

func TestEveryAdminActionIsAudited(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		p.tenant(t, "carol", nil)
		_, tok, err := p.app.CreateToken(ctx, "ops", "carol", "laptop", true)
		require.NoError(t, err)
		quota := int64(1 << 30)
		_, err = p.app.UpdateTenant(ctx, "ops", "carol", app.TenantChange{QuotaSet: true, QuotaBytes: &quota})
		require.NoError(t, err)
		_, err = p.app.UpdateTenant(ctx, "ops", "carol", app.TenantChange{Limits: &app.TenantLimits{IntervalSeconds: 10, Daily: 50, Concurrent: 2}})
		require.NoError(t, err)
		require.NoError(t, p.app.ResetTenantDay(ctx, "ops", "carol"))
		require.NoError(t, p.app.RevokeToken(ctx, "ops", "carol", tok.ID))
		_, err = p.app.SetSetting(ctx, "ops", "collection_retention_days", "14")
		require.NoError(t, err)

		entries, err := p.app.Audit(ctx, 100)
		require.NoError(t, err)
		got := map[string]app.AuditView{}
		for _, e := range entries {
			if e.Actor == "ops" {
				got[e.Action] = e
			}
		}
		for _, action := range []string{"token.create", "tenant.quota", "tenant.limits", "tenant.reset_day", "token.revoke", "config.set"} {
			require.Contains(t, got, action)
		}
		require.JSONEq(t, `{"value":"14"}`, string(got["config.set"].After))
		var limits struct {
			Limits app.TenantLimits `json:"limits"`
		}
		require.NoError(t, json.Unmarshal(got["tenant.limits"].After, &limits))
		require.Equal(t, app.TenantLimits{IntervalSeconds: 10, Daily: 50, Concurrent: 2}, limits.Limits)
		var quotaBefore map[string]any
		require.NoError(t, json.Unmarshal(got["tenant.quota"].Before, &quotaBefore))
		require.Contains(t, quotaBefore, "quota_bytes")
		require.Nil(t, quotaBefore["quota_bytes"])
		require.NotContains(t, string(got["token.create"].After), "mon_", "no token secret in the audit log")
	})
}

func TestSelfServiceTenantsGetTheDefaults(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		ctx := context.Background()
		tn, err := a.CreateSelfServiceTenant(ctx, "tg-1001")
		require.NoError(t, err)
		require.Equal(t, store.TenantEnabled, tn.Status, "approval_mode open")
		require.Equal(t, store.TenantPersonal, tn.Kind)
		require.Equal(t, 10, tn.Limits.IntervalSeconds, "seed 003: 10 s")
		require.Equal(t, 50, tn.Limits.Daily, "50 a day")
		require.Equal(t, 2, tn.Limits.Concurrent, "2 at once")
		require.Nil(t, tn.QuotaBytes)

		_, err = a.SetSetting(ctx, "ops", "approval_mode", "approval")
		require.NoError(t, err)
		_, err = a.SetSetting(ctx, "ops", "default_quota_bytes", "1048576")
		require.NoError(t, err)
		tn, err = a.CreateSelfServiceTenant(ctx, "tg-1002")
		require.NoError(t, err)
		require.Equal(t, store.TenantPending, tn.Status, "approval_mode approval")
		require.Equal(t, int64(1<<20), *tn.QuotaBytes)

		managed, err := a.CreateTenant(ctx, "ops", "team", nil)
		require.NoError(t, err)
		require.Zero(t, managed.Limits.Daily, "tenants an admin creates start without limits")
		require.Equal(t, store.TenantEnabled, managed.Status)
	})
}
