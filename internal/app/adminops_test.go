package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestAdminOpsFiltersAndDeletes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		_, err := a.CreateTenant(ctx, "ops", "alice", nil)
		require.NoError(t, err)
		_, err = a.CreateTenant(ctx, "ops", "albert", nil)
		require.NoError(t, err)
		_, err = a.CreateTenant(ctx, "ops", "bob", nil)
		require.NoError(t, err)
		pending := store.TenantPending
		_, err = a.UpdateTenant(ctx, "ops", "bob", app.TenantChange{Status: &pending})
		require.NoError(t, err)

		al, err := a.TenantSearch(ctx, app.TenantFilter{Query: "AL"})
		require.NoError(t, err)
		require.Len(t, al, 2)
		waiting, err := a.TenantSearch(ctx, app.TenantFilter{Status: store.TenantPending})
		require.NoError(t, err)
		require.Len(t, waiting, 1)
		require.Equal(t, "bob", waiting[0].Name)
		_, err = a.TenantSearch(ctx, app.TenantFilter{Status: "gone"})
		require.ErrorIs(t, err, app.ErrInvalid)

		audit, err := a.AuditSearch(ctx, app.AuditFilter{Query: "tenant:bob", Limit: 10})
		require.NoError(t, err)
		require.Len(t, audit, 2, "bob's creation and status change")
		require.Equal(t, "tenant.status", audit[0].Action)

		a.LogError(ctx, app.ErrorRecord{Source: app.SourceCapture, Code: "not_found", Message: "capture failed"})
		a.LogError(ctx, app.ErrorRecord{Source: app.SourceDownload, Code: "timeout", Message: "media download failed"})
		nf, err := a.ErrorLogSearch(ctx, app.ErrorLogFilter{Code: "not_found", Limit: 10})
		require.NoError(t, err)
		require.Len(t, nf, 1)

		now := time.Now()
		_, err = a.DeleteErrorLogs(ctx, "ops", now, now.Add(-time.Hour), "")
		require.ErrorIs(t, err, app.ErrInvalid, "the end before the start")
		n, err := a.DeleteErrorLogs(ctx, "ops", now.Add(-time.Hour), now.Add(time.Hour), app.SourceDownload)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		left, err := a.ErrorLogs(ctx, "", 10)
		require.NoError(t, err)
		require.Len(t, left, 1)
		require.Equal(t, app.SourceCapture, left[0].Source)
		del, err := a.AuditSearch(ctx, app.AuditFilter{Query: "error_log.delete", Limit: 10})
		require.NoError(t, err)
		require.Len(t, del, 1)

		counts, err := a.QueueCounts(ctx)
		require.NoError(t, err)
		require.Empty(t, counts, "no queue has run on this store")
	})
}
