package app

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// Replies to the bot's messages: the channel records the messages it sent
// about a submission (sent_messages: the status message when the link is
// submitted, the result's messages, the first message of each copy in a
// bound chat), so that /cancel and /pin, sent as a reply to one of them,
// find the submission.

// Kinds of the messages a channel records.
const (
	SentResult      = store.SentResult
	SentChannelCopy = store.SentChannelCopy
)

// DeliveryCancelled: the person cancelled the submission; nothing more is
// sent for it.
const DeliveryCancelled = "cancelled"

// ChannelSent records messages a deliver item (kind result) or a copy item
// (kind channel_copy, its first message in the bound chat) sent.
func (a *App) ChannelSent(ctx context.Context, id uuid.UUID, owner string, chatID int64, messageIDs []int64, kind string) error {
	j, err := a.job(ctx, id, owner)
	if err != nil {
		return err
	}
	if j.sub == nil || j.sub.ChannelID == nil && j.work.Kind != store.WorkCopy {
		return badRequest("only a deliver or copy work item records its messages")
	}
	if len(messageIDs) > maxMessagesPerCall {
		return badRequest("record at most %d messages at once", maxMessagesPerCall)
	}
	m := store.SentMessage{TenantID: j.tenantID, ChannelID: j.work.ChannelID, ChatID: strconv.FormatInt(chatID, 10),
		SubmissionID: j.sub.ID, Kind: kind}
	switch {
	case kind == store.SentResult && j.work.Kind == store.WorkDeliver:
	case kind == store.SentChannelCopy && j.work.Kind == store.WorkCopy:
		b, err := a.store.ChannelCopyBinding(j.ctx, j.tenantID, j.work.ID)
		if err != nil {
			return err
		}
		if b.ChatID != m.ChatID {
			return badRequest("a copy item's messages are in its bound chat %s", b.ChatID)
		}
		m.BindingID = &b.ID
	default:
		return badRequest("a %s item does not record %q messages", j.work.Kind, clip(kind, 32))
	}
	ms := make([]store.SentMessage, 0, len(messageIDs))
	for _, id := range messageIDs {
		m.MessageID = strconv.FormatInt(id, 10)
		ms = append(ms, m)
	}
	return a.store.InTx(j.ctx, func(tx *store.Tx) error { return tx.SentMessageInsert(j.ctx, ms...) })
}

// recordStatusMessage records a channel submission's status message, in
// the submission's transaction.
func recordStatusMessage(ctx context.Context, tx *store.Tx, req SubmitRequest, sub store.Submission) error {
	if req.ChannelID == uuid.Nil || req.StatusMessageID == 0 {
		return nil
	}
	return tx.SentMessageInsert(ctx, store.SentMessage{TenantID: sub.TenantID, ChannelID: req.ChannelID,
		ChatID: strconv.FormatInt(req.ChatID, 10), MessageID: strconv.FormatInt(req.StatusMessageID, 10),
		SubmissionID: sub.ID, Kind: store.SentStatus})
}

// ChannelCancelResult says what /cancel stopped.
type ChannelCancelResult struct {
	Cancelled int
	// URL is the link as the person sent it.
	URL string
}

// ChannelCancel cancels the caller's unfinished submissions: the one a
// reply to the bot's message replyTo is about, else those of url. Only
// the caller's tenant's submissions are found, and the capture goes on for
// everyone else who asked for it; the cancelled submission delivers
// nothing more (its status message says cancelled). ErrNotFound: nothing
// of the caller's is running for it; ErrConflict: it is archived already.
func (a *App) ChannelCancel(ctx context.Context, id uuid.UUID, owner string, replyTo int64, url string) (ChannelCancelResult, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelCancelResult{}, err
	}
	if j.update == nil {
		return ChannelCancelResult{}, badRequest("only an update work item can cancel")
	}
	url = strings.TrimSpace(url)
	if replyTo == 0 && url == "" {
		return ChannelCancelResult{}, badRequest("reply to the bot's message about the link, or send the link after /cancel")
	}
	var res ChannelCancelResult
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		var subs []store.Submission
		if replyTo != 0 {
			sid, err := tx.SentMessageSubmission(j.ctx, j.tenantID, j.work.ChannelID, strconv.FormatInt(j.update.ChatID, 10),
				strconv.FormatInt(replyTo, 10))
			if isNotFound(err) {
				return errorf(ErrNotFound, "that message is not about a link you sent")
			}
			if err != nil {
				return err
			}
			sub, err := tx.SubmissionGet(j.ctx, sid)
			if err != nil {
				return err
			}
			c, err := tx.CaptureGet(j.ctx, sub.CaptureID)
			if err != nil {
				return err
			}
			res.URL = sub.InputURL
			if captureEnded(c.State) {
				return errorf(ErrConflict, "%s is archived already; /delete removes it from your archive", sub.InputURL)
			}
			subs = []store.Submission{sub}
		} else {
			res.URL = url
			if subs, err = tx.SubmissionsUnfinishedByURL(j.ctx, j.tenantID, url); err != nil {
				return err
			}
			if len(subs) == 0 {
				return errorf(ErrNotFound, "nothing of yours is being archived from %s", clip(url, 200))
			}
		}
		for _, s := range subs {
			changed, err := tx.SubmissionCancel(j.ctx, j.tenantID, s.ID)
			if err != nil {
				return err
			}
			if !changed {
				continue
			}
			res.Cancelled++
			if err := audit(j.ctx, tx, "identity:"+j.identityID.String(), "submission.cancel", "submission:"+s.ID.String(),
				nil, map[string]any{"url": s.InputURL}); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// ChannelPinTarget is a copy to pin: its first message in a bound chat.
type ChannelPinTarget struct {
	Binding   ChannelBindingView
	MessageID int64
}

// ChannelPin finds where the result /pin names was copied: the
// submission a reply to the bot's message replyTo is about, else the
// caller's newest one of url. ErrNotFound: no such result, or no channel
// bound; ErrConflict: it is not in a bound channel (yet).
func (a *App) ChannelPin(ctx context.Context, id uuid.UUID, owner string, replyTo int64, url string) ([]ChannelPinTarget, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return nil, err
	}
	if j.update == nil {
		return nil, badRequest("only an update work item can pin")
	}
	url = strings.TrimSpace(url)
	if replyTo == 0 && url == "" {
		return nil, badRequest("reply to the bot's result, or send the link after /pin")
	}
	var out []ChannelPinTarget
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		bound, err := tx.BindingList(j.ctx, j.tenantID, j.work.ChannelID, false)
		if err != nil {
			return err
		}
		if len(bound) == 0 {
			return errorf(ErrNotFound, "no channel is bound; bind one with /bind first")
		}
		var sid uuid.UUID
		if replyTo != 0 {
			sid, err = tx.SentMessageSubmission(j.ctx, j.tenantID, j.work.ChannelID, strconv.FormatInt(j.update.ChatID, 10),
				strconv.FormatInt(replyTo, 10))
			if isNotFound(err) {
				return errorf(ErrNotFound, "that message is not one of your results")
			}
		} else {
			var sub store.Submission
			sub, err = tx.SubmissionLatestByURL(j.ctx, j.tenantID, url)
			if isNotFound(err) {
				return errorf(ErrNotFound, "you have not archived %s; send the link first", clip(url, 200))
			}
			sid = sub.ID
		}
		if err != nil {
			return err
		}
		copies, err := tx.SentChannelCopies(j.ctx, j.tenantID, sid)
		if err != nil {
			return err
		}
		for _, c := range copies {
			msg, _ := strconv.ParseInt(c.MessageID, 10, 64)
			out = append(out, ChannelPinTarget{Binding: bindingView(c.Binding), MessageID: msg})
		}
		if len(out) == 0 {
			return errorf(ErrConflict, "that post is not in your bound channel (yet); pin it once it is copied there")
		}
		return nil
	})
	return out, err
}
