package telegram

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gotd/td/tg"
	"github.com/gotd/td/tgerr"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Joining a chat by invite link (Spore's /join): core calls Join only
// after an operator approved a tenant's request. The invite is read with
// messages.checkChatInvite (which joins nothing) and, unless check_only,
// accepted with messages.importChatInvite.

// maxInviteHash bounds an invite hash; Telegram's are 16 to 22
// characters.
const maxInviteHash = 64

// msgNotInvite is the refusal of a link that is not an invite link.
const msgNotInvite = "this is not a Telegram invite link; give a link like https://t.me/+AbCdEf012345 or https://t.me/joinchat/AbCdEf012345"

// parseInvite reads an invite link: t.me/+HASH, t.me/joinchat/HASH (also
// under telegram.me and telegram.dog, with or without https://) and
// tg://join?invite=HASH. It answers the hash.
func parseInvite(raw string) (string, *adapterv1.Error) {
	raw = strings.TrimSpace(raw)
	bad := kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, msgNotInvite)
	if raw == "" || len(raw) > kit.MaxURLLength {
		return "", bad
	}
	var hash string
	if rest, ok := strings.CutPrefix(strings.ToLower(raw), "tg://join?"); ok {
		q, err := url.ParseQuery(raw[len(raw)-len(rest):])
		if err != nil {
			return "", bad
		}
		hash = q.Get("invite")
	} else {
		if !strings.Contains(raw, "://") {
			raw = "https://" + raw
		}
		segs, resp := gate().Check(raw)
		if resp != nil || len(segs) == 0 {
			return "", bad
		}
		first, err := url.PathUnescape(segs[0])
		if err != nil {
			return "", bad
		}
		switch {
		case strings.HasPrefix(first, "+") && len(segs) == 1:
			hash = first[1:]
		case strings.EqualFold(first, "joinchat") && len(segs) == 2:
			hash = segs[1]
		default:
			return "", bad
		}
	}
	if hash == "" || len(hash) > maxInviteHash {
		return "", bad
	}
	for _, r := range hash {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return "", kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, "the invite link's code has characters Telegram's codes never have; copy the link again")
		}
	}
	// A "+" followed by digits is a phone number's page, not an invite.
	if _, err := strconv.ParseUint(hash, 10, 64); err == nil {
		return "", kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, "t.me/+<digits> is a phone number's page, not an invite link")
	}
	return hash, nil
}

// inviteURL is an invite's stable form.
func inviteURL(hash string) string { return "https://t.me/+" + hash }

// Join reads an invite link and, unless check_only, makes the session's
// account a member of its chat.
func (a *Adapter) Join(ctx context.Context, req *adapterv1.JoinRequest) (*adapterv1.JoinResponse, error) {
	if req.GetProviderId() != ProviderMTProto {
		return &adapterv1.JoinResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s joins nothing; joining takes a Telegram account (provider %s)", kit.Quote(req.GetProviderId()), ProviderMTProto))}, nil
	}
	hash, e := parseInvite(req.GetInvite())
	if e != nil {
		return &adapterv1.JoinResponse{Error: e}, nil
	}
	out := &adapterv1.JoinResponse{Invite: inviteURL(hash)}
	e = a.withSession(ctx, req.GetCredential(), func(ctx context.Context, api *tg.Client) error {
		return joinInvite(ctx, api, hash, req.GetCheckOnly(), out)
	})
	if e != nil {
		return &adapterv1.JoinResponse{Error: inviteError(e)}, nil
	}
	return out, nil
}

// joinInvite checks the invite and, unless checkOnly, imports it.
func joinInvite(ctx context.Context, api *tg.Client, hash string, checkOnly bool, out *adapterv1.JoinResponse) error {
	inv, err := api.MessagesCheckChatInvite(ctx, hash)
	if err != nil {
		return err
	}
	switch inv := inv.(type) {
	case *tg.ChatInviteAlready:
		return joined(inv.Chat, out)
	case *tg.ChatInvitePeek:
		// A preview the account may read for a while without joining.
		out.Title = chatTitle(inv.Chat)
	case *tg.ChatInvite:
		out.Title = inv.Title
		if !inv.Channel {
			return answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
				fmt.Sprintf("the invite leads to the group %s, not a channel; Monitor reads channels", kit.Quote(inv.Title))))
		}
	}
	if checkOnly {
		out.State = adapterv1.JoinState_JOIN_STATE_CHECKED
		return nil
	}
	updates, err := api.MessagesImportChatInvite(ctx, hash)
	switch {
	case tgerr.Is(err, "USER_ALREADY_PARTICIPANT"):
		// Joined meanwhile: the invite now names the chat.
		again, err := api.MessagesCheckChatInvite(ctx, hash)
		if err != nil {
			return err
		}
		if al, ok := again.(*tg.ChatInviteAlready); ok {
			return joined(al.Chat, out)
		}
		out.State = adapterv1.JoinState_JOIN_STATE_JOINED
		return nil
	case tgerr.Is(err, "INVITE_REQUEST_SENT"):
		out.State = adapterv1.JoinState_JOIN_STATE_REQUESTED
		return nil
	case err != nil:
		return err
	}
	for _, ch := range chatsOf(updates) {
		if _, ok := ch.(*tg.Channel); ok {
			return joined(ch, out)
		}
	}
	return answer(kit.BadResponse("Telegram accepted the invite but named no channel"))
}

// chatsOf are the chats an importChatInvite answer carries.
func chatsOf(u tg.UpdatesClass) []tg.ChatClass {
	switch u := u.(type) {
	case *tg.Updates:
		return u.Chats
	case *tg.UpdatesCombined:
		return u.Chats
	}
	return nil
}

// chatTitle is a chat's title.
func chatTitle(c tg.ChatClass) string {
	switch c := c.(type) {
	case *tg.Channel:
		return c.Title
	case *tg.Chat:
		return c.Title
	case *tg.ChannelForbidden:
		return c.Title
	}
	return ""
}

// joined fills out for a chat the account is a member of: a channel is
// a target, a public one by its username, a private one by its internal
// id (t.me/c/<id>).
func joined(c tg.ChatClass, out *adapterv1.JoinResponse) error {
	out.State = adapterv1.JoinState_JOIN_STATE_JOINED
	out.Title = chatTitle(c)
	ch, ok := c.(*tg.Channel)
	if !ok {
		return answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("the invite leads to the group %s, not a channel; Monitor reads channels", kit.Quote(out.Title))))
	}
	if name := channelUsername(ch); name != "" {
		out.Channel = channelTarget(strings.ToLower(name)).Target
	} else {
		out.Channel = privateChannelTarget(privateScope(strconv.FormatInt(ch.ID, 10))).Target
	}
	return nil
}

// inviteError words Telegram's refusals of an invite for people.
func inviteError(e *adapterv1.Error) *adapterv1.Error {
	msg := ""
	switch e.GetReason() {
	case "INVITE_HASH_EXPIRED":
		msg = "the invite link has expired or was revoked; ask the channel for a new one"
	case "INVITE_HASH_INVALID", "INVITE_HASH_EMPTY":
		msg = "Telegram does not know this invite link; copy it again, or ask the channel for a new one"
	case "CHANNELS_TOO_MUCH":
		msg = "this Telegram account is in too many channels and groups to join another; leave some first"
	case "USERS_TOO_MUCH":
		msg = "the channel has as many members as Telegram allows; no one can join it now"
	case "CHANNEL_PRIVATE":
		msg = "this account cannot join the channel: it was banned from it, or the invite is no longer valid"
	default:
		if e.GetCode() == adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED {
			e.Message = fmt.Sprintf("Telegram asked this account to wait %d seconds before joining; approve the request again later", e.GetRetryAfterSeconds())
		}
		return e
	}
	return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, Message: msg, Reason: e.GetReason()}
}
