package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// This file holds a channel instance's side of the inbox: registering it,
// its poll lease (only the holder polls its platform and posts updates),
// and storing updates with their senders' identities.

// ChannelHello registers a channel instance (one bot) by kind and external
// id and tells it where polling resumes.
func (a *App) ChannelHello(ctx context.Context, h ChannelInstance) (_ ChannelHelloReply, err error) {
	switch {
	case h.Kind == "" || len(h.Kind) > 32:
		return ChannelHelloReply{}, badRequest("kind must be 1 to 32 characters, such as \"telegram\"")
	case h.ExternalID == "" || len(h.ExternalID) > 64:
		return ChannelHelloReply{}, badRequest("external_id must be 1 to 64 characters: the bot's own user id")
	case len(h.Name) > 64:
		return ChannelHelloReply{}, badRequest("name must be at most 64 characters")
	}
	var c store.Channel
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		c, err = tx.ChannelUpsert(ctx, h.Kind, h.ExternalID, h.Name)
		return err
	})
	return ChannelHelloReply{ChannelID: c.ID, NextOffset: c.NextOffset}, err
}

// ChannelPollLease takes or renews the channel's poll lease for req.Owner
// until ChannelLeaseTTL from now, or with req.Release gives it up: of
// the processes running one bot, only the holder polls its platform.
func (a *App) ChannelPollLease(ctx context.Context, req ChannelPollLeaseRequest) (_ ChannelPollLeaseReply, err error) {
	if err := checkOwner(req.Owner); err != nil {
		return ChannelPollLeaseReply{}, err
	}
	if req.Release {
		err = a.store.ChannelPollLeaseRelease(ctx, req.ChannelID, req.Owner)
		return ChannelPollLeaseReply{}, err
	}
	now := a.now().UTC()
	l, granted, err := a.store.ChannelPollLeaseAcquire(ctx, req.ChannelID, req.Owner, now, now.Add(ChannelLeaseTTL))
	if isNotFound(err) {
		return ChannelPollLeaseReply{}, badRequest("unknown channel %s; call hello first", req.ChannelID)
	}
	if err != nil {
		return ChannelPollLeaseReply{}, err
	}
	r := ChannelPollLeaseReply{Granted: granted, Holder: l.Owner, NextOffset: l.NextOffset}
	if l.ExpiresAt != nil {
		r.ExpiresAt = *l.ExpiresAt
	}
	return r, nil
}

// pollLeaseLost answers a post from a process that does not hold the poll
// lease.
func pollLeaseLost(channelID uuid.UUID, owner string) error {
	return errorf(ErrLeaseLost, "%q does not hold the poll lease of channel %s (it expired or another process took it); stop polling and ask for the lease again", owner, channelID)
}

// ChannelAcceptUpdates stores a channel's updates in order, each in its
// own transaction with its sender's identity (created with a personal
// tenant on first contact) and an update work item, then advances the
// channel's offset. An update stored before is not stored again; when
// storing fails the offset stays, so the channel sends the batch again.
// Only the holder of the poll lease may post: it is checked before
// anything is stored and again, atomically, as the offset advances, so a
// poller whose lease ran out meanwhile never moves the offset.
func (a *App) ChannelAcceptUpdates(ctx context.Context, req ChannelUpdatesRequest) (_ ChannelUpdatesReply, err error) {
	ch, err := a.store.ChannelGet(ctx, req.ChannelID)
	if isNotFound(err) {
		return ChannelUpdatesReply{}, badRequest("unknown channel %s; call hello first", req.ChannelID)
	}
	if err != nil {
		return ChannelUpdatesReply{}, err
	}
	if err := checkOwner(req.Owner); err != nil {
		return ChannelUpdatesReply{}, err
	}
	if !ch.PollHeldBy(req.Owner, a.now()) {
		return ChannelUpdatesReply{}, pollLeaseLost(ch.ID, req.Owner)
	}
	if len(req.Updates) > maxUpdatesPerCall {
		return ChannelUpdatesReply{}, badRequest("send at most %d updates at once", maxUpdatesPerCall)
	}
	if req.NextOffset < 0 {
		return ChannelUpdatesReply{}, badRequest("next_offset must not be negative")
	}
	for i, u := range req.Updates {
		if err := checkUpdate(u); err != nil {
			return ChannelUpdatesReply{}, badRequest("update %d (id %d): %v", i, u.UpdateID, err)
		}
	}
	stored := 0
	for _, u := range req.Updates {
		keep := a.storeUpdate
		if u.Kind == ChannelUpdatePost {
			keep = a.storeChannelPost
		}
		created, err := keep(ctx, ch, u)
		if err != nil {
			return ChannelUpdatesReply{}, err
		}
		if created {
			stored++
		}
	}
	a.metrics.BotUpdates(stored)
	var next int64
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.ChannelPollLeaseCheck(ctx, ch.ID, req.Owner, a.now()); err != nil {
			return err
		}
		next, err = tx.ChannelAdvanceOffset(ctx, ch.ID, req.NextOffset)
		return err
	})
	if errors.Is(err, store.ErrLeaseLost) {
		return ChannelUpdatesReply{}, pollLeaseLost(ch.ID, req.Owner)
	}
	return ChannelUpdatesReply{Stored: stored, NextOffset: next}, err
}

func checkUpdate(u ChannelUpdate) error {
	switch {
	case u.Kind != ChannelUpdateMessage && u.Kind != ChannelUpdateCallback && u.Kind != ChannelUpdatePost:
		return fmt.Errorf("kind must be %q, %q or %q", ChannelUpdateMessage, ChannelUpdateCallback, ChannelUpdatePost)
	case u.Kind == ChannelUpdatePost && u.MessageID <= 0:
		return errors.New("a channel post needs its message_id")
	case u.Kind == ChannelUpdatePost && len(u.ChatUsername) > 64:
		return errors.New("chat_username must be at most 64 characters")
	case u.Kind == ChannelUpdatePost && len(u.MediaGroupID) > 64:
		return errors.New("media_group_id must be at most 64 characters")
	case u.Kind == ChannelUpdatePost:
		return nil // a post has no sender
	case u.From.ID == 0:
		return errors.New("from.id is required: updates without a sender are not handled")
	case u.UpdateID < 0:
		return errors.New("update_id must not be negative")
	case u.Kind == ChannelUpdateCallback && u.CallbackID == "":
		return errors.New("a callback needs its callback_id")
	}
	return nil
}

// identityAttempts bounds how often storing one update re-reads the
// sender's identity after losing a race to create it.
const identityAttempts = 5

// storeUpdate stores one update for its sender, in the transaction that
// resolves the sender's identity (resolveIdentity).
func (a *App) storeUpdate(ctx context.Context, ch store.Channel, u ChannelUpdate) (created bool, err error) {
	u.Staged = false // only core stages
	_, _, err = a.resolveIdentity(ctx, ch, u.From, func(ctx context.Context, tx *store.Tx, ident store.Identity, newTenant bool) error {
		u := u
		// The secret of a waiting /account_add is sealed before anything
		// of the update is stored.
		stage, err := a.stageAccountSecret(ctx, tx, ch, ident, &u)
		if err != nil {
			return err
		}
		payload, err := json.Marshal(u)
		if err != nil {
			return err
		}
		created, err = insertUpdate(ctx, tx, ch, u, payload, ident, newTenant)
		if err != nil || !created || stage == nil {
			return err
		}
		return stage()
	})
	return created, err
}

// resolveIdentity is seed 000's resolve_identity: the identity of a channel
// user, which every way in (the bot's updates, Telegram sign-in on the
// web) shares. A user without one gets a personal tenant (enabled or
// pending by the approval mode) and the identity in one transaction; when
// a concurrent first contact of the same user creates them first, that
// transaction rolls back whole on the unique constraint and the winner's
// identity is read again. The user's current names are recorded. then,
// when not nil, runs in the same transaction, as the identity's tenant;
// newTenant says the tenant was created now.
func (a *App) resolveIdentity(ctx context.Context, ch store.Channel, user ChannelUser,
	then func(ctx context.Context, tx *store.Tx, ident store.Identity, newTenant bool) error) (ident store.Identity, newTenant bool, err error) {
	externalID := strconv.FormatInt(user.ID, 10)
	username, display := clip(user.Username, 64), clip(user.DisplayName, 128)
	for range identityAttempts {
		found, err := a.store.IdentityLookup(ctx, ch.ID, externalID)
		if err == nil {
			tctx := store.WithTenant(ctx, found.TenantID)
			err = a.store.InTx(tctx, func(tx *store.Tx) error {
				if err := tx.IdentityRename(tctx, found.ID, username, display); err != nil {
					return err
				}
				if then == nil {
					return nil
				}
				return then(tctx, tx, found, false)
			})
			return found, false, err
		}
		if !isNotFound(err) {
			return store.Identity{}, false, err
		}

		// First contact: a personal tenant and its identity.
		settings, err := a.Settings(ctx)
		if err != nil {
			return store.Identity{}, false, err
		}
		name, err := a.freeTenantName(ctx, personalTenantName(ch.Kind, user.ID))
		if err != nil {
			return store.Identity{}, false, err
		}
		id := uuid.Must(uuid.NewV7())
		tctx := store.WithTenant(ctx, id)
		err = a.store.InTx(tctx, func(tx *store.Tx) error {
			t, err := insertSelfServiceTenant(tctx, tx, settings, id, name)
			if err != nil {
				return err
			}
			ident, err = tx.IdentityInsert(tctx, store.Identity{
				ChannelID: ch.ID, ExternalID: externalID, TenantID: t.ID, Username: username, DisplayName: display,
			})
			if err != nil {
				return err
			}
			if then == nil {
				return nil
			}
			return then(tctx, tx, ident, true)
		})
		if errors.Is(err, store.ErrConflict) {
			// Someone else created the identity (or took the name): read again.
			a.log.DebugContext(ctx, "first contact raced; reading the identity again", "channel", ch.ID, "tenant_name", name)
			continue
		}
		if err != nil {
			return store.Identity{}, false, err
		}
		return ident, true, nil
	}
	return store.Identity{}, false, fmt.Errorf("app: could not resolve user %s of channel %s after %d attempts", externalID, ch.ID, identityAttempts)
}

// insertUpdate stores the update in the inbox and, when it is new, queues
// its work item.
func insertUpdate(ctx context.Context, tx *store.Tx, ch store.Channel, u ChannelUpdate, payload []byte, ident store.Identity, newTenant bool) (bool, error) {
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
