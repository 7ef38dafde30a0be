package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// This file is the export side of capsules (internal/capsule): reading a
// tenant's archive out as plain values, which the capsule packages write
// as files; nothing here knows the file format. The import side is
// capsule_import.go.

// exportPage is how many saved collections one read fetches.
const exportPage = 500

// ExportOptions choose what an export reads.
type ExportOptions struct {
	// IncludePrivate also reads private collections.
	IncludePrivate bool
	// History also reads every earlier revision.
	History bool
	// Query, when not empty, reads only the collections it matches (the
	// search language of ParseQuery, as App.Search reads it); a bad query
	// is its *QueryError and nothing is read.
	Query string
}

// ExportedCollection is one saved collection as an export sees it.
type ExportedCollection struct {
	ID          uuid.UUID
	Platform    string
	EntityType  string
	ObjectScope string
	ExternalID  string
	SourceURL   string
	Visibility  string
	// ClaimedVisibility is what the capsule this collection was imported
	// from claimed ("" for captured content).
	ClaimedVisibility string
	SavedAt           time.Time
	// Current is the current revision.
	Current ExportedRevision
	// History holds the earlier revisions, oldest first (with History).
	History []ExportedRevision
	// Chain is every revision's link, oldest first, with or without
	// History: a capsule carries the whole chain so that it can be checked.
	Chain []ChainLink
	// MediaKeys are the blob store keys of the media the revisions read
	// show, by SHA-256, for OpenExportedMedia.
	MediaKeys map[string]string
}

// ExportedRevision is a revision with the upstream address of each of its
// media, which the revision content does not keep.
type ExportedRevision struct {
	RevisionView
	// MediaSources are the upstream URLs of Media, index by index ("" when
	// unknown).
	MediaSources []string
}

// CountCollections counts the tenant's saved collections.
func (a *App) CountCollections(ctx context.Context, tenantID uuid.UUID) (int, error) {
	return a.store.SavedCollectionCount(store.WithTenant(ctx, tenantID), tenantID)
}

// ExportCollections calls fn for every collection the tenant saved that has
// content, newest save first. Private collections are left out unless
// asked for; skipped counts the collections left out (private, or with no
// completed capture yet). With opts.Query, collections it does not match
// are not read and not counted as skipped. fn may take its time: no
// transaction is open while it runs.
func (a *App) ExportCollections(ctx context.Context, tenantID uuid.UUID, opts ExportOptions, fn func(ExportedCollection) error) (skipped int, err error) {
	ctx = store.WithTenant(ctx, tenantID)
	var match map[uuid.UUID]bool
	if opts.Query != "" {
		if match, err = a.queryMatches(ctx, tenantID, opts.Query); err != nil {
			return 0, err
		}
	}
	var after *store.SavedCursor
	for {
		rows, err := a.store.SavedCollectionList(ctx, tenantID, after, exportPage)
		if err != nil {
			return skipped, err
		}
		var page []store.SavedCollection
		for _, sc := range rows {
			if match != nil && !match[sc.ID] {
				continue
			}
			if sc.CurrentRevisionID == nil || (sc.Visibility == store.Private && !opts.IncludePrivate) {
				skipped++
				continue
			}
			page = append(page, sc)
		}
		if err := a.exportPage(ctx, page, opts.History, fn); err != nil {
			return skipped, err
		}
		if len(rows) < exportPage {
			return skipped, nil
		}
		last := rows[len(rows)-1]
		after = &store.SavedCursor{SavedAt: last.SavedAt, CollectionID: last.ID}
	}
}

// exportPage reads the collections of one page, a chunk at a time, each
// chunk in a few queries for all its collections (store.ExportRead), and
// hands them to fn in the page's order.
func (a *App) exportPage(ctx context.Context, page []store.SavedCollection, history bool, fn func(ExportedCollection) error) error {
	const chunk = 100
	for len(page) > 0 {
		part := page[:min(chunk, len(page))]
		page = page[len(part):]
		ids := make([]uuid.UUID, len(part))
		for i, sc := range part {
			ids[i] = sc.ID
		}
		rows, err := a.store.ExportRead(ctx, ids)
		if err != nil {
			return err
		}
		for _, sc := range part {
			ec, err := exportedCollection(sc, rows, history)
			if err != nil {
				return err
			}
			if err := fn(ec); err != nil {
				return err
			}
		}
	}
	return nil
}

// exportedOne reads one saved collection as an export sees it.
func (a *App) exportedOne(ctx context.Context, sc store.SavedCollection, history bool) (ExportedCollection, error) {
	rows, err := a.store.ExportRead(ctx, []uuid.UUID{sc.ID})
	if err != nil {
		return ExportedCollection{}, err
	}
	return exportedCollection(sc, rows, history)
}

// exportedCollection assembles one collection from what ExportRead read.
func exportedCollection(sc store.SavedCollection, rows store.ExportRows, history bool) (ExportedCollection, error) {
	ec := ExportedCollection{ID: sc.ID, Platform: sc.Platform, EntityType: sc.EntityType, ObjectScope: sc.ObjectScope,
		ExternalID: sc.ExternalID, SourceURL: sc.SourceURL, Visibility: sc.Visibility, ClaimedVisibility: sc.ClaimedVisibility,
		SavedAt: sc.SavedAt, MediaKeys: map[string]string{}}
	chainOrder := rows.Revisions[sc.ID]
	var cur *store.Revision
	ec.Chain = make([]ChainLink, 0, len(chainOrder))
	for i := range chainOrder {
		r := &chainOrder[i]
		l, err := chainLinkOf(*r)
		if err != nil {
			return ec, err
		}
		ec.Chain = append(ec.Chain, l)
		if r.ID == *sc.CurrentRevisionID {
			cur = r
		}
	}
	if cur == nil {
		return ec, fmt.Errorf("app: export %s: its current revision %s is missing: %w", sc.ID, *sc.CurrentRevisionID, store.ErrNotFound)
	}
	var revs []store.Revision
	if history {
		// Oldest first, the current one last whatever its age.
		revs = slices.Clone(chainOrder)
		slices.SortFunc(revs, func(x, y store.Revision) int {
			return cmp.Or(x.CreatedAt.Compare(y.CreatedAt), strings.Compare(x.ID.String(), y.ID.String()))
		})
		revs = slices.DeleteFunc(revs, func(r store.Revision) bool { return r.ID == cur.ID })
	}
	revs = append(revs, *cur)
	for i, r := range revs {
		er, err := exportedRevision(r, rows, ec.MediaKeys)
		if err != nil {
			return ec, err
		}
		if i == len(revs)-1 {
			ec.Current = er
		} else {
			ec.History = append(ec.History, er)
		}
	}
	return ec, nil
}

// exportedRevision assembles one revision, adding its media's keys to
// keys.
func exportedRevision(r store.Revision, rows store.ExportRows, keys map[string]string) (ExportedRevision, error) {
	rv, err := revisionViewOf(r, rows.EntityIDs[r.ID])
	if err != nil {
		return ExportedRevision{}, err
	}
	// Media appear in the content in asset order, so the n-th display
	// media is the n-th complete display asset.
	var sources []string
	for _, as := range rows.Assets[r.CaptureID] {
		if as.Purpose == "" && as.State == store.AssetComplete {
			sources = append(sources, as.SourceURL)
		}
		if as.BlobID != nil && as.BlobSHA256 != "" {
			if k := rows.ObjectKeys[*as.BlobID]; k != "" {
				keys[as.BlobSHA256] = k
			}
		}
	}
	er := ExportedRevision{RevisionView: rv, MediaSources: make([]string, len(rv.Media))}
	copy(er.MediaSources, sources)
	return er, nil
}

// OpenExportedMedia opens a media file of an exported collection: by the
// key keys (the collection's MediaKeys) gives, else (a media file no asset
// of the collection holds) as OpenMedia finds it.
func (a *App) OpenExportedMedia(ctx context.Context, tenantID uuid.UUID, keys map[string]string, sha256 string) (io.ReadCloser, error) {
	if key, ok := keys[sha256]; ok {
		rc, _, err := a.blob.Get(store.WithTenant(ctx, tenantID), key, nil)
		return rc, err
	}
	rc, _, err := a.OpenMedia(ctx, tenantID, sha256, nil)
	return rc, err
}

// queryMatches is the set of the tenant's saved collections that the
// query q matches, read through the search index a page at a time.
func (a *App) queryMatches(ctx context.Context, tenantID uuid.UUID, q string) (map[uuid.UUID]bool, error) {
	query, err := ParseQuery(q, a.now())
	if err != nil {
		return nil, err
	}
	sq := store.SearchQuery{Limit: exportPage}
	if query.Root != nil {
		e := searchExpr(query.Root)
		sq.Where = &e
	}
	out := map[uuid.UUID]bool{}
	for {
		rows, err := a.store.Search(ctx, tenantID, sq)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.ID] = true
		}
		if len(rows) < exportPage {
			return out, nil
		}
		last := rows[len(rows)-1]
		sq.After = &store.SearchCursor{Score: last.Score, SavedAt: last.SavedAt, CollectionID: last.ID}
	}
}
