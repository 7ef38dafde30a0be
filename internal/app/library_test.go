package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

func TestLibraryCardsFiltersAndPages(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		photos, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		video, c := p.capture(t, alice, videoPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		gone, c := p.capture(t, alice, goncePost)
		require.Equal(t, app.StateFailed, c.State)

		page, err := p.app.Library(ctx, alice, app.LibraryQuery{})
		require.NoError(t, err)
		require.Len(t, page.Items, 3)
		require.Empty(t, page.NextCursor)
		// Newest save first: the failed one was saved last.
		require.Equal(t, []string{gone.CollectionID.String(), video.CollectionID.String(), photos.CollectionID.String()},
			[]string{page.Items[0].ID.String(), page.Items[1].ID.String(), page.Items[2].ID.String()})

		failed := page.Items[0]
		require.Nil(t, failed.RevisionID, "a failed first capture has no content")
		require.NotNil(t, failed.Capture)
		require.Equal(t, app.StateFailed, failed.Capture.State)
		require.NotEmpty(t, failed.Capture.Error, "the card says why")

		card := page.Items[2]
		require.NotNil(t, card.RevisionID)
		require.NotEmpty(t, card.Text)
		require.NotEmpty(t, card.AuthorName)
		require.Equal(t, "archivist_demo", card.AuthorHandle)
		require.NotEmpty(t, card.AuthorAvatar, "the author's archived avatar")
		require.NotEmpty(t, card.Media)
		require.LessOrEqual(t, len(card.Media), app.LibraryCardMedia)
		require.GreaterOrEqual(t, card.MediaCount, len(card.Media))
		require.Equal(t, "image", card.Media[0].Kind)
		require.NotNil(t, card.Counts.Likes, "the graph's counts")
		require.Equal(t, app.StateComplete, card.Capture.State)

		// Filters.
		vids, err := p.app.Library(ctx, alice, app.LibraryQuery{MediaKind: "video"})
		require.NoError(t, err)
		require.Len(t, vids.Items, 1)
		require.Equal(t, video.CollectionID, vids.Items[0].ID)
		byAuthor, err := p.app.Library(ctx, alice, app.LibraryQuery{Author: card.AuthorName[:3]})
		require.NoError(t, err)
		require.Len(t, byAuthor.Items, 2, "the failed capture has no author")
		none, err := p.app.Library(ctx, alice, app.LibraryQuery{Platform: "telegram"})
		require.NoError(t, err)
		require.Empty(t, none.Items)
		x, err := p.app.Library(ctx, alice, app.LibraryQuery{Platform: "x", Visibility: "public"})
		require.NoError(t, err)
		require.Len(t, x.Items, 3)
		future, err := p.app.Library(ctx, alice, app.LibraryQuery{SavedFrom: time.Now().Add(24 * time.Hour)})
		require.NoError(t, err)
		require.Empty(t, future.Items)
		wild, err := p.app.Library(ctx, alice, app.LibraryQuery{Author: "%"})
		require.NoError(t, err)
		require.Empty(t, wild.Items, "LIKE wildcards match only themselves")

		// Pages.
		first, err := p.app.Library(ctx, alice, app.LibraryQuery{Limit: 2})
		require.NoError(t, err)
		require.Len(t, first.Items, 2)
		require.NotEmpty(t, first.NextCursor)
		second, err := p.app.Library(ctx, alice, app.LibraryQuery{Limit: 2, Cursor: first.NextCursor})
		require.NoError(t, err)
		require.Len(t, second.Items, 1)
		require.Equal(t, photos.CollectionID, second.Items[0].ID)
		require.Empty(t, second.NextCursor)

		// Bad input is refused with a reason.
		for _, q := range []app.LibraryQuery{{Limit: 101}, {Visibility: "secret"}, {MediaKind: "hologram"}, {Platform: "X!"},
			{Cursor: "nope"}, {SavedFrom: time.Now(), SavedBefore: time.Now().Add(-time.Hour)}} {
			_, err := p.app.Library(ctx, alice, q)
			require.ErrorIs(t, err, app.ErrInvalid, "%+v", q)
		}

		// Another tenant sees only what it saved.
		other, err := p.app.Library(ctx, bob, app.LibraryQuery{})
		require.NoError(t, err)
		require.Empty(t, other.Items)
	})
}

func TestRemoveAndRestoreKeepsThePlace(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		photos, _ := p.capture(t, alice, photosPost)
		p.capture(t, alice, videoPost)

		saved, err := p.app.RemoveFromLibrary(ctx, alice, photos.CollectionID)
		require.NoError(t, err)
		page, err := p.app.Library(ctx, alice, app.LibraryQuery{})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		_, err = p.app.RemoveFromLibrary(ctx, alice, photos.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound, "removed already")

		require.NoError(t, p.app.RestoreCollection(ctx, alice, photos.CollectionID, saved))
		require.NoError(t, p.app.RestoreCollection(ctx, alice, photos.CollectionID, saved), "restoring twice is no error")
		page, err = p.app.Library(ctx, alice, app.LibraryQuery{})
		require.NoError(t, err)
		require.Len(t, page.Items, 2)
		require.Equal(t, photos.CollectionID, page.Items[1].ID, "back in its old place, below the newer save")
		require.True(t, page.Items[1].SavedAt.Equal(saved))

		// Another tenant cannot "restore" a post it never saved... unless
		// it is public content, which it may save; a missing one is 404.
		require.ErrorIs(t, p.app.RestoreCollection(ctx, alice, uuid.New(), time.Time{}), app.ErrNotFound)
	})
}

func TestRestoreChecksTheQuota(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		photos, _ := p.capture(t, alice, photosPost)
		saved, err := p.app.RemoveFromLibrary(ctx, alice, photos.CollectionID)
		require.NoError(t, err)
		zero := int64(0)
		_, err = p.app.UpdateTenant(ctx, "test", "alice", app.TenantChange{QuotaSet: true, QuotaBytes: &zero})
		require.NoError(t, err)
		err = p.app.RestoreCollection(ctx, alice, photos.CollectionID, saved)
		require.ErrorIs(t, err, app.ErrQuota)
		page, err := p.app.Library(ctx, alice, app.LibraryQuery{})
		require.NoError(t, err)
		require.Empty(t, page.Items, "a refused restore saves nothing")
	})
}

func TestTenantTokens(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		secret, tv, err := p.app.CreateTenantToken(ctx, alice, "laptop")
		require.NoError(t, err)
		require.False(t, tv.Admin)
		pr, err := p.app.Authenticate(ctx, secret)
		require.NoError(t, err)
		require.Equal(t, alice, pr.TenantID)
		toks, err := p.app.TenantTokens(ctx, alice)
		require.NoError(t, err)
		require.Len(t, toks, 1)
		require.ErrorIs(t, p.app.RevokeTenantToken(ctx, bob, tv.ID), app.ErrNotFound, "not bob's token")
		require.NoError(t, p.app.RevokeTenantToken(ctx, alice, tv.ID))
		_, err = p.app.Authenticate(ctx, secret)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		_, _, err = p.app.CreateTenantToken(ctx, alice, "bad\nname")
		require.ErrorIs(t, err, app.ErrInvalid)
	})
}
