package app

import (
	"cmp"
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

// Collections: a profile or channel link (the adapter's Resolve says
// collection) or a post asked for with its thread makes a chain of pages.
// Each page is a submission with its own capture; when the capture ends,
// the page's expansion makes one automatic child submission per related
// target the adapter listed, in the submitter's tenant: the children are
// normal captures that never expand further and never deliver on their
// own. "More" makes the next page from the stored cursor; a batch (a
// limit) chains pages by itself until the limit or the end; stop ends the
// chain under the tenant lock that child creation takes.

// ExpandThread asks for the author's thread around a post.
const ExpandThread = adapterv1.ExpandThread

// expandNone asks an adapter for the target alone: an automatic child
// never expands, so its capture spares the upstream reads of related
// targets (a profile's timeline).
const expandNone = adapterv1.ExpandNone

// Page bounds. DefaultPageSize is how many related targets a page holds
// (the seed's ~100); MaxRelatedPerPage is the most a page may list: an
// adapter listing more has the page refused, never truncated.
const (
	DefaultPageSize   = 100
	MaxRelatedPerPage = 200
	// childChunk is how many children one transaction makes: stop waits
	// for at most one chunk.
	childChunk = 25
	// relatedWait is how often a page's expansion looks whether its
	// capture has ended.
	relatedWait = 300 * time.Millisecond
	// capabilityThread is the adapter capability for ExpandThread.
	capabilityThread = adapterv1.CapCaptureThread
)

// captureSpec is what a capture is asked for besides its collection.
type captureSpec struct {
	// Collection: the target is a profile or channel whose pages expand.
	Collection bool
	Automatic  bool
	PageCursor string
	Expand     string
	PageSize   int
}

// expands reports whether a submission with this spec expands when its
// capture ends.
func (s captureSpec) expands() bool { return !s.Automatic && (s.Collection || s.Expand != "") }

// firstPage is the spec of a person's submission.
func (a *App) firstPage(req SubmitRequest, r adapterapi.Resolved) captureSpec {
	spec := captureSpec{Collection: r.Collection, Expand: req.Expand}
	if r.Collection {
		spec.PageSize = a.pageSize(req.Limit)
	}
	return spec
}

// pageSize is what a page asks its adapter for with left posts to go (0:
// no limit): the configured page size, or fewer to end at the limit. 0
// leaves it to the adapter, whose default is DefaultPageSize.
func (a *App) pageSize(left int) int {
	size := a.limits.PageSize
	if left > 0 {
		return min(left, cmp.Or(size, DefaultPageSize))
	}
	return size
}

// checkExpansion refuses a limit or expand the target or adapter cannot
// honour, before anything is written.
func (a *App) checkExpansion(req SubmitRequest, r adapterapi.Resolved) error {
	if req.Limit == 0 && req.Expand == "" {
		return nil
	}
	url := clip(req.URL, 200)
	provider := a.provider(r.Adapter, r.Provider)
	if req.Limit > 0 {
		if !r.Collection {
			return errorf(ErrInvalid, "limit is for a profile or channel; %s is a single post", url)
		}
		maxBatch := int(provider.GetMaxBatchSize())
		if maxBatch == 0 {
			return errorf(ErrInvalid, "the %s adapter archives one page at a time; send the link without a limit and ask for more", r.Adapter)
		}
		if req.Limit > maxBatch {
			return errorf(ErrInvalid, "limit %d is more than the %s adapter's largest batch, %d posts", req.Limit, r.Adapter, maxBatch)
		}
	}
	if req.Expand == ExpandThread {
		if r.Collection {
			return errorf(ErrInvalid, "expand %q is for a post; %s is a profile or channel", ExpandThread, url)
		}
		has := false
		for _, c := range provider.GetCapabilities() {
			has = has || c.GetName() == capabilityThread
		}
		if !has {
			return errorf(ErrInvalid, "the %s adapter cannot archive threads (no %s capability)", r.Adapter, capabilityThread)
		}
	}
	return nil
}

// provider is an adapter's provider description (nil when the adapter or
// provider is unknown; its getters then answer zero values).
func (a *App) provider(adapterID, providerID string) *adapterv1.Provider {
	ad, ok := a.adapters.Get(adapterID)
	if !ok {
		return nil
	}
	for _, p := range ad.Describe().GetProviders() {
		if p.GetId() == providerID {
			return p
		}
	}
	return nil
}

type relatedWorker struct {
	river.WorkerDefaults[queue.RelatedArgs]
	app *App
}

// Timeout bounds one expansion: a page resolves up to 200 links.
func (w *relatedWorker) Timeout(*river.Job[queue.RelatedArgs]) time.Duration { return 5 * time.Minute }

func (w *relatedWorker) Work(ctx context.Context, job *river.Job[queue.RelatedArgs]) error {
	return w.app.runRelated(store.WithTenant(ctx, job.Args.TenantID), job.Args.SubmissionID)
}

// runRelated expands one page once its capture has ended. Running it again
// (a retry, a restart) makes no child twice: each child's idempotency key
// is the chain and the link.
func (a *App) runRelated(ctx context.Context, id uuid.UUID) error {
	var (
		sub store.Submission
		c   store.Capture
	)
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if sub, err = tx.SubmissionGet(ctx, id); err != nil {
			return err
		}
		c, err = tx.CaptureGet(ctx, sub.CaptureID)
		return err
	})
	if err != nil {
		return err
	}
	if sub.RelatedState != store.RelatedPending {
		return nil
	}
	if !captureEnded(c.State) {
		return river.JobSnooze(relatedWait)
	}
	if sub.Stopped {
		return a.endExpansion(ctx, sub.ID, store.RelatedDone, "")
	}
	if c.State == store.CaptureFailed {
		return a.endExpansion(ctx, sub.ID, store.RelatedFailed, "the page could not be read: "+c.Error)
	}
	var st staged
	if err := json.Unmarshal(c.Staged, &st); err != nil {
		return fmt.Errorf("app: expand %s: staged content: %w", id, err)
	}
	if n := len(st.Related); n > MaxRelatedPerPage {
		a.LogError(ctx, ErrorRecord{Source: SourceCapture, Stage: "related", Message: "page refused",
			Detail:    fmt.Sprintf("the adapter listed %d related links on one page; at most %d are taken", n, MaxRelatedPerPage),
			Context:   map[string]string{"adapter": c.AdapterID, "collection_id": c.CollectionID.String()},
			CaptureID: c.ID, TenantID: sub.TenantID})
		return a.endExpansion(ctx, sub.ID, store.RelatedFailed, fmt.Sprintf(
			"page refused: the %s adapter listed %d links on one page and a page may list at most %d, so none of them were archived",
			c.AdapterID, n, MaxRelatedPerPage))
	}
	targets := st.Related
	if sub.Limit != nil && len(targets) > *sub.Limit {
		targets = targets[:*sub.Limit]
	}
	root := chainRoot(sub)
	// A page read through an account lists posts its children read
	// through the same account: links only it can read (a private
	// channel's) resolve too.
	resolve := a.adapters.Resolve
	if c.ConnectionID != nil {
		resolve = a.adapters.ResolveForAccount
	}
	var problems []string
	for start := 0; start < len(targets); start += childChunk {
		chunk := targets[start:min(start+childChunk, len(targets))]
		resolved := make([]adapterapi.Resolved, len(chunk))
		for i, t := range chunk {
			// The adapter calls happen outside the transaction.
			r, err := resolve(ctx, t.URL)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				problems = append(problems, clip(t.URL, 120)+": "+err.Error())
				continue
			}
			resolved[i] = r
		}
		stopped := false
		err := a.store.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.TenantLock(ctx, sub.TenantID); err != nil {
				return err
			}
			cur, err := tx.SubmissionGet(ctx, sub.ID)
			if err != nil {
				return err
			}
			if stopped = cur.Stopped; stopped {
				return nil
			}
			tenant, err := tx.TenantGetByID(ctx, sub.TenantID)
			if err != nil {
				return err
			}
			conn, err := a.pageConnection(ctx, tx, c)
			if err != nil {
				return err
			}
			for i, r := range resolved {
				if r.Target == nil {
					continue
				}
				if _, err := a.createChild(ctx, tx, tenant, childKey(root, chunk[i].URL), &sub.ID, chunk[i], r, conn); err != nil {
					return err
				}
			}
			return nil
		})
		var qe *QuotaError
		if errors.As(err, &qe) {
			return a.endExpansion(ctx, sub.ID, store.RelatedFailed, "stopped: "+qe.Error())
		}
		if err != nil {
			return err
		}
		if stopped {
			return a.endExpansion(ctx, sub.ID, store.RelatedDone, "")
		}
	}
	errText := ""
	if len(problems) > 0 {
		errText = fmt.Sprintf("%d of %d links could not be archived: %s", len(problems), len(targets), strings.Join(problems[:min(3, len(problems))], "; "))
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.TenantLock(ctx, sub.TenantID); err != nil {
			return err
		}
		cur, err := tx.SubmissionGet(ctx, sub.ID)
		if err != nil {
			return err
		}
		if err := tx.SubmissionSetRelated(ctx, sub.ID, store.RelatedDone, errText); err != nil {
			return err
		}
		if cur.Stopped || cur.Limit == nil || cur.NextID != nil || c.NextPageCursor == "" {
			return nil
		}
		made, err := tx.ChildCount(ctx, sub.ID)
		if err != nil {
			return err
		}
		left := *cur.Limit - made
		if left <= 0 {
			return nil
		}
		// A batch goes on by itself.
		_, err = a.nextPage(ctx, tx, cur, c, c.NextPageCursor, &left)
		return err
	})
}

// endExpansion records how a page's expansion ended.
func (a *App) endExpansion(ctx context.Context, id uuid.UUID, state, errText string) error {
	return a.store.InTx(ctx, func(tx *store.Tx) error { return tx.SubmissionSetRelated(ctx, id, state, errText) })
}

// chainRoot is the first page of the chain a page belongs to.
func chainRoot(page store.Submission) uuid.UUID {
	if page.ParentID != nil && !page.Automatic {
		return *page.ParentID
	}
	return page.ID
}

// childKey is the idempotency key of the child a chain makes for a link:
// the same post listed on two pages of one chain is one child.
func childKey(root uuid.UUID, url string) string {
	sum := sha256.Sum256([]byte(url))
	return "related:" + root.String() + ":" + hex.EncodeToString(sum[:12])
}

// createChild makes the automatic submission of one related target under
// the idempotency key, in a transaction that holds the tenant lock (a
// page's, or a watch run's with no parent page). A key made before
// answers the submission it made. A target with refresh_after_seconds 0
// reuses what is archived; otherwise it is observed again when its last
// observation is older.
func (a *App) createChild(ctx context.Context, tx *store.Tx, tenant store.Tenant, key string, page *uuid.UUID, t stagedTarget,
	r adapterapi.Resolved, conn *store.Connection) (store.Submission, error) {
	if sub, err := tx.SubmissionGetByIdemKey(ctx, tenant.ID, key); err == nil {
		return sub, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.Submission{}, err
	}
	tg := r.Target
	want := publicCollection(tenant.ID, tg.GetPlatform(), tg.GetEntityType(), tg.GetObjectScope(), tg.GetExternalId(), r.Adapter, tg.GetCanonicalUrl())
	if conn != nil {
		// A page read through an account: its posts too, into the
		// tenant's private copies.
		r.Provider = conn.Provider
		want = accountCollection(tenant.ID, r)
	}
	coll, _, err := tx.CollectionGetOrInsert(ctx, want)
	if err != nil {
		return store.Submission{}, err
	}
	if coll, err = canonicalCollection(ctx, tx, tenant.ID, coll); err != nil {
		return store.Submission{}, err
	}
	saved, err := tx.TenantCollectionExists(ctx, tenant.ID, coll.ID)
	if err != nil {
		return store.Submission{}, err
	}
	if !saved {
		if err := checkQuota(ctx, tx, tenant, coll.ID); err != nil {
			return store.Submission{}, err
		}
	}
	fresh := false
	if t.RefreshAfterSeconds > 0 && coll.CurrentRevisionID != nil {
		observed, err := tx.RevisionObservedAt(ctx, *coll.CurrentRevisionID)
		if err != nil {
			return store.Submission{}, err
		}
		fresh = a.now().Sub(observed) > time.Duration(t.RefreshAfterSeconds)*time.Second
	}
	c, err := a.captureFor(ctx, tx, tenant, coll, r, conn, fresh, captureSpec{Automatic: true, Expand: expandNone})
	if err != nil {
		return store.Submission{}, err
	}
	sub, err := tx.SubmissionInsert(ctx, store.Submission{
		TenantID: tenant.ID, CaptureID: c.ID, CollectionID: coll.ID, IdemKey: key, InputURL: t.URL,
		Automatic: true, ParentID: page,
	})
	if err != nil {
		return store.Submission{}, err
	}
	_, err = tx.TenantCollectionSave(ctx, tenant.ID, coll.ID)
	return sub, err
}

// nextPage makes the page after page, starting at cursor, with its own
// capture (same adapter, provider and connection) and expansion. left is
// how many children a batch may still make (nil: one page).
func (a *App) nextPage(ctx context.Context, tx *store.Tx, page store.Submission, pc store.Capture, cursor string, left *int) (store.Submission, error) {
	coll, err := tx.CollectionGet(ctx, page.CollectionID)
	if err != nil {
		return store.Submission{}, err
	}
	tenant, err := tx.TenantGetByID(ctx, page.TenantID)
	if err != nil {
		return store.Submission{}, err
	}
	spec := captureSpec{Collection: true, PageCursor: cursor, Expand: pc.Expand}
	if left != nil {
		spec.PageSize = a.pageSize(*left)
	} else {
		spec.PageSize = a.pageSize(0)
	}
	r := adapterapi.Resolved{Adapter: pc.AdapterID, Provider: pc.Provider}
	conn, err := a.pageConnection(ctx, tx, pc)
	if err != nil {
		return store.Submission{}, err
	}
	c, err := a.captureFor(ctx, tx, tenant, coll, r, conn, true, spec)
	if err != nil {
		return store.Submission{}, err
	}
	root := chainRoot(page)
	next, err := tx.SubmissionInsert(ctx, store.Submission{
		TenantID: page.TenantID, CaptureID: c.ID, CollectionID: coll.ID, InputURL: page.InputURL,
		ParentID: &root, Limit: left, RelatedState: store.RelatedPending,
	})
	if err != nil {
		return store.Submission{}, err
	}
	if err := tx.SubmissionSetNext(ctx, page.ID, next.ID); err != nil {
		return store.Submission{}, err
	}
	if err := a.insertJob(ctx, tx, queue.RelatedArgs{SubmissionID: next.ID, TenantID: page.TenantID}); err != nil {
		return store.Submission{}, err
	}
	a.log.InfoContext(ctx, "next collection page", slog.String("page", page.ID.String()), slog.String("next", next.ID.String()))
	return next, nil
}

// More archives the page after the submission's page: the one already
// made when it was asked before (asking twice is one page), a new one from
// the stored cursor, or the same page again when it failed.
func (a *App) More(ctx context.Context, tenantID, submissionID uuid.UUID) (SubmitResult, error) {
	return a.moreUpTo(ctx, tenantID, submissionID, nil)
}

// moreUpTo is More for a batch: the new page and the pages it chains by
// itself make at most *limit children (nil: one page).
func (a *App) moreUpTo(ctx context.Context, tenantID, submissionID uuid.UUID, limit *int) (SubmitResult, error) {
	ctx = store.WithTenant(ctx, tenantID)
	var res SubmitResult
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.TenantLock(ctx, tenantID); err != nil {
			return err
		}
		page, err := a.pageOf(ctx, tx, tenantID, submissionID)
		if err != nil {
			return err
		}
		if page.NextID != nil {
			return a.resultOf(ctx, tx, *page.NextID, &res)
		}
		if page.Stopped {
			return errorf(ErrConflict, "this collection was stopped; send the link again to start over")
		}
		c, err := tx.CaptureGet(ctx, page.CaptureID)
		if err != nil {
			return err
		}
		if !captureEnded(c.State) || page.RelatedState == store.RelatedPending {
			return errorf(ErrConflict, "this page is still being archived; ask for more once it is done")
		}
		cursor := c.NextPageCursor
		if c.State == store.CaptureFailed && c.PageCursor != "" {
			cursor = c.PageCursor // the page failed: read it again
		} else if c.State == store.CaptureFailed {
			return errorf(ErrConflict, "the first page failed (%s); send the link again", c.Error)
		} else if cursor == "" {
			return errorf(ErrConflict, "there is nothing more: this collection is archived to its end")
		}
		next, err := a.nextPage(ctx, tx, page, c, cursor, limit)
		if err != nil {
			return err
		}
		return a.resultOf(ctx, tx, next.ID, &res)
	})
	return res, err
}

// Stop ends the chain the submission belongs to: no child or page is made
// after it. Captures already running finish; what other tenants share is
// untouched.
func (a *App) Stop(ctx context.Context, tenantID, submissionID uuid.UUID) (SubmissionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		// The lock child creation takes: a chunk of children is made
		// before or after this, never across it.
		if err := tx.TenantLock(ctx, tenantID); err != nil {
			return err
		}
		page, err := a.pageOf(ctx, tx, tenantID, submissionID)
		if err != nil {
			return err
		}
		return tx.ChainStop(ctx, chainRoot(page))
	})
	if err != nil {
		return SubmissionView{}, err
	}
	return a.Submission(ctx, tenantID, submissionID)
}

// pageOf finds the tenant's page submission (ErrNotFound for another
// tenant's, ErrInvalid for a child).
func (a *App) pageOf(ctx context.Context, tx *store.Tx, tenantID, id uuid.UUID) (store.Submission, error) {
	sub, err := tx.SubmissionGet(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && sub.TenantID != tenantID) {
		return store.Submission{}, errorf(ErrNotFound, "no submission with id %s", id)
	}
	if err != nil {
		return store.Submission{}, err
	}
	if sub.Automatic {
		return store.Submission{}, errorf(ErrInvalid, "submission %s is one post of a collection; ask for more or stop on the collection's submission", id)
	}
	if sub.RelatedState == store.RelatedNone {
		return store.Submission{}, errorf(ErrInvalid, "submission %s is a single post, not a profile, channel or thread", id)
	}
	return sub, nil
}

func (a *App) resultOf(ctx context.Context, tx *store.Tx, id uuid.UUID, res *SubmitResult) error {
	sub, err := tx.SubmissionGet(ctx, id)
	if err != nil {
		return err
	}
	c, err := tx.CaptureGet(ctx, sub.CaptureID)
	if err != nil {
		return err
	}
	*res = SubmitResult{SubmissionID: sub.ID, CaptureID: c.ID, CollectionID: sub.CollectionID, State: c.State}
	return nil
}

// SubmissionProgress counts a chain's children by the state of their
// capture: queued counts those not ended yet.
type SubmissionProgress struct {
	Total    int `json:"total"`
	Queued   int `json:"queued"`
	Complete int `json:"complete"`
	Partial  int `json:"partial"`
	Failed   int `json:"failed"`
}

// SubmissionView is GET /v1/submissions/{id}: a submission's state and,
// for a profile, channel or thread, the progress of this page and the
// pages after it.
type SubmissionView struct {
	ID uuid.UUID `json:"id"`
	// State is queued, downloading (the page or its posts are being
	// archived), complete, partial (some posts failed) or failed.
	State string `json:"state"`
	// Kind is post, profile, channel or thread.
	Kind           string             `json:"kind"`
	CollectionID   uuid.UUID          `json:"collection_id"`
	CaptureID      uuid.UUID          `json:"capture_id"`
	Progress       SubmissionProgress `json:"progress"`
	HasMore        bool               `json:"has_more"`
	Stopped        bool               `json:"stopped"`
	NextSubmission *uuid.UUID         `json:"next_submission,omitempty"`
	Error          string             `json:"error,omitempty"`
	// Automatic: one post of a collection, made by its expansion.
	Automatic bool `json:"automatic"`
}

// Submission reads one of the tenant's submissions with its progress.
func (a *App) Submission(ctx context.Context, tenantID, id uuid.UUID) (SubmissionView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	sub, err := a.store.SubmissionGet(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && sub.TenantID != tenantID) {
		return SubmissionView{}, errorf(ErrNotFound, "no submission with id %s", id)
	}
	if err != nil {
		return SubmissionView{}, err
	}
	c, err := a.store.CaptureGet(ctx, sub.CaptureID)
	if err != nil {
		return SubmissionView{}, err
	}
	coll, err := a.store.CollectionGet(ctx, sub.CollectionID)
	if err != nil {
		return SubmissionView{}, err
	}
	v := SubmissionView{ID: sub.ID, State: c.State, Kind: entityKind(coll.EntityType), CollectionID: sub.CollectionID,
		CaptureID: c.ID, Stopped: sub.Stopped, NextSubmission: sub.NextID, Error: c.Error, Automatic: sub.Automatic}
	if sub.RelatedState == store.RelatedNone {
		return v, nil
	}
	if c.Expand == ExpandThread {
		v.Kind = ExpandThread
	}
	chain, err := a.store.ChainPages(ctx, chainRoot(sub))
	if err != nil {
		return SubmissionView{}, err
	}
	// This page and the pages after it.
	var pages []store.Submission
	for i, p := range chain {
		if p.ID == sub.ID {
			pages = chain[i:]
			break
		}
	}
	ids := make([]uuid.UUID, len(pages))
	busy, failed := false, false
	for i, p := range pages {
		ids[i] = p.ID
		pc := c
		if p.ID != sub.ID {
			if pc, err = a.store.CaptureGet(ctx, p.CaptureID); err != nil {
				return SubmissionView{}, err
			}
		}
		busy = busy || !captureEnded(pc.State) || p.RelatedState == store.RelatedPending
		if p.RelatedState == store.RelatedFailed {
			failed = true
			if v.Error == "" {
				v.Error = p.RelatedError
			}
		}
		if i == len(pages)-1 && !p.Stopped && captureEnded(pc.State) && p.RelatedState != store.RelatedPending {
			// A later page that failed can be read again with more; a
			// first page that failed is sent again.
			v.HasMore = pc.NextPageCursor != "" || (pc.State == store.CaptureFailed && pc.PageCursor != "")
		}
		if p.RelatedError != "" && v.Error == "" {
			v.Error = p.RelatedError
		}
	}
	states, err := a.store.ChildStates(ctx, ids)
	if err != nil {
		return SubmissionView{}, err
	}
	for state, n := range states {
		v.Progress.Total += n
		switch state {
		case store.CaptureComplete:
			v.Progress.Complete += n
		case store.CapturePartial:
			v.Progress.Partial += n
		case store.CaptureFailed:
			v.Progress.Failed += n
		default:
			v.Progress.Queued += n
		}
	}
	switch {
	case c.State == store.CaptureQueued:
	case busy || v.Progress.Queued > 0:
		v.State = store.CaptureDownloading
	case c.State == store.CaptureFailed || (failed && v.Progress.Total == 0):
		v.State = store.CaptureFailed
	case failed || v.Progress.Failed > 0 || v.Progress.Partial > 0 || c.State == store.CapturePartial:
		v.State = store.CapturePartial
	default:
		v.State = store.CaptureComplete
	}
	return v, nil
}

// entityKind is the kind of an entity type: post, profile or channel (the
// query language's kind:).
func entityKind(entityType string) string {
	switch {
	case strings.HasSuffix(entityType, ".profile"):
		return "profile"
	case strings.HasSuffix(entityType, ".channel"):
		return "channel"
	}
	return "post"
}

// Members lists one page of a collection's members the tenant archived (a
// profile's or channel's posts), newest save first, as GET
// /v1/collections lists them.
func (a *App) Members(ctx context.Context, tenantID, collectionID uuid.UUID, limit int, cursor string) (CollectionPage, error) {
	ctx = store.WithTenant(ctx, tenantID)
	if limit < 1 || limit > 100 {
		return CollectionPage{}, errorf(ErrInvalid, "limit must be from 1 to 100")
	}
	if _, err := a.savedCollection(ctx, tenantID, collectionID); err != nil {
		return CollectionPage{}, err
	}
	after, err := decodeCursor(cursor)
	if err != nil {
		return CollectionPage{}, err
	}
	rows, err := a.store.LibraryList(ctx, tenantID, store.LibraryFilter{MemberOf: &collectionID}, after, limit+1)
	if err != nil {
		return CollectionPage{}, err
	}
	page := CollectionPage{Items: []CollectionView{}}
	if len(rows) > limit {
		last := rows[limit-1]
		page.NextCursor = encodeCursor(store.SavedCursor{SavedAt: last.SavedAt, CollectionID: last.ID})
		rows = rows[:limit]
	}
	for _, r := range rows {
		v, err := a.Collection(ctx, tenantID, r.ID)
		if err != nil {
			return CollectionPage{}, err
		}
		page.Items = append(page.Items, v)
	}
	return page, nil
}

// pageConnection is the account a page's capture ran with, which its next
// page and its posts use too (nil: none, the public provider).
func (a *App) pageConnection(ctx context.Context, tx *store.Tx, pc store.Capture) (*store.Connection, error) {
	if pc.ConnectionID == nil {
		return nil, nil
	}
	conn, err := tx.ConnectionGet(ctx, pc.TenantID, *pc.ConnectionID)
	if err != nil {
		return nil, err
	}
	return &conn, nil
}
