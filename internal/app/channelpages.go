package app

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// This file holds a channel's side of profiles and channels (pages.go):
// the progress of a chain of pages as one message, and the "fetch more"
// and "stop" buttons on it.
//
// How progress reaches the channel: by the work items the channel already
// claims, read again every few seconds, rather than by work core would
// queue whenever a child ends. A profile link's deliver item does not end
// when the first page's capture does: while the chain runs, the channel
// reads its Delivery (Collection set), edits the message only when the
// text changed and defers the item for a few seconds, so 1,000 children
// make at most one edit per pause, and a final one when the chain has
// ended. "Fetch more" makes a new page and, in its own transaction, a
// "progress" item that follows the chain the same way; its id is derived
// from the page, so pressing twice (or a retried press) makes one item
// for one page. Nothing needs a hook in the capture pipeline, no new
// table or migration, and a crash loses nothing: an item whose lease
// expires is claimed again and reads the chain as it is now, so the
// message still reaches its final counts.

// ChannelWorkProgress keeps a collection's progress message up to date
// after "fetch more": its submission is the page the press made.
const ChannelWorkProgress = "progress"

// progressWorkNamespace derives a progress item's id from its page.
var progressWorkNamespace = uuid.MustParse("5d1d5a4e-8f0c-4c55-9a43-3f2f1e7c0b17")

// progressWorkID is the id of the progress item that follows page.
func progressWorkID(page uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(progressWorkNamespace, page[:])
}

// ChannelCollection is the progress of a profile, channel or thread over
// every page of its chain, as a channel shows it.
type ChannelCollection struct {
	// Kind is profile, channel or thread.
	Kind string
	// Title is the profile's or channel's name ("" until its first page
	// is read); InputURL is the link as the person sent it.
	Title    string
	InputURL string
	// State is as SubmissionView's; Running while queued or downloading.
	State   string
	Running bool
	// Total counts the children made; Archived the complete and partial
	// ones, Failed the failed ones, Queued those not ended yet.
	Total, Archived, Queued, Failed int
	HasMore                         bool
	Stopped                         bool
	// MoreFrom is the chain's last page: "fetch more" continues after it.
	MoreFrom uuid.UUID
	// Root is the chain's first page.
	Root uuid.UUID
	// BatchSize is the adapter's max_batch_size (0 = none).
	BatchSize int
	Error     string
}

// ChannelMoreRequest asks for the page after SubmissionID (a batch of up
// to the adapter's max_batch_size with Batch); Progress is the first
// progress document of the progress item that follows it.
type ChannelMoreRequest struct {
	Owner        string
	SubmissionID uuid.UUID
	Batch        bool
	Progress     json.RawMessage
}

// ChannelMore is a "fetch more" press: the next page of the chain (the one
// made before when asked twice) and a progress item that follows it, for
// the person whose message the button is on. It answers the chain's
// progress.
func (a *App) ChannelMore(ctx context.Context, id uuid.UUID, req ChannelMoreRequest) (ChannelCollection, error) {
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return ChannelCollection{}, err
	}
	if j.update == nil {
		return ChannelCollection{}, badRequest("only an update work item can ask for more")
	}
	doc, err := checkProgressDoc(req.Progress, true)
	if err != nil {
		return ChannelCollection{}, err
	}
	page, root, err := a.chainOf(j.ctx, j.tenantID, req.SubmissionID)
	if err != nil {
		return ChannelCollection{}, err
	}
	var limit *int
	if req.Batch {
		n, err := a.batchSize(j.ctx, page)
		if err != nil {
			return ChannelCollection{}, err
		}
		limit = &n
	}
	res, err := a.moreUpTo(j.ctx, j.tenantID, page.ID, limit)
	if err != nil {
		return ChannelCollection{}, err
	}
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		_, err := tx.ChannelWorkInsert(j.ctx, store.ChannelWork{ID: progressWorkID(res.SubmissionID), ChannelID: j.work.ChannelID,
			Kind: ChannelWorkProgress, SubmissionID: &res.SubmissionID, TenantID: j.tenantID, Progress: doc})
		return err
	})
	if err != nil && !errors.Is(err, store.ErrConflict) { // conflict: asked before, the item follows already
		return ChannelCollection{}, err
	}
	return a.channelCollection(j.ctx, j.tenantID, root)
}

// ChannelStop is a "stop" press: the chain ends for the person whose
// message the button is on (Stop). It answers the chain's progress.
func (a *App) ChannelStop(ctx context.Context, id uuid.UUID, owner string, submissionID uuid.UUID) (ChannelCollection, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelCollection{}, err
	}
	if j.update == nil {
		return ChannelCollection{}, badRequest("only an update work item can stop a collection")
	}
	_, root, err := a.chainOf(j.ctx, j.tenantID, submissionID)
	if err != nil {
		return ChannelCollection{}, err
	}
	if _, err := a.Stop(j.ctx, j.tenantID, submissionID); err != nil {
		return ChannelCollection{}, err
	}
	return a.channelCollection(j.ctx, j.tenantID, root)
}

// chainOf finds one of the tenant's pages and the first page of its chain
// (ErrNotFound for another tenant's, ErrInvalid for a post).
func (a *App) chainOf(ctx context.Context, tenantID, id uuid.UUID) (page, root store.Submission, err error) {
	page, err = a.store.SubmissionGet(ctx, id)
	if isNotFound(err) || (err == nil && page.TenantID != tenantID) {
		return page, root, errorf(ErrNotFound, "no submission with id %s", id)
	}
	if err != nil {
		return page, root, err
	}
	if page.Automatic || page.RelatedState == store.RelatedNone {
		return page, root, errorf(ErrInvalid, "submission %s is a single post, not a profile, channel or thread", id)
	}
	root, err = a.chainRootSubmission(ctx, page)
	return page, root, err
}

// chainRootSubmission is the first page of the chain a page belongs to
// (the page itself for a first page or any other submission).
func (a *App) chainRootSubmission(ctx context.Context, sub store.Submission) (store.Submission, error) {
	rootID := chainRoot(sub)
	if rootID == sub.ID {
		return sub, nil
	}
	return a.store.SubmissionGet(ctx, rootID)
}

// batchSize is the largest batch the adapter of a page takes.
func (a *App) batchSize(ctx context.Context, page store.Submission) (int, error) {
	c, err := a.store.CaptureGet(ctx, page.CaptureID)
	if err != nil {
		return 0, err
	}
	n := int(a.provider(c.AdapterID, c.Provider).GetMaxBatchSize())
	if n == 0 {
		return 0, errorf(ErrInvalid, "the %s adapter archives one page at a time; ask for one page more", c.AdapterID)
	}
	return n, nil
}

// channelCollection is the progress of the chain whose first page is
// root.
func (a *App) channelCollection(ctx context.Context, tenantID uuid.UUID, root store.Submission) (ChannelCollection, error) {
	v, err := a.Submission(ctx, tenantID, root.ID)
	if err != nil {
		return ChannelCollection{}, err
	}
	pages, err := a.store.ChainPages(ctx, root.ID)
	if err != nil {
		return ChannelCollection{}, err
	}
	cc := ChannelCollection{Kind: v.Kind, InputURL: root.InputURL, State: v.State,
		Running: v.State == StateQueued || v.State == StateDownloading,
		Total:   v.Progress.Total, Archived: v.Progress.Complete + v.Progress.Partial, Queued: v.Progress.Queued,
		Failed: v.Progress.Failed, HasMore: v.HasMore, Stopped: v.Stopped, MoreFrom: root.ID, Root: root.ID, Error: v.Error}
	if len(pages) > 0 {
		cc.MoreFrom = pages[len(pages)-1].ID
	}
	c, err := a.store.CaptureGet(ctx, root.CaptureID)
	if err != nil {
		return ChannelCollection{}, err
	}
	cc.BatchSize = int(a.provider(c.AdapterID, c.Provider).GetMaxBatchSize())
	coll, err := a.store.CollectionGet(ctx, root.CollectionID)
	if err != nil {
		return ChannelCollection{}, err
	}
	if coll.CurrentRevisionID != nil {
		r, err := a.store.RevisionGet(ctx, *coll.CurrentRevisionID)
		if err != nil {
			return ChannelCollection{}, err
		}
		var doc contentDoc
		if json.Unmarshal(r.Content, &doc) == nil {
			cc.Title = doc.AuthorName
		}
	}
	return cc, nil
}

// collectionDelivery is what the deliver item of a profile or channel
// link, or a progress item, shows: the progress of the whole chain in the
// first page's message.
func (a *App) collectionDelivery(j *channelJob) (Delivery, error) {
	root, err := a.chainRootSubmission(j.ctx, *j.sub)
	if err != nil {
		return Delivery{}, err
	}
	cc, err := a.channelCollection(j.ctx, j.tenantID, root)
	if err != nil {
		return Delivery{}, err
	}
	d := deliveryHeader(root)
	d.Collection, d.CaptureState, d.Error = &cc, cc.State, cc.Error
	switch {
	case cc.Running:
		d.State = DeliveryPending
	case cc.State == StateFailed:
		d.State = DeliveryFailed
	default:
		d.State = DeliveryReady
	}
	return d, nil
}
