package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

type finalizeWorker struct {
	river.WorkerDefaults[queue.FinalizeArgs]
	app *App
}

// Timeout bounds one finalize.
func (w *finalizeWorker) Timeout(*river.Job[queue.FinalizeArgs]) time.Duration { return time.Minute }

func (w *finalizeWorker) Work(ctx context.Context, job *river.Job[queue.FinalizeArgs]) error {
	return w.app.runFinalize(store.WithTenant(ctx, job.Args.TenantID), job.Args.CaptureID)
}

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

// runFinalize turns a capture whose assets are all terminal into a
// revision: a new one when the content changed, else the existing one with
// its observed time bumped. The collection's current revision moves to it,
// the capture ends, reservations go back and submissions become
// deliverable.
func (a *App) runFinalize(ctx context.Context, id uuid.UUID) error {
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CaptureLock(ctx, id); err != nil {
			return err
		}
		c, err := tx.CaptureGet(ctx, id)
		if err != nil {
			return err
		}
		if c.State != store.CaptureDownloading {
			return nil // finished already, or not fetched
		}
		if n, err := tx.AssetsPending(ctx, id); err != nil || n > 0 {
			return err
		}
		assets, err := tx.AssetList(ctx, id)
		if err != nil {
			return err
		}
		coll, err := tx.CollectionGet(ctx, c.CollectionID)
		if err != nil {
			return err
		}
		var st staged
		if err := json.Unmarshal(c.Staged, &st); err != nil {
			return fmt.Errorf("app: finalize %s: staged content: %w", id, err)
		}
		doc := buildContent(st, coll, assets)
		body, err := json.Marshal(doc)
		if err != nil {
			return fmt.Errorf("app: finalize %s: %w", id, err)
		}
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])

		rev, err := tx.RevisionGetByHash(ctx, coll.ID, hash)
		switch {
		case err == nil:
			if err := tx.RevisionObserved(ctx, rev.ID); err != nil {
				return err
			}
		case isNotFound(err):
			rev, err = tx.RevisionInsert(ctx, store.Revision{
				CollectionID: coll.ID, DataScope: coll.DataScope, Visibility: coll.Visibility,
				CaptureID: c.ID, ContentHash: hash, Content: body,
			})
			if err != nil {
				return err
			}
			if err := a.storeGraph(ctx, tx, c, coll, rev, st, doc); err != nil {
				return err
			}
		default:
			return err
		}
		if err := tx.CollectionSetCurrent(ctx, coll.ID, rev.ID); err != nil {
			return err
		}
		state, errText := store.CaptureComplete, ""
		if problems := assetProblems(assets); problems != "" {
			state, errText = store.CapturePartial, problems
		}
		return a.finishCapture(ctx, tx, c, state, &rev.ID, errText)
	})
}

// finishCapture ends a capture: its state and revision, its reservations
// returned to the tenant, its channel submissions marked deliverable.
func (a *App) finishCapture(ctx context.Context, tx *store.Tx, c store.Capture, state string, revID *uuid.UUID, errText string) error {
	return a.finishCaptureCode(ctx, tx, c, state, revID, errText, "")
}

// finishCaptureCode is finishCapture with a machine-readable error code,
// such as CodeInterrupted.
func (a *App) finishCaptureCode(ctx context.Context, tx *store.Tx, c store.Capture, state string, revID *uuid.UUID, errText, code string) error {
	if err := tx.CaptureFinish(ctx, c.ID, state, revID, errText, code); err != nil {
		return err
	}
	if err := tx.CaptureReleaseReservations(ctx, c.ID, c.TenantID); err != nil {
		return err
	}
	if h := a.hooks.CaptureEnded; h != nil {
		tx.AfterCommit(func() { h(c.TenantID, c.ID) })
	}
	return tx.SubmissionsMarkDeliverable(ctx, c.ID)
}

// buildContent assembles a revision's content from the staged fetch and
// the stored media.
func buildContent(st staged, coll store.Collection, assets []store.Asset) contentDoc {
	doc := contentDoc{
		Text: st.Text, TextKind: st.TextKind, Summary: st.Summary, AuthorName: st.AuthorName,
		PublishedAt: st.PublishedAt, SourceURL: coll.SourceURL, Media: []contentMedia{},
		Graph: contentGraph{Root: st.Graph.Root, Entities: []contentEntity{}, Relations: st.Graph.Relations},
	}
	if doc.Graph.Relations == nil {
		doc.Graph.Relations = []RelationView{}
	}
	byPos := map[int]store.Asset{}
	for _, as := range assets {
		byPos[as.Position] = as
		if as.Purpose != "" || as.State != store.AssetComplete {
			continue
		}
		doc.Media = append(doc.Media, contentMedia{
			SHA256: as.BlobSHA256, Kind: as.Kind, Mime: firstNonEmpty(as.BlobMime, as.Mime), Size: as.BlobSize,
			Width: as.Width, Height: as.Height, DurationMS: as.DurationMS, Alt: as.Alt, Sensitive: as.Sensitive,
		})
	}
	for _, e := range st.Graph.Entities {
		ce := contentEntity{Key: e.Key, Type: e.Type, ExternalID: e.ExternalID, Data: e.Data}
		for _, pos := range e.Resources {
			as, ok := byPos[pos]
			if !ok || as.State != store.AssetComplete {
				continue
			}
			ce.Resources = append(ce.Resources, contentResource{
				Purpose: as.Purpose, SHA256: as.BlobSHA256, Kind: as.Kind, Mime: firstNonEmpty(as.BlobMime, as.Mime), Size: as.BlobSize,
			})
		}
		doc.Graph.Entities = append(doc.Graph.Entities, ce)
	}
	return doc
}

// storeGraph records a new revision's entities: each entity and its version
// (data, schema snapshot and resources' content), the revision's links to
// them and the relations.
func (a *App) storeGraph(ctx context.Context, tx *store.Tx, c store.Capture, coll store.Collection, rev store.Revision, st staged, doc contentDoc) error {
	schemas := map[string]string{}
	for _, e := range st.Graph.Entities {
		schemas[e.Key] = e.Schema
	}
	for _, e := range doc.Graph.Entities {
		versionBody, err := json.Marshal(struct {
			Type      string            `json:"type"`
			Data      json.RawMessage   `json:"data"`
			Schema    string            `json:"schema"`
			Resources []contentResource `json:"resources,omitempty"`
		}{e.Type, e.Data, schemas[e.Key], e.Resources})
		if err != nil {
			return err
		}
		sum := sha256.Sum256(versionBody)
		_, versionID, err := tx.EntityUpsertVersion(ctx,
			store.Entity{DataScope: coll.DataScope, AccessScope: coll.AccessScope, Visibility: coll.Visibility,
				Platform: coll.Platform, Type: e.Type, ExternalID: e.ExternalID, TenantID: c.TenantID},
			store.EntityVersion{Data: e.Data, Schema: []byte(schemas[e.Key]), ContentHash: hex.EncodeToString(sum[:])})
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

// assetProblems says which media could not be stored, or "" when all were.
func assetProblems(assets []store.Asset) string {
	var bad []string
	for _, as := range assets {
		if as.State == store.AssetComplete {
			continue
		}
		bad = append(bad, fmt.Sprintf("#%d (%s): %s", as.Position+1, as.Kind, as.Error))
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d media files could not be stored: %s", len(bad), len(assets), strings.Join(bad, "; "))
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
