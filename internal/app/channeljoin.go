package app

import (
	"context"

	"github.com/google/uuid"
)

// ChannelJoin is the bot's /join LINK: the item's tenant asks that its
// default account of the invite link's adapter join the channel, pending
// an operator's decision (joins.go).
func (a *App) ChannelJoin(ctx context.Context, id uuid.UUID, owner, invite string) (JoinRequestView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return JoinRequestView{}, err
	}
	if err := privateJob(j); err != nil {
		return JoinRequestView{}, forbidden("/join works only in a private chat with the bot")
	}
	if err := a.joinEnabled(j.ctx); err != nil {
		return JoinRequestView{}, err
	}
	if a.adapters == nil {
		return JoinRequestView{}, errorf(ErrInvalid, "this process has no adapters; ask to join through a running instance")
	}
	ad, err := a.adapters.Route(invite)
	if err != nil {
		return JoinRequestView{}, errorf(ErrInvalid, "not a Telegram invite link; give a link like https://t.me/+AbCdEf012345")
	}
	conn, err := a.store.TenantPreferenceGet(j.ctx, j.tenantID, ad.ID())
	if isNotFound(err) {
		return JoinRequestView{}, errorf(ErrInvalid, "no %s account is connected to join with; connect one with /account_add first", ad.ID())
	}
	if err != nil {
		return JoinRequestView{}, err
	}
	return a.AskJoin(j.ctx, AskJoinRequest{TenantID: j.tenantID, ConnectionID: conn, Invite: invite, Actor: ActorChannel})
}
