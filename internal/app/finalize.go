package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
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

// runFinalize turns a capture whose assets are all terminal into a
// revision: a new one when the content changed, else the existing one with
// its observed time bumped. The collection's current revision moves to it,
// the capture ends, reservations go back and submissions become
// deliverable.
func (a *App) runFinalize(ctx context.Context, id uuid.UUID) error {
	return a.store.InTx(ctx, func(tx *store.Tx) error { return a.finalize(ctx, tx, id, nil) })
}

// finalizeInline finalizes capture id in tx, the transaction that ended
// its last asset, instead of queueing a finalize job: one job less per
// capture. When finalizing fails, what it wrote is undone and a finalize
// job is queued instead, so the asset's own result still commits and the
// job retries the finalize as before. st is the capture's staged content
// when the caller has it at hand, else nil.
func (a *App) finalizeInline(ctx context.Context, tx *store.Tx, captureID, tenantID uuid.UUID, st *staged) error {
	err := tx.Savepoint(ctx, func() error { return a.finalize(ctx, tx, captureID, st) })
	if err == nil || ctx.Err() != nil {
		return err
	}
	a.log.WarnContext(ctx, "finalize after the last download failed; queued to retry",
		slog.String("capture", captureID.String()), slog.Any("err", err))
	return a.insertJob(ctx, tx, queue.FinalizeArgs{CaptureID: captureID, TenantID: tenantID})
}

// finalize is runFinalize's work in tx. known is the capture's staged
// content when the caller has it decoded (the capture job that staged it),
// else nil: it is read from the capture.
func (a *App) finalize(ctx context.Context, tx *store.Tx, id uuid.UUID, known *staged) error {
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
	if why, err := credentialChanged(ctx, tx, c); err != nil || why != "" {
		if err != nil {
			return err
		}
		return a.refusedResult(ctx, tx, c, why)
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
	if known != nil {
		st = *known
	} else if err := json.Unmarshal(c.Staged, &st); err != nil {
		return fmt.Errorf("app: finalize %s: staged content: %w", id, err)
	}
	content, err := encodeContent(buildContent(st, coll, assets))
	if err != nil {
		return fmt.Errorf("app: finalize %s: %w", id, err)
	}
	w, err := archiveWriter{}.writeRevision(ctx, tx, revisionInput{
		Collection: coll, TenantID: c.TenantID, Content: content, Schemas: st.Graph.schemas(), CaptureID: c.ID,
		AdapterID: c.AdapterID, AdapterVersion: c.AdapterVers,
	})
	if err != nil {
		return err
	}
	rev := w.Revision
	if err := tx.CollectionSetCurrent(ctx, coll.ID, rev.ID); err != nil {
		return err
	}
	state, errText := store.CaptureComplete, ""
	if problems := assetProblems(assets); problems != "" {
		state, errText = store.CapturePartial, problems
	}
	if err := a.finishCapture(ctx, tx, c, state, &rev.ID, errText); err != nil {
		return err
	}
	if state != store.CaptureComplete || coll.Visibility != store.Public {
		return nil
	}
	// A complete fetch is the evidence an import never is: the public
	// post takes the place of its submitters' imported copies. A
	// partial one leaves them, as they may hold media it lacks.
	return tx.CaptureAdoptImports(ctx, c.ID, coll.ID)
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
	if c.State == store.CaptureQueued {
		tx.AfterCommit(a.slots.free) // it may have held a slot while fetching
	}
	if err := tx.CaptureReleaseReservations(ctx, c.ID, c.TenantID); err != nil {
		return err
	}
	took := a.now().Sub(c.CreatedAt)
	tx.AfterCommit(func() { a.metrics.CaptureEnded(c.AdapterID, state, took) })
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

// schemas are the JSON Schemas the adapter declared for the graph's
// entities, by graph key.
func (g stagedGraph) schemas() map[string]string {
	out := make(map[string]string, len(g.Entities))
	for _, e := range g.Entities {
		out[e.Key] = e.Schema
	}
	return out
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
