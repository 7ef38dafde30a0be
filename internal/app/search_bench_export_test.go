package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// RevisionWriteTimes writes a new revision of the saved collection
// collectionID, its current content with text as the text, the way
// writeRevision writes imported content (stand-in capture, revision,
// entity graph, search index) and moves the collection to it. It returns
// how long the transaction took without the search index write (rest,
// commit included) and the index write itself, for the search benchmark's
// write cost. The steps are writeRevision's, spelled out so the index
// write can be timed on its own.
func RevisionWriteTimes(ctx context.Context, a *App, tenantID, collectionID uuid.UUID, text string) (rest, index time.Duration, err error) {
	ctx = store.WithTenant(ctx, tenantID)
	sc, err := a.savedCollection(ctx, tenantID, collectionID)
	if err != nil {
		return 0, 0, err
	}
	cur, err := a.store.RevisionGet(ctx, *sc.CurrentRevisionID)
	if err != nil {
		return 0, 0, err
	}
	var doc contentDoc
	if err := json.Unmarshal(cur.Content, &doc); err != nil {
		return 0, 0, err
	}
	doc.Text = text
	content, err := encodeContent(doc)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		coll, err := tx.CollectionGet(ctx, collectionID)
		if err != nil {
			return err
		}
		// As an import: no schemas, each entity keeps "{}".
		schemas := make(map[string]string, len(doc.Graph.Entities))
		for _, e := range doc.Graph.Entities {
			schemas[e.Key] = "{}"
		}
		in := revisionInput{Collection: coll, TenantID: tenantID, Content: content, Schemas: schemas,
			Imported: &importedCapture{Provider: store.ProviderCapsule, At: a.now()}}
		if _, err := tx.RevisionGetByHash(ctx, coll.ID, content.hash); !isNotFound(err) {
			return err
		}
		rev := store.Revision{ID: uuid.Must(uuid.NewV7()), CollectionID: coll.ID, DataScope: coll.DataScope,
			Visibility: coll.Visibility, ContentHash: content.hash, Content: content.body}
		c, err := tx.CaptureInsertFinished(ctx, store.Capture{
			CollectionID: coll.ID, TenantID: tenantID, Visibility: coll.Visibility, DataScope: coll.DataScope,
			AccessScope: coll.AccessScope, AdapterID: coll.AdapterID, Provider: in.Imported.Provider,
		}, rev.ID, in.Imported.At)
		if err != nil {
			return err
		}
		rev.CaptureID = c.ID
		if rev, err = tx.RevisionInsertAt(ctx, rev, in.Imported.At); err != nil {
			return err
		}
		if err := writeGraph(ctx, tx, in, rev); err != nil {
			return err
		}
		at := time.Now()
		if err := tx.SearchIndexRevision(ctx, rev.ID); err != nil {
			return err
		}
		index = time.Since(at)
		return tx.CollectionSetCurrent(ctx, coll.ID, rev.ID)
	})
	return time.Since(start) - index, index, err
}
