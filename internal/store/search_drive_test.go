package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// A search finds the same rows in the same order, page by page, whether
// it reads the documents its terms match first or walks the tenant's
// saves newest first (the store picks by how many documents match; here
// each way is forced).
func TestSearchReadsTheSameEitherWay(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		_, err := demo.Import(ctx, c.App, alice)
		require.NoError(t, err)
		tctx := store.WithTenant(ctx, alice)
		text := func(v string) store.SearchExpr { return store.SearchExpr{Op: "text", Value: v} }
		and := func(k ...store.SearchExpr) *store.SearchExpr { return &store.SearchExpr{Op: "and", Kids: k} }
		// all pages of 2 rows, as ids and scores.
		all := func(q store.SearchQuery) []string {
			t.Helper()
			var out []string
			q.Limit = 2
			for range 100 {
				rows, err := c.Store.Search(tctx, alice, q)
				require.NoError(t, err)
				for _, r := range rows {
					out = append(out, fmt.Sprintf("%s/%d", r.ID, r.Score))
				}
				if len(rows) < q.Limit {
					return out
				}
				last := rows[len(rows)-1]
				q.After = &store.SearchCursor{Score: last.Score, SavedAt: last.SavedAt, CollectionID: last.ID}
			}
			t.Fatal("more than 100 pages")
			return nil
		}
		for _, q := range []store.SearchQuery{
			{Where: &store.SearchExpr{Op: "text", Value: "harbour"}},
			{Where: &store.SearchExpr{Op: "tag", Value: "harbour"}},
			{Where: and(text("tide"), store.SearchExpr{Op: "has", Value: "photo"})},
			{Where: and(text("the"), text("harbour"), store.SearchExpr{Op: "not", Kids: []store.SearchExpr{text("fog")}})},
			{Where: and(text("潮汐"), text("潮"))},
			{Where: and(text("満ち引き"), store.SearchExpr{Op: "from", Value: "monitor_demo_tides"})},
			{Where: and(text("harbour"), store.SearchExpr{Op: "or", Kids: []store.SearchExpr{text("fog"), text("tide")}})},
			{Where: and(text("harbour"), text("tide")), Rank: []string{"harbour", "tide"}},
			{Where: &store.SearchExpr{Op: "text", Value: "the"}, Rank: []string{"the", "fog"}},
			{Where: &store.SearchExpr{Op: "text", Value: "zeppelin"}},
			// What the index lookup also checks on PostgreSQL: handles and flags.
			{Where: and(text("harbour"), store.SearchExpr{Op: "has", Value: "photo"}, store.SearchExpr{Op: "from", Value: "monitor_demo"})},
			{Where: and(text("the"), store.SearchExpr{Op: "is", Value: "sensitive"})},
			{Where: and(text("harbour"), store.SearchExpr{Op: "from", Value: "nobody_here"})},
			{Where: and(text("harbour"), store.SearchExpr{Op: "or", Kids: []store.SearchExpr{
				{Op: "from", Value: "nobody_here"}, {Op: "has", Value: "video"}}})},
		} {
			store.SetSearchDrive(c.Store, 1<<30)
			fromIndex := all(q)
			store.SetSearchDrive(c.Store, -1)
			walked := all(q)
			store.SetSearchDrive(c.Store, 0)
			require.Equal(t, fromIndex, walked, "%+v", q.Where)
			require.Equal(t, fromIndex, all(q), "%+v", q.Where)
		}
		require.NotEmpty(t, all(store.SearchQuery{Where: &store.SearchExpr{Op: "text", Value: "harbour"}}))
	})
}
