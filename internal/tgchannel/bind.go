package tgchannel

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// Channel bindings: /bind checks with the Bot API that the bot may post in
// the channel (getChat, getChatMember of the bot) and that the person
// administers it (getChatMember of the person), then asks core to bind it;
// /channels lists the bound chats; /unbind ends one. Copies of each
// archived post go to the bound chats as copy work items (copy.go).

// errChatRef: the argument of /bind names no channel the bot can look up.
var errChatRef = errors.New("not a channel reference")

// errInviteLink: an invite link, which a bot cannot resolve.
var errInviteLink = errors.New("an invite link")

// usernameRe is a public Telegram username.
var usernameRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{3,31}$`)

// parseChatRef reads /bind's argument: @username, t.me/username,
// t.me/c/<id>[/post], -100<id> or a bare username. The result is the
// chat_id the Bot API takes (an int64 or "@username").
func parseChatRef(arg string) (any, error) {
	arg = strings.TrimSpace(arg)
	if id, err := strconv.ParseInt(arg, 10, 64); err == nil {
		if id >= 0 {
			return nil, errChatRef
		}
		return id, nil
	}
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		if !usernameRe.MatchString(name) {
			return nil, errChatRef
		}
		return "@" + name, nil
	}
	raw := arg
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, errChatRef
	}
	switch strings.ToLower(strings.TrimPrefix(u.Host, "www.")) {
	case "t.me", "telegram.me":
	default:
		if usernameRe.MatchString(arg) {
			return "@" + arg, nil
		}
		return nil, errChatRef
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) > 0 && parts[0] == "s" {
		parts = parts[1:]
	}
	switch {
	case len(parts) == 0 || parts[0] == "":
		return nil, errChatRef
	case strings.HasPrefix(parts[0], "+") || parts[0] == "joinchat":
		return nil, errInviteLink
	case parts[0] == "c" && len(parts) >= 2:
		n, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil || n <= 0 {
			return nil, errChatRef
		}
		return strconv.ParseInt("-100"+parts[1], 10, 64)
	case usernameRe.MatchString(parts[0]):
		return "@" + parts[0], nil
	}
	return nil, errChatRef
}

// chatName is how a bound chat is named to people: its title, and its
// @username when public.
func chatName(title, username string, id int64) string {
	switch {
	case title != "" && username != "":
		return title + " (@" + username + ")"
	case title != "":
		return title
	case username != "":
		return "@" + username
	}
	return strconv.FormatInt(id, 10)
}

func (j *job) cmdBind(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	ref, err := parseChatRef(args[0])
	switch {
	case errors.Is(err, errInviteLink):
		return j.reply(ctx, outMessage{text: j.lang.t("bind.invite")})
	case err != nil:
		return j.reply(ctx, outMessage{text: j.lang.t("bind.bad_ref", args[0])})
	}
	chat, err := j.ch.getChat(ctx, ref)
	if isChatUnreachable(err) {
		return j.reply(ctx, outMessage{text: j.lang.t("bind.unseen", args[0], j.ch.me.Username)})
	}
	if err != nil {
		return err
	}
	if chat.Type != models.ChatTypeChannel && chat.Type != models.ChatTypeSupergroup {
		return j.reply(ctx, outMessage{text: j.lang.t("bind.not_channel", args[0])})
	}
	name := chatName(chat.Title, chat.Username, chat.ID)
	me, err := j.ch.getChatMember(ctx, chat.ID, j.ch.me.ID)
	if isChatUnreachable(err) {
		return j.reply(ctx, outMessage{text: j.lang.t("bind.unseen", args[0], j.ch.me.Username)})
	}
	if err != nil {
		return err
	}
	if problem := botRightsProblem(j.lang, chat.Type, me); problem != "" {
		return j.reply(ctx, outMessage{text: j.lang.t("bind.bot_rights", name, problem)})
	}
	them, err := j.ch.getChatMember(ctx, chat.ID, j.w.Update.From.ID)
	if err != nil && !isBadRequest(err) {
		return err
	}
	if err != nil || (them.Type != models.ChatMemberTypeOwner && them.Type != models.ChatMemberTypeAdministrator) {
		return j.reply(ctx, outMessage{text: j.lang.t("bind.not_yours", name)})
	}
	r, err := j.ch.core.Bind(ctx, j.w.ID, channelapi.BindRequest{Owner: j.ch.owner, ChatID: chat.ID,
		ChatType: string(chat.Type), Username: chat.Username, Title: chat.Title})
	if channelapi.IsCode(err, channelapi.CodeConflict) {
		return j.reply(ctx, outMessage{text: j.lang.t("bind.taken", name)})
	}
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	if r.Already {
		return j.reply(ctx, outMessage{text: j.lang.t("bind.already", name)})
	}
	return j.reply(ctx, outMessage{text: j.lang.t("bind.done", name)})
}

// botRightsProblem names what the bot lacks to post in the chat, in l
// ("" = nothing): it must be an administrator, and in a channel one with
// the right to post messages (a supergroup's admins may always post).
func botRightsProblem(l locale, typ models.ChatType, m models.ChatMember) string {
	if m.Type != models.ChatMemberTypeAdministrator || m.Administrator == nil {
		return l.t("bind.right.admin")
	}
	if typ == models.ChatTypeChannel && !m.Administrator.CanPostMessages {
		return l.t("bind.right.post")
	}
	return ""
}

func (j *job) cmdChannels(ctx context.Context, _ []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	r, err := j.ch.core.Bindings(ctx, j.w.ID, j.ch.owner)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	if len(r.Bindings) == 0 {
		return j.reply(ctx, outMessage{text: j.lang.t("channels.empty")})
	}
	var b strings.Builder
	b.WriteString(j.lang.t("channels.head", len(r.Bindings)))
	for i, c := range r.Bindings {
		fmt.Fprintf(&b, "\n%d. %s · %d", i+1, chatName(c.Title, c.Username, c.ChatID), c.ChatID)
	}
	b.WriteString("\n\n" + j.lang.t("channels.hint"))
	return j.reply(ctx, outMessage{text: b.String()})
}

func (j *job) cmdUnbind(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	ref := ""
	if len(args) == 1 {
		ref = args[0]
		if r, err := parseChatRef(ref); err == nil {
			if id, ok := r.(int64); ok {
				ref = strconv.FormatInt(id, 10)
			} else if _, err := strconv.Atoi(ref); err != nil {
				ref = r.(string)
			}
		}
	}
	b, err := j.ch.core.Unbind(ctx, j.w.ID, channelapi.UnbindRequest{Owner: j.ch.owner, Ref: ref})
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, outMessage{text: j.lang.t("unbind.done", chatName(b.Title, b.Username, b.ChatID))})
}

// isChatUnreachable reports the Bot API saying the chat does not exist
// or the bot may not see it.
func isChatUnreachable(err error) bool {
	return errors.Is(err, bot.ErrorForbidden) || isBadRequest(err, "chat not found", "member list is inaccessible",
		"bot is not a member", "bot was kicked", "user not found", "PEER_ID_INVALID", "CHANNEL_PRIVATE")
}

// getChat looks a chat up by id or @username.
func (ch *channel) getChat(ctx context.Context, ref any) (*models.ChatFullInfo, error) {
	var c *models.ChatFullInfo
	err := ch.tg.call(ctx, 0, false, callTimeout, func(ctx context.Context) error {
		var err error
		c, err = ch.tg.bot.GetChat(ctx, &bot.GetChatParams{ChatID: ref})
		return err
	})
	return c, err
}

// getChatMember reads a user's membership (and rights) in a chat.
func (ch *channel) getChatMember(ctx context.Context, chatID, userID int64) (models.ChatMember, error) {
	var m *models.ChatMember
	err := ch.tg.call(ctx, 0, false, callTimeout, func(ctx context.Context) error {
		var err error
		m, err = ch.tg.bot.GetChatMember(ctx, &bot.GetChatMemberParams{ChatID: chatID, UserID: userID})
		return err
	})
	if err != nil || m == nil {
		return models.ChatMember{}, err
	}
	return *m, nil
}
