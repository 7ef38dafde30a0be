package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/metrics"
	"github.com/monitorhq/monitor/internal/store"
)

// This file holds the leased work of a channel: claiming items, renewing,
// reporting progress and ending them, and loading an item leased to its
// owner for the actions it runs.

// ChannelClaim leases up to req.Max ready work items of the channel to
// req.Owner, with the update or submission each acts on.
func (a *App) ChannelClaim(ctx context.Context, req ChannelClaimRequest) (_ []ChannelWork, err error) {
	if err := checkOwner(req.Owner); err != nil {
		return nil, err
	}
	n := req.Max
	switch {
	case n < 0:
		return nil, badRequest("max must not be negative")
	case n == 0:
		n = 1
	case n > maxClaim:
		n = maxClaim
	}
	now := a.now().UTC()
	rows, err := a.store.ChannelWorkClaim(ctx, req.ChannelID, req.Owner, n, now, now.Add(ChannelLeaseTTL))
	if err != nil {
		return nil, err
	}
	out := make([]ChannelWork, 0, len(rows))
	for _, w := range rows {
		v, err := a.workView(ctx, w)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// workView is a claimed item as the channel sees it.
func (a *App) workView(ctx context.Context, w store.ChannelWork) (ChannelWork, error) {
	ctx = store.WithTenant(ctx, w.TenantID)
	t, err := a.store.TenantGetByID(ctx, w.TenantID)
	if err != nil {
		return ChannelWork{}, err
	}
	v := ChannelWork{ID: w.ID, Kind: w.Kind, Attempts: w.Attempts, Progress: progressDoc(w.Progress),
		Tenant: ChannelTenant{ID: t.ID, Name: t.Name, Status: t.Status, Admin: t.Admin}}
	if w.LeaseExpiresAt != nil {
		v.LeaseExpiresAt = *w.LeaseExpiresAt
	}
	switch {
	case w.InboxID != nil:
		e, err := a.store.InboxGet(ctx, *w.InboxID)
		if err != nil {
			return v, err
		}
		var u ChannelUpdate
		if err := json.Unmarshal(e.Payload, &u); err != nil {
			return v, fmt.Errorf("app: inbox entry %s: %w", e.ID, err)
		}
		v.Update = &u
		v.Tenant.New = e.TenantCreated
		if v.Language, err = a.channelLanguage(ctx, t.ID, u.From.Language); err != nil {
			return v, err
		}
	case w.SubmissionID != nil:
		v.SubmissionID = w.SubmissionID
		var sub store.Submission
		if sub, err = a.store.SubmissionGet(ctx, *w.SubmissionID); err != nil {
			return v, err
		}
		// A page "fetch more" made speaks as the link's submission.
		if sub, err = a.chainRootSubmission(ctx, sub); err != nil {
			return v, err
		}
		v.Language, err = a.channelLanguage(ctx, t.ID, a.submissionLanguageCode(ctx, sub))
	case w.Kind == ChannelWorkApproval:
		v.Language, err = a.channelLanguage(ctx, t.ID, approvalLanguageCode(w.Progress))
	case w.Kind == ChannelWorkAccount:
		v.Language, err = a.channelLanguage(ctx, t.ID, accountLanguageCode(w.Progress))
	default:
		v.Language, err = a.channelLanguage(ctx, t.ID, "")
	}
	return v, err
}

// channelLanguage is the language (LangEnglish or LangChinese) a channel
// speaks to the person a work item acts for: the tenant's own setting,
// else code, the language the person's client reports (Telegram's
// language_code; "" = none).
func (a *App) channelLanguage(ctx context.Context, tenantID uuid.UUID, code string) (string, error) {
	pref, err := a.channelLanguagePreference(ctx, tenantID)
	if err != nil {
		return "", err
	}
	return Lang(pref, code), nil
}

// channelLanguagePreference is the language the tenant chose in the web
// library's settings ("" = none, automatic).
func (a *App) channelLanguagePreference(ctx context.Context, tenantID uuid.UUID) (string, error) {
	p, err := a.WebPreferences(ctx, tenantID)
	return p.Language, err
}

// submissionLanguageCode is the language the client of the person who
// sent a submission's link reported: the submission's idempotency key
// names the update item that made it (channelIdemKey), whose stored update
// says. "" when that is no longer known (a REST submission, or the update
// purged after channel_retention_days).
func (a *App) submissionLanguageCode(ctx context.Context, sub store.Submission) string {
	workID, ok := channelIdemWork(sub.IdemKey)
	if !ok {
		return ""
	}
	w, err := a.store.ChannelWorkGet(ctx, workID)
	if err != nil || w.InboxID == nil {
		return ""
	}
	e, err := a.store.InboxGet(ctx, *w.InboxID)
	if err != nil {
		return ""
	}
	var u ChannelUpdate
	if json.Unmarshal(e.Payload, &u) != nil {
		return ""
	}
	return u.From.Language
}

func progressDoc(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return json.RawMessage(b)
}

// ChannelRenew extends the owner's lease by ChannelLeaseTTL and tells when
// it expires.
func (a *App) ChannelRenew(ctx context.Context, id uuid.UUID, owner string) (_ time.Time, err error) {
	var w store.ChannelWork
	err = a.leaseTx(ctx, id, owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		w, err = tx.ChannelWorkRenew(ctx, id, owner, now, now.Add(ChannelLeaseTTL))
		return err
	})
	if err != nil {
		return time.Time{}, err
	}
	return *w.LeaseExpiresAt, nil
}

// ChannelProgress replaces the item's progress document; for a deliver
// item it is also the submission's delivery progress.
func (a *App) ChannelProgress(ctx context.Context, id uuid.UUID, owner string, progress json.RawMessage) error {
	doc, err := checkProgressDoc(progress, false)
	if err != nil {
		return err
	}
	return a.leaseTx(ctx, id, owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		w, err := tx.ChannelWorkProgress(ctx, id, owner, now, doc)
		if err != nil {
			return err
		}
		if w.Kind == store.WorkDeliver && w.SubmissionID != nil {
			return tx.SubmissionDeliveryProgress(ctx, *w.SubmissionID, doc)
		}
		return nil
	})
}

// checkProgressDoc accepts a progress document: a JSON object of at most
// maxProgressBytes; with orEmpty, nothing is {}.
func checkProgressDoc(progress json.RawMessage, orEmpty bool) ([]byte, error) {
	doc := []byte(progress)
	if orEmpty && len(doc) == 0 {
		return []byte("{}"), nil
	}
	if len(doc) > maxProgressBytes {
		return nil, badRequest("progress must be at most %d bytes of JSON", maxProgressBytes)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil || obj == nil {
		return nil, badRequest("progress must be a JSON object")
	}
	return doc, nil
}

// ChannelDone ends the item successfully: a delivered submission, a
// processed update.
func (a *App) ChannelDone(ctx context.Context, id uuid.UUID, owner string) error {
	return a.finishWork(ctx, id, owner, store.WorkDone, "")
}

// ChannelFail ends the item for good, recording why for the operator.
func (a *App) ChannelFail(ctx context.Context, id uuid.UUID, owner, reason string) error {
	return a.finishWork(ctx, id, owner, store.WorkFailed, clip(reason, maxWorkErrorLen))
}

func (a *App) finishWork(ctx context.Context, id uuid.UUID, owner, state, errText string) error {
	return a.leaseTx(ctx, id, owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		w, err := tx.ChannelWorkFinish(ctx, id, owner, now, state, errText)
		if err != nil {
			return err
		}
		switch {
		case w.Kind == store.WorkDeliver && w.SubmissionID != nil:
			end, result := store.DeliveryDelivered, metrics.DeliveryDelivered
			if state == store.WorkFailed {
				end, result = store.DeliveryFailed, metrics.DeliveryFailed
			}
			tx.AfterCommit(func() { a.metrics.BotDelivery(result) })
			return tx.SubmissionDeliveryEnd(ctx, *w.SubmissionID, end)
		case w.InboxID != nil:
			end := store.InboxProcessed
			if state == store.WorkFailed {
				end = store.InboxFailed
			}
			return tx.InboxSetState(ctx, *w.InboxID, end)
		}
		return nil
	})
}

// ChannelDefer returns the item to the pool, to be claimed again no
// earlier than afterSeconds from now (0 = at once); reason is why, for the
// operator.
func (a *App) ChannelDefer(ctx context.Context, id uuid.UUID, owner string, afterSeconds int, reason string) error {
	if afterSeconds < 0 || afterSeconds > maxDeferSeconds {
		return badRequest("after_seconds must be from 0 to %d", maxDeferSeconds)
	}
	return a.leaseTx(ctx, id, owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		w, err := tx.ChannelWorkDefer(ctx, id, owner, now, now.Add(time.Duration(afterSeconds)*time.Second),
			clip(reason, maxWorkErrorLen))
		if err == nil && w.Kind == store.WorkDeliver {
			tx.AfterCommit(func() { a.metrics.BotDelivery(metrics.DeliveryDeferred) })
		}
		return err
	})
}

// leaseTx runs fn in a transaction acting for the work item's tenant; the
// store's lease checks decide whether fn's changes apply.
func (a *App) leaseTx(ctx context.Context, id uuid.UUID, owner string, fn func(ctx context.Context, tx *store.Tx, now time.Time) error) error {
	if err := checkOwner(owner); err != nil {
		return err
	}
	tenantID, err := a.store.ChannelWorkTenant(ctx, id)
	if isNotFound(err) {
		return leaseLost(id, owner)
	}
	if err != nil {
		return err
	}
	ctx = store.WithTenant(ctx, tenantID)
	now := a.now().UTC()
	err = a.store.InTx(ctx, func(tx *store.Tx) error { return fn(ctx, tx, now) })
	if errors.Is(err, store.ErrLeaseLost) || isNotFound(err) {
		return leaseLost(id, owner)
	}
	return err
}

// channelJob is a leased work item a business action runs for.
type channelJob struct {
	// ctx acts for the item's tenant.
	ctx      context.Context
	work     store.ChannelWork
	tenantID uuid.UUID
	// update is the stored update (update items).
	update *ChannelUpdate
	// sub is the submission to deliver (deliver items).
	sub *store.Submission
	// identityID is the person the item acts for (uuid.Nil: none known).
	identityID uuid.UUID
	// lang is the language the channel speaks to that person (LangEnglish
	// or LangChinese), as ChannelWork.Language.
	lang string
}

// job loads a work item leased to owner, in its tenant's context.
func (a *App) job(ctx context.Context, id uuid.UUID, owner string) (*channelJob, error) {
	if err := checkOwner(owner); err != nil {
		return nil, err
	}
	tenantID, err := a.store.ChannelWorkTenant(ctx, id)
	if isNotFound(err) {
		return nil, leaseLost(id, owner)
	}
	if err != nil {
		return nil, err
	}
	ctx = store.WithTenant(ctx, tenantID)
	w, err := a.store.ChannelWorkGet(ctx, id)
	if isNotFound(err) {
		return nil, leaseLost(id, owner)
	}
	if err != nil {
		return nil, err
	}
	if w.CheckLease(owner, a.now().UTC()) != nil {
		return nil, leaseLost(id, owner)
	}
	j := &channelJob{ctx: ctx, work: w, tenantID: tenantID}
	switch {
	case w.InboxID != nil:
		e, err := a.store.InboxGet(ctx, *w.InboxID)
		if err != nil {
			return nil, err
		}
		var u ChannelUpdate
		if err := json.Unmarshal(e.Payload, &u); err != nil {
			return nil, fmt.Errorf("app: inbox entry %s: %w", e.ID, err)
		}
		j.update, j.identityID = &u, e.IdentityID
		if j.lang, err = a.channelLanguage(ctx, tenantID, u.From.Language); err != nil {
			return nil, err
		}
	case w.SubmissionID != nil:
		sub, err := a.store.SubmissionGet(ctx, *w.SubmissionID)
		if err != nil {
			return nil, err
		}
		j.sub = &sub
		// A page "fetch more" made acts for the person who sent the link.
		root, err := a.chainRootSubmission(ctx, sub)
		if err != nil {
			return nil, err
		}
		if root.IdentityID != nil {
			j.identityID = *root.IdentityID
		}
		if j.lang, err = a.channelLanguage(ctx, tenantID, a.submissionLanguageCode(ctx, root)); err != nil {
			return nil, err
		}
	default:
		j.lang = LangEnglish
	}
	return j, nil
}

// ownedJob is job for the actions a button press may trigger only for the
// person whose request the button's message answered.
func (a *App) ownedJob(ctx context.Context, id uuid.UUID, owner string) (*channelJob, error) {
	j, err := a.job(ctx, id, owner)
	if err != nil {
		return nil, err
	}
	if j.update == nil || j.update.Kind != ChannelUpdateCallback {
		return j, nil
	}
	// Another tenant's message is invisible on PostgreSQL, so not found
	// means someone else's too; so does a message older than
	// channel_retention_days, whose record retention deleted, hence one
	// answer for both.
	m, err := a.store.ChannelMessageGet(j.ctx, j.work.ChannelID, strconv.FormatInt(j.update.ChatID, 10),
		strconv.FormatInt(j.update.MessageID, 10))
	if isNotFound(err) || err == nil && m.IdentityID != j.identityID {
		return nil, forbidden(msgNotYourButton)
	}
	if err != nil {
		return nil, err
	}
	return j, nil
}

// ChannelMessages records bot messages with buttons sent for the item: a
// later button press on them acts only for the item's person.
func (a *App) ChannelMessages(ctx context.Context, id uuid.UUID, owner string, chatID int64, messageIDs []int64) error {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return err
	}
	if len(messageIDs) > maxMessagesPerCall {
		return badRequest("record at most %d messages at once", maxMessagesPerCall)
	}
	if j.identityID == uuid.Nil {
		return badRequest("this work item acts for nobody on the channel, so its messages cannot be owned")
	}
	ids := make([]string, 0, len(messageIDs))
	for _, m := range messageIDs {
		ids = append(ids, strconv.FormatInt(m, 10))
	}
	if len(ids) == 0 {
		return nil
	}
	return a.store.InTx(j.ctx, func(tx *store.Tx) error {
		return tx.ChannelMessagesInsert(j.ctx, j.work.ChannelID, strconv.FormatInt(chatID, 10), ids, j.tenantID, j.identityID)
	})
}

// leaseLost answers a call for a work item not leased to owner.
func leaseLost(id uuid.UUID, owner string) error {
	return errorf(ErrLeaseLost, "work %s is not leased to %s (its lease expired or it ended); leave it", id, owner)
}
