package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// maxSourceBytes bounds the raw upstream responses kept per capture; a
// capture over it fails rather than keeping a truncated record.
const maxSourceBytes = 4 << 20

// slotLease is how long a fetching capture holds its execution slot; a
// crashed worker's slot frees itself after it.
const slotLease = 3 * time.Minute

// slotWait is how long a capture waits in its worker when its tenant's
// (or connection's) execution slots are all taken, before it snoozes.
const slotWait = 100 * time.Millisecond

// staged is what a capture fetched, kept on the capture until finalize
// turns it into a revision.
type staged struct {
	Visibility   string         `json:"visibility"`
	Text         string         `json:"text"`
	TextKind     string         `json:"text_kind"`
	Summary      string         `json:"summary"`
	AuthorName   string         `json:"author_name"`
	PublishedAt  *time.Time     `json:"published_at,omitempty"`
	CanonicalURL string         `json:"canonical_url,omitempty"`
	Graph        stagedGraph    `json:"graph"`
	Related      []stagedTarget `json:"related,omitempty"`
}

type stagedGraph struct {
	Root      string         `json:"root"`
	Entities  []stagedEntity `json:"entities"`
	Relations []RelationView `json:"relations"`
}

type stagedEntity struct {
	Key        string          `json:"key"`
	Type       string          `json:"type"`
	ExternalID string          `json:"external_id"`
	Data       json.RawMessage `json:"data"`
	Schema     string          `json:"schema"`
	// Resources are asset positions.
	Resources []int `json:"resources,omitempty"`
}

type stagedTarget struct {
	URL                 string `json:"url"`
	RefreshAfterSeconds uint32 `json:"refresh_after_seconds"`
}

type captureWorker struct {
	river.WorkerDefaults[queue.CaptureArgs]
	app *App
}

// Timeout bounds one fetch attempt.
func (w *captureWorker) Timeout(*river.Job[queue.CaptureArgs]) time.Duration { return slotLease }

func (w *captureWorker) Work(ctx context.Context, job *river.Job[queue.CaptureArgs]) error {
	return w.app.runCapture(store.WithTenant(ctx, job.Args.TenantID), job.Args.CaptureID)
}

// runCapture fetches one capture through its adapter and stages the result.
func (a *App) runCapture(ctx context.Context, id uuid.UUID) error {
	c, coll, got, err := a.claimCapture(ctx, id)
	if err != nil {
		return err
	}
	if c.State == store.CaptureDownloading {
		// Run again after staging: what it was downloading itself goes to
		// download jobs.
		return a.handOverInline(ctx, c)
	}
	if c.State != store.CaptureQueued {
		return nil
	}
	if !got {
		// The tenant's (or account's) slots stayed busy: other work gets
		// the worker, and the capture comes back behind it.
		return river.JobSnooze(0)
	}

	var credential []byte
	var scopeCache string
	if c.ConnectionID != nil {
		// Opened only now, outside any transaction, and never kept.
		if credential, err = a.fetchCredential(ctx, c); err != nil {
			return a.captureFailed(ctx, c, err)
		}
		if scopeCache, err = a.scopeCache(ctx, c, coll.ObjectScope); err != nil {
			return err
		}
	}
	resp, err := a.adapters.Fetch(ctx, c.AdapterID, &adapterv1.FetchRequest{
		ProviderId: c.Provider,
		Credential: credential,
		Target: &adapterv1.Target{
			Platform: coll.Platform, EntityType: coll.EntityType, ObjectScope: coll.ObjectScope,
			ExternalId: coll.ExternalID, CanonicalUrl: coll.SourceURL,
		},
		PageCursor: c.PageCursor,
		PageSize:   uint32(c.PageSize),
		Expand:     c.Expand,
		ScopeCache: scopeCache,
	})
	if err != nil && c.ConnectionID != nil && isAuthFailure(err) {
		return a.accountRefused(ctx, c, err)
	}
	if err != nil {
		return a.captureFailed(ctx, c, err)
	}
	if c.ConnectionID != nil && resp.GetScopeCache() != "" && resp.GetScopeCache() != scopeCache {
		if err := a.keepScopeCache(ctx, c, coll.ObjectScope, resp.GetScopeCache()); err != nil {
			return err
		}
	}
	return a.stageCapture(ctx, c, coll, resp)
}

// claimCapture reads capture id and, while it is queued, claims an
// execution slot for it. While the slots are busy it waits up to slotWait
// for one to come free in this process (slots.go).
func (a *App) claimCapture(ctx context.Context, id uuid.UUID) (c store.Capture, coll store.Collection, got bool, err error) {
	giveUp := time.NewTimer(slotWait)
	defer giveUp.Stop()
	for {
		freed := a.slots.freed()
		err = a.store.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if c, err = tx.CaptureGet(ctx, id); err != nil {
				return err
			}
			if c.State != store.CaptureQueued {
				return nil // already fetched; a repeated job has nothing to do
			}
			if coll, err = tx.CollectionGet(ctx, c.CollectionID); err != nil {
				return err
			}
			got, err = tx.CaptureClaimSlot(ctx, c, a.now().Add(slotLease), a.limits.TenantCaptures, a.limits.ConnectionCaptures)
			return err
		})
		if err != nil || got || c.State != store.CaptureQueued {
			return c, coll, got, err
		}
		select {
		case <-freed:
		case <-giveUp.C:
			return c, coll, false, nil
		case <-ctx.Done():
			return c, coll, false, nil
		}
	}
}

// releaseSlot gives capture id's execution slot back in tx, waking the
// captures waiting for one once tx commits.
func (a *App) releaseSlot(ctx context.Context, tx *store.Tx, id uuid.UUID) error {
	tx.AfterCommit(a.slots.free)
	return tx.CaptureReleaseSlot(ctx, id)
}

// captureFailed handles a failed fetch: shutdown puts the job back at once,
// a retryable error waits (the upstream's Retry-After, else a doubling
// delay) until the attempts run out, anything else ends the capture failed
// with the adapter's message. Older revisions are never touched.
func (a *App) captureFailed(ctx context.Context, c store.Capture, ferr error) error {
	bg := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		_ = a.store.InTx(bg, func(tx *store.Tx) error { return a.releaseSlot(bg, tx, c.ID) })
		return river.JobSnooze(0)
	}
	msg := ferr.Error()
	var ae *adapterapi.Error
	retryable := errors.As(ferr, &ae) && ae.Retryable
	attempts := c.Attempts + 1
	if retryable && attempts < a.limits.Attempts {
		wait := a.limits.RetryDelay << (attempts - 1)
		if ae.RetryAfter > 0 {
			wait = ae.RetryAfter
		}
		a.log.InfoContext(ctx, "capture will retry", slog.String("capture", c.ID.String()),
			slog.Int("attempt", attempts), slog.Duration("wait", wait), slog.String("err", msg))
		if err := a.store.InTx(bg, func(tx *store.Tx) error {
			return tx.CaptureSetAttempts(bg, c.ID, attempts, msg)
		}); err != nil {
			return err
		}
		return river.JobSnooze(wait)
	}
	if retryable {
		msg = fmt.Sprintf("%s (gave up after %d attempts)", msg, attempts)
	}
	a.log.InfoContext(ctx, "capture failed", slog.String("capture", c.ID.String()), slog.String("err", msg))
	a.LogError(ctx, ErrorRecord{Source: SourceCapture, Code: adapterCode(ferr), Stage: "fetch", Message: "capture failed", Detail: msg,
		Context:   map[string]string{"adapter": c.AdapterID, "provider": c.Provider, "collection_id": c.CollectionID.String()},
		CaptureID: c.ID, TenantID: c.TenantID})
	return a.store.InTx(bg, func(tx *store.Tx) error {
		if err := tx.CaptureSetAttempts(bg, c.ID, attempts, msg); err != nil {
			return err
		}
		return a.finishCapture(bg, tx, c, store.CaptureFailed, nil, msg)
	})
}

// stageCapture keeps what the adapter returned: staged content, raw
// responses and one asset per media. The job then downloads the photos
// itself (downloadInline); every other medium gets a download job.
func (a *App) stageCapture(ctx context.Context, c store.Capture, coll store.Collection, resp *adapterv1.FetchResponse) error {
	var total int
	for _, sr := range resp.GetSourceResponses() {
		total += len(sr.GetBody())
	}
	if total > maxSourceBytes {
		return a.captureFailed(ctx, c, &adapterapi.Error{Adapter: c.AdapterID, Code: adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE,
			Message: fmt.Sprintf("raw upstream responses are %d bytes, over the %d-byte limit per capture", total, maxSourceBytes)})
	}
	desc, _ := a.adapters.Get(c.AdapterID)
	st := stagedFrom(resp, desc)
	// The job finalizes from st only when it is what the capture's copy
	// reads back as.
	known := &st
	if !a.store.StagedAsWritten() {
		known = nil
	}
	body, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("app: stage capture: %w", err)
	}
	version := ""
	if desc != nil {
		version = desc.Describe().GetAdapterVersion()
	}
	// inline are the media this job downloads itself (downloadInline).
	var inline []store.Asset
	resourceOf := map[int]string{}
	for _, e := range resp.GetGraph().GetEntities() {
		for _, i := range e.GetResourceIndexes() {
			resourceOf[int(i)] = e.GetKey()
		}
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if why, err := credentialChanged(ctx, tx, c); err != nil || why != "" {
			if err != nil {
				return err
			}
			return a.refusedResult(ctx, tx, c, why)
		}
		// What an account fetched: raw responses stay the tenant's own,
		// whatever the adapter says of the post.
		rawVis, rawScope := c.Visibility, c.DataScope
		if c.ConnectionID != nil {
			rawVis, rawScope = store.Private, c.TenantID
		}
		c, coll, err := a.publishOnEvidence(ctx, tx, c, coll, resp.GetVisibility())
		if err != nil {
			return err
		}
		if err := a.moveToCanonical(ctx, tx, c, coll, resp.GetCanonicalTarget()); err != nil {
			return err
		}
		if err := tx.CaptureStage(ctx, c.ID, body, version); err != nil {
			return err
		}
		tx.AfterCommit(a.slots.free) // staging frees the slot
		if err := tx.CaptureSetNextPage(ctx, c.ID, resp.GetNextPageCursor()); err != nil {
			return err
		}
		for _, sr := range resp.GetSourceResponses() {
			sum := sha256.Sum256(sr.GetBody())
			if err := tx.SourceResponseInsert(ctx, store.SourceResponse{
				CaptureID: c.ID, TenantID: c.TenantID, Visibility: rawVis, DataScope: rawScope,
				RequestURL: sr.GetRequestUrl(), ContentType: sr.GetContentType(), Body: sr.GetBody(), SHA256: hex.EncodeToString(sum[:]),
			}); err != nil {
				return err
			}
		}
		var downloads []river.JobArgs
		inline = inline[:0]
		for i, m := range resp.GetMedia() {
			asset := store.Asset{
				CaptureID: c.ID, DataScope: c.DataScope, Visibility: c.Visibility, Position: i,
				Purpose: m.GetPurpose(), EntityKey: resourceOf[i], SourceURL: m.GetUrl(), StreamRef: m.GetStreamRef(), Kind: mediaKind(m.GetKind()),
				Mime: m.GetMime(), Width: int(m.GetWidth()), Height: int(m.GetHeight()), DurationMS: int(m.GetDurationMs()),
				Alt: m.GetAlt(), Sensitive: m.GetSensitive(), CacheKey: m.GetCacheKey(), State: store.AssetPending,
			}
			if r := m.GetUnavailableReason(); r != "" || (m.GetUrl() == "" && m.GetStreamRef() == "") {
				if r == "" {
					r = "the adapter gave no address for this media"
				}
				asset.State, asset.Error = store.AssetUnavailable, r
			}
			own := asset.State == store.AssetPending && downloadsInline(asset)
			if own {
				asset.State = store.AssetDownloading // this job's own, from the start
			}
			asset, err := tx.AssetInsert(ctx, asset)
			if err != nil {
				return err
			}
			asset.AccessScope, asset.TenantID = c.AccessScope, c.TenantID
			switch {
			case own:
				reused, err := a.reuseCached(ctx, tx, asset)
				if err != nil {
					return err
				}
				if !reused {
					inline = append(inline, asset)
				}
			case asset.State == store.AssetPending:
				downloads = append(downloads, queue.DownloadArgs{AssetID: asset.ID, TenantID: c.TenantID})
			}
		}
		if len(downloads) > 0 {
			// One insert for all of a capture's download jobs.
			if err := a.insertJobs(ctx, tx, downloads); err != nil {
				return err
			}
		}
		if len(downloads) == 0 && len(inline) == 0 {
			return a.finalizeInline(ctx, tx, c.ID, c.TenantID, known)
		}
		return nil
	})
	if err == nil && len(inline) > 0 {
		return a.downloadInline(ctx, c.ID, c.TenantID, known, inline)
	}
	if errors.Is(err, errCanonicalBusy) {
		// The canonical collection is being captured right now: fetch
		// again once that capture has ended, then join its result.
		bg := context.WithoutCancel(ctx)
		if err := a.store.InTx(bg, func(tx *store.Tx) error { return a.releaseSlot(bg, tx, c.ID) }); err != nil {
			return err
		}
		return river.JobSnooze(canonicalWait)
	}
	return err
}

// stagedFrom copies the adapter's answer into the staged form, with each
// entity's schema as a snapshot.
func stagedFrom(resp *adapterv1.FetchResponse, desc *adapterapi.Adapter) staged {
	schemas := map[string]string{}
	if desc != nil {
		for _, et := range desc.Describe().GetEntityTypes() {
			schemas[et.GetName()] = et.GetJsonSchema()
		}
	}
	d := resp.GetDisplay()
	st := staged{
		Visibility: store.Public,
		Text:       d.GetText(),
		TextKind:   strings.TrimPrefix(strings.ToLower(d.GetTextKind().String()), "text_kind_"),
		Summary:    d.GetSummary(),
		AuthorName: d.GetAuthorName(),
		Graph:      stagedGraph{Root: resp.GetGraph().GetRootKey(), Entities: []stagedEntity{}, Relations: []RelationView{}},
	}
	if st.TextKind == "unspecified" {
		st.TextKind = "plain"
	}
	if ts := d.GetPublishedAt(); ts != nil {
		t := ts.AsTime().UTC()
		st.PublishedAt = &t
	}
	if ct := resp.GetCanonicalTarget(); ct != nil {
		st.CanonicalURL = ct.GetCanonicalUrl()
	}
	for _, e := range resp.GetGraph().GetEntities() {
		se := stagedEntity{Key: e.GetKey(), Type: e.GetType(), ExternalID: e.GetExternalId(),
			Data: stagedData(e.GetDataJson()), Schema: schemas[e.GetType()]}
		for _, i := range e.GetResourceIndexes() {
			se.Resources = append(se.Resources, int(i))
		}
		st.Graph.Entities = append(st.Graph.Entities, se)
	}
	for _, r := range resp.GetGraph().GetRelations() {
		st.Graph.Relations = append(st.Graph.Relations, RelationView{From: r.GetFromKey(), Relation: r.GetName(), To: r.GetToKey()})
	}
	for _, rt := range resp.GetRelatedTargets() {
		st.Related = append(st.Related, stagedTarget{URL: rt.GetUrl(), RefreshAfterSeconds: rt.GetRefreshAfterSeconds()})
	}
	return st
}

// stagedData is an entity's data in the form the staged content keeps it
// once encoded and read back (compact, with <, > and & escaped), so that
// a capture finalized from the staged content it has at hand writes the
// same bytes as one finalized from the stored copy. Data that is not
// JSON stays as it is, for encoding the staged content to refuse.
func stagedData(raw string) json.RawMessage {
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(raw)); err != nil {
		return json.RawMessage(raw)
	}
	var out bytes.Buffer
	json.HTMLEscape(&out, compact.Bytes())
	return out.Bytes()
}

// mediaKind names a protocol media kind the way the store and API do.
func mediaKind(k adapterv1.MediaKind) string {
	switch k {
	case adapterv1.MediaKind_MEDIA_KIND_VIDEO:
		return "video"
	case adapterv1.MediaKind_MEDIA_KIND_GIF:
		return "gif"
	case adapterv1.MediaKind_MEDIA_KIND_AUDIO:
		return "audio"
	case adapterv1.MediaKind_MEDIA_KIND_DOCUMENT:
		return "document"
	}
	return "image"
}
