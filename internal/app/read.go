package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/store"
)

// Capture shows a capture to a tenant that submitted it.
func (a *App) Capture(ctx context.Context, tenantID, captureID uuid.UUID) (CaptureView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	ok, err := a.store.SubmissionExistsForCapture(ctx, tenantID, captureID)
	if err != nil {
		return CaptureView{}, err
	}
	if !ok {
		return CaptureView{}, errorf(ErrNotFound, "no capture with id %s", captureID)
	}
	c, err := a.store.CaptureGet(ctx, captureID)
	if err != nil {
		return CaptureView{}, err
	}
	return CaptureView{ID: c.ID, State: c.State, Error: c.Error, ErrorCode: c.ErrorCode, RevisionID: c.RevisionID, CollectionID: c.CollectionID,
		CreatedAt: c.CreatedAt, FinishedAt: c.FinishedAt, Provider: c.Provider, ConnectionID: c.ConnectionID, CredentialRevision: c.CredentialRevision}, nil
}

// Collections lists the tenant's saved collections, newest save first.
func (a *App) Collections(ctx context.Context, tenantID uuid.UUID, limit int, cursor string) (CollectionPage, error) {
	ctx = store.WithTenant(ctx, tenantID)
	if limit < 1 || limit > 100 {
		return CollectionPage{}, errorf(ErrInvalid, "limit must be from 1 to 100")
	}
	after, err := decodeCursor(cursor)
	if err != nil {
		return CollectionPage{}, err
	}
	rows, err := a.store.SavedCollectionList(ctx, tenantID, after, limit+1)
	if err != nil {
		return CollectionPage{}, err
	}
	page := CollectionPage{Items: []CollectionView{}}
	if len(rows) > limit {
		last := rows[limit-1]
		page.NextCursor = encodeCursor(store.SavedCursor{SavedAt: last.SavedAt, CollectionID: last.ID})
		rows = rows[:limit]
	}
	if page.Items, err = a.collectionViews(ctx, rows); err != nil {
		return CollectionPage{}, err
	}
	return page, nil
}

// Collection shows one saved collection with its current revision.
func (a *App) Collection(ctx context.Context, tenantID, id uuid.UUID) (CollectionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	sc, err := a.savedCollection(ctx, tenantID, id)
	if err != nil {
		return CollectionView{}, err
	}
	return a.collectionView(ctx, sc)
}

// savedCollection finds a tenant's saved collection by id. The id of a
// collection that resolved to a canonical one (an album member's link)
// finds the canonical collection, so ids handed out before the capture
// moved keep working.
func (a *App) savedCollection(ctx context.Context, tenantID, id uuid.UUID) (store.SavedCollection, error) {
	sc, err := a.store.SavedCollectionGet(ctx, tenantID, id)
	if isNotFound(err) {
		var to uuid.UUID
		var ok bool
		if terr := a.store.InTx(ctx, func(tx *store.Tx) (err error) {
			to, ok, err = tx.CollectionCanonical(ctx, tenantID, id)
			return err
		}); terr != nil && !isNotFound(terr) {
			return sc, terr
		}
		if ok {
			sc, err = a.store.SavedCollectionGet(ctx, tenantID, to)
		}
	}
	if isNotFound(err) {
		return sc, errorf(ErrNotFound, "no saved collection with id %s", id)
	}
	return sc, err
}

func (a *App) collectionView(ctx context.Context, sc store.SavedCollection) (CollectionView, error) {
	vs, err := a.collectionViews(ctx, []store.SavedCollection{sc})
	if err != nil {
		return CollectionView{}, err
	}
	return vs[0], nil
}

// collectionViews shows saved collections with their current revisions,
// reading what they show in one go (store.CollectionDetailsOf).
func (a *App) collectionViews(ctx context.Context, rows []store.SavedCollection) ([]CollectionView, error) {
	ids := make([]uuid.UUID, 0, len(rows))
	var revs []uuid.UUID
	known := map[uuid.UUID]RevisionView{}
	for _, sc := range rows {
		ids = append(ids, sc.ID)
		if r := sc.CurrentRevisionID; r != nil {
			if rv, ok := a.contents.get(*r); ok {
				known[*r] = rv
			} else {
				revs = append(revs, *r)
			}
		}
	}
	d, err := a.store.CollectionDetailsOf(ctx, ids, revs)
	if err != nil {
		return nil, err
	}
	out := make([]CollectionView, 0, len(rows))
	for _, sc := range rows {
		v := CollectionView{
			ID: sc.ID, Platform: sc.Platform, EntityType: sc.EntityType, ExternalID: sc.ExternalID, SourceURL: sc.SourceURL,
			Visibility: sc.Visibility, SavedAt: sc.SavedAt, RevisionID: sc.CurrentRevisionID, Media: []MediaView{},
			State: d.States[sc.ID],
		}
		if id := sc.CurrentRevisionID; id != nil {
			rv, ok := known[*id]
			if !ok {
				r, found := d.Revisions[*id]
				if !found {
					return nil, fmt.Errorf("app: collection %s: its current revision %s is missing", sc.ID, *id)
				}
				if rv, err = revisionViewOf(r, d.EntityIDs[r.ID]); err != nil {
					return nil, err
				}
				a.contents.put(*id, rv)
			}
			v.Text, v.TextKind, v.Summary, v.AuthorName, v.PublishedAt = rv.Text, rv.TextKind, rv.Summary, rv.AuthorName, rv.PublishedAt
			v.Media = rv.Media
			v.Graph = &rv.Graph
		}
		out = append(out, v)
	}
	return out, nil
}

// Revisions lists a saved collection's revisions, newest first.
func (a *App) Revisions(ctx context.Context, tenantID, collectionID uuid.UUID) ([]RevisionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	if _, err := a.savedCollection(ctx, tenantID, collectionID); err != nil {
		return nil, err
	}
	revs, err := a.store.RevisionList(ctx, collectionID)
	if err != nil {
		return nil, err
	}
	out := make([]RevisionView, 0, len(revs))
	for _, r := range revs {
		rv, err := a.revisionView(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, rv)
	}
	return out, nil
}

// Revision shows one revision of a collection the tenant saved.
func (a *App) Revision(ctx context.Context, tenantID, revisionID uuid.UUID) (RevisionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	r, err := a.store.RevisionGet(ctx, revisionID)
	if isNotFound(err) {
		return RevisionView{}, errorf(ErrNotFound, "no revision with id %s", revisionID)
	}
	if err != nil {
		return RevisionView{}, err
	}
	if _, err := a.savedCollection(ctx, tenantID, r.CollectionID); err != nil {
		return RevisionView{}, errorf(ErrNotFound, "no revision with id %s", revisionID)
	}
	return a.revisionView(ctx, r)
}

func (a *App) revisionView(ctx context.Context, r store.Revision) (RevisionView, error) {
	ids, err := a.store.RevisionEntityIDs(ctx, r.ID)
	if err != nil {
		return RevisionView{}, err
	}
	return revisionViewOf(r, ids)
}

// revisionViewOf shows a revision whose graph keys name the entities ids.
func revisionViewOf(r store.Revision, ids map[string]uuid.UUID) (RevisionView, error) {
	var doc contentDoc
	if err := json.Unmarshal(r.Content, &doc); err != nil {
		return RevisionView{}, fmt.Errorf("app: revision %s: %w", r.ID, err)
	}
	rv := RevisionView{
		ID: r.ID, CollectionID: r.CollectionID, CaptureID: r.CaptureID, Text: doc.Text, TextKind: doc.TextKind,
		Summary: doc.Summary, AuthorName: doc.AuthorName, PublishedAt: doc.PublishedAt, Media: []MediaView{},
		ContentBytes: r.ContentBytes, CreatedAt: r.CreatedAt, ObservedAt: r.ObservedAt, ContentHash: r.ContentHash,
		Graph: GraphView{Root: doc.Graph.Root, Entities: []EntityNode{}, Relations: doc.Graph.Relations},
	}
	for _, m := range doc.Media {
		rv.Media = append(rv.Media, MediaView{SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size, Width: m.Width,
			Height: m.Height, DurationMS: m.DurationMS, Alt: m.Alt, Sensitive: m.Sensitive})
	}
	for _, e := range doc.Graph.Entities {
		n := EntityNode{Key: e.Key, EntityID: ids[e.Key], Type: e.Type, ExternalID: e.ExternalID, Data: e.Data}
		for _, res := range e.Resources {
			n.Resources = append(n.Resources, ResourceView{Purpose: res.Purpose, SHA256: res.SHA256, Kind: res.Kind, Mime: res.Mime, Size: res.Size})
		}
		rv.Graph.Entities = append(rv.Graph.Entities, n)
	}
	if rv.Graph.Relations == nil {
		rv.Graph.Relations = []RelationView{}
	}
	return rv, nil
}

// DeleteCollection removes the tenant's reference to a collection; the
// content stays for other savers and is purged later when nobody has it.
func (a *App) DeleteCollection(ctx context.Context, tenantID, id uuid.UUID) error {
	ctx = store.WithTenant(ctx, tenantID)
	err := a.store.InTx(ctx, func(tx *store.Tx) error { return tx.TenantCollectionDelete(ctx, tenantID, id) })
	if isNotFound(err) {
		return errorf(ErrNotFound, "no saved collection with id %s", id)
	}
	return err
}

// Entity shows the newest snapshot of an entity among the tenant's saved
// collections.
func (a *App) Entity(ctx context.Context, tenantID, id uuid.UUID) (EntityView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	es, err := a.store.EntityLatestForTenant(ctx, tenantID, id)
	if isNotFound(err) {
		return EntityView{}, errorf(ErrNotFound, "no entity with id %s", id)
	}
	if err != nil {
		return EntityView{}, err
	}
	return EntityView{ID: es.ID, Platform: es.Platform, Type: es.Type, ExternalID: es.ExternalID, Visibility: es.Visibility,
		Data: json.RawMessage(es.Data), VersionID: es.VersionID, UpdatedAt: es.CreatedAt}, nil
}

// OpenMedia opens stored media by content hash, when a collection the
// tenant saved references it. MediaFile.Size is the whole file's size.
func (a *App) OpenMedia(ctx context.Context, tenantID uuid.UUID, sha256 string, rng *blob.Range) (io.ReadCloser, MediaFile, error) {
	ctx = store.WithTenant(ctx, tenantID)
	b, err := a.store.BlobForTenant(ctx, tenantID, sha256)
	if isNotFound(err) {
		return nil, MediaFile{}, errorf(ErrNotFound, "no media with sha256 %s in your archive", sha256)
	}
	if err != nil {
		return nil, MediaFile{}, err
	}
	rc, _, err := a.blob.Get(ctx, b.ObjectKey, rng)
	if err != nil {
		return nil, MediaFile{SHA256: b.SHA256, Mime: b.Mime, Size: b.Size}, err
	}
	return rc, MediaFile{SHA256: b.SHA256, Mime: b.Mime, Size: b.Size}, nil
}

// Usage is the tenant's storage accounting.
func (a *App) Usage(ctx context.Context, tenantID uuid.UUID) (Usage, error) {
	ctx = store.WithTenant(ctx, tenantID)
	u, err := a.store.TenantUsage(ctx, tenantID)
	return Usage{UsedBytes: u.UsedBytes, ReservedBytes: u.ReservedBytes, QuotaBytes: u.QuotaBytes}, err
}

// Adapters lists the configured adapters with their online status.
func (a *App) Adapters() []AdapterView {
	out := []AdapterView{}
	if a.adapters == nil {
		return out
	}
	for _, ad := range a.adapters.Adapters() {
		d := ad.Describe()
		v := AdapterView{ID: d.GetAdapterId(), DisplayName: d.GetDisplayName(), Version: d.GetAdapterVersion(),
			Online: ad.Online(), Hosts: d.GetHosts(), Providers: []ProviderView{}, EntityTypes: []string{}}
		if v.DisplayName == "" {
			v.DisplayName = v.ID
		}
		for _, et := range d.GetEntityTypes() {
			v.EntityTypes = append(v.EntityTypes, et.GetName())
		}
		for _, p := range d.GetProviders() {
			pv := ProviderView{ID: p.GetId(), AuthMode: strings.TrimPrefix(strings.ToLower(p.GetAuthMode().String()), "auth_mode_"),
				Default: p.GetDefaultProvider(), Capabilities: []string{}}
			for _, c := range p.GetCapabilities() {
				pv.Capabilities = append(pv.Capabilities, fmt.Sprintf("%s/%d.%d", c.GetName(), c.GetMajor(), c.GetMinor()))
			}
			v.Providers = append(v.Providers, pv)
		}
		out = append(out, v)
	}
	return out
}

// Cursors are opaque to clients: base64url of "<unix nanos>.<collection id>".
func encodeCursor(c store.SavedCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.SavedAt.UnixNano(), 10) + "." + c.CollectionID.String()))
}

func decodeCursor(s string) (*store.SavedCursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := errorf(ErrInvalid, "cursor %q is not one this API gave out; start again without a cursor", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	ns, id, ok := strings.Cut(string(raw), ".")
	if !ok {
		return nil, bad
	}
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return nil, bad
	}
	cid, err := uuid.Parse(id)
	if err != nil {
		return nil, bad
	}
	return &store.SavedCursor{SavedAt: time.Unix(0, n).UTC(), CollectionID: cid}, nil
}
