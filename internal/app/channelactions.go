package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// This file holds what a work item may do for the person behind it:
// capture a link, list, read and delete their saved posts, "save too"
// someone else's, read usage, create a token, and read what a delivery
// should send.

// ChannelCapture archives a link for the person behind an update. The
// submission's idempotency key is the work item's and the link's, so a
// retried item gets the same submission and no second delivery, and a
// message with several links gets one submission for each.
func (a *App) ChannelCapture(ctx context.Context, id uuid.UUID, req ChannelCaptureRequest) (SubmitResult, error) {
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return SubmitResult{}, err
	}
	if j.update == nil {
		return SubmitResult{}, badRequest("only an update work item can start a capture")
	}
	res, err := a.Submit(j.ctx, SubmitRequest{
		TenantID: j.tenantID, URL: req.URL, IdemKey: channelIdemKey(j.work.ID, req.URL),
		ChannelID: j.work.ChannelID, IdentityID: j.identityID, ChatID: j.update.ChatID,
		ReplyToMessageID: req.ReplyToMessageID, StatusMessageID: req.StatusMessageID,
	})
	if err != nil {
		return SubmitResult{}, err
	}
	return res, nil
}

// ChannelList reads a page of at most limit (1 to 20, 0 = 10) of the
// tenant's saved collections, newest save first, after the collection
// after (nil: the first page).
func (a *App) ChannelList(ctx context.Context, id uuid.UUID, owner string, after *uuid.UUID, limit int) (ChannelPage, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelPage{}, err
	}
	switch {
	case limit == 0:
		limit = defaultListLimit
	case limit < 0 || limit > maxListLimit:
		return ChannelPage{}, badRequest("limit must be from 1 to %d", maxListLimit)
	}
	var cursor *store.SavedCursor
	if after != nil && *after != uuid.Nil {
		sc, err := a.store.SavedCollectionGet(j.ctx, j.tenantID, *after)
		if isNotFound(err) {
			return ChannelPage{}, badRequest("the list changed meanwhile; start again from the first page")
		}
		if err != nil {
			return ChannelPage{}, err
		}
		cursor = &store.SavedCursor{SavedAt: sc.SavedAt, CollectionID: sc.ID}
	}
	rows, err := a.store.SavedCollectionList(j.ctx, j.tenantID, cursor, limit+1)
	if err != nil {
		return ChannelPage{}, err
	}
	reply := ChannelPage{Items: []CollectionView{}}
	if len(rows) > limit {
		reply.More, rows = true, rows[:limit]
	}
	for _, sc := range rows {
		v, err := a.collectionView(j.ctx, sc)
		if err != nil {
			return ChannelPage{}, err
		}
		v.Summary = RenderSummary(v.Summary, j.lang)
		reply.Items = append(reply.Items, v)
	}
	return reply, nil
}

// ChannelGet reads one of the tenant's saved collections by id or id
// prefix (ref).
func (a *App) ChannelGet(ctx context.Context, id uuid.UUID, owner, ref string) (CollectionView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return CollectionView{}, err
	}
	cid, err := a.savedRef(j, ref)
	if err != nil {
		return CollectionView{}, err
	}
	v, err := a.Collection(j.ctx, j.tenantID, cid)
	v.Summary = RenderSummary(v.Summary, j.lang)
	return v, err
}

// ChannelDelete removes the tenant's reference to one of its saved
// collections, named by id or id prefix (ref), and answers the
// collection's id; other savers keep theirs.
func (a *App) ChannelDelete(ctx context.Context, id uuid.UUID, owner, ref string) (uuid.UUID, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return uuid.Nil, err
	}
	cid, err := a.savedRef(j, ref)
	if err != nil {
		return uuid.Nil, err
	}
	if err := a.DeleteCollection(j.ctx, j.tenantID, cid); err != nil {
		return uuid.Nil, err
	}
	return cid, nil
}

// savedRef resolves a collection named by id, or by an unambiguous prefix
// of at least 8 hex digits, among the tenant's saved collections.
func (a *App) savedRef(j *channelJob, ref string) (uuid.UUID, error) {
	return resolveRef(ref, func(prefix string) ([]uuid.UUID, error) {
		return a.store.SavedCollectionIDsByPrefix(j.ctx, j.tenantID, prefix, 2)
	})
}

func resolveRef(ref string, byPrefix func(prefix string) ([]uuid.UUID, error)) (uuid.UUID, error) {
	ref = strings.TrimSpace(ref)
	if id, err := uuid.Parse(ref); err == nil && len(ref) == 36 {
		return id, nil
	}
	prefix, ok := idPrefix(ref)
	if !ok {
		return uuid.Nil, errorf(ErrInvalid, "%q is not an id: send the id shown in /list, or at least its first %d characters", clip(ref, 40), minIDPrefix)
	}
	ids, err := byPrefix(prefix)
	if err != nil {
		return uuid.Nil, err
	}
	switch len(ids) {
	case 0:
		return uuid.Nil, errorf(ErrNotFound, "nothing in your archive has an id starting with %s", ref)
	case 1:
		return ids[0], nil
	}
	return uuid.Nil, errorf(ErrInvalid, "several saved posts have ids starting with %s; send more characters of the id", ref)
}

// idPrefix turns a prefix of an id's hex digits (hyphens optional) into a
// prefix of its canonical text form.
func idPrefix(ref string) (string, bool) {
	hexDigits := strings.ToLower(strings.ReplaceAll(ref, "-", ""))
	if len(hexDigits) < minIDPrefix || len(hexDigits) > 32 {
		return "", false
	}
	if _, err := hex.DecodeString(hexDigits + strings.Repeat("0", len(hexDigits)%2)); err != nil {
		return "", false
	}
	var b strings.Builder
	for i, r := range hexDigits {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b.WriteByte('-')
		}
		b.WriteRune(r)
	}
	return b.String(), true
}

// ChannelSave is "save too": it adds the presser's reference to a public
// collection someone else archived, without a capture or a submission. The
// quota is checked under the tenant's lock and the collection's row lock.
// Anyone may press it, so it needs no ownership of the button's message.
func (a *App) ChannelSave(ctx context.Context, id uuid.UUID, owner, ref string) (SaveReply, error) {
	j, err := a.job(ctx, id, owner)
	if err != nil {
		return SaveReply{}, err
	}
	cid, err := resolveRef(ref, func(prefix string) ([]uuid.UUID, error) {
		return a.store.PublicCollectionIDsByPrefix(j.ctx, prefix, 2)
	})
	if errors.Is(err, ErrNotFound) {
		return refused("This post is not in the archive."), nil
	}
	if err != nil {
		return SaveReply{}, err
	}
	return a.SaveToo(j.ctx, j.tenantID, cid)
}

// SaveToo adds a tenant's reference to a public collection, answering
// saved, already_saved or refused with the reason.
func (a *App) SaveToo(ctx context.Context, tenantID, collectionID uuid.UUID) (SaveReply, error) {
	ctx = store.WithTenant(ctx, tenantID)
	var reply SaveReply
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		// The collection's lock first, then the tenant's: the order
		// finalize takes them in (current revision, then reservations).
		if err := tx.CollectionLock(ctx, collectionID); err != nil {
			return err
		}
		if err := tx.TenantLock(ctx, tenantID); err != nil {
			return err
		}
		t, err := tx.TenantGetByID(ctx, tenantID)
		if err != nil {
			return err
		}
		if t.Status != store.TenantEnabled {
			reply = refused(statusRefusal(t.Status))
			return nil
		}
		c, err := tx.CollectionGet(ctx, collectionID)
		switch {
		case isNotFound(err) || (err == nil && c.DataScope != store.PublicScope && c.DataScope != tenantID):
			// Another tenant's private collection answers as if it did
			// not exist, as row-level security makes it on PostgreSQL.
			reply = refused("This post is not in the archive.")
			return nil
		case err != nil:
			return err
		case c.Visibility != store.Public:
			reply = refused("Only public posts can be saved by others.")
			return nil
		case c.CurrentRevisionID == nil:
			reply = refused("This post is not archived any more; send its link to archive it again.")
			return nil
		}
		saved, err := tx.TenantCollectionExists(ctx, tenantID, collectionID)
		if err != nil {
			return err
		}
		if saved {
			reply = SaveReply{Result: SaveAlready}
			return nil
		}
		var qe *QuotaError
		if err := checkQuota(ctx, tx, t, collectionID); errors.As(err, &qe) {
			reply = refused("Not saved: " + qe.Error())
			return nil
		} else if err != nil {
			return err
		}
		if _, err := tx.TenantCollectionSave(ctx, tenantID, collectionID); err != nil {
			return err
		}
		reply = SaveReply{Result: SaveSaved}
		return nil
	})
	return reply, err
}

func refused(reason string) SaveReply {
	return SaveReply{Result: SaveRefused, Reason: reason}
}

// statusRefusal says why a tenant that is not enabled may not save.
func statusRefusal(status string) string {
	switch status {
	case store.TenantPending:
		return "Your account is waiting for an administrator's approval."
	case store.TenantDisabled:
		return "Your account has been disabled by an administrator."
	case store.TenantArchived:
		return "Your account has been archived; ask an administrator to restore it."
	}
	return "Your account is not active."
}

// ChannelUsage reads the tenant's storage and limits.
func (a *App) ChannelUsage(ctx context.Context, id uuid.UUID, owner string) (ChannelUsageReply, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelUsageReply{}, err
	}
	u, err := a.Usage(j.ctx, j.tenantID)
	if err != nil {
		return ChannelUsageReply{}, err
	}
	t, err := a.store.TenantGetByID(j.ctx, j.tenantID)
	if err != nil {
		return ChannelUsageReply{}, err
	}
	n, err := a.store.TenantCollectionCount(j.ctx, j.tenantID)
	if err != nil {
		return ChannelUsageReply{}, err
	}
	s, err := a.Settings(j.ctx)
	if err != nil {
		return ChannelUsageReply{}, err
	}
	day, err := a.store.UsageDayRead(j.ctx, j.tenantID, operatingDay(a.now(), s.Timezone))
	if err != nil {
		return ChannelUsageReply{}, err
	}
	return ChannelUsageReply{UsedBytes: u.UsedBytes, ReservedBytes: u.ReservedBytes, QuotaBytes: u.QuotaBytes,
		Collections: n, SubmittedToday: day.Used, DailyLimit: t.DailyLimit}, nil
}

// ChannelToken creates a REST token for the tenant, only from a private
// chat: in a group everyone would see it.
func (a *App) ChannelToken(ctx context.Context, id uuid.UUID, owner string) (ChannelToken, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelToken{}, err
	}
	if j.update == nil {
		return ChannelToken{}, badRequest("only an update work item can create a token")
	}
	if j.update.ChatType != "private" {
		return ChannelToken{}, forbidden(msgTokenPrivate)
	}
	t, err := a.store.TenantGetByID(j.ctx, j.tenantID)
	if err != nil {
		return ChannelToken{}, err
	}
	if t.Status != store.TenantEnabled {
		return ChannelToken{}, errorf(ErrTenantNotActive, "%s", statusRefusal(t.Status))
	}
	ch, err := a.store.ChannelGet(j.ctx, j.work.ChannelID)
	if err != nil {
		return ChannelToken{}, err
	}
	name := channelPrefix(ch.Kind) + "-" + a.now().UTC().Format("20060102-150405")
	token, _, err := a.CreateToken(j.ctx, "identity:"+j.identityID.String(), t.Name, name, false)
	if err != nil {
		return ChannelToken{}, err
	}
	return ChannelToken{Token: token, Name: name}, nil
}

// ChannelLoginLink makes a one-use sign-in link to the web library for the
// person behind an update, only from a private chat: whoever sees the link
// can sign in with it. A tenant marked admin gets a session with admin
// rights (as `monitor admin login-link --admin` makes); console asks for
// that (the bot's /admin) and is refused to anyone else.
func (a *App) ChannelLoginLink(ctx context.Context, id uuid.UUID, owner string, console bool) (ChannelLoginLink, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelLoginLink{}, err
	}
	if j.update == nil {
		return ChannelLoginLink{}, badRequest("only an update work item can make a sign-in link")
	}
	if j.update.ChatType != "private" {
		return ChannelLoginLink{}, forbidden(msgWebPrivate)
	}
	t, err := a.store.TenantGetByID(j.ctx, j.tenantID)
	if err != nil {
		return ChannelLoginLink{}, err
	}
	if console && !t.Admin {
		return ChannelLoginLink{}, forbidden(msgConsoleAdmin)
	}
	if t.Status != store.TenantEnabled {
		return ChannelLoginLink{}, errorf(ErrTenantNotActive, "%s", statusRefusal(t.Status))
	}
	url, expires, err := a.createLoginLink(j.ctx, ActorSystem, t, t.Admin, DefaultLoginLinkTTL)
	if err != nil {
		return ChannelLoginLink{}, err
	}
	return ChannelLoginLink{URL: url, ExpiresAt: expires, ValidSeconds: int(DefaultLoginLinkTTL / time.Second), Admin: t.Admin}, nil
}

// ChannelDelivery says what a deliver item should send: progress while the
// capture runs, the collection as of the capture's revision when it ended,
// or why it failed; for a profile or channel link, and for a progress
// item, the progress of its chain of pages (collectionDelivery).
func (a *App) ChannelDelivery(ctx context.Context, id uuid.UUID, owner string) (Delivery, error) {
	j, err := a.job(ctx, id, owner)
	if err != nil {
		return Delivery{}, err
	}
	if j.sub == nil {
		return Delivery{}, badRequest("only a deliver work item has a delivery")
	}
	sub := j.sub
	if sub.RelatedState != store.RelatedNone && !sub.Automatic {
		return a.collectionDelivery(j) // a profile or channel: its progress
	}
	d := deliveryHeader(*sub)
	if j.work.Kind == store.WorkCopy {
		if err := a.copyTarget(j, &d); err != nil {
			return d, err
		}
	}
	cancelled, err := a.store.SubmissionCancelledAt(j.ctx, sub.ID)
	if err != nil {
		return d, err
	}
	if cancelled != nil {
		d.State = DeliveryCancelled
		return d, nil
	}
	c, err := a.store.CaptureGet(j.ctx, sub.CaptureID)
	if err != nil {
		return d, err
	}
	switch c.State {
	case store.CaptureQueued:
		d.State, d.Stage, d.Progress = DeliveryPending, DeliveryStageQueued, "waiting for its turn"
		return d, nil
	case store.CaptureDownloading:
		d.State = DeliveryPending
		err = a.downloadProgress(j.ctx, c.ID, &d)
		return d, err
	case store.CaptureFailed:
		d.State, d.CaptureState, d.Error = DeliveryFailed, c.State, c.Error
		if d.Error == "" {
			d.Error = "the post could not be archived"
		}
		return d, nil
	}
	d.CaptureState = c.State
	if c.RevisionID == nil {
		d.State, d.Error = DeliveryFailed, "the archived copy is gone; send the link again"
		return d, nil
	}
	item, public, err := a.revisionItem(j.ctx, j.tenantID, *c.RevisionID, sub.CreatedAt)
	if err != nil {
		return d, err
	}
	item.State = c.State
	item.Summary = RenderSummary(item.Summary, j.lang)
	d.State, d.Item, d.Public = DeliveryReady, &item, public
	if base, err := a.webBaseURL(j.ctx); err == nil {
		d.WebURL = strings.TrimRight(base, "/") + "/c/" + item.ID.String()
	}
	if c.State == store.CapturePartial {
		d.Error = c.Error
	}
	return d, nil
}

// deliveryHeader is where a submission's delivery goes.
func deliveryHeader(sub store.Submission) Delivery {
	d := Delivery{SubmissionID: sub.ID, InputURL: sub.InputURL}
	d.ChatID, _ = strconv.ParseInt(sub.ChatID, 10, 64)
	d.StatusMessageID, _ = strconv.ParseInt(sub.StatusMessageID, 10, 64)
	d.ReplyToMessageID, _ = strconv.ParseInt(sub.ReplyToMessageID, 10, 64)
	return d
}

// downloadProgress describes a capture whose media are downloading.
func (a *App) downloadProgress(ctx context.Context, captureID uuid.UUID, d *Delivery) error {
	assets, err := a.store.AssetList(ctx, captureID)
	if err != nil {
		return err
	}
	total, done := 0, 0
	for _, as := range assets {
		if as.Purpose != "" {
			continue // avatars and other resources of the graph
		}
		total++
		if as.State != store.AssetPending && as.State != store.AssetDownloading {
			done++
		}
	}
	if total == 0 || done == total {
		d.Stage, d.Progress = DeliveryStageSaving, "saving the post"
		return nil
	}
	d.Stage, d.MediaIndex, d.MediaTotal = DeliveryStageDownloading, done+1, total
	d.Progress = fmt.Sprintf("downloading media %d of %d", done+1, total)
	return nil
}

// revisionItem is a collection as one revision shows it. savedAt is used
// when the tenant does not (or no longer) save the collection.
func (a *App) revisionItem(ctx context.Context, tenantID, revisionID uuid.UUID, savedAt time.Time) (CollectionView, bool, error) {
	r, err := a.store.RevisionGet(ctx, revisionID)
	if err != nil {
		return CollectionView{}, false, err
	}
	c, err := a.store.CollectionGet(ctx, r.CollectionID)
	if err != nil {
		return CollectionView{}, false, err
	}
	if sc, err := a.store.SavedCollectionGet(ctx, tenantID, c.ID); err == nil {
		savedAt = sc.SavedAt
	} else if !isNotFound(err) {
		return CollectionView{}, false, err
	}
	rv, err := a.revisionView(ctx, r)
	if err != nil {
		return CollectionView{}, false, err
	}
	item := CollectionView{ID: c.ID, SourceURL: c.SourceURL, Platform: c.Platform, Visibility: c.Visibility,
		AuthorName: rv.AuthorName, Summary: rv.Summary, Text: rv.Text, PublishedAt: rv.PublishedAt, SavedAt: savedAt,
		Media: rv.Media}
	return item, c.Visibility == store.Public, nil
}

// channelIdemKey is the idempotency key of the submission of link made for
// work item id.
func channelIdemKey(id uuid.UUID, link string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(link)))
	return "channel:" + id.String() + ":" + hex.EncodeToString(sum[:12])
}

// channelIdemWork is the work item named by a channelIdemKey.
func channelIdemWork(key string) (uuid.UUID, bool) {
	rest, ok := strings.CutPrefix(key, "channel:")
	if !ok || len(rest) < 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(rest[:36])
	return id, err == nil
}
