package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// TestImportRefusesMediaChangedAfterCheck changes a media file (same size,
// other bytes) between the capsule check, which hashed it, and the import,
// which copies it: the import fails and leaves no collection behind, so
// importing the restored capsule creates every post.
func TestImportRefusesMediaChangedAfterCheck(t *testing.T) {
	const n = 30
	gen := filepath.Join(t.TempDir(), "generated")
	generateCapsule(t, gen, n)
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.New(t, st)
		tenant := in.Tenant(t, "alice", nil)

		src, err := capsule.Open(gen)
		require.NoError(t, err)
		defer src.Close()
		res, err := check.Run(ctx, src, check.Options{})
		require.NoError(t, err)
		require.Zero(t, res.Errors(), "%v", res.Problems)

		media := filepath.Join(gen, filepath.FromSlash(res.Entries[n-1].Collection.Media[0].File))
		orig, err := os.ReadFile(media)
		require.NoError(t, err)
		changed := append([]byte(nil), orig...)
		changed[0] ^= 0xff
		require.NoError(t, os.WriteFile(media, changed, 0o644))

		_, err = importer.Import(ctx, in.App, src, res, importer.Options{TenantID: tenant})
		require.ErrorContains(t, err, "changed")

		require.NoError(t, os.WriteFile(media, orig, 0o644))
		rep := importFrom(t, in, tenant, gen, false)
		require.Len(t, rep.Created, n, "the refused import committed nothing")
	})
}
