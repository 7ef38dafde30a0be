package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// opsMasterKey seals secret settings in the operations tests.
const opsMasterKey = "ops-test-master-key-0123456789"

// opsCore is a business layer with a running queue and its own clock, for
// the operator features: notifications, snapshots, metric samples.
type opsCore struct {
	app   *app.App
	q     *queue.Queue
	clock *testkit.Clock
	st    *store.Store
}

// newOpsCore builds the business layer on st with deps' extras, its
// queue's workers registered; start says whether the queue works jobs.
func newOpsCore(t *testing.T, st *store.Store, deps app.Deps, start bool) *opsCore {
	t.Helper()
	ctx := context.Background()
	log := storetest.Logger(t)
	require.NoError(t, queue.Migrate(ctx, st, log))
	c := &opsCore{clock: &testkit.Clock{}, st: st}
	deps.Store, deps.Log, deps.Now = st, log, c.clock.Now
	if deps.MasterKey == "" {
		deps.MasterKey = opsMasterKey
	}
	c.app = app.New(deps)
	q, err := queue.New(st, config.Queue{CaptureWorkers: 1, DownloadWorkers: 1, ControlWorkers: 2}, log, c.app.RegisterWorkers)
	require.NoError(t, err)
	c.q = q
	c.app.AttachQueue(q)
	if start {
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = q.Stop(ctx)
		})
	}
	return c
}

func (c *opsCore) set(t *testing.T, key, value string) {
	t.Helper()
	_, err := c.app.SetSetting(context.Background(), "admin-test", key, value)
	require.NoError(t, err, "set %s", key)
}
