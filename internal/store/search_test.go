package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The store's search takes every value as a parameter (quotes, LIKE
// wildcards and SQL read as text), refuses conditions it does not know,
// and indexing a revision twice keeps one row.
func TestSearchStoreConditions(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		n, err := demo.Import(ctx, c.App, alice)
		require.NoError(t, err)
		tctx := store.WithTenant(ctx, alice)
		search := func(e *store.SearchExpr) []store.SearchRow {
			t.Helper()
			rows, err := c.Store.Search(tctx, alice, store.SearchQuery{Where: e, Limit: 100})
			require.NoError(t, err)
			return rows
		}
		text := func(v string) *store.SearchExpr { return &store.SearchExpr{Op: "text", Value: v} }
		require.Len(t, search(nil), n)
		for _, v := range []string{"%", "%%%", "_x_", `"`, `"); DROP TABLE search_docs; --`, `' OR 1=1 --`, `\`} {
			require.Empty(t, search(text(v)), v)
		}
		require.NotEmpty(t, search(text("'")), "an apostrophe is text: morning's")
		require.NotEmpty(t, search(text("morning's")))
		require.Len(t, search(nil), n, "nothing dropped")
		require.Len(t, search(&store.SearchExpr{Op: "not", Kids: []store.SearchExpr{*text("zzzzzz")}}), n)

		for _, bad := range []store.SearchExpr{{Op: "nope"}, {Op: "and"}, {Op: "not"}, {Op: "kind", Value: "poll"},
			{Op: "published", Cmp: "<>"}, {Op: "saved", Cmp: "; DROP"}} {
			_, err := c.Store.Search(tctx, alice, store.SearchQuery{Where: &bad, Limit: 10})
			require.Error(t, err, "%+v", bad)
		}

		rows := search(text("满潮"))
		require.Len(t, rows, 1)
		rev := *rows[0].CurrentRevisionID
		require.NoError(t, c.Store.InTx(tctx, func(tx *store.Tx) error { return tx.SearchIndexRevision(tctx, rev) }))
		require.Len(t, search(text("满潮")), 1, "indexed again, still one row")

		ranked, err := c.Store.Search(tctx, alice, store.SearchQuery{Where: &store.SearchExpr{Op: "or", Kids: []store.SearchExpr{*text("fog"), *text("harbour")}},
			Rank: []string{"fog", "harbour"}, Limit: 100})
		require.NoError(t, err)
		require.Equal(t, 2, ranked[0].Score)
		for i := 1; i < len(ranked); i++ {
			require.LessOrEqual(t, ranked[i].Score, ranked[i-1].Score)
		}
		after, err := c.Store.Search(tctx, alice, store.SearchQuery{Where: &store.SearchExpr{Op: "or", Kids: []store.SearchExpr{*text("fog"), *text("harbour")}},
			Rank: []string{"fog", "harbour"}, Limit: 100,
			After: &store.SearchCursor{Score: ranked[0].Score, SavedAt: ranked[0].SavedAt, CollectionID: ranked[0].ID}})
		require.NoError(t, err)
		require.Len(t, after, len(ranked)-1)
		require.Equal(t, ranked[1].ID, after[0].ID)
	})
}
