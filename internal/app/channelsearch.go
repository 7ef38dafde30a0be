package app

import (
	"context"

	"github.com/google/uuid"
)

// ChannelMaxSearchPage is the deepest page ChannelSearch reads: a page is
// found by reading past the ones before it, so the depth bounds the work
// of one button press (50 pages of 20 are 1,000 results; a person who
// needs more narrows the query).
const ChannelMaxSearchPage = 50

// searchSkipChunk is how many results one read passes over on the way to
// a deeper page (Search's own largest page).
const searchSkipChunk = 100

// ChannelSearchPage is one page of a channel's search, newest save first.
type ChannelSearchPage struct {
	Items []SearchItem
	// More says a next page exists.
	More bool
}

// ChannelSearch reads page (from 1) of limit (1 to 20, 0 = 10) results of
// Search for the work item's tenant, summaries in the item's language. A
// bad query is Search's *QueryError.
//
// Pages are numbered, not chained by cursors: a channel's page button then
// needs to carry only the page number (Telegram's button data holds 64
// bytes, a search cursor alone more), and it works however old it is. The
// price is that page n reads past the n-1 before it, bounded by
// ChannelMaxSearchPage; and like any numbered paging, a page moves when
// posts are saved meanwhile.
func (a *App) ChannelSearch(ctx context.Context, id uuid.UUID, owner, q string, page, limit int) (ChannelSearchPage, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelSearchPage{}, err
	}
	switch {
	case limit == 0:
		limit = defaultListLimit
	case limit < 0 || limit > maxListLimit:
		return ChannelSearchPage{}, badRequest("limit must be from 1 to %d", maxListLimit)
	}
	if page < 1 || page > ChannelMaxSearchPage {
		return ChannelSearchPage{}, badRequest("page must be from 1 to %d; narrow the query to see what lies further", ChannelMaxSearchPage)
	}
	cursor := ""
	for skip := (page - 1) * limit; skip > 0; {
		n := min(skip, searchSkipChunk)
		p, err := a.Search(j.ctx, j.tenantID, q, n, cursor, SearchSortNewest)
		if err != nil {
			return ChannelSearchPage{}, err
		}
		if p.NextCursor == "" {
			// The results end before this page.
			return ChannelSearchPage{Items: []SearchItem{}}, nil
		}
		cursor, skip = p.NextCursor, skip-n
	}
	p, err := a.Search(j.ctx, j.tenantID, q, limit, cursor, SearchSortNewest)
	if err != nil {
		return ChannelSearchPage{}, err
	}
	for i := range p.Items {
		p.Items[i].Summary = RenderSummary(p.Items[i].Summary, j.lang)
	}
	return ChannelSearchPage{Items: p.Items, More: p.NextCursor != ""}, nil
}
