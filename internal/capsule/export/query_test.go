package export_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// externalIDs are the external ids of a capsule's collections, sorted.
func externalIDs(t *testing.T, dir string) []string {
	t.Helper()
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Errors(), "%v", res.Problems)
	var out []string
	for _, e := range res.Entries {
		out = append(out, e.Collection.ExternalID)
	}
	sort.Strings(out)
	return out
}

func TestExportQuery(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.New(t, st)
		alice := in.Tenant(t, "alice", nil)
		n, err := demo.Import(ctx, in.App, alice)
		require.NoError(t, err)
		work := t.TempDir()
		run := func(name, q string, private bool) (export.Result, error) {
			return export.Export(ctx, in.App, export.Options{TenantID: alice, TenantName: "alice", Out: filepath.Join(work, name),
				IncludePrivate: private, Query: q})
		}

		// Imported posts are private: the query combines with --include-private.
		res, err := run("tags", "#harbour", true)
		require.NoError(t, err)
		require.Equal(t, 2, res.Collections)
		require.Zero(t, res.Skipped)
		require.Equal(t, []string{"1999000000000000101", "1999000000000000102"}, externalIDs(t, filepath.Join(work, "tags")))

		res, err = run("group", "(fog OR 满潮) -crane", true)
		require.NoError(t, err)
		require.Equal(t, 1, res.Collections)
		require.Equal(t, []string{"monitor_demo_tides/204"}, externalIDs(t, filepath.Join(work, "group")))

		// Every collection when the query is empty.
		res, err = run("all", "", true)
		require.NoError(t, err)
		require.Equal(t, n, res.Collections)

		// A bad query names the character, and nothing is written.
		_, err = run("bad", `harbour "unclosed`, true)
		require.ErrorContains(t, err, "--query: at character 18: the phrase opened at character 9 is not closed (expected a closing quote)")
		require.NoDirExists(t, filepath.Join(work, "bad"))

		// Nothing to export: refused, with the reason when it is privacy.
		_, err = run("none", "zzqx", true)
		require.ErrorContains(t, err, `no collection to export matches --query "zzqx", so no capsule was written`)
		require.NotContains(t, err.Error(), "--include-private")
		require.NoDirExists(t, filepath.Join(work, "none"))
		res, err = run("private", "#harbour", false)
		require.ErrorContains(t, err, "private collections are left out without --include-private")
		require.Equal(t, 2, res.Skipped)
		require.NoDirExists(t, filepath.Join(work, "private"))

		left, err := os.ReadDir(work)
		require.NoError(t, err)
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		require.ElementsMatch(t, []string{"tags", "group", "all"}, names, "no staging folder is left behind")
	})
}
