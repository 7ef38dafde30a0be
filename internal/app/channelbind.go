package app

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// Channel bindings: a person binds a channel or supergroup they
// administer (the bot's /bind), and each post the tenant archives from then
// on is also copied there by a "copy" work item, whose progress is kept
// like a delivery's so that a restart never posts twice. The channel
// process checks with its platform that the bot may post there and that the
// person administers the chat before it asks core to bind; core keeps one
// tenant per chat and the tenant's channel limit.

// ChannelWorkCopy copies a submission's result to a bound chat.
const ChannelWorkCopy = store.WorkCopy

// Unbind reasons of a ChannelBindingView.
const (
	UnbindManual      = store.UnbindManual
	UnbindChannelGone = store.UnbindChannelGone
)

// ChannelBindRequest is a chat the channel checked: the bot may post there
// and the person administers it.
type ChannelBindRequest struct {
	Owner    string
	ChatID   int64
	ChatType string // channel or supergroup
	Username string
	Title    string
}

// ChannelBindingView is a bound (or formerly bound) chat.
type ChannelBindingView struct {
	ID           uuid.UUID  `json:"id"`
	ChatID       int64      `json:"chat_id"`
	ChatType     string     `json:"chat_type"`
	Username     string     `json:"username,omitempty"`
	Title        string     `json:"title,omitempty"`
	State        string     `json:"state"`
	UnbindReason string     `json:"unbind_reason,omitempty"`
	BoundAt      time.Time  `json:"bound_at"`
	UnboundAt    *time.Time `json:"unbound_at,omitempty"`
	// OwnerChatID is the private chat of the person who bound it.
	OwnerChatID int64 `json:"-"`
}

func bindingView(b store.Binding) ChannelBindingView {
	v := ChannelBindingView{ID: b.ID, ChatType: b.ChatType, Username: b.Username, Title: b.Title, State: b.State,
		UnbindReason: b.UnbindReason, BoundAt: b.CreatedAt, UnboundAt: b.UnboundAt}
	v.ChatID, _ = strconv.ParseInt(b.ChatID, 10, 64)
	v.OwnerChatID, _ = strconv.ParseInt(b.OwnerChatID, 10, 64)
	return v
}

// ChannelBindResult is a binding made, or the one the tenant had already
// (Already).
type ChannelBindResult struct {
	Binding ChannelBindingView
	Already bool
	// Limit is how many chats the tenant may bind.
	Limit int
}

// msgBindPrivate refuses /bind outside a private chat.
const msgBindPrivate = "bind a channel in a private chat with the bot"

// ChannelBind binds the chat for the item's tenant, from a private chat:
// ErrConflict when another tenant has it bound, a *LimitError when the
// tenant has bound as many chats as it may, ErrTenantNotActive unless the
// tenant is enabled.
func (a *App) ChannelBind(ctx context.Context, id uuid.UUID, req ChannelBindRequest) (ChannelBindResult, error) {
	j, err := a.ownedJob(ctx, id, req.Owner)
	if err != nil {
		return ChannelBindResult{}, err
	}
	if j.update == nil || j.update.ChatType != "private" {
		return ChannelBindResult{}, forbidden(msgBindPrivate)
	}
	if req.ChatID >= 0 {
		return ChannelBindResult{}, badRequest("chat_id must be a channel's or supergroup's id (negative), not %d", req.ChatID)
	}
	if req.ChatType != "channel" && req.ChatType != "supergroup" {
		return ChannelBindResult{}, badRequest("only a channel or a supergroup can be bound, not a %s", clip(req.ChatType, 32))
	}
	chatID := strconv.FormatInt(req.ChatID, 10)
	var res ChannelBindResult
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		t, err := tx.TenantGetByID(j.ctx, j.tenantID)
		if err != nil {
			return err
		}
		if t.Status != store.TenantEnabled {
			return errorf(ErrTenantNotActive, "%s", statusRefusal(t.Status))
		}
		res.Limit = t.ChannelLimit
		active, err := tx.BindingList(j.ctx, j.tenantID, uuid.Nil, false)
		if err != nil {
			return err
		}
		for _, b := range active {
			if b.ChannelID == j.work.ChannelID && b.ChatID == chatID {
				res.Binding, res.Already = bindingView(b), true
				return nil
			}
		}
		if len(active) >= t.ChannelLimit {
			return &LimitError{Limit: "channels", Max: t.ChannelLimit,
				msg: channelLimitMessage(t.ChannelLimit)}
		}
		b := store.Binding{TenantID: j.tenantID, ChannelID: j.work.ChannelID, ChatID: chatID, ChatType: req.ChatType,
			Username: clip(strings.TrimPrefix(req.Username, "@"), 64), Title: clip(req.Title, 256),
			OwnerChatID: strconv.FormatInt(j.update.ChatID, 10)}
		if j.identityID != uuid.Nil {
			b.IdentityID = &j.identityID
		}
		if b, err = tx.BindingInsert(j.ctx, b); err != nil {
			return err
		}
		res.Binding = bindingView(b)
		return audit(j.ctx, tx, "identity:"+j.identityID.String(), "channel.bind", "binding:"+b.ID.String(), nil,
			map[string]any{"chat_id": req.ChatID, "title": b.Title, "username": b.Username})
	})
	if errors.Is(err, store.ErrConflict) {
		return ChannelBindResult{}, errorf(ErrConflict, "this channel is bound to another account already; a channel belongs to one account")
	}
	return res, err
}

// channelLimitMessage refuses a bind over the limit.
func channelLimitMessage(limit int) string {
	if limit == 0 {
		return "this account may not bind channels; ask the operator"
	}
	if limit == 1 {
		return "this account may bind one channel and has bound it; /unbind it first, or ask the operator for more"
	}
	return "this account may bind " + strconv.Itoa(limit) + " channels and has bound them all; /unbind one first, or ask the operator for more"
}

// ChannelBindings lists the item's tenant's active bindings through this
// channel, oldest first: the numbers /unbind N counts by.
func (a *App) ChannelBindings(ctx context.Context, id uuid.UUID, owner string) ([]ChannelBindingView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return nil, err
	}
	var out []ChannelBindingView
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		list, err := tx.BindingList(j.ctx, j.tenantID, j.work.ChannelID, false)
		for _, b := range list {
			out = append(out, bindingView(b))
		}
		return err
	})
	return out, err
}

// ChannelUnbind unbinds one of the item's tenant's chats, named by ref:
// its number (from 1) in ChannelBindings' list, its chat id, or its
// @username.
func (a *App) ChannelUnbind(ctx context.Context, id uuid.UUID, owner, ref string) (ChannelBindingView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelBindingView{}, err
	}
	ref = strings.TrimSpace(ref)
	var out ChannelBindingView
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		list, err := tx.BindingList(j.ctx, j.tenantID, j.work.ChannelID, false)
		if err != nil {
			return err
		}
		b, err := findBinding(list, ref)
		if err != nil {
			return err
		}
		after, _, err := tx.BindingUnbind(j.ctx, j.tenantID, b.ID, store.UnbindManual)
		if err != nil {
			return err
		}
		out = bindingView(after)
		return audit(j.ctx, tx, "identity:"+j.identityID.String(), "channel.unbind", "binding:"+b.ID.String(),
			map[string]any{"state": b.State}, map[string]any{"state": after.State, "reason": after.UnbindReason})
	})
	return out, err
}

// findBinding picks the binding ref names in list.
func findBinding(list []store.Binding, ref string) (store.Binding, error) {
	if len(list) == 0 {
		return store.Binding{}, errorf(ErrNotFound, "no channel is bound; bind one with /bind")
	}
	if ref == "" {
		if len(list) == 1 {
			return list[0], nil
		}
		return store.Binding{}, badRequest("%d channels are bound; say which, by its number in /channels", len(list))
	}
	if n, err := strconv.Atoi(ref); err == nil && n >= 1 && n <= len(list) && !strings.HasPrefix(ref, "-") {
		return list[n-1], nil
	}
	name := strings.ToLower(strings.TrimPrefix(ref, "@"))
	for _, b := range list {
		if b.ChatID == ref || (b.Username != "" && strings.ToLower(b.Username) == name) {
			return b, nil
		}
	}
	return store.Binding{}, errorf(ErrNotFound, "%s is not one of the bound channels; /channels lists them", clip(ref, 64))
}

// queueCopies makes a copy work item of a new submission for each chat the
// tenant has bound, in the submission's transaction.
func queueCopies(ctx context.Context, tx *store.Tx, tenantID, submissionID uuid.UUID) error {
	list, err := tx.BindingList(ctx, tenantID, uuid.Nil, false)
	if err != nil {
		return err
	}
	for _, b := range list {
		w, err := tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: b.ChannelID, Kind: store.WorkCopy,
			SubmissionID: &submissionID, TenantID: tenantID})
		if err != nil {
			return err
		}
		if err := tx.ChannelCopyInsert(ctx, tenantID, w.ID, b.ID, submissionID); err != nil {
			return err
		}
	}
	return nil
}

// CopyTarget is where a copy item sends its submission's result.
type CopyTarget struct {
	Binding ChannelBindingView
}

// copyTarget points a copy item's delivery at its bound chat: no status
// message, no reply.
func (a *App) copyTarget(j *channelJob, d *Delivery) error {
	b, err := a.store.ChannelCopyBinding(j.ctx, j.tenantID, j.work.ID)
	if err != nil {
		return err
	}
	v := bindingView(b)
	d.ChatID, d.StatusMessageID, d.ReplyToMessageID = v.ChatID, 0, 0
	d.Copy = &CopyTarget{Binding: v}
	return nil
}

// ChannelCopyGone unbinds the chat a copy item sends to, with reason
// channel_gone: the channel is gone, or the bot may no longer post there.
// changed is false when it was unbound already, so that only one copy
// tells the person.
func (a *App) ChannelCopyGone(ctx context.Context, id uuid.UUID, owner, why string) (_ ChannelBindingView, changed bool, err error) {
	j, err := a.job(ctx, id, owner)
	if err != nil {
		return ChannelBindingView{}, false, err
	}
	if j.work.Kind != store.WorkCopy {
		return ChannelBindingView{}, false, badRequest("only a copy work item can report its channel gone")
	}
	b, err := a.store.ChannelCopyBinding(j.ctx, j.tenantID, j.work.ID)
	if err != nil {
		return ChannelBindingView{}, false, err
	}
	var after store.Binding
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		after, changed, err = tx.BindingUnbind(j.ctx, j.tenantID, b.ID, store.UnbindChannelGone)
		if err != nil || !changed {
			return err
		}
		return audit(j.ctx, tx, "channel:"+j.work.ChannelID.String(), "channel.unbind", "binding:"+b.ID.String(),
			map[string]any{"state": b.State}, map[string]any{"state": after.State, "reason": after.UnbindReason,
				"why": clip(why, 200)})
	})
	return bindingView(after), changed, err
}

// TenantBindings lists a tenant's bindings through every channel, the
// unbound ones too, oldest first (web library and console).
func (a *App) TenantBindings(ctx context.Context, tenantID uuid.UUID) ([]ChannelBindingView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	list, err := a.store.BindingList(ctx, tenantID, uuid.Nil, true)
	out := make([]ChannelBindingView, 0, len(list))
	for _, b := range list {
		out = append(out, bindingView(b))
	}
	return out, err
}
