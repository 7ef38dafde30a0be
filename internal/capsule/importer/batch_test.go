package importer_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/capsule/verify"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// TestImportExportManyPosts imports more posts than any of the import's
// and export's batches hold (objects recorded 200 a statement, revisions
// indexed for search 500 a statement, the export read 100 collections at
// a time and 200 ids a query), so every batch boundary is crossed: every
// post is searchable, the export carries every post and media file and
// verifies, and a second import finds nothing new.
func TestImportExportManyPosts(t *testing.T) {
	const n = 530
	gen := filepath.Join(t.TempDir(), "generated")
	generateCapsule(t, gen, n)
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.New(t, st)
		tenant := in.Tenant(t, "alice", nil)
		rep := importFrom(t, in, tenant, gen, false)
		require.Len(t, rep.Created, n)
		require.Equal(t, n, rep.UploadedFiles)

		// The search index has every revision, the first and the last of
		// the batches: post i says "Post number i".
		for _, q := range []string{`"number 0 "`, `"number 499 "`, `"number 500 "`, `"number 529 "`} {
			page, err := in.App.Search(ctx, tenant, q, 10, "", "")
			require.NoError(t, err, q)
			require.Len(t, page.Items, 1, q)
		}
		page, err := in.App.Search(ctx, tenant, "#tag7", 50, "", "")
		require.NoError(t, err)
		require.Len(t, page.Items, 11, "posts 7, 57, ..., 507")

		out := filepath.Join(t.TempDir(), "capsule")
		ex, err := export.Export(ctx, in.App, export.Options{TenantID: tenant, TenantName: "alice", Out: out, IncludePrivate: true, History: true})
		require.NoError(t, err)
		require.Equal(t, n, ex.Collections)
		src, err := capsule.Open(out)
		require.NoError(t, err)
		defer src.Close()
		res, err := check.Run(ctx, src, check.Options{})
		require.NoError(t, err)
		require.Zero(t, res.Errors(), "%v", res.Problems)
		require.Len(t, res.Entries, n)
		require.Len(t, res.Files, n, "every post's media file, copied and verified")
		vr, err := verify.Run(ctx, src, res, verify.Options{})
		require.NoError(t, err)
		require.Empty(t, vr.Problems)
		require.Equal(t, n, vr.Collections)

		// The same capsule again: nothing is new.
		again := importFrom(t, in, tenant, gen, false)
		require.Empty(t, again.Created)
		require.Len(t, again.Skipped, n)
		require.Zero(t, again.UploadedFiles)

		// The export (private copies), imported by another tenant, lands
		// whole, its chains checked on the way in.
		bob := in.Tenant(t, "bob", nil)
		back, err := importer.Import(ctx, in.App, src, res, importer.Options{TenantID: bob, IncludePrivate: true})
		require.NoError(t, err)
		require.Len(t, back.Created, n)
		require.Zero(t, back.UploadedFiles+back.ReusedFiles-n, "one media file a post")
	})
}
