package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// publicAccessScope is the access scope of content fetched without an
// account: anyone may see it.
const publicAccessScope = "public"

// maxInputURL bounds what a person may submit.
const maxInputURL = 4096

// collectionNamespace derives public collection ids: the same post has the
// same id on every Monitor instance.
func collectionNamespace() uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("urn:monitor:collection"))
}

// PublicCollectionID is the id of a public collection with the given
// identity: a UUIDv5 of data scope, platform, access scope, entity type,
// object scope and external id.
func PublicCollectionID(platform, entityType, objectScope, externalID string) uuid.UUID {
	identity := strings.Join([]string{store.PublicScope.String(), platform, publicAccessScope, entityType, objectScope, externalID}, "\x00")
	return uuid.NewSHA1(collectionNamespace(), []byte(identity))
}

// PrivateCollectionID is the id of a collection with the given identity in
// a tenant's private scope: a UUIDv5 of the same parts as a public id, with
// the tenant as data scope and the private access scope. Imported content
// gets it, so importing the same post twice finds the same collection and
// no file can choose the id (and so the row) it lands in.
func PrivateCollectionID(tenantID uuid.UUID, platform, entityType, objectScope, externalID string) uuid.UUID {
	identity := strings.Join([]string{tenantID.String(), platform, privateAccessScope, entityType, objectScope, externalID}, "\x00")
	return uuid.NewSHA1(collectionNamespace(), []byte(identity))
}

// Submit archives a link for a tenant: it resolves the link through its
// adapter, finds or creates the collection, joins the capture in flight or
// starts one, records the submission and saves the tenant's reference, all
// in one transaction with the job. A collection already archived answers
// at once unless req.Refresh (or the adapter) asks for a new observation.
func (a *App) Submit(ctx context.Context, req SubmitRequest) (SubmitResult, error) {
	ctx = store.WithTenant(ctx, req.TenantID)
	req.URL = strings.TrimSpace(req.URL)
	if req.URL == "" {
		return SubmitResult{}, errorf(ErrInvalid, "url is required: send the link to a post")
	}
	if len(req.URL) > maxInputURL {
		return SubmitResult{}, errorf(ErrInvalid, "url is longer than %d characters", maxInputURL)
	}
	if req.IdemKey != "" {
		if res, err := a.submissionByIdemKey(ctx, req); err == nil || !errors.Is(err, store.ErrNotFound) {
			return res, err
		}
	}
	if req.Expand != "" && req.Expand != ExpandThread {
		return SubmitResult{}, errorf(ErrInvalid, "expand must be %q (the author's thread around a post), not %q", ExpandThread, clip(req.Expand, 32))
	}
	if req.Limit < 0 {
		return SubmitResult{}, errorf(ErrInvalid, "limit must be a positive number of posts, not %d", req.Limit)
	}
	// The adapter call happens before, never inside, the transaction. A
	// capture through an account resolves links only it can read too.
	resolve := a.adapters.Resolve
	if req.ConnectionID != uuid.Nil {
		resolve = a.adapters.ResolveForAccount
	}
	resolved, err := resolve(ctx, req.URL)
	if err != nil {
		return SubmitResult{}, err
	}
	var conn *store.Connection
	if req.ConnectionID != uuid.Nil {
		if conn, err = a.submitConnection(ctx, req, resolved); err != nil {
			return SubmitResult{}, err
		}
		resolved.Provider = conn.Provider
	}
	if err := a.checkExpansion(req, resolved); err != nil {
		return SubmitResult{}, err
	}
	settings, err := a.Settings(ctx)
	if err != nil {
		return SubmitResult{}, err
	}
	res, err := a.submitResolved(ctx, req, resolved, conn, settings.Timezone)
	if errors.Is(err, store.ErrConflict) && req.IdemKey != "" {
		// Another request with the same key won the race.
		return a.submissionByIdemKey(ctx, req)
	}
	return res, err
}

func (a *App) submissionByIdemKey(ctx context.Context, req SubmitRequest) (SubmitResult, error) {
	var res SubmitResult
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		sub, err := tx.SubmissionGetByIdemKey(ctx, req.TenantID, req.IdemKey)
		if err != nil {
			return err
		}
		if sub.InputURL != req.URL {
			return errorf(ErrIdempotencyMismatch, "Idempotency-Key %q was used for %s; use a new key for another link", req.IdemKey, sub.InputURL)
		}
		c, err := tx.CaptureGet(ctx, sub.CaptureID)
		if err != nil {
			return err
		}
		res = SubmitResult{SubmissionID: sub.ID, CaptureID: sub.CaptureID, CollectionID: sub.CollectionID, State: c.State}
		return nil
	})
	return res, err
}

func (a *App) submitResolved(ctx context.Context, req SubmitRequest, r adapterapi.Resolved, conn *store.Connection, tz *time.Location) (SubmitResult, error) {
	t := r.Target
	now := a.now().UTC()
	var (
		res    SubmitResult
		tenant store.Tenant
	)
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		tenant, err = tx.TenantGetByID(ctx, req.TenantID)
		if err != nil {
			return err
		}
		if err := checkLimits(ctx, tx, tenant, tz, now); err != nil {
			return err
		}
		want := publicCollection(tenant.ID, t.GetPlatform(), t.GetEntityType(), t.GetObjectScope(), t.GetExternalId(), r.Adapter, t.GetCanonicalUrl())
		if conn != nil {
			want = accountCollection(tenant.ID, r)
		}
		coll, _, err := tx.CollectionGetOrInsert(ctx, want)
		if err != nil {
			return err
		}
		if coll, err = canonicalCollection(ctx, tx, tenant.ID, coll); err != nil {
			return err
		}
		saved, err := tx.TenantCollectionExists(ctx, tenant.ID, coll.ID)
		if err != nil {
			return err
		}
		if !saved {
			if err := checkQuota(ctx, tx, tenant, coll.ID); err != nil {
				return err
			}
		}

		spec := a.firstPage(req, r)
		capture, err := a.captureFor(ctx, tx, tenant, coll, r, conn, req.Refresh || r.RefreshOnSubmit || spec.expands(), spec)
		if err != nil {
			return err
		}
		sub := submissionOf(req, tenant.ID, capture, coll.ID)
		if spec.expands() {
			sub.RelatedState = store.RelatedPending
			if req.Limit > 0 {
				sub.Limit = &req.Limit
			}
		}
		sub, err = tx.SubmissionInsert(ctx, sub)
		if err != nil {
			return err
		}
		if spec.expands() {
			// The expansion is persisted with the submission: it waits for
			// the capture to end, then makes the children.
			if err := a.insertJob(ctx, tx, queue.RelatedArgs{SubmissionID: sub.ID, TenantID: tenant.ID}); err != nil {
				return err
			}
		}
		if req.ChannelID != uuid.Nil {
			// The result goes back where the link came from: a deliver
			// item, committed with the submission.
			if _, err := tx.ChannelWorkInsert(ctx, store.ChannelWork{
				ChannelID: req.ChannelID, Kind: store.WorkDeliver, SubmissionID: &sub.ID, TenantID: tenant.ID,
			}); err != nil {
				return err
			}
		}
		if err := recordStatusMessage(ctx, tx, req, sub); err != nil {
			return err
		}
		if !spec.expands() && !req.NoCopies {
			// A post goes to the tenant's bound channels too.
			if err := queueCopies(ctx, tx, tenant.ID, sub.ID); err != nil {
				return err
			}
		}
		if _, err := tx.TenantCollectionSave(ctx, tenant.ID, coll.ID); err != nil {
			return err
		}
		if conn != nil {
			if err := tx.TenantCollectionSetRefreshConnection(ctx, tenant.ID, coll.ID, conn.ID); err != nil {
				return err
			}
		}
		if capture.State == store.CaptureComplete && capture.CollectionID == coll.ID && coll.Visibility == store.Public {
			// Archived already: the fetched public post takes the place
			// of a copy the tenant imported, at once.
			if err := tx.CaptureAdoptImports(ctx, capture.ID, coll.ID); err != nil {
				return err
			}
		}
		if err := tx.TenantSubmitted(ctx, tenant.ID, now, operatingDay(now, tz)); err != nil {
			return err
		}
		res = SubmitResult{SubmissionID: sub.ID, CaptureID: capture.ID, CollectionID: coll.ID, State: capture.State}
		return nil
	})
	var le *LimitError
	if errors.As(err, &le) {
		a.recordDenial(ctx, tenant, le)
	}
	return res, err
}

// submissionOf is the submission a request records. A channel submission
// whose capture has ended already is deliverable at once.
func submissionOf(req SubmitRequest, tenantID uuid.UUID, c store.Capture, collectionID uuid.UUID) store.Submission {
	sub := store.Submission{TenantID: tenantID, CaptureID: c.ID, CollectionID: collectionID, IdemKey: req.IdemKey, InputURL: req.URL}
	if req.ChannelID == uuid.Nil {
		return sub
	}
	sub.ChannelID = &req.ChannelID
	if req.IdentityID != uuid.Nil {
		sub.IdentityID = &req.IdentityID
	}
	sub.ChatID = strconv.FormatInt(req.ChatID, 10)
	sub.ReplyToMessageID = messageRef(req.ReplyToMessageID)
	sub.StatusMessageID = messageRef(req.StatusMessageID)
	if captureEnded(c.State) {
		sub.DeliveryState = store.DeliveryPending
	}
	return sub
}

// messageRef is a platform message id as the store keeps it ("" = none).
func messageRef(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// captureEnded reports whether a capture state is terminal.
func captureEnded(state string) bool {
	return state == store.CaptureComplete || state == store.CapturePartial || state == store.CaptureFailed
}

// captureFor picks the capture a submission belongs to: the one in flight
// for the same collection, provider and page, the one that produced the
// current revision when nothing asks for a fresh look, or a new one with
// its job. An automatic submission also joins a capture a person asked
// for; a person's never joins or reuses an automatic one, which did not
// list what a person's expansion needs.
func (a *App) captureFor(ctx context.Context, tx *store.Tx, tenant store.Tenant, coll store.Collection, r adapterapi.Resolved, conn *store.Connection, fresh bool, spec captureSpec) (store.Capture, error) {
	key := store.CaptureKey{CollectionID: coll.ID, Provider: r.Provider, PageCursor: spec.PageCursor, Expand: spec.Expand, PageSize: spec.PageSize,
		Automatic: spec.Automatic}
	var credRev *int
	if conn != nil {
		// An account's capture is joined only by captures of the same
		// account and credential.
		key.ConnectionID, credRev = &conn.ID, &conn.CredentialRevision
	}
	keys := []store.CaptureKey{key}
	if spec.Automatic {
		// A person's plain capture of the same target serves as well.
		keys = append([]store.CaptureKey{{CollectionID: coll.ID, Provider: r.Provider}}, keys...)
	}
	for _, k := range keys {
		c, err := tx.CaptureInFlight(ctx, k)
		if err == nil && credRev != nil && (c.CredentialRevision == nil || *c.CredentialRevision != *credRev) {
			// In flight with a credential replaced since: it cannot keep
			// its result, and a second one may not run beside it.
			return store.Capture{}, errorf(ErrConflict, "a capture of this post with the account's previous credential is still running; send the link again once it has ended")
		}
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return store.Capture{}, err
		}
	}
	if coll.CurrentRevisionID != nil && !fresh {
		c, err := tx.CaptureOfRevision(ctx, *coll.CurrentRevisionID)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return store.Capture{}, err
		}
	}
	c, err := tx.CaptureInsert(ctx, store.Capture{
		CollectionID:       coll.ID,
		TenantID:           tenant.ID,
		Visibility:         coll.Visibility,
		DataScope:          coll.DataScope,
		AccessScope:        coll.AccessScope,
		AdapterID:          r.Adapter,
		Provider:           r.Provider,
		Automatic:          spec.Automatic,
		ConnectionID:       key.ConnectionID,
		CredentialRevision: credRev,
		PageCursor:         spec.PageCursor,
		Expand:             spec.Expand,
		PageSize:           spec.PageSize,
	})
	if err != nil {
		return store.Capture{}, err
	}
	if err := a.insertJob(ctx, tx, queue.CaptureArgs{CaptureID: c.ID, TenantID: c.TenantID}); err != nil {
		return store.Capture{}, err
	}
	return c, nil
}

// Refresh captures a saved collection again, even when nothing changed.
func (a *App) Refresh(ctx context.Context, tenantID, collectionID uuid.UUID, idemKey string) (SubmitResult, error) {
	ctx = store.WithTenant(ctx, tenantID)
	sc, err := a.store.SavedCollectionGet(ctx, tenantID, collectionID)
	if errors.Is(err, store.ErrNotFound) {
		return SubmitResult{}, errorf(ErrNotFound, "no saved collection with id %s", collectionID)
	}
	if err != nil {
		return SubmitResult{}, err
	}
	// What was archived through an account is read through it again,
	// never silently through the public provider.
	conn, err := a.store.TenantCollectionRefreshConnection(ctx, tenantID, collectionID)
	if err != nil {
		return SubmitResult{}, err
	}
	req := SubmitRequest{TenantID: tenantID, URL: sc.SourceURL, IdemKey: idemKey, Refresh: true}
	if conn != nil {
		req.ConnectionID = *conn
	}
	return a.Submit(ctx, req)
}

// checkQuota refuses a new save when, with the collection's current
// content counted, the tenant would have no room left: used plus reserved
// bytes must stay below the quota. A quota of 0 therefore allows no saves.
func checkQuota(ctx context.Context, tx *store.Tx, tenant store.Tenant, collectionID uuid.UUID) error {
	if tenant.QuotaBytes == nil {
		return nil
	}
	before, err := tx.TenantUsage(ctx, tenant.ID, nil)
	if err != nil {
		return err
	}
	after, err := tx.TenantUsage(ctx, tenant.ID, &collectionID)
	if err != nil {
		return err
	}
	quota := *tenant.QuotaBytes
	if after.UsedBytes+after.ReservedBytes >= quota {
		return &QuotaError{UsedBytes: before.UsedBytes, ReservedBytes: before.ReservedBytes, QuotaBytes: quota,
			AddBytes: after.UsedBytes - before.UsedBytes}
	}
	return nil
}

// insertJob adds a job in the business transaction.
func (a *App) insertJob(ctx context.Context, tx *store.Tx, args river.JobArgs) error {
	if a.queue == nil {
		return fmt.Errorf("app: no queue attached; cannot start %s work", args.Kind())
	}
	_, err := a.queue.InsertTx(ctx, tx, args, nil)
	return err
}

// insertJobs adds jobs inside tx in one batch.
func (a *App) insertJobs(ctx context.Context, tx *store.Tx, args []river.JobArgs) error {
	if a.queue == nil {
		return fmt.Errorf("app: no queue attached; cannot start %s work", args[0].Kind())
	}
	return a.queue.InsertManyTx(ctx, tx, args)
}

// publicCollection is the public collection of a target, first made by
// tenantID.
func publicCollection(tenantID uuid.UUID, platform, entityType, objectScope, externalID, adapter, url string) store.Collection {
	return store.Collection{
		ID:          PublicCollectionID(platform, entityType, objectScope, externalID),
		TenantID:    tenantID,
		Visibility:  store.Public,
		DataScope:   store.PublicScope,
		AccessScope: publicAccessScope,
		Platform:    platform,
		EntityType:  entityType,
		ObjectScope: objectScope,
		ExternalID:  externalID,
		AdapterID:   adapter,
		SourceURL:   url,
	}
}
