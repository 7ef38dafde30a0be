package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/store"
)

// This file holds the business actions behind the internal channel API
// (package channelapi): registering a channel instance, storing its
// updates, leasing work and everything a work item may ask for. It knows
// nothing of any platform: a channel process renders and sends. Every
// method answers errors meant for the channel as *channelapi.Error.

// App is what the channel API serves.
var _ channelapi.Service = (*App)(nil)

// Bounds of what a channel may send.
const (
	maxUpdatesPerCall  = 100
	maxClaim           = 50
	maxOwnerLen        = 200
	maxProgressBytes   = 64 << 10
	maxMessagesPerCall = 100
	maxDeferSeconds    = 24 * 60 * 60
	maxWorkErrorLen    = 2000
	maxListLimit       = 20
	defaultListLimit   = 10
	minIDPrefix        = 8
)

// Messages the channel may show as they are.
const (
	msgNotYourButton = "This button belongs to someone else's request, or is too old to use."
	msgTokenPrivate  = "For your safety /token only works in a private chat with me: anyone who sees a token can read and change your archive."
)

// ChannelHello registers a channel instance (one bot) by kind and external
// id and tells it where polling resumes.
func (a *App) ChannelHello(ctx context.Context, h channelapi.Hello) (_ channelapi.HelloReply, err error) {
	defer channelError(&err)
	switch {
	case h.Kind == "" || len(h.Kind) > 32:
		return channelapi.HelloReply{}, badRequest("kind must be 1 to 32 characters, such as \"telegram\"")
	case h.ExternalID == "" || len(h.ExternalID) > 64:
		return channelapi.HelloReply{}, badRequest("external_id must be 1 to 64 characters: the bot's own user id")
	case len(h.Name) > 64:
		return channelapi.HelloReply{}, badRequest("name must be at most 64 characters")
	}
	var c store.Channel
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		c, err = tx.ChannelUpsert(ctx, h.Kind, h.ExternalID, h.Name)
		return err
	})
	return channelapi.HelloReply{ChannelID: c.ID, NextOffset: c.NextOffset}, err
}

// ChannelPollLease takes or renews the channel's poll lease for req.Owner
// until channelapi.LeaseTTL from now, or with req.Release gives it up: of
// the processes running one bot, only the holder polls its platform.
func (a *App) ChannelPollLease(ctx context.Context, req channelapi.PollLeaseRequest) (_ channelapi.PollLeaseReply, err error) {
	defer channelError(&err)
	if err := checkOwner(req.Owner); err != nil {
		return channelapi.PollLeaseReply{}, err
	}
	if req.Release {
		err = a.store.ChannelPollLeaseRelease(ctx, req.ChannelID, req.Owner)
		return channelapi.PollLeaseReply{}, err
	}
	now := a.now().UTC()
	l, granted, err := a.store.ChannelPollLeaseAcquire(ctx, req.ChannelID, req.Owner, now, now.Add(channelapi.LeaseTTL))
	if isNotFound(err) {
		return channelapi.PollLeaseReply{}, badRequest("unknown channel %s; call hello first", req.ChannelID)
	}
	if err != nil {
		return channelapi.PollLeaseReply{}, err
	}
	r := channelapi.PollLeaseReply{Granted: granted, Holder: l.Owner, NextOffset: l.NextOffset}
	if l.ExpiresAt != nil {
		r.ExpiresAt = *l.ExpiresAt
	}
	return r, nil
}

// pollLeaseLost answers a post from a process that does not hold the poll
// lease.
func pollLeaseLost(channelID uuid.UUID, owner string) *channelapi.Error {
	return &channelapi.Error{Status: http.StatusConflict, Code: channelapi.CodeLeaseLost,
		Message: fmt.Sprintf("%q does not hold the poll lease of channel %s (it expired or another process took it); stop polling and ask for the lease again", owner, channelID)}
}

// ChannelAcceptUpdates stores a channel's updates in order, each in its
// own transaction with its sender's identity (created with a personal
// tenant on first contact) and an update work item, then advances the
// channel's offset. An update stored before is not stored again; when
// storing fails the offset stays, so the channel sends the batch again.
// Only the holder of the poll lease may post: it is checked before
// anything is stored and again, atomically, as the offset advances, so a
// poller whose lease ran out meanwhile never moves the offset.
func (a *App) ChannelAcceptUpdates(ctx context.Context, req channelapi.UpdatesRequest) (_ channelapi.UpdatesReply, err error) {
	defer channelError(&err)
	ch, err := a.store.ChannelGet(ctx, req.ChannelID)
	if isNotFound(err) {
		return channelapi.UpdatesReply{}, badRequest("unknown channel %s; call hello first", req.ChannelID)
	}
	if err != nil {
		return channelapi.UpdatesReply{}, err
	}
	if err := checkOwner(req.Owner); err != nil {
		return channelapi.UpdatesReply{}, err
	}
	if !ch.PollHeldBy(req.Owner, a.now()) {
		return channelapi.UpdatesReply{}, pollLeaseLost(ch.ID, req.Owner)
	}
	if len(req.Updates) > maxUpdatesPerCall {
		return channelapi.UpdatesReply{}, badRequest("send at most %d updates at once", maxUpdatesPerCall)
	}
	if req.NextOffset < 0 {
		return channelapi.UpdatesReply{}, badRequest("next_offset must not be negative")
	}
	for i, u := range req.Updates {
		if err := checkUpdate(u); err != nil {
			return channelapi.UpdatesReply{}, badRequest("update %d (id %d): %v", i, u.UpdateID, err)
		}
	}
	stored := 0
	for _, u := range req.Updates {
		created, err := a.storeUpdate(ctx, ch, u)
		if err != nil {
			return channelapi.UpdatesReply{}, err
		}
		if created {
			stored++
		}
	}
	var next int64
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.ChannelPollLeaseCheck(ctx, ch.ID, req.Owner, a.now()); err != nil {
			return err
		}
		next, err = tx.ChannelAdvanceOffset(ctx, ch.ID, req.NextOffset)
		return err
	})
	if errors.Is(err, store.ErrLeaseLost) {
		return channelapi.UpdatesReply{}, pollLeaseLost(ch.ID, req.Owner)
	}
	return channelapi.UpdatesReply{Stored: stored, NextOffset: next}, err
}

func checkUpdate(u channelapi.Update) error {
	switch {
	case u.Kind != channelapi.UpdateMessage && u.Kind != channelapi.UpdateCallback:
		return fmt.Errorf("kind must be %q or %q", channelapi.UpdateMessage, channelapi.UpdateCallback)
	case u.From.ID == 0:
		return errors.New("from.id is required: updates without a sender are not handled")
	case u.UpdateID < 0:
		return errors.New("update_id must not be negative")
	case u.Kind == channelapi.UpdateCallback && u.CallbackID == "":
		return errors.New("a callback needs its callback_id")
	}
	return nil
}

// identityAttempts bounds how often storing one update re-reads the
// sender's identity after losing a race to create it.
const identityAttempts = 5

// storeUpdate stores one update for its sender. A sender without an
// identity gets a personal tenant and the identity in the same
// transaction; when a concurrent update of the same sender creates them
// first, the transaction rolls back whole on the unique constraint and the
// winner's identity is read again.
func (a *App) storeUpdate(ctx context.Context, ch store.Channel, u channelapi.Update) (created bool, err error) {
	payload, err := json.Marshal(u)
	if err != nil {
		return false, err
	}
	externalID := strconv.FormatInt(u.From.ID, 10)
	username, display := clip(u.From.Username, 64), clip(u.From.DisplayName, 128)
	for range identityAttempts {
		ident, err := a.store.IdentityLookup(ctx, ch.ID, externalID)
		if err == nil {
			tctx := store.WithTenant(ctx, ident.TenantID)
			err = a.store.InTx(tctx, func(tx *store.Tx) error {
				if err := tx.IdentityRename(tctx, ident.ID, username, display); err != nil {
					return err
				}
				created, err = insertUpdate(tctx, tx, ch, u, payload, ident, false)
				return err
			})
			return created, err
		}
		if !isNotFound(err) {
			return false, err
		}

		// First contact: a personal tenant, its identity and the update.
		settings, err := a.Settings(ctx)
		if err != nil {
			return false, err
		}
		name, err := a.freeTenantName(ctx, personalTenantName(ch.Kind, u.From.ID))
		if err != nil {
			return false, err
		}
		id := uuid.Must(uuid.NewV7())
		tctx := store.WithTenant(ctx, id)
		err = a.store.InTx(tctx, func(tx *store.Tx) error {
			t, err := insertSelfServiceTenant(tctx, tx, settings, id, name)
			if err != nil {
				return err
			}
			ident, err := tx.IdentityInsert(tctx, store.Identity{
				ChannelID: ch.ID, ExternalID: externalID, TenantID: t.ID, Username: username, DisplayName: display,
			})
			if err != nil {
				return err
			}
			created, err = insertUpdate(tctx, tx, ch, u, payload, ident, true)
			return err
		})
		if errors.Is(err, store.ErrConflict) {
			// Someone else created the identity (or took the name): read again.
			a.log.DebugContext(ctx, "first contact raced; reading the identity again", "channel", ch.ID, "tenant_name", name)
			continue
		}
		return created, err
	}
	return false, fmt.Errorf("app: could not resolve user %s of channel %s after %d attempts", externalID, ch.ID, identityAttempts)
}

// insertUpdate stores the update in the inbox and, when it is new, queues
// its work item.
func insertUpdate(ctx context.Context, tx *store.Tx, ch store.Channel, u channelapi.Update, payload []byte, ident store.Identity, newTenant bool) (bool, error) {
	e, created, err := tx.InboxInsert(ctx, store.InboxEntry{
		ChannelID: ch.ID, UpdateID: u.UpdateID, TenantID: ident.TenantID, IdentityID: ident.ID, Kind: u.Kind,
		Payload: payload, TenantCreated: newTenant,
	})
	if err != nil || !created {
		return false, err
	}
	_, err = tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: ch.ID, Kind: store.WorkUpdate, InboxID: &e.ID, TenantID: ident.TenantID})
	return err == nil, err
}

// personalTenantName is the name a channel user's personal tenant gets:
// "tg<user id>" on Telegram, "<kind><user id>" elsewhere.
func personalTenantName(kind string, userID int64) string {
	return channelPrefix(kind) + strconv.FormatInt(userID, 10)
}

// channelPrefix is the short name of a channel kind in tenant and token
// names: letters and digits only.
func channelPrefix(kind string) string {
	if kind == "telegram" {
		return "tg"
	}
	var b strings.Builder
	for _, r := range kind {
		if b.Len() < 24 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "user"
	}
	return b.String()
}

// freeTenantName is base when no tenant has that name, else base with the
// first free suffix.
func (a *App) freeTenantName(ctx context.Context, base string) (string, error) {
	for i := 1; i <= 20; i++ {
		name := base
		switch {
		case i > 10:
			name = base + "-" + uuid.Must(uuid.NewV7()).String()[24:]
		case i > 1:
			name = base + "-" + strconv.Itoa(i)
		}
		_, err := a.store.TenantGetByName(ctx, name)
		if isNotFound(err) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("app: no free tenant name like %q", base)
}

// ChannelClaim leases up to req.Max ready work items of the channel to
// req.Owner, with the update or submission each acts on.
func (a *App) ChannelClaim(ctx context.Context, req channelapi.ClaimRequest) (_ []channelapi.Work, err error) {
	defer channelError(&err)
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
	rows, err := a.store.ChannelWorkClaim(ctx, req.ChannelID, req.Owner, n, now, now.Add(channelapi.LeaseTTL))
	if err != nil {
		return nil, err
	}
	out := make([]channelapi.Work, 0, len(rows))
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
func (a *App) workView(ctx context.Context, w store.ChannelWork) (channelapi.Work, error) {
	ctx = store.WithTenant(ctx, w.TenantID)
	t, err := a.store.TenantGetByID(ctx, w.TenantID)
	if err != nil {
		return channelapi.Work{}, err
	}
	v := channelapi.Work{ID: w.ID, Kind: w.Kind, Attempts: w.Attempts, Progress: progressDoc(w.Progress),
		Tenant: channelapi.Tenant{ID: t.ID, Name: t.Name, Status: t.Status}}
	if w.LeaseExpiresAt != nil {
		v.LeaseExpiresAt = *w.LeaseExpiresAt
	}
	switch {
	case w.InboxID != nil:
		e, err := a.store.InboxGet(ctx, *w.InboxID)
		if err != nil {
			return v, err
		}
		var u channelapi.Update
		if err := json.Unmarshal(e.Payload, &u); err != nil {
			return v, fmt.Errorf("app: inbox entry %s: %w", e.ID, err)
		}
		v.Update = &u
		v.Tenant.New = e.TenantCreated
	case w.SubmissionID != nil:
		v.SubmissionID = w.SubmissionID
	}
	return v, nil
}

func progressDoc(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return json.RawMessage(b)
}

// ChannelRenew extends the owner's lease by channelapi.LeaseTTL.
func (a *App) ChannelRenew(ctx context.Context, id uuid.UUID, owner string) (_ channelapi.LeaseReply, err error) {
	defer channelError(&err)
	var w store.ChannelWork
	err = a.leaseTx(ctx, id, owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		w, err = tx.ChannelWorkRenew(ctx, id, owner, now, now.Add(channelapi.LeaseTTL))
		return err
	})
	if err != nil {
		return channelapi.LeaseReply{}, err
	}
	return channelapi.LeaseReply{LeaseExpiresAt: *w.LeaseExpiresAt}, nil
}

// ChannelProgress replaces the item's progress document; for a deliver
// item it is also the submission's delivery progress.
func (a *App) ChannelProgress(ctx context.Context, id uuid.UUID, req channelapi.ProgressRequest) (err error) {
	defer channelError(&err)
	doc := []byte(req.Progress)
	if len(doc) > maxProgressBytes {
		return badRequest("progress must be at most %d bytes of JSON", maxProgressBytes)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil || obj == nil {
		return badRequest("progress must be a JSON object")
	}
	return a.leaseTx(ctx, id, req.Owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		w, err := tx.ChannelWorkProgress(ctx, id, req.Owner, now, doc)
		if err != nil {
			return err
		}
		if w.Kind == store.WorkDeliver && w.SubmissionID != nil {
			return tx.SubmissionDeliveryProgress(ctx, *w.SubmissionID, doc)
		}
		return nil
	})
}

// ChannelDone ends the item successfully: a delivered submission, a
// processed update.
func (a *App) ChannelDone(ctx context.Context, id uuid.UUID, owner string) (err error) {
	defer channelError(&err)
	return a.finishWork(ctx, id, owner, store.WorkDone, "")
}

// ChannelFail ends the item for good, recording why.
func (a *App) ChannelFail(ctx context.Context, id uuid.UUID, req channelapi.FailRequest) (err error) {
	defer channelError(&err)
	return a.finishWork(ctx, id, req.Owner, store.WorkFailed, clip(req.Error, maxWorkErrorLen))
}

func (a *App) finishWork(ctx context.Context, id uuid.UUID, owner, state, errText string) error {
	return a.leaseTx(ctx, id, owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		w, err := tx.ChannelWorkFinish(ctx, id, owner, now, state, errText)
		if err != nil {
			return err
		}
		switch {
		case w.Kind == store.WorkDeliver && w.SubmissionID != nil:
			end := store.DeliveryDelivered
			if state == store.WorkFailed {
				end = store.DeliveryFailed
			}
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
// earlier than req.AfterSeconds from now.
func (a *App) ChannelDefer(ctx context.Context, id uuid.UUID, req channelapi.DeferRequest) (err error) {
	defer channelError(&err)
	if req.AfterSeconds < 0 || req.AfterSeconds > maxDeferSeconds {
		return badRequest("after_seconds must be from 0 to %d", maxDeferSeconds)
	}
	return a.leaseTx(ctx, id, req.Owner, func(ctx context.Context, tx *store.Tx, now time.Time) error {
		_, err := tx.ChannelWorkDefer(ctx, id, req.Owner, now, now.Add(time.Duration(req.AfterSeconds)*time.Second),
			clip(req.Error, maxWorkErrorLen))
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
	update *channelapi.Update
	// sub is the submission to deliver (deliver items).
	sub *store.Submission
	// identityID is the person the item acts for (uuid.Nil: none known).
	identityID uuid.UUID
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
		var u channelapi.Update
		if err := json.Unmarshal(e.Payload, &u); err != nil {
			return nil, fmt.Errorf("app: inbox entry %s: %w", e.ID, err)
		}
		j.update, j.identityID = &u, e.IdentityID
	case w.SubmissionID != nil:
		sub, err := a.store.SubmissionGet(ctx, *w.SubmissionID)
		if err != nil {
			return nil, err
		}
		j.sub = &sub
		if sub.IdentityID != nil {
			j.identityID = *sub.IdentityID
		}
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
	if j.update == nil || j.update.Kind != channelapi.UpdateCallback {
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
func (a *App) ChannelMessages(ctx context.Context, id uuid.UUID, req channelapi.MessagesRequest) (err error) {
	defer channelError(&err)
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return err
	}
	if len(req.MessageIDs) > maxMessagesPerCall {
		return badRequest("record at most %d messages at once", maxMessagesPerCall)
	}
	if j.identityID == uuid.Nil {
		return badRequest("this work item acts for nobody on the channel, so its messages cannot be owned")
	}
	ids := make([]string, 0, len(req.MessageIDs))
	for _, m := range req.MessageIDs {
		ids = append(ids, strconv.FormatInt(m, 10))
	}
	if len(ids) == 0 {
		return nil
	}
	return a.store.InTx(j.ctx, func(tx *store.Tx) error {
		return tx.ChannelMessagesInsert(j.ctx, j.work.ChannelID, strconv.FormatInt(req.ChatID, 10), ids, j.tenantID, j.identityID)
	})
}

// ChannelCapture archives a link for the person behind an update. The
// submission's idempotency key is the work item's and the link's, so a
// retried item gets the same submission and no second delivery, and a
// message with several links gets one submission for each.
func (a *App) ChannelCapture(ctx context.Context, id uuid.UUID, req channelapi.CaptureRequest) (_ channelapi.CaptureReply, err error) {
	defer channelError(&err)
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return channelapi.CaptureReply{}, err
	}
	if j.update == nil {
		return channelapi.CaptureReply{}, badRequest("only an update work item can start a capture")
	}
	res, err := a.Submit(j.ctx, SubmitRequest{
		TenantID: j.tenantID, URL: req.URL, IdemKey: channelIdemKey(j.work.ID, req.URL),
		ChannelID: j.work.ChannelID, IdentityID: j.identityID, ChatID: j.update.ChatID,
		ReplyToMessageID: req.ReplyToMessageID, StatusMessageID: req.StatusMessageID,
	})
	if err != nil {
		return channelapi.CaptureReply{}, err
	}
	return channelapi.CaptureReply{SubmissionID: res.SubmissionID, CollectionID: res.CollectionID, State: res.State}, nil
}

// ChannelList reads a page of the tenant's saved collections, newest save
// first, after the collection req.After.
func (a *App) ChannelList(ctx context.Context, id uuid.UUID, req channelapi.ListRequest) (_ channelapi.ListReply, err error) {
	defer channelError(&err)
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return channelapi.ListReply{}, err
	}
	limit := req.Limit
	switch {
	case limit == 0:
		limit = defaultListLimit
	case limit < 0 || limit > maxListLimit:
		return channelapi.ListReply{}, badRequest("limit must be from 1 to %d", maxListLimit)
	}
	var after *store.SavedCursor
	if req.After != nil && *req.After != uuid.Nil {
		sc, err := a.store.SavedCollectionGet(j.ctx, j.tenantID, *req.After)
		if isNotFound(err) {
			return channelapi.ListReply{}, badRequest("the list changed meanwhile; start again from the first page")
		}
		if err != nil {
			return channelapi.ListReply{}, err
		}
		after = &store.SavedCursor{SavedAt: sc.SavedAt, CollectionID: sc.ID}
	}
	rows, err := a.store.SavedCollectionList(j.ctx, j.tenantID, after, limit+1)
	if err != nil {
		return channelapi.ListReply{}, err
	}
	reply := channelapi.ListReply{Items: []channelapi.Item{}}
	if len(rows) > limit {
		reply.More, rows = true, rows[:limit]
	}
	for _, sc := range rows {
		v, err := a.collectionView(j.ctx, sc)
		if err != nil {
			return channelapi.ListReply{}, err
		}
		reply.Items = append(reply.Items, itemOf(v))
	}
	return reply, nil
}

// ChannelGet reads one of the tenant's saved collections by id or id
// prefix.
func (a *App) ChannelGet(ctx context.Context, id uuid.UUID, req channelapi.ItemRequest) (_ channelapi.Item, err error) {
	defer channelError(&err)
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return channelapi.Item{}, err
	}
	cid, err := a.savedRef(j, req.ID)
	if err != nil {
		return channelapi.Item{}, err
	}
	v, err := a.Collection(j.ctx, j.tenantID, cid)
	if err != nil {
		return channelapi.Item{}, err
	}
	return itemOf(v), nil
}

// ChannelDelete removes the tenant's reference to one of its saved
// collections; other savers keep theirs.
func (a *App) ChannelDelete(ctx context.Context, id uuid.UUID, req channelapi.ItemRequest) (_ channelapi.DeleteReply, err error) {
	defer channelError(&err)
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return channelapi.DeleteReply{}, err
	}
	cid, err := a.savedRef(j, req.ID)
	if err != nil {
		return channelapi.DeleteReply{}, err
	}
	if err := a.DeleteCollection(j.ctx, j.tenantID, cid); err != nil {
		return channelapi.DeleteReply{}, err
	}
	return channelapi.DeleteReply{ID: cid}, nil
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
func (a *App) ChannelSave(ctx context.Context, id uuid.UUID, req channelapi.ItemRequest) (_ channelapi.SaveReply, err error) {
	defer channelError(&err)
	j, err := a.job(ctx, id, req.Owner)
	if err != nil {
		return channelapi.SaveReply{}, err
	}
	cid, err := resolveRef(req.ID, func(prefix string) ([]uuid.UUID, error) {
		return a.store.PublicCollectionIDsByPrefix(j.ctx, prefix, 2)
	})
	if errors.Is(err, ErrNotFound) {
		return refused("This post is not in the archive."), nil
	}
	if err != nil {
		return channelapi.SaveReply{}, err
	}
	return a.SaveToo(j.ctx, j.tenantID, cid)
}

// SaveToo adds a tenant's reference to a public collection, answering
// saved, already_saved or refused with the reason.
func (a *App) SaveToo(ctx context.Context, tenantID, collectionID uuid.UUID) (channelapi.SaveReply, error) {
	ctx = store.WithTenant(ctx, tenantID)
	var reply channelapi.SaveReply
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
			reply = channelapi.SaveReply{Result: channelapi.SaveAlready}
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
		reply = channelapi.SaveReply{Result: channelapi.SaveSaved}
		return nil
	})
	return reply, err
}

func refused(reason string) channelapi.SaveReply {
	return channelapi.SaveReply{Result: channelapi.SaveRefused, Reason: reason}
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
func (a *App) ChannelUsage(ctx context.Context, id uuid.UUID, owner string) (_ channelapi.UsageReply, err error) {
	defer channelError(&err)
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return channelapi.UsageReply{}, err
	}
	u, err := a.Usage(j.ctx, j.tenantID)
	if err != nil {
		return channelapi.UsageReply{}, err
	}
	t, err := a.store.TenantGetByID(j.ctx, j.tenantID)
	if err != nil {
		return channelapi.UsageReply{}, err
	}
	n, err := a.store.TenantCollectionCount(j.ctx, j.tenantID)
	if err != nil {
		return channelapi.UsageReply{}, err
	}
	s, err := a.Settings(j.ctx)
	if err != nil {
		return channelapi.UsageReply{}, err
	}
	day, err := a.store.UsageDayRead(j.ctx, j.tenantID, operatingDay(a.now(), s.Timezone))
	if err != nil {
		return channelapi.UsageReply{}, err
	}
	return channelapi.UsageReply{UsedBytes: u.UsedBytes, ReservedBytes: u.ReservedBytes, QuotaBytes: u.QuotaBytes,
		Collections: n, SubmittedToday: day.Used, DailyLimit: t.DailyLimit}, nil
}

// ChannelToken creates a REST token for the tenant, only from a private
// chat: in a group everyone would see it.
func (a *App) ChannelToken(ctx context.Context, id uuid.UUID, owner string) (_ channelapi.TokenReply, err error) {
	defer channelError(&err)
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return channelapi.TokenReply{}, err
	}
	if j.update == nil {
		return channelapi.TokenReply{}, badRequest("only an update work item can create a token")
	}
	if j.update.ChatType != "private" {
		return channelapi.TokenReply{}, forbidden(msgTokenPrivate)
	}
	t, err := a.store.TenantGetByID(j.ctx, j.tenantID)
	if err != nil {
		return channelapi.TokenReply{}, err
	}
	if t.Status != store.TenantEnabled {
		return channelapi.TokenReply{}, &channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeTenantNotActive,
			Message: statusRefusal(t.Status)}
	}
	ch, err := a.store.ChannelGet(j.ctx, j.work.ChannelID)
	if err != nil {
		return channelapi.TokenReply{}, err
	}
	name := channelPrefix(ch.Kind) + "-" + a.now().UTC().Format("20060102-150405")
	token, _, err := a.CreateToken(j.ctx, "identity:"+j.identityID.String(), t.Name, name, false)
	if err != nil {
		return channelapi.TokenReply{}, err
	}
	return channelapi.TokenReply{Token: token, Name: name}, nil
}

// ChannelDelivery says what a deliver item should send: progress while the
// capture runs, the collection as of the capture's revision when it ended,
// or why it failed.
func (a *App) ChannelDelivery(ctx context.Context, id uuid.UUID, owner string) (_ channelapi.Delivery, err error) {
	defer channelError(&err)
	j, err := a.job(ctx, id, owner)
	if err != nil {
		return channelapi.Delivery{}, err
	}
	if j.sub == nil {
		return channelapi.Delivery{}, badRequest("only a deliver work item has a delivery")
	}
	sub := j.sub
	d := channelapi.Delivery{SubmissionID: sub.ID, InputURL: sub.InputURL}
	d.ChatID, _ = strconv.ParseInt(sub.ChatID, 10, 64)
	d.StatusMessageID, _ = strconv.ParseInt(sub.StatusMessageID, 10, 64)
	d.ReplyToMessageID, _ = strconv.ParseInt(sub.ReplyToMessageID, 10, 64)
	c, err := a.store.CaptureGet(j.ctx, sub.CaptureID)
	if err != nil {
		return d, err
	}
	switch c.State {
	case store.CaptureQueued:
		d.State, d.Progress = channelapi.DeliveryPending, "waiting for its turn"
		return d, nil
	case store.CaptureDownloading:
		d.State = channelapi.DeliveryPending
		d.Progress, err = a.downloadProgress(j.ctx, c.ID)
		return d, err
	case store.CaptureFailed:
		d.State, d.CaptureState, d.Error = channelapi.DeliveryFailed, c.State, c.Error
		if d.Error == "" {
			d.Error = "the post could not be archived"
		}
		return d, nil
	}
	d.CaptureState = c.State
	if c.RevisionID == nil {
		d.State, d.Error = channelapi.DeliveryFailed, "the archived copy is gone; send the link again"
		return d, nil
	}
	item, public, err := a.revisionItem(j.ctx, j.tenantID, *c.RevisionID, sub.CreatedAt)
	if err != nil {
		return d, err
	}
	item.State = c.State
	d.State, d.Item, d.Public = channelapi.DeliveryReady, &item, public
	if c.State == store.CapturePartial {
		d.Error = c.Error
	}
	return d, nil
}

// downloadProgress describes a capture whose media are downloading.
func (a *App) downloadProgress(ctx context.Context, captureID uuid.UUID) (string, error) {
	assets, err := a.store.AssetList(ctx, captureID)
	if err != nil {
		return "", err
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
		return "saving the post", nil
	}
	return fmt.Sprintf("downloading media %d of %d", done+1, total), nil
}

// revisionItem is a collection as one revision shows it. savedAt is used
// when the tenant does not (or no longer) save the collection.
func (a *App) revisionItem(ctx context.Context, tenantID, revisionID uuid.UUID, savedAt time.Time) (channelapi.Item, bool, error) {
	r, err := a.store.RevisionGet(ctx, revisionID)
	if err != nil {
		return channelapi.Item{}, false, err
	}
	c, err := a.store.CollectionGet(ctx, r.CollectionID)
	if err != nil {
		return channelapi.Item{}, false, err
	}
	if sc, err := a.store.SavedCollectionGet(ctx, tenantID, c.ID); err == nil {
		savedAt = sc.SavedAt
	} else if !isNotFound(err) {
		return channelapi.Item{}, false, err
	}
	rv, err := a.revisionView(ctx, r)
	if err != nil {
		return channelapi.Item{}, false, err
	}
	item := channelapi.Item{ID: c.ID, SourceURL: c.SourceURL, Platform: c.Platform, Visibility: c.Visibility,
		AuthorName: rv.AuthorName, Summary: rv.Summary, Text: rv.Text, PublishedAt: rv.PublishedAt, SavedAt: savedAt,
		Media: mediaOf(rv.Media)}
	return item, c.Visibility == store.Public, nil
}

// itemOf is a saved collection as a channel shows it.
func itemOf(v CollectionView) channelapi.Item {
	return channelapi.Item{ID: v.ID, SourceURL: v.SourceURL, Platform: v.Platform, Visibility: v.Visibility,
		AuthorName: v.AuthorName, Summary: v.Summary, Text: v.Text, PublishedAt: v.PublishedAt, SavedAt: v.SavedAt,
		Media: mediaOf(v.Media), State: v.State}
}

func mediaOf(ms []MediaView) []channelapi.Media {
	out := make([]channelapi.Media, 0, len(ms))
	for _, m := range ms {
		out = append(out, channelapi.Media{SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size, Width: m.Width,
			Height: m.Height, Duration: (m.DurationMS + 500) / 1000, Alt: m.Alt, Sensitive: m.Sensitive})
	}
	return out
}

// ChannelMedia opens a media file of the item's delivery (the capture's
// revision) or of the tenant's saved collections.
func (a *App) ChannelMedia(ctx context.Context, id uuid.UUID, owner, sha256 string) (_ io.ReadCloser, _ channelapi.MediaFile, err error) {
	defer channelError(&err)
	if !IsSHA256(sha256) {
		return nil, channelapi.MediaFile{}, badRequest("media are named by their SHA-256 as 64 lowercase hex digits, not %q", clip(sha256, 80))
	}
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return nil, channelapi.MediaFile{}, err
	}
	if j.sub != nil {
		c, err := a.store.CaptureGet(j.ctx, j.sub.CaptureID)
		if err != nil {
			return nil, channelapi.MediaFile{}, err
		}
		if c.RevisionID != nil {
			b, err := a.store.BlobForRevision(j.ctx, *c.RevisionID, sha256)
			switch {
			case err == nil:
				rc, _, err := a.blob.Get(j.ctx, b.ObjectKey, nil)
				if err != nil {
					return nil, channelapi.MediaFile{}, err
				}
				return rc, channelapi.MediaFile{Mime: b.Mime, Size: b.Size}, nil
			case !isNotFound(err):
				return nil, channelapi.MediaFile{}, err
			}
		}
	}
	rc, mf, err := a.OpenMedia(j.ctx, j.tenantID, sha256, nil)
	if err != nil {
		return nil, channelapi.MediaFile{}, err
	}
	return rc, channelapi.MediaFile{Mime: mf.Mime, Size: mf.Size}, nil
}

// ChannelCacheGet finds the remote reference of a media file sent through
// a channel account before.
func (a *App) ChannelCacheGet(ctx context.Context, k channelapi.CacheKey) (_ channelapi.CacheEntry, err error) {
	defer channelError(&err)
	key, err := cacheKey(k)
	if err != nil {
		return channelapi.CacheEntry{}, err
	}
	remote, err := a.store.MediaCacheGet(ctx, key)
	if isNotFound(err) {
		return channelapi.CacheEntry{}, &channelapi.Error{Status: http.StatusNotFound, Code: channelapi.CodeNotFound, Message: "not cached"}
	}
	if err != nil {
		return channelapi.CacheEntry{}, err
	}
	return channelapi.CacheEntry{CacheKey: k, RemoteID: remote}, nil
}

// ChannelCachePut stores the remote reference of a sent media file.
func (a *App) ChannelCachePut(ctx context.Context, e channelapi.CacheEntry) (err error) {
	defer channelError(&err)
	key, err := cacheEntry(e)
	if err != nil {
		return err
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error { return tx.MediaCachePut(ctx, key, e.RemoteID) })
}

// ChannelCacheDrop removes the remote reference of a media file the
// platform declared invalid, unless another one was stored meanwhile.
func (a *App) ChannelCacheDrop(ctx context.Context, e channelapi.CacheEntry) (err error) {
	defer channelError(&err)
	key, err := cacheEntry(e)
	if err != nil {
		return err
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.MediaCacheDrop(ctx, key, e.RemoteID)
		return err
	})
}

func cacheKey(k channelapi.CacheKey) (store.MediaCacheKey, error) {
	switch {
	case k.ChannelKind == "" || len(k.ChannelKind) > 32:
		return store.MediaCacheKey{}, badRequest("channel_kind must be 1 to 32 characters")
	case k.AccountID == "" || len(k.AccountID) > 64:
		return store.MediaCacheKey{}, badRequest("account_id must be 1 to 64 characters")
	case !IsSHA256(k.SHA256):
		return store.MediaCacheKey{}, badRequest("sha256 must be 64 lowercase hex digits")
	case k.Representation == "" || len(k.Representation) > 32:
		return store.MediaCacheKey{}, badRequest("representation must be 1 to 32 characters")
	}
	return store.MediaCacheKey{ChannelKind: k.ChannelKind, AccountID: k.AccountID, SHA256: k.SHA256, Representation: k.Representation}, nil
}

func cacheEntry(e channelapi.CacheEntry) (store.MediaCacheKey, error) {
	if e.RemoteID == "" || len(e.RemoteID) > 1024 {
		return store.MediaCacheKey{}, badRequest("remote_id must be 1 to 1024 characters")
	}
	return cacheKey(e.CacheKey)
}

func checkOwner(owner string) error {
	if owner == "" || len(owner) > maxOwnerLen {
		return badRequest("owner must be 1 to %d characters: the claiming process's name", maxOwnerLen)
	}
	return nil
}

// clip shortens s to at most n bytes without splitting a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func badRequest(format string, args ...any) *channelapi.Error {
	return &channelapi.Error{Status: http.StatusBadRequest, Code: channelapi.CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

func forbidden(msg string) *channelapi.Error {
	return &channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeForbidden, Message: msg}
}

func leaseLost(id uuid.UUID, owner string) *channelapi.Error {
	return &channelapi.Error{Status: http.StatusConflict, Code: channelapi.CodeLeaseLost,
		Message: fmt.Sprintf("work %s is not leased to %s (its lease expired or it ended); leave it", id, owner)}
}

// channelError turns the business layer's errors into the channel API's
// answers, as the REST API's problems do for its clients. Errors it does
// not know stay as they are: the server answers them as internal errors.
func channelError(errp *error) {
	err := *errp
	if err == nil {
		return
	}
	var (
		ce    *channelapi.Error
		quota *QuotaError
		limit *LimitError
		aerr  *adapterapi.Error
	)
	switch {
	case errors.As(err, &ce), errors.Is(err, context.Canceled):
		return
	case errors.Is(err, store.ErrLeaseLost):
		*errp = &channelapi.Error{Status: http.StatusConflict, Code: channelapi.CodeLeaseLost, Message: "the work is not leased to you any more"}
	case errors.As(err, &quota):
		*errp = &channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeQuota, Message: quota.Error()}
	case errors.Is(err, ErrQuota):
		*errp = &channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeQuota, Message: err.Error()}
	case errors.As(err, &limit):
		if limit.Status() {
			*errp = &channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeTenantNotActive, Message: limit.Error()}
			return
		}
		e := &channelapi.Error{Status: http.StatusTooManyRequests, Code: channelapi.CodeLimit, Message: limit.Error()}
		if limit.ResetAt != nil {
			e.RetryAfterSeconds = max(1, int(time.Until(*limit.ResetAt).Seconds()+0.999))
		}
		*errp = e
	case errors.As(err, &aerr):
		*errp = adapterChannelError(aerr)
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrIdempotencyMismatch):
		*errp = &channelapi.Error{Status: http.StatusBadRequest, Code: channelapi.CodeInvalid, Message: err.Error()}
	case errors.Is(err, ErrNotFound):
		*errp = &channelapi.Error{Status: http.StatusNotFound, Code: channelapi.CodeNotFound, Message: err.Error()}
	}
}

// adapterChannelError maps an adapter's failure: the link's fault, a
// passing one, or the adapter's own.
func adapterChannelError(e *adapterapi.Error) *channelapi.Error {
	switch {
	case e.Code == adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER, e.Code == adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
		e.Code == adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, e.Code == adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT:
		return &channelapi.Error{Status: http.StatusUnprocessableEntity, Code: channelapi.CodeUnsupported, Message: e.Error()}
	case e.Code == adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, e.Retryable:
		return &channelapi.Error{Status: http.StatusServiceUnavailable, Code: channelapi.CodeUnavailable, Message: e.Error(),
			RetryAfterSeconds: int(e.RetryAfter.Seconds() + 0.999)}
	}
	return &channelapi.Error{Status: http.StatusBadGateway, Code: channelapi.CodeInternal, Message: e.Error()}
}

// channelIdemKey is the idempotency key of the submission of link made for
// work item id.
func channelIdemKey(id uuid.UUID, link string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(link)))
	return "channel:" + id.String() + ":" + hex.EncodeToString(sum[:12])
}
