package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/store"
)

// This file is the import side of capsules (internal/capsule): writing
// collections read from a capsule into a tenant's archive, through the
// archive writer (archive.go). The capsule packages convert between these
// plain values and files; nothing here knows the file format. The export
// side is capsule_export.go.

// privateAccessScope is the access scope of private content, such as
// everything imported from a capsule: only its tenant may see it.
const privateAccessScope = "private"

// ImportCollection is one collection to import: its identity, when the
// tenant saved it, and its revisions.
type ImportCollection struct {
	// ID is the id the source gave it. It is only reported: the imported
	// copy gets the id of its private identity in the importer's scope.
	ID          uuid.UUID
	Platform    string
	EntityType  string
	ObjectScope string
	ExternalID  string
	SourceURL   string
	// Visibility is what the source states, public or private. It is a
	// claim, recorded but never granted: imports are private.
	Visibility string
	// ClaimedVisibility, when set, is an earlier claim the source carries
	// on (a capsule exported from an imported copy); it wins over
	// Visibility as the claim recorded.
	ClaimedVisibility string
	SavedAt           time.Time
	// Revisions are oldest first; the last one becomes current.
	Revisions []ImportRevision
	// Label names the collection in the report (its capsule file).
	Label string
}

// ImportRevision is one content version to import.
type ImportRevision struct {
	CapturedAt  time.Time
	Text        string
	TextKind    string
	Summary     string
	AuthorName  string
	PublishedAt *time.Time
	Media       []ImportMedia
	Graph       ImportGraph
	// Link is the revision's link in the source's chain, nil when the
	// source has none; the import recomputes it and refuses one that
	// differs.
	Link *ImportLink
	// Current marks the revision that becomes current; when none is
	// marked, the last one does.
	Current bool
}

// ImportLink is a revision's link as a capsule states it (internal/chain).
type ImportLink struct {
	PrevHash       string
	ChainHash      string
	Raw            []string
	AdapterID      string
	AdapterVersion string
}

// ImportMedia is one display media of an imported revision.
type ImportMedia struct {
	SHA256     string
	Kind       string
	Mime       string
	Size       int64
	Width      int
	Height     int
	DurationMS int
	Alt        string
	Sensitive  bool
	SourceURL  string
}

// ImportGraph is the entity graph of an imported revision.
type ImportGraph struct {
	Root      string
	Entities  []ImportEntity
	Relations []RelationView
}

// ImportEntity is one entity of an imported graph.
type ImportEntity struct {
	Key        string
	Type       string
	ExternalID string
	Data       json.RawMessage
	Resources  []ImportResource
}

// ImportResource is a media file of an imported entity.
type ImportResource struct {
	Purpose string
	SHA256  string
	Kind    string
	Mime    string
	Size    int64
}

// ImportOptions control an import.
type ImportOptions struct {
	// DryRun does everything but upload, then rolls the transaction back,
	// so the report (quota included) is what a real run would do.
	DryRun bool
	// Open opens the bytes of the media with a SHA-256; the caller has
	// verified them.
	Open func(sha256 string) (io.ReadCloser, error)
	// Progress, when set, is called as media are uploaded.
	Progress func(done, total int)
	// Provider names the source on the stand-in captures of the imported
	// revisions ("": store.ProviderCapsule), e.g. "x-archive".
	Provider string
}

// ImportOutcome is what happened to one collection.
type ImportOutcome struct {
	// ID is the collection's id in this archive.
	ID uuid.UUID
	// FileID is the id the source gave it; it differs from ID when the
	// import gave the collection its private id.
	FileID uuid.UUID
	Label  string
	// Reason explains a skip or link, and for a created collection what
	// changed from the file (visibility, id); "" when nothing did.
	Reason string
}

// ImportReport says what an import did (or, dry, would do).
type ImportReport struct {
	DryRun bool
	// Created are private copies new to the tenant's archive.
	Created []ImportOutcome
	// Linked are the tenant's own earlier private copies, deleted but not
	// purged yet, saved again; their content was not touched.
	Linked []ImportOutcome
	// Skipped were saved by the tenant already (a private copy, or the
	// public post) and were not touched.
	Skipped []ImportOutcome
	// UploadedFiles and UploadedBytes count media stored anew; ReusedFiles
	// the media this instance held already.
	UploadedFiles int
	UploadedBytes int64
	ReusedFiles   int
}

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run")

// importScope is where an imported collection's content lives.
type importScope struct {
	data   uuid.UUID
	access string
}

type scopedSHA struct {
	scope importScope
	sha   string
}

// upload is media stored for an import before its transaction.
type upload struct {
	objectID uuid.UUID
	key      string
	info     blob.Info
}

// ImportCollections writes collections read from a capsule into the
// tenant's archive. An import is no evidence of what a post says or of who
// may see it, so every collection lands in the importing tenant's private
// scope, whatever the file claims, with the id its private identity has
// there (PrivateCollectionID); the claim is kept as the collection's
// ClaimedVisibility and the report says when the id changed. Nothing
// another tenant holds is ever linked or changed, public content included:
// a live capture of the post is what makes it public, and it then takes
// the imported copy's place (store.Tx.CaptureAdoptImports).
//
// It is idempotent: a post the tenant saved already (its private copy, or
// the public collection) is skipped; a private copy it deleted is saved
// again. The quota is checked first from the sizes the capsule states, so
// a capsule that cannot fit uploads nothing; new media are then stored
// before the transaction, deduplicated by SHA-256 in the tenant's scope,
// and everything in the database happens in one transaction, which the
// quota can still refuse whole. Whatever an import stored before it was
// refused, for any reason, is deleted again.
func (a *App) ImportCollections(ctx context.Context, tenantID uuid.UUID, items []ImportCollection, opts ImportOptions) (ImportReport, error) {
	return a.ImportCollectionsFrom(ctx, tenantID, func(fn func(ImportCollection) error) error {
		for _, it := range items {
			if err := fn(it); err != nil {
				return err
			}
		}
		return nil
	}, opts)
}

// ImportSource hands the collections of an import to fn one at a time, in
// the same order each time it is called, and stops at fn's first error.
// An importer of a large file reads it again for each call rather than
// holding every collection in memory.
type ImportSource func(fn func(ImportCollection) error) error

// ImportCollectionsFrom is ImportCollections over a source read twice:
// once to plan (check every collection, find the new ones, their media
// and the quota) before anything is stored, and once inside the one
// transaction that writes them. Memory stays flat in the number of
// collections; the import is still whole or nothing. A source that fails
// on either reading fails the import, with nothing written.
func (a *App) ImportCollectionsFrom(ctx context.Context, tenantID uuid.UUID, each ImportSource, opts ImportOptions) (ImportReport, error) {
	ctx = store.WithTenant(ctx, tenantID)
	rep := ImportReport{DryRun: opts.DryRun}
	tenant, err := a.store.TenantGetByID(ctx, tenantID)
	if err != nil {
		if isNotFound(err) {
			return rep, errorf(ErrNotFound, "no tenant with id %s", tenantID)
		}
		return rep, err
	}

	// Plan: which collections are new, and which of their media this
	// instance lacks. Nothing is locked; the transaction looks again.
	sc := importScope{data: tenantID, access: privateAccessScope}
	var needed []string
	seen := map[string]bool{}
	sizes := map[string]int64{} // sha256 → the size the source states
	var contentBytes int64
	if err := a.store.InTx(ctx, func(tx *store.Tx) error {
		look, err := newImportLookup(ctx, tx, tenantID)
		if err != nil {
			return err
		}
		return each(func(it ImportCollection) error {
			if err := checkImportItem(&it); err != nil {
				return err
			}
			st, _, err := look.state(ctx, tx, it)
			if err != nil {
				return err
			}
			if st != importNew {
				return nil
			}
			contentBytes += it.contentBytes()
			for _, m := range it.media() {
				sizes[m.sha] = max(sizes[m.sha], m.size)
				if !seen[m.sha] {
					seen[m.sha] = true
					needed = append(needed, m.sha)
				}
			}
			return nil
		})
	}); err != nil {
		return rep, err
	}
	have, err := a.store.BlobsExisting(ctx, sc.data, sc.access, needed)
	if err != nil {
		return rep, err
	}
	var missing []scopedSHA
	var missingBytes int64
	for _, s := range needed {
		if !have[s] {
			missing = append(missing, scopedSHA{sc, s})
			missingBytes += sizes[s]
		}
	}

	// The quota, before anything is uploaded: the new revisions' content
	// and the media this tenant's scope lacks are a lower bound of what
	// the import adds, so a capsule over it is refused without storing a
	// byte. The transaction checks the exact figure again.
	if tenant.QuotaBytes != nil && (contentBytes > 0 || missingBytes > 0) {
		u, err := a.store.TenantUsage(ctx, tenantID)
		if err != nil {
			return rep, err
		}
		if add := contentBytes + missingBytes; u.UsedBytes+u.ReservedBytes+add >= *tenant.QuotaBytes {
			return rep, fmt.Errorf("nothing was imported: %w", &QuotaError{UsedBytes: u.UsedBytes, ReservedBytes: u.ReservedBytes,
				QuotaBytes: *tenant.QuotaBytes, AddBytes: add})
		}
	}

	uploads := map[scopedSHA]upload{}
	if !opts.DryRun {
		if uploads, err = a.uploadImportMedia(ctx, tenantID, missing, opts); err != nil {
			return rep, err
		}
	}

	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		rep.Created, rep.Linked, rep.Skipped = nil, nil, nil
		rep.UploadedFiles, rep.UploadedBytes, rep.ReusedFiles = 0, 0, 0
		tenant, err := tx.TenantGetByID(ctx, tenantID)
		if err != nil {
			return err
		}
		before, err := tx.TenantUsage(ctx, tenantID, nil)
		if err != nil {
			return err
		}
		look, err := newImportLookup(ctx, tx, tenantID)
		if err != nil {
			return err
		}
		run := &importRun{tx: tx, tenantID: tenantID, provider: opts.Provider, look: look, uploads: uploads, blobs: map[scopedSHA]store.Blob{},
			rep: &rep}
		if err := each(func(it ImportCollection) error {
			if err := checkImportItem(&it); err != nil {
				return err
			}
			return a.importOne(ctx, run, it)
		}); err != nil {
			return err
		}
		if err := tx.SearchIndexRevisions(ctx, run.index); err != nil {
			return err
		}
		if tenant.QuotaBytes != nil && len(rep.Created)+len(rep.Linked) > 0 {
			after, err := tx.TenantUsage(ctx, tenantID, nil)
			if err != nil {
				return err
			}
			if after.UsedBytes+after.ReservedBytes >= *tenant.QuotaBytes {
				return &QuotaError{UsedBytes: before.UsedBytes, ReservedBytes: before.ReservedBytes, QuotaBytes: *tenant.QuotaBytes,
					AddBytes: after.UsedBytes - before.UsedBytes}
			}
		}
		if opts.DryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		return rep, nil
	}
	if err != nil {
		a.discardUploads(ctx, uploads)
		var qe *QuotaError
		if errors.As(err, &qe) {
			return ImportReport{DryRun: opts.DryRun}, fmt.Errorf("nothing was imported: %w", err)
		}
		return ImportReport{DryRun: opts.DryRun}, err
	}
	return rep, nil
}

// discardUploads deletes the bytes an import stored when the import did
// not commit, and then their records; an object whose bytes could not be
// deleted is left to the object collector, marked garbage.
func (a *App) discardUploads(ctx context.Context, uploads map[scopedSHA]upload) {
	if len(uploads) == 0 {
		return
	}
	bg := context.WithoutCancel(ctx)
	var gone, left []uuid.UUID
	for _, u := range uploads {
		if err := a.blob.Delete(bg, u.key); err != nil {
			a.log.WarnContext(ctx, "import: could not delete an upload; the object collector removes it after the grace period",
				slog.String("object", u.objectID.String()), slog.String("err", err.Error()))
			left = append(left, u.objectID)
			continue
		}
		gone = append(gone, u.objectID)
	}
	if err := a.store.ObjectsDeleteUnattached(bg, gone); err != nil {
		a.log.WarnContext(ctx, "import: could not delete the records of removed uploads", slog.String("err", err.Error()))
		left = append(left, gone...)
	}
	if err := a.store.ObjectsMarkGarbage(bg, left); err != nil {
		a.log.WarnContext(ctx, "import: could not mark uploads garbage; the object collector finds them after the grace period", slog.String("err", err.Error()))
	}
}

// checkImportItem refuses what the database would refuse with a less
// helpful message.
func checkImportItem(it *ImportCollection) error {
	switch {
	case it.ID == uuid.Nil:
		return errorf(ErrInvalid, "%s: a collection needs an id", it.Label)
	case it.Visibility != store.Public && it.Visibility != store.Private:
		return errorf(ErrInvalid, "%s: visibility must be public or private", it.Label)
	case it.ClaimedVisibility != "" && it.ClaimedVisibility != store.Public && it.ClaimedVisibility != store.Private:
		return errorf(ErrInvalid, "%s: claimed_visibility must be public or private", it.Label)
	case it.Platform == "" || it.EntityType == "" || it.ExternalID == "":
		return errorf(ErrInvalid, "%s: a collection needs platform, kind and external_id", it.Label)
	case len(it.Revisions) == 0:
		return errorf(ErrInvalid, "%s: a collection needs its content", it.Label)
	}
	return nil
}

// claim is the visibility the source claimed for the collection.
func (it ImportCollection) claim() string {
	if it.ClaimedVisibility != "" {
		return it.ClaimedVisibility
	}
	return it.Visibility
}

// identityOf is the collection an import creates for it: always private to
// the importing tenant, with the id of that private identity.
func identityOf(it ImportCollection, tenantID uuid.UUID) store.Collection {
	return store.Collection{
		ID:         PrivateCollectionID(tenantID, it.Platform, it.EntityType, it.ObjectScope, it.ExternalID),
		TenantID:   tenantID,
		Visibility: store.Private, DataScope: tenantID, AccessScope: privateAccessScope,
		Platform: it.Platform, EntityType: it.EntityType, ObjectScope: it.ObjectScope, ExternalID: it.ExternalID,
		AdapterID: it.Platform, SourceURL: it.SourceURL, ClaimedVisibility: it.claim(),
	}
}

// importState is what an import does with one collection.
type importState int

const (
	importNew          importState = iota // create the private copy
	importSavedPublic                     // the tenant saved the public post: skip
	importSavedPrivate                    // the tenant saved its private copy: skip
	importRelink                          // the private copy exists unsaved: save it again
)

// importStateOf looks the collection up among what the tenant may see: its
// own private copy of the post and the public collection, never the file's
// id (which might name anyone's content). existing is the collection found.
func importStateOf(ctx context.Context, tx *store.Tx, tenantID uuid.UUID, it ImportCollection) (importState, store.Collection, error) {
	pub := PublicCollectionID(it.Platform, it.EntityType, it.ObjectScope, it.ExternalID)
	l, err := tx.CollectionImportLookup(ctx, tenantID, pub, identityOf(it, tenantID))
	switch {
	case err != nil:
		return 0, store.Collection{}, err
	case l.PublicSaved:
		return importSavedPublic, store.Collection{ID: pub}, nil
	case l.Private == uuid.Nil:
		return importNew, store.Collection{}, nil
	case l.PrivateSaved:
		return importSavedPrivate, store.Collection{ID: l.Private}, nil
	}
	return importRelink, store.Collection{ID: l.Private}, nil
}

// importLookup finds what an import does with each collection, for one
// reading of its source in one transaction. Into an archive the tenant
// has saved nothing in and holds no private copy in (a new account, a
// move from another instance), every collection is new but for one the
// capsule has twice, so one query at the start answers for all of them
// instead of one query each.
type importLookup struct {
	tenantID uuid.UUID
	// empty: the tenant's archive was empty when the transaction looked;
	// made are then the private copies this reading has made so far.
	empty bool
	made  map[uuid.UUID]bool
}

func newImportLookup(ctx context.Context, tx *store.Tx, tenantID uuid.UUID) (*importLookup, error) {
	empty, err := tx.TenantArchiveEmpty(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return &importLookup{tenantID: tenantID, empty: empty, made: map[uuid.UUID]bool{}}, nil
}

// state is importStateOf, for a collection the caller creates when it is
// importNew.
func (l *importLookup) state(ctx context.Context, tx *store.Tx, it ImportCollection) (importState, store.Collection, error) {
	if !l.empty {
		return importStateOf(ctx, tx, l.tenantID, it)
	}
	id := identityOf(it, l.tenantID).ID
	if l.made[id] {
		return importSavedPrivate, store.Collection{ID: id}, nil
	}
	l.made[id] = true
	return importNew, store.Collection{}, nil
}

// importNote says, for the report, how an imported collection differs from
// what its file said.
func importNote(it ImportCollection, id uuid.UUID) string {
	switch {
	case it.claim() == store.Public:
		return fmt.Sprintf("the capsule calls it public, but an import is no proof of that: it is private to you, as %s (the file said %s); send its link to archive the public post, which then takes this copy's place", id, it.ID)
	case id != it.ID:
		return fmt.Sprintf("private to you, as %s (the file said %s)", id, it.ID)
	}
	return ""
}

// importedMedia is one media file an imported collection shows.
type importedMedia struct {
	sha  string
	size int64
}

// media lists every media content the collection's revisions show, with
// the size the capsule states (0 when it states none).
func (it ImportCollection) media() []importedMedia {
	var out []importedMedia
	for _, r := range it.Revisions {
		for _, m := range r.Media {
			out = append(out, importedMedia{m.SHA256, m.Size})
		}
		for _, e := range r.Graph.Entities {
			for _, res := range e.Resources {
				out = append(out, importedMedia{res.SHA256, res.Size})
			}
		}
	}
	return out
}

// contentBytes is what the collection's distinct revisions' content counts
// against the quota.
func (it ImportCollection) contentBytes() int64 {
	var n int64
	seen := map[string]bool{}
	for _, r := range it.Revisions {
		c, err := encodeContent(importContent(r, it.SourceURL))
		if err != nil {
			continue // importOne reports it
		}
		if !seen[c.hash] {
			seen[c.hash] = true
			n += int64(len(c.body))
		}
	}
	return n
}

// uploadImportMedia stores the media an import lacks, recording each
// object as pending first so an upload whose commit is lost is collected.
func (a *App) uploadImportMedia(ctx context.Context, tenantID uuid.UUID, missing []scopedSHA, opts ImportOptions) (map[scopedSHA]upload, error) {
	out := make(map[scopedSHA]upload, len(missing))
	if len(missing) == 0 {
		return out, nil
	}
	if opts.Open == nil {
		return nil, errors.New("app: import: no way to open media")
	}
	objs := make([]store.Object, len(missing))
	for i := range missing {
		id := uuid.Must(uuid.NewV7())
		objs[i] = store.Object{ID: id, TenantID: tenantID, Key: blob.ObjectKey(tenantID, id)}
	}
	if err := a.store.ObjectsInsertPending(ctx, objs); err != nil {
		return nil, err
	}
	type result struct {
		i    int
		info blob.Info
		err  error
	}
	// The uploads are made durable together, before the transaction
	// that records them.
	batch := blob.NewBatch(a.blob)
	work := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range work {
				info, err := a.putImportMedia(ctx, batch, objs[i].Key, missing[i].sha, opts.Open)
				results <- result{i, info, err}
			}
		})
	}
	go func() {
		defer close(work)
		for i := range missing {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var errs []error
	done := 0
	for r := range results {
		done++
		if r.err != nil {
			errs = append(errs, r.err)
		} else {
			out[missing[r.i]] = upload{objectID: objs[r.i].ID, key: objs[r.i].Key, info: r.info}
		}
		if opts.Progress != nil {
			opts.Progress(done, len(missing))
		}
	}
	var syncErr error
	if err := ctx.Err(); err == nil && len(errs) == 0 {
		if syncErr = batch.Sync(ctx); syncErr == nil {
			return out, nil
		}
	}
	// Every object recorded, uploaded or not: a failed upload may have
	// left part of its bytes, and deleting a missing key is no error.
	all := make(map[scopedSHA]upload, len(objs))
	for i, o := range objs {
		all[missing[i]] = upload{objectID: o.ID, key: o.Key}
	}
	a.discardUploads(ctx, all)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if syncErr != nil {
		return nil, fmt.Errorf("nothing was imported: the %d media file(s) stored could not be made durable: %w", len(missing), syncErr)
	}
	return nil, fmt.Errorf("nothing was imported: %d media file(s) could not be stored, the first: %w", len(errs), errs[0])
}

func (a *App) putImportMedia(ctx context.Context, batch blob.Batch, key, sum string, open func(string) (io.ReadCloser, error)) (blob.Info, error) {
	rc, err := open(sum)
	if err != nil {
		return blob.Info{}, fmt.Errorf("media %s: %w", sum, err)
	}
	defer rc.Close()
	info, err := batch.Put(ctx, key, rc)
	if err != nil {
		return blob.Info{}, fmt.Errorf("media %s: %w", sum, err)
	}
	if info.SHA256 != sum {
		_ = a.blob.Delete(context.WithoutCancel(ctx), key)
		return blob.Info{}, fmt.Errorf("media %s changed while it was imported (it now has SHA-256 %s); check the capsule and import again", sum, info.SHA256)
	}
	return info, nil
}

// importRun is the import's transaction and what it gathers as it
// writes one collection after another.
type importRun struct {
	tx       *store.Tx
	tenantID uuid.UUID
	provider string
	look     *importLookup
	// uploads are the media stored before the transaction; blobs the
	// blobs found or recorded so far.
	uploads map[scopedSHA]upload
	blobs   map[scopedSHA]store.Blob
	rep     *ImportReport
	// index are the new revisions, indexed for search at the end.
	index []uuid.UUID
}

// importOne imports one collection inside the import's transaction.
func (a *App) importOne(ctx context.Context, run *importRun, it ImportCollection) error {
	tx, tenantID, rep := run.tx, run.tenantID, run.rep
	out := ImportOutcome{ID: it.ID, FileID: it.ID, Label: it.Label}
	state, existing, err := run.look.state(ctx, tx, it)
	if err != nil {
		return err
	}
	switch state {
	case importSavedPublic:
		out.ID, out.Reason = existing.ID, fmt.Sprintf("saved in this archive already, as the public post %s", existing.ID)
		rep.Skipped = append(rep.Skipped, out)
		return nil
	case importSavedPrivate:
		out.ID, out.Reason = existing.ID, "saved in this archive already"
		if existing.ID != it.ID {
			out.Reason = fmt.Sprintf("saved in this archive already, as %s", existing.ID)
		}
		rep.Skipped = append(rep.Skipped, out)
		return nil
	case importRelink:
		if _, err := tx.TenantCollectionSaveAt(ctx, tenantID, existing.ID, it.SavedAt); err != nil {
			return err
		}
		out.ID, out.Reason = existing.ID, fmt.Sprintf("your earlier copy %s is saved again; its content was left as it is", existing.ID)
		rep.Linked = append(rep.Linked, out)
		return nil
	}

	coll := identityOf(it, tenantID)
	out.ID, out.Reason = coll.ID, importNote(it, coll.ID)
	first := it.Revisions[0].CapturedAt
	if first.IsZero() {
		first = it.SavedAt
	}
	if err := tx.CollectionInsertAt(ctx, coll, first); err != nil {
		return err
	}
	sc := importScope{data: coll.DataScope, access: coll.AccessScope}
	// The collection is new in this transaction: its revisions are the
	// ones written here, so the writer looks none up.
	known := &knownRevisions{byHash: map[string]store.Revision{}}
	var current uuid.UUID
	for _, r := range it.Revisions {
		at := r.CapturedAt
		if at.IsZero() {
			at = it.SavedAt
		}
		content, err := encodeContent(importContent(r, coll.SourceURL))
		if err != nil {
			return fmt.Errorf("app: import %s: %w", it.Label, err)
		}
		// A capsule carries no schemas; its entities keep "{}".
		schemas := make(map[string]string, len(content.doc.Graph.Entities))
		for _, e := range content.doc.Graph.Entities {
			schemas[e.Key] = "{}"
		}
		w, err := archiveWriter{}.writeRevision(ctx, tx, revisionInput{
			Collection: coll, TenantID: tenantID, Content: content, Schemas: schemas,
			Imported: &importedCapture{Provider: cmp.Or(run.provider, store.ProviderCapsule), At: at, Link: r.Link}, Known: known,
			IndexLater: &run.index,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", it.Label, err)
		}
		if r.Current || current == uuid.Nil || !hasCurrent(it.Revisions) {
			current = w.Revision.ID
		}
		if !w.Created {
			continue // the same content twice in the history
		}
		pos := 0
		addAsset := func(as store.Asset, sha string) error {
			b, err := a.importBlob(ctx, tx, tenantID, sc, sha, as.Mime, coll.Visibility, run.uploads, run.blobs, rep)
			if err != nil {
				return err
			}
			as.CaptureID, as.DataScope, as.Visibility, as.Position, as.BlobID, as.Size = w.CaptureID, coll.DataScope, coll.Visibility, pos, &b.ID, b.Size
			pos++
			return tx.AssetInsertStored(ctx, as)
		}
		for _, m := range r.Media {
			if err := addAsset(store.Asset{SourceURL: m.SourceURL, Kind: m.Kind, Mime: m.Mime, Width: m.Width, Height: m.Height,
				DurationMS: m.DurationMS, Alt: m.Alt, Sensitive: m.Sensitive}, m.SHA256); err != nil {
				return err
			}
		}
		for _, e := range r.Graph.Entities {
			for _, res := range e.Resources {
				if err := addAsset(store.Asset{Purpose: res.Purpose, EntityKey: e.Key, Kind: res.Kind, Mime: res.Mime}, res.SHA256); err != nil {
					return err
				}
			}
		}
	}
	if err := tx.CollectionSetCurrent(ctx, coll.ID, current); err != nil {
		return err
	}
	if err := tx.TenantCollectionInsert(ctx, tenantID, coll.ID, it.SavedAt); err != nil {
		return err
	}
	rep.Created = append(rep.Created, out)
	return nil
}

func hasCurrent(revs []ImportRevision) bool {
	for _, r := range revs {
		if r.Current {
			return true
		}
	}
	return false
}

// importBlob finds or records the blob of some content in the import's
// scope through the archive writer, as downloads do, and counts it in the
// report.
func (a *App) importBlob(ctx context.Context, tx *store.Tx, tenantID uuid.UUID, sc importScope, sha, mime, visibility string,
	uploads map[scopedSHA]upload, blobs map[scopedSHA]store.Blob, rep *ImportReport) (store.Blob, error) {
	k := scopedSHA{sc, sha}
	if b, ok := blobs[k]; ok {
		return b, nil
	}
	in := blobInput{DataScope: sc.data, AccessScope: sc.access, Visibility: visibility, TenantID: tenantID, SHA256: sha, Mime: mime}
	if up, ok := uploads[k]; ok {
		in.Object = &storedObject{ID: up.objectID, Size: up.info.Size}
	}
	b, reused, err := archiveWriter{}.attachBlob(ctx, tx, in)
	if errors.Is(err, errBlobMissing) && rep.DryRun {
		// A dry run uploads nothing and pretends, inside the transaction
		// it rolls back.
		id := uuid.Must(uuid.NewV7())
		if err := tx.ObjectInsertPending(ctx, store.Object{ID: id, TenantID: tenantID, Key: blob.ObjectKey(tenantID, id)}); err != nil {
			return store.Blob{}, err
		}
		in.Object = &storedObject{ID: id}
		b, reused, err = archiveWriter{}.attachBlob(ctx, tx, in)
	}
	if errors.Is(err, errBlobMissing) {
		return store.Blob{}, fmt.Errorf("media %s disappeared from this instance during the import; run the import again", sha)
	}
	if err != nil {
		return store.Blob{}, err
	}
	if reused {
		rep.ReusedFiles++
	} else {
		rep.UploadedFiles++
		rep.UploadedBytes += b.Size
	}
	blobs[k] = b
	return b, nil
}

// importContent builds a revision's content the way finalize does, so a
// collection exported and imported again has the same content.
func importContent(r ImportRevision, sourceURL string) contentDoc {
	doc := contentDoc{
		Text: r.Text, TextKind: r.TextKind, Summary: r.Summary, AuthorName: r.AuthorName, PublishedAt: r.PublishedAt,
		SourceURL: sourceURL, Media: []contentMedia{},
		Graph: contentGraph{Root: r.Graph.Root, Entities: []contentEntity{}, Relations: r.Graph.Relations},
	}
	if doc.TextKind == "" {
		doc.TextKind = "plain"
	}
	if doc.Graph.Relations == nil {
		doc.Graph.Relations = []RelationView{}
	}
	for _, m := range r.Media {
		doc.Media = append(doc.Media, contentMedia{SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size, Width: m.Width,
			Height: m.Height, DurationMS: m.DurationMS, Alt: m.Alt, Sensitive: m.Sensitive})
	}
	for _, e := range r.Graph.Entities {
		ce := contentEntity{Key: e.Key, Type: e.Type, ExternalID: e.ExternalID, Data: e.Data}
		if len(ce.Data) == 0 {
			ce.Data = json.RawMessage("{}")
		}
		for _, res := range e.Resources {
			ce.Resources = append(ce.Resources, contentResource{Purpose: res.Purpose, SHA256: res.SHA256, Kind: res.Kind, Mime: res.Mime, Size: res.Size})
		}
		doc.Graph.Entities = append(doc.Graph.Entities, ce)
	}
	return doc
}

// ContentHash is the content hash of the revision importing r would
// write: the hash finalize gave the content it was exported from, which
// the offline verifier (internal/capsule/verify) recomputes from a
// capsule's files.
func ContentHash(r ImportRevision, sourceURL string) (string, error) {
	c, err := encodeContent(importContent(r, sourceURL))
	return c.hash, err
}
