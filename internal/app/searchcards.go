package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
)

// SearchCard is a search result as the web library shows it: its card
// and the snippet of Search (matches between SnippetOpen and SnippetClose).
type SearchCard struct {
	LibraryCard
	Snippet string
}

// SearchCardPage is one page of search results as cards.
type SearchCardPage struct {
	Items      []SearchCard
	NextCursor string
}

// SearchCards is Search with each result made a library card (author
// handle, avatar, counts and the first media), for the web's results page.
func (a *App) SearchCards(ctx context.Context, tenantID uuid.UUID, q string, limit int, cursor, sort string) (SearchCardPage, error) {
	page, err := a.Search(ctx, tenantID, q, limit, cursor, sort)
	if err != nil {
		return SearchCardPage{}, err
	}
	out := SearchCardPage{NextCursor: page.NextCursor, Items: make([]SearchCard, 0, len(page.Items))}
	for _, it := range page.Items {
		c, err := searchCard(it.CollectionView)
		if err != nil {
			return SearchCardPage{}, err
		}
		out.Items = append(out.Items, SearchCard{LibraryCard: c, Snippet: it.Snippet})
	}
	return out, nil
}

// searchCard is the library card of a collection view.
func searchCard(v CollectionView) (LibraryCard, error) {
	c := LibraryCard{ID: v.ID, Platform: v.Platform, EntityType: v.EntityType, Visibility: v.Visibility, SourceURL: v.SourceURL,
		SavedAt: v.SavedAt, RevisionID: v.RevisionID, Text: v.Text, TextKind: v.TextKind, Summary: v.Summary,
		AuthorName: v.AuthorName, PublishedAt: v.PublishedAt, MediaCount: len(v.Media)}
	c.Media = v.Media[:min(len(v.Media), LibraryCardMedia)]
	if v.Graph == nil {
		return c, nil
	}
	// The view's graph has the stored graph's fields under the same names.
	raw, err := json.Marshal(v.Graph)
	if err != nil {
		return c, fmt.Errorf("app: collection %s: %w", v.ID, err)
	}
	var g contentGraph
	if err := json.Unmarshal(raw, &g); err != nil {
		return c, fmt.Errorf("app: collection %s: %w", v.ID, err)
	}
	cardGraph(&c, g)
	return c, nil
}
