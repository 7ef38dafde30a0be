package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/store"
)

// This file is the archive writer: the one place that writes a revision
// (its canonical content, hash, entities and relations) and attaches a
// blob (deduplicated by SHA-256 in its scope). Live captures (finalize,
// download) and imports (capsules, and whatever other format an importer
// reads) all write through it, so a post has the same content hash and
// the same rows however it came in. It works inside the caller's
// transaction and never calls anything remote.

// archiveWriter writes revisions and blobs. It holds nothing: the zero
// value is ready, and every method works in the transaction it is given.
type archiveWriter struct{}

// contentDoc is a revision's content: what its hash covers and what its
// size counts. Field order is fixed, so equal content gives equal bytes.
type contentDoc struct {
	Text        string         `json:"text"`
	TextKind    string         `json:"text_kind"`
	Summary     string         `json:"summary"`
	AuthorName  string         `json:"author_name"`
	PublishedAt *time.Time     `json:"published_at,omitempty"`
	SourceURL   string         `json:"source_url"`
	Media       []contentMedia `json:"media"`
	Graph       contentGraph   `json:"graph"`
}

type contentMedia struct {
	SHA256     string `json:"sha256"`
	Kind       string `json:"kind"`
	Mime       string `json:"mime"`
	Size       int64  `json:"size"`
	Width      int    `json:"width,omitempty"`
	Height     int    `json:"height,omitempty"`
	DurationMS int    `json:"duration_ms,omitempty"`
	Alt        string `json:"alt,omitempty"`
	Sensitive  bool   `json:"sensitive"`
}

type contentGraph struct {
	Root      string          `json:"root"`
	Entities  []contentEntity `json:"entities"`
	Relations []RelationView  `json:"relations"`
}

type contentEntity struct {
	Key        string            `json:"key"`
	Type       string            `json:"type"`
	ExternalID string            `json:"external_id"`
	Data       json.RawMessage   `json:"data"`
	Resources  []contentResource `json:"resources,omitempty"`
}

type contentResource struct {
	Purpose string `json:"purpose"`
	SHA256  string `json:"sha256"`
	Kind    string `json:"kind"`
	Mime    string `json:"mime"`
	Size    int64  `json:"size"`
}

// encodedContent is a revision's content in its canonical encoding, with
// the hash that identifies it within its collection.
type encodedContent struct {
	doc  contentDoc
	body []byte
	hash string
}

// encodeContent encodes a revision's content canonically. It fails only
// on entity data that is not JSON.
func encodeContent(doc contentDoc) (encodedContent, error) {
	body, err := json.Marshal(doc)
	if err != nil {
		return encodedContent{}, err
	}
	sum := sha256.Sum256(body)
	return encodedContent{doc: doc, body: body, hash: hex.EncodeToString(sum[:])}, nil
}

// revisionInput is one version of a collection's content to write. It
// names where the content came from in one of two ways: a live capture
// (CaptureID) or an import (Imported).
type revisionInput struct {
	// Collection is the collection the revision belongs to; the revision,
	// its entities and relations take its scope and visibility.
	Collection store.Collection
	// TenantID is the tenant writing, recorded on new entities.
	TenantID uuid.UUID
	Content  encodedContent
	// Schemas are the JSON Schemas of the entities by graph key, kept
	// with each entity version; a key without one keeps "".
	Schemas map[string]string
	// CaptureID is the live capture that fetched the content. A new
	// revision is dated now; an existing one with the same content is
	// reused and its observed time moves to now, as the post was just
	// seen to say that.
	CaptureID uuid.UUID
	// AdapterID and AdapterVersion name the adapter of the live capture,
	// which the revision's link records.
	AdapterID, AdapterVersion string
	// Imported, set instead of CaptureID, is imported content, which has
	// no capture of its own.
	Imported *importedCapture
	// Known, when set, holds every revision the collection has: it was
	// created in this transaction, which wrote them all. The writer then
	// looks up neither a revision by content nor the chain's head, and
	// adds what it writes.
	Known *knownRevisions
	// IndexLater, when set, collects the ids of new revisions instead of
	// indexing each for search; the caller indexes them
	// (store.Tx.SearchIndexRevisions) before its transaction commits.
	IndexLater *[]uuid.UUID
}

// knownRevisions are the revisions of a collection its transaction
// created, as written there.
type knownRevisions struct {
	byHash map[string]store.Revision
	seq    int
	head   string
}

// importedCapture is how imported content was captured, as its source
// states. The writer records a finished stand-in capture for each new
// revision, and dates both At. An existing revision with the same content
// is reused untouched: an old copy is no sign of what the post says now,
// so its observed time does not move.
type importedCapture struct {
	// Provider names the source on the stand-in capture, such as
	// store.ProviderCapsule.
	Provider string
	// At is when the source says the content was captured.
	At time.Time
	// Link is the revision's link as the source states it, nil when it
	// states none (a capsule from before chains).
	Link *ImportLink
}

// revisionWritten is what writeRevision did.
type revisionWritten struct {
	Revision store.Revision
	// Created is false when an existing revision with the same content was
	// reused.
	Created bool
	// CaptureID is the capture the new revision's media belong to: the
	// input's, or the stand-in recorded for imported content. Only set
	// when Created.
	CaptureID uuid.UUID
}

// writeRevision stores one version of a collection's content: the
// existing revision with the same content hash, or a new revision with its
// entity graph. Setting the collection's current revision is the caller's
// choice.
func (archiveWriter) writeRevision(ctx context.Context, tx *store.Tx, in revisionInput) (revisionWritten, error) {
	coll := in.Collection
	var rev store.Revision
	var err error
	if in.Known != nil {
		var ok bool
		if rev, ok = in.Known.byHash[in.Content.hash]; !ok {
			err = store.ErrNotFound
		}
	} else {
		rev, err = tx.RevisionGetByHash(ctx, coll.ID, in.Content.hash)
	}
	switch {
	case err == nil:
		if in.Imported == nil {
			if err := tx.RevisionObserved(ctx, rev.ID); err != nil {
				return revisionWritten{}, err
			}
		}
		return revisionWritten{Revision: rev}, nil
	case !isNotFound(err):
		return revisionWritten{}, err
	}

	rev = store.Revision{
		ID:           uuid.Must(uuid.NewV7()),
		CollectionID: coll.ID, DataScope: coll.DataScope, Visibility: coll.Visibility,
		CaptureID: in.CaptureID, ContentHash: in.Content.hash, Content: in.Content.body,
	}
	at := tx.Now()
	if im := in.Imported; im != nil {
		at = store.RevisionTime(im.At)
		c, err := tx.CaptureInsertFinished(ctx, store.Capture{
			CollectionID: coll.ID, TenantID: in.TenantID, Visibility: coll.Visibility, DataScope: coll.DataScope,
			AccessScope: coll.AccessScope, AdapterID: coll.AdapterID, Provider: im.Provider,
		}, rev.ID, im.At)
		if err != nil {
			return revisionWritten{}, err
		}
		rev.CaptureID = c.ID
	}
	if rev.Chain, err = linkRevision(ctx, tx, in, at); err != nil {
		return revisionWritten{}, err
	}
	if rev, err = tx.RevisionInsertAt(ctx, rev, at); err != nil {
		return revisionWritten{}, err
	}
	if k := in.Known; k != nil {
		k.byHash[rev.ContentHash], k.seq, k.head = rev, rev.Chain.Seq, rev.Chain.Hash
	}
	if err := writeGraph(ctx, tx, in, rev); err != nil {
		return revisionWritten{}, err
	}
	if in.IndexLater != nil {
		*in.IndexLater = append(*in.IndexLater, rev.ID)
	} else if err := tx.SearchIndexRevision(ctx, rev.ID); err != nil {
		return revisionWritten{}, err
	}
	return revisionWritten{Revision: rev, Created: true, CaptureID: rev.CaptureID}, nil
}

// linkRevision makes a new revision's link in its collection's chain
// (internal/chain): after the chain's head, over the content, its media,
// the capture's raw responses and adapter, and the time at. Imported
// content takes the raw responses and adapter its source states, and the
// first revision of an imported chain keeps the previous hash the source
// gives, as the capsule may leave the earlier revisions out; a recomputed
// hash that differs from the one the source states is an error, as the
// source was changed.
func linkRevision(ctx context.Context, tx *store.Tx, in revisionInput, at time.Time) (store.RevisionChain, error) {
	var seq int
	var head string
	var err error
	if k := in.Known; k != nil {
		seq, head = k.seq, k.head
	} else if seq, head, err = tx.RevisionChainHead(ctx, in.Collection.ID); err != nil {
		return store.RevisionChain{}, err
	}
	media, err := chain.MediaOfContent(in.Content.body)
	if err != nil {
		return store.RevisionChain{}, err
	}
	l := chain.Link{PrevHash: head, ContentHash: in.Content.hash, Media: media, CapturedAt: at,
		AdapterID: in.AdapterID, AdapterVersion: in.AdapterVersion}
	var claimed string
	switch im := in.Imported; {
	case im == nil:
		if l.Raw, err = tx.SourceResponseHashes(ctx, in.CaptureID); err != nil {
			return store.RevisionChain{}, err
		}
	case im.Link == nil:
		l.AdapterID = in.Collection.AdapterID
	default:
		l.Raw, l.AdapterID, l.AdapterVersion, claimed = im.Link.Raw, im.Link.AdapterID, im.Link.AdapterVersion, im.Link.ChainHash
		if seq == 0 {
			l.PrevHash = im.Link.PrevHash
		}
	}
	h := l.Hash()
	if claimed != "" && claimed != h {
		return store.RevisionChain{}, errorf(ErrInvalid,
			"the revision captured %s: its chain hash is recomputed as %s, but the capsule states %s, so the capsule was changed after it was exported; run `monitor check --verify` on it",
			chain.FormatTime(at), h, claimed)
	}
	return store.RevisionChain{Seq: seq + 1, PrevHash: l.PrevHash, Hash: h, Raw: chain.SortedSet(l.Raw),
		AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion}, nil
}

// writeGraph records a new revision's entities: each entity and its
// version (data, schema snapshot and resources' content), the revision's
// links to them and the relations.
func writeGraph(ctx context.Context, tx *store.Tx, in revisionInput, rev store.Revision) error {
	coll, doc := in.Collection, in.Content.doc
	for _, e := range doc.Graph.Entities {
		schema := in.Schemas[e.Key]
		versionBody, err := json.Marshal(struct {
			Type      string            `json:"type"`
			Data      json.RawMessage   `json:"data"`
			Schema    string            `json:"schema"`
			Resources []contentResource `json:"resources,omitempty"`
		}{e.Type, e.Data, schema, e.Resources})
		if err != nil {
			return err
		}
		sum := sha256.Sum256(versionBody)
		_, versionID, err := tx.EntityUpsertVersion(ctx,
			store.Entity{DataScope: coll.DataScope, AccessScope: coll.AccessScope, Visibility: coll.Visibility,
				Platform: coll.Platform, Type: e.Type, ExternalID: e.ExternalID, TenantID: in.TenantID},
			store.EntityVersion{Data: e.Data, Schema: []byte(schema), ContentHash: hex.EncodeToString(sum[:])})
		if err != nil {
			return err
		}
		if err := tx.RevisionEntityInsert(ctx, rev.ID, versionID, coll.DataScope, e.Key, e.Key == doc.Graph.Root); err != nil {
			return err
		}
	}
	for _, r := range doc.Graph.Relations {
		if err := tx.EntityRelationInsert(ctx, rev.ID, coll.DataScope, r.From, r.Relation, r.To); err != nil {
			return err
		}
	}
	return nil
}

// blobInput is some content to attach as a blob in a data and access
// scope.
type blobInput struct {
	DataScope   uuid.UUID
	AccessScope string
	Visibility  string
	// TenantID is the tenant writing, recorded on a new blob.
	TenantID uuid.UUID
	SHA256   string
	// Mime is recorded on a new blob.
	Mime string
	// Object is the copy of the bytes stored for this write, pending. nil
	// when the caller stored none, expecting the blob to exist.
	Object *storedObject
}

// storedObject is an object holding bytes whose SHA-256 is known.
type storedObject struct {
	ID   uuid.UUID
	Size int64
}

// errBlobMissing is attachBlob's answer when no blob holds the content
// and the caller stored no object for it.
var errBlobMissing = errors.New("app: no blob holds the content")

// attachBlob finds the blob that holds some content in its scope, or
// records a new one on the given object, under a lock on (data scope,
// access scope, sha256) so two writers of the same bytes end with one
// blob. A given object that is not needed becomes garbage for the object
// collector. reused reports whether the blob existed.
func (archiveWriter) attachBlob(ctx context.Context, tx *store.Tx, in blobInput) (b store.Blob, reused bool, err error) {
	if err := tx.BlobLock(ctx, in.DataScope, in.AccessScope, in.SHA256); err != nil {
		return store.Blob{}, false, err
	}
	existing, err := tx.BlobGetByHash(ctx, in.DataScope, in.AccessScope, in.SHA256)
	switch {
	case err == nil:
		if in.Object != nil {
			if err := tx.ObjectSetState(ctx, in.Object.ID, store.ObjectGarbage, in.Object.Size, in.SHA256); err != nil {
				return store.Blob{}, false, err
			}
		}
		return existing, true, nil
	case !isNotFound(err):
		return store.Blob{}, false, err
	case in.Object == nil:
		return store.Blob{}, false, errBlobMissing
	}
	if err := tx.ObjectSetState(ctx, in.Object.ID, store.ObjectAttached, in.Object.Size, in.SHA256); err != nil {
		return store.Blob{}, false, err
	}
	b, err = tx.BlobInsert(ctx, store.Blob{
		DataScope: in.DataScope, AccessScope: in.AccessScope, Visibility: in.Visibility, SHA256: in.SHA256,
		Size: in.Object.Size, Mime: in.Mime, ObjectID: in.Object.ID, TenantID: in.TenantID,
	})
	return b, false, err
}
