package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
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
// Search for the work item's tenant, newest save first, summaries in the
// item's language. A bad query is Search's *QueryError.
//
// Pages are numbered, not chained by cursors: a channel's page button then
// needs to carry only the page number (Telegram's button data holds 64
// bytes, a search cursor alone more), and it works however old it is.
// Page n is found by reading past the n-1 before it, bounded by
// ChannelMaxSearchPage, unless after names the last result of the page
// before (a "next" button can carry that id): the page then starts right
// after that collection's place, which costs one read however deep. An
// after the tenant no longer saved falls back to counting. Like any
// numbered paging, a page moves when posts are saved meanwhile.
func (a *App) ChannelSearch(ctx context.Context, id uuid.UUID, owner, q string, page int, after *uuid.UUID, limit int) (ChannelSearchPage, error) {
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
	cursor, found, err := a.searchCursorAfter(j, after)
	if err != nil {
		return ChannelSearchPage{}, err
	}
	for skip := (page - 1) * limit; !found && skip > 0; {
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

// searchCursorAfter is the cursor of a newest-first search that resumes
// after the tenant's saved collection after (its place: when it was
// saved, and its id); found is false for none or one no longer saved.
func (a *App) searchCursorAfter(j *channelJob, after *uuid.UUID) (cursor string, found bool, err error) {
	if after == nil || *after == uuid.Nil {
		return "", false, nil
	}
	sc, err := a.store.SavedCollectionGet(j.ctx, j.tenantID, *after)
	if isNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return encodeSearchCursor(SearchSortNewest, store.SearchRow{SavedCollection: sc}), true, nil
}
