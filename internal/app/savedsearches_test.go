package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

func TestSavedSearches(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)

		tide, err := c.App.SaveSearch(ctx, alice, "  Tide   videos ", "潮  has:VIDEO  -storm saved:>7d")
		require.NoError(t, err)
		require.Equal(t, "Tide videos", tide.Name, "spaces collapse")
		require.Equal(t, "潮 has:video -storm saved:>7d", tide.Query, "kept in canonical form, the age still relative")

		got, err := c.App.SavedSearch(ctx, alice, "Tide videos")
		require.NoError(t, err)
		require.Equal(t, tide.ID, got.ID)

		// Bad names and queries.
		for _, name := range []string{"", "   ", strings.Repeat("潮", app.SavedSearchNameMax+1), "a\x00b"} {
			_, err := c.App.SaveSearch(ctx, alice, name, "tide")
			require.ErrorIs(t, err, app.ErrInvalid, "%q", name)
		}
		_, err = c.App.SaveSearch(ctx, alice, strings.Repeat("潮", app.SavedSearchNameMax), "tide")
		require.NoError(t, err, "80 characters is a name")
		_, err = c.App.SaveSearch(ctx, alice, "unclosed", `"fog over`)
		var qe *app.QueryError
		require.ErrorAs(t, err, &qe)
		require.Equal(t, 9, qe.Pos)
		require.ErrorIs(t, err, app.ErrInvalid)
		_, err = c.App.SaveSearch(ctx, alice, "everything", "   ")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.Contains(t, err.Error(), "type a query")

		// A name is one per tenant; another tenant may use it.
		_, err = c.App.SaveSearch(ctx, alice, "Tide videos", "other")
		require.ErrorIs(t, err, app.ErrConflict)
		require.Contains(t, err.Error(), `named "Tide videos" already`)
		bobs, err := c.App.SaveSearch(ctx, bob, "Tide videos", "bob")
		require.NoError(t, err)

		// Other tenants see nothing of Alice's and cannot touch it.
		list, err := c.App.SavedSearches(ctx, bob)
		require.NoError(t, err)
		require.Len(t, list, 1)
		require.Equal(t, "bob", list[0].Query)
		_, err = c.App.DeleteSavedSearch(ctx, bob, tide.ID)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = c.App.RenameSavedSearch(ctx, bob, tide.ID, "mine")
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = c.App.SavedSearch(ctx, bob, strings.Repeat("潮", app.SavedSearchNameMax))
		require.ErrorIs(t, err, app.ErrNotFound)

		// Rename, then delete.
		_, err = c.App.RenameSavedSearch(ctx, alice, tide.ID, strings.Repeat("潮", app.SavedSearchNameMax))
		require.ErrorIs(t, err, app.ErrConflict)
		renamed, err := c.App.RenameSavedSearch(ctx, alice, tide.ID, "Tides")
		require.NoError(t, err)
		require.Equal(t, "Tides", renamed.Name)
		gone, err := c.App.DeleteSavedSearch(ctx, alice, tide.ID)
		require.NoError(t, err)
		require.Equal(t, "Tides", gone.Name)
		_, err = c.App.DeleteSavedSearch(ctx, alice, tide.ID)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = c.App.DeleteSavedSearch(ctx, alice, uuid.New())
		require.ErrorIs(t, err, app.ErrNotFound)
		list, err = c.App.SavedSearches(ctx, bob)
		require.NoError(t, err)
		require.Equal(t, bobs.ID, list[0].ID, "Bob's is still there")
	})
}

func TestSavedSearchesAreBounded(t *testing.T) {
	t.Parallel()
	c := testcore.New(t, testcore.Options{NoAdapters: true})
	ctx := context.Background()
	alice := c.Tenant(t, "alice", nil)
	for i := range app.SavedSearchesMax {
		_, err := c.App.SaveSearch(ctx, alice, fmt.Sprintf("search %d", i), fmt.Sprintf("word%d", i))
		require.NoError(t, err)
	}
	_, err := c.App.SaveSearch(ctx, alice, "one more", "tide")
	require.ErrorIs(t, err, app.ErrInvalid)
	require.Contains(t, err.Error(), "delete one to save another")
	list, err := c.App.SavedSearches(ctx, alice)
	require.NoError(t, err)
	require.Len(t, list, app.SavedSearchesMax)
}
