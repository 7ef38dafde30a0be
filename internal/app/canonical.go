package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/store"
)

// canonicalWait is how long a capture waits before fetching again when the
// canonical collection it belongs to has a capture of its own in flight.
const canonicalWait = time.Second

// errCanonicalBusy: the canonical collection has another capture in flight.
var errCanonicalBusy = errors.New("canonical collection busy")

// moveToCanonical follows an adapter's canonical target (capture.canonical):
// when what was fetched has a stable identity other than the collection the
// capture was made for — a member of a Telegram album is the album — the
// capture, its submissions and their saved references move to the canonical
// collection, and the collection asked for points there for later
// submissions. The target must be of the same platform and entity type; an
// adapter naming anything else is ignored with a warning.
func (a *App) moveToCanonical(ctx context.Context, tx *store.Tx, c store.Capture, coll store.Collection, ct *adapterv1.Target) error {
	if ct == nil || (ct.GetObjectScope() == coll.ObjectScope && ct.GetExternalId() == coll.ExternalID) {
		return nil
	}
	if ct.GetPlatform() != coll.Platform || ct.GetEntityType() != coll.EntityType || ct.GetExternalId() == "" || coll.Visibility != store.Public {
		a.log.WarnContext(ctx, "ignoring a canonical target of another kind",
			slog.String("adapter", c.AdapterID), slog.String("collection", coll.ID.String()),
			slog.String("platform", ct.GetPlatform()), slog.String("entity_type", ct.GetEntityType()))
		return nil
	}
	url := ct.GetCanonicalUrl()
	if url == "" {
		url = coll.SourceURL
	}
	to, _, err := tx.CollectionGetOrInsert(ctx, store.Collection{
		ID:          PublicCollectionID(coll.Platform, coll.EntityType, ct.GetObjectScope(), ct.GetExternalId()),
		TenantID:    c.TenantID,
		Visibility:  coll.Visibility,
		DataScope:   coll.DataScope,
		AccessScope: coll.AccessScope,
		Platform:    coll.Platform,
		EntityType:  coll.EntityType,
		ObjectScope: ct.GetObjectScope(),
		ExternalID:  ct.GetExternalId(),
		AdapterID:   coll.AdapterID,
		SourceURL:   url,
	})
	if err != nil {
		return err
	}
	if _, err := tx.CaptureInFlight(ctx, captureKey(c, to.ID)); err == nil {
		return errCanonicalBusy
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return tx.CaptureRepoint(ctx, c.ID, coll.ID, to.ID)
}

// canonicalCollection is the collection a submission of coll belongs to:
// coll itself, or the canonical collection an earlier capture found for it.
func canonicalCollection(ctx context.Context, tx *store.Tx, tenantID uuid.UUID, coll store.Collection) (store.Collection, error) {
	to, ok, err := tx.CollectionCanonical(ctx, tenantID, coll.ID)
	if err != nil || !ok {
		return coll, err
	}
	return tx.CollectionGet(ctx, to)
}

// captureKey is the in-flight key of capture c, for collection collID.
func captureKey(c store.Capture, collID uuid.UUID) store.CaptureKey {
	return store.CaptureKey{CollectionID: collID, Provider: c.Provider, ConnectionID: c.ConnectionID, Automatic: c.Automatic,
		PageCursor: c.PageCursor, Expand: c.Expand, PageSize: c.PageSize}
}
