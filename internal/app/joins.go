package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/store"
)

// Joining a chat by invite link (Spore's /join, seed 003 §1 and §7): a
// tenant asks that one of its accounts join the chat an invite link leads
// to; an operator approves or denies. It is off by default: the setting
// account_join_enabled turns it on. Asking reads the invite through the
// account (the adapter's Join with check_only, which joins nothing), so a
// bad or expired link is refused at once and the operator sees the chat's
// title; approving asks the adapter to join and records what came of it.
// Every ask, approval and denial is audited; the invite link itself is
// kept only on the request (shown to the tenant and to operators), never
// in logs or the audit log.

// SettingAccountJoin is the operator's switch of joins.
const SettingAccountJoin = "account_join_enabled"

// msgJoinOff is the refusal while the switch is off.
const msgJoinOff = "joining channels by invite link is turned off on this instance; an operator turns it on with " +
	"`monitor admin config set " + SettingAccountJoin + " true`"

// maxInviteInput bounds an invite link as a person gives it.
const maxInviteInput = 512

// maxJoinReason bounds an operator's reason.
const maxJoinReason = 500

// JoinRequestView is a join request as surfaces show it.
type JoinRequestView struct {
	ID           uuid.UUID `json:"id"`
	TenantID     uuid.UUID `json:"tenant_id"`
	ConnectionID uuid.UUID `json:"connection_id"`
	// Invite is the invite link with its code masked (https://t.me/+Harb…01):
	// the whole code stays on the request, for the approval only.
	Invite string `json:"invite"`
	Title  string `json:"title"`
	// State is pending, joined, requested (the chat's admins decide),
	// failed or denied.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// ChannelURL is the joined channel's link: archive it through the
	// connection.
	ChannelURL string     `json:"channel_url,omitempty"`
	AskedBy    string     `json:"asked_by"`
	DecidedBy  string     `json:"decided_by,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	DecidedAt  *time.Time `json:"decided_at,omitempty"`
}

func joinRequestView(r store.JoinRequest) JoinRequestView {
	return JoinRequestView{ID: r.ID, TenantID: r.TenantID, ConnectionID: r.ConnectionID, Invite: maskInvite(r.Invite), Title: r.Title,
		State: r.State, Reason: r.Reason, ChannelURL: r.ChannelURL, AskedBy: r.AskedBy, DecidedBy: r.DecidedBy,
		CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt}
}

// maskInvite hides the middle of an invite link's code, as seed 003
// shows invite hashes: enough to tell two apart, not enough to join.
func maskInvite(invite string) string {
	i := strings.LastIndexAny(invite, "+/")
	if i < 0 {
		return "…"
	}
	code := []rune(invite[i+1:])
	if len(code) <= 8 {
		return invite[:i+1] + "…"
	}
	return invite[:i+1] + string(code[:4]) + "…" + string(code[len(code)-2:])
}

// auditJoin is what the audit log keeps of a request: whose, through
// which account, the chat's title and the outcome, not the link.
func auditJoin(r store.JoinRequest) map[string]any {
	m := map[string]any{"tenant_id": r.TenantID, "connection_id": r.ConnectionID, "title": r.Title, "state": r.State}
	if r.Reason != "" {
		m["reason"] = r.Reason
	}
	if r.ChannelURL != "" {
		m["channel_url"] = r.ChannelURL
	}
	return m
}

// AskJoinRequest is a tenant's request to join a chat.
type AskJoinRequest struct {
	TenantID     uuid.UUID
	ConnectionID uuid.UUID
	// Invite is the invite link as the person gave it.
	Invite string
	// Actor is who asked, for the request and the audit log.
	Actor string
}

// joinEnabled reads the operator's switch.
func (a *App) joinEnabled(ctx context.Context) error {
	s, err := a.Settings(ctx)
	if err != nil {
		return err
	}
	if !s.AccountJoin {
		return errorf(ErrForbidden, "%s", msgJoinOff)
	}
	return nil
}

// AskJoin stores a tenant's request to join the chat of an invite link
// through one of its accounts, pending an operator's decision. The
// account reads the invite first (joining nothing): a link that is not an
// invite, or one Telegram no longer knows, is refused here. An account
// that is a member already needs no approval: the request is joined at
// once.
func (a *App) AskJoin(ctx context.Context, req AskJoinRequest) (JoinRequestView, error) {
	ctx = store.WithTenant(ctx, req.TenantID)
	if err := a.joinEnabled(ctx); err != nil {
		return JoinRequestView{}, err
	}
	invite := strings.TrimSpace(req.Invite)
	switch {
	case invite == "":
		return JoinRequestView{}, errorf(ErrInvalid, "give the invite link to join, e.g. https://t.me/+AbCdEf012345")
	case len(invite) > maxInviteInput:
		return JoinRequestView{}, errorf(ErrInvalid, "the invite link is longer than %d characters; invite links are much shorter", maxInviteInput)
	}
	if a.adapters == nil {
		return JoinRequestView{}, errorf(ErrInvalid, "this process has no adapters; ask to join through a running instance")
	}
	c, credential, err := a.connectionCredential(ctx, req.TenantID, req.ConnectionID)
	if err != nil {
		return JoinRequestView{}, err
	}
	if c.Status != store.ConnectionActive {
		return JoinRequestView{}, errorf(ErrConflict, "connection %s needs signing in again (%s) before it can join anything", c.ID, c.Status)
	}
	checked, err := a.adapters.Join(ctx, c.AdapterID, c.Provider, credential, invite, true)
	if err != nil {
		return JoinRequestView{}, joinRefusal(err)
	}
	var r store.JoinRequest
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		r, err = tx.JoinRequestInsert(ctx, store.JoinRequest{TenantID: req.TenantID, ConnectionID: c.ID,
			Invite: checked.GetInvite(), Title: clip(checked.GetTitle(), 256), AskedBy: actorOr(req.Actor)})
		if err != nil {
			return err
		}
		if err := audit(ctx, tx, actorOr(req.Actor), "join.ask", "join_request:"+r.ID.String(), nil, auditJoin(r)); err != nil {
			return err
		}
		if checked.GetState() != adapterv1.JoinState_JOIN_STATE_JOINED {
			return nil
		}
		before := auditJoin(r)
		r.State, r.Reason, r.DecidedBy = store.JoinJoined, "the account is a member already", ActorSystem
		r.ChannelURL = checked.GetChannel().GetCanonicalUrl()
		if r, err = tx.JoinRequestDecide(ctx, r); err != nil {
			return err
		}
		return audit(ctx, tx, ActorSystem, "join.approve", "join_request:"+r.ID.String(), before, auditJoin(r))
	})
	if errors.Is(err, store.ErrConflict) {
		return JoinRequestView{}, errorf(ErrConflict, "this account has asked to join this invite already; the request is pending an operator's decision")
	}
	if err != nil {
		return JoinRequestView{}, err
	}
	a.log.InfoContext(ctx, "join requested", "tenant", req.TenantID, "request", r.ID, "connection", c.ID, "state", r.State)
	return joinRequestView(r), nil
}

// joinRefusal words an adapter's refusal of an invite for the person.
func joinRefusal(err error) error {
	var ae *adapterapi.Error
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.Code {
	case adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
		adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED,
		adapterv1.ErrorCode_ERROR_CODE_PRIVATE, adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND:
		return errorf(ErrInvalid, "cannot join: %s", ae.Message)
	}
	return err
}

// JoinRequests lists the tenant's join requests, newest first.
func (a *App) JoinRequests(ctx context.Context, tenantID uuid.UUID) ([]JoinRequestView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	list, err := a.store.JoinRequestList(ctx, tenantID, 200)
	if err != nil {
		return nil, err
	}
	out := make([]JoinRequestView, 0, len(list))
	for _, r := range list {
		out = append(out, joinRequestView(r))
	}
	return out, nil
}

// JoinRequest is one of the tenant's join requests.
func (a *App) JoinRequest(ctx context.Context, tenantID, id uuid.UUID) (JoinRequestView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	r, err := a.store.JoinRequestGet(ctx, tenantID, id)
	if isNotFound(err) {
		return JoinRequestView{}, errorf(ErrNotFound, "no join request with id %s", id)
	}
	if err != nil {
		return JoinRequestView{}, err
	}
	return joinRequestView(r), nil
}

// AdminJoinRequests lists every tenant's join requests in a state ("":
// any), oldest first: for operators.
func (a *App) AdminJoinRequests(ctx context.Context, state string, limit int) ([]JoinRequestView, error) {
	switch state {
	case "", store.JoinPending, store.JoinJoined, store.JoinRequested, store.JoinFailed, store.JoinDenied:
	default:
		return nil, errorf(ErrInvalid, "state must be pending, joined, requested, failed or denied, not %q", clip(state, 32))
	}
	if limit < 1 || limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	list, err := a.store.JoinRequestListAll(ctx, state, limit)
	if err != nil {
		return nil, err
	}
	out := make([]JoinRequestView, 0, len(list))
	for _, r := range list {
		out = append(out, joinRequestView(r))
	}
	return out, nil
}

// DecideJoin is an operator's decision on a join request.
type DecideJoin struct {
	ID uuid.UUID
	// Approve: join; else deny.
	Approve bool
	// Reason is the operator's word on a denial, shown to the tenant.
	Reason string
	// Actor is the operator, for the request and the audit log.
	Actor string
}

// AdminDecideJoin approves or denies a pending join request of any
// tenant. Approving asks the request's account to join: the request
// becomes joined (with the channel's link), requested (the chat's admins
// accept members), or failed with Telegram's reason. When Telegram asks
// the account to wait, or cannot be reached, the request stays pending
// with a note and an error says so: approve again later. Approving needs
// the switch on; denying never does.
func (a *App) AdminDecideJoin(ctx context.Context, d DecideJoin) (JoinRequestView, error) {
	reason := strings.TrimSpace(d.Reason)
	if len(reason) > maxJoinReason {
		return JoinRequestView{}, errorf(ErrInvalid, "the reason is longer than %d characters", maxJoinReason)
	}
	if d.Approve && reason != "" {
		return JoinRequestView{}, errorf(ErrInvalid, "a reason goes with a denial, not an approval")
	}
	tenantID, err := a.store.JoinRequestTenant(ctx, d.ID)
	if isNotFound(err) {
		return JoinRequestView{}, errorf(ErrNotFound, "no join request with id %s", d.ID)
	}
	if err != nil {
		return JoinRequestView{}, err
	}
	ctx = store.WithTenant(ctx, tenantID)
	if d.Approve {
		if err := a.joinEnabled(ctx); err != nil {
			return JoinRequestView{}, err
		}
	}
	r, err := a.store.JoinRequestGet(ctx, tenantID, d.ID)
	if err != nil {
		return JoinRequestView{}, err
	}
	if r.State != store.JoinPending {
		return JoinRequestView{}, errorf(ErrConflict, "join request %s is %s already; only a pending request is decided", r.ID, r.State)
	}
	actor := d.Actor
	if actor == "" {
		actor = "admin"
	}
	before := auditJoin(r)
	action := "join.deny"
	if !d.Approve {
		r.State, r.Reason = store.JoinDenied, reason
		if r.Reason == "" {
			r.Reason = "denied by an operator"
		}
	} else {
		action = "join.approve"
		if stay, err := a.join(ctx, &r); err != nil {
			return JoinRequestView{}, err
		} else if stay != nil {
			if err := a.store.InTx(ctx, func(tx *store.Tx) error {
				return tx.JoinRequestNote(ctx, tenantID, r.ID, stay.Message)
			}); err != nil {
				return JoinRequestView{}, err
			}
			return JoinRequestView{}, fmt.Errorf("join request %s stays pending: %w", r.ID, stay)
		}
	}
	r.DecidedBy = actor
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		if r, err = tx.JoinRequestDecide(ctx, r); err != nil {
			return err
		}
		return audit(ctx, tx, actor, action, "join_request:"+r.ID.String(), before, auditJoin(r))
	})
	if isNotFound(err) {
		return JoinRequestView{}, errorf(ErrConflict, "join request %s was decided by someone else meanwhile", d.ID)
	}
	if err != nil {
		return JoinRequestView{}, err
	}
	a.log.InfoContext(ctx, "join decided", "tenant", tenantID, "request", r.ID, "state", r.State)
	return joinRequestView(r), nil
}

// join asks the request's account to join and fills in the outcome. A
// refusal that waiting may lift (a rate limit, Telegram unreachable) is
// returned as stay: the request stays pending.
func (a *App) join(ctx context.Context, r *store.JoinRequest) (stay *adapterapi.Error, err error) {
	c, credential, err := a.connectionCredential(ctx, r.TenantID, r.ConnectionID)
	if errors.Is(err, ErrConflict) {
		r.State, r.Reason = store.JoinFailed, err.Error()
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if a.adapters == nil {
		return nil, errorf(ErrInvalid, "this process has no adapters; approve joins through a running instance")
	}
	resp, err := a.adapters.Join(ctx, c.AdapterID, c.Provider, credential, r.Invite, false)
	var ae *adapterapi.Error
	switch {
	case errors.As(err, &ae) && ae.Retryable:
		return ae, nil
	case errors.As(err, &ae):
		r.State, r.Reason = store.JoinFailed, ae.Message
		return nil, nil
	case err != nil:
		return nil, err
	}
	if t := resp.GetTitle(); t != "" {
		r.Title = clip(t, 256)
	}
	if resp.GetState() == adapterv1.JoinState_JOIN_STATE_REQUESTED {
		r.State, r.Reason = store.JoinRequested, "waiting for the channel's admins to accept the account"
		return nil, nil
	}
	r.State, r.Reason, r.ChannelURL = store.JoinJoined, "", resp.GetChannel().GetCanonicalUrl()
	return nil, nil
}
