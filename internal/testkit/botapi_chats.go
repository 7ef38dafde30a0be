package testkit

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Channels and supergroups the bot may be bound to: the test adds them
// with the bot's rights and their administrators; the fake then answers
// getChat, getChatMember and pinChatMessage for them, and refuses sends
// the way Telegram does when the bot may not post (or the chat is gone).

// ChatRights is how an added chat treats the bot and who runs it.
type ChatRights struct {
	// Bot is the bot's status: "administrator", "member", "left" or
	// "kicked" ("" = "administrator").
	Bot string
	// CanPost, CanEdit, CanPin are the bot administrator's
	// can_post_messages (channels), can_edit_messages (channels: needed to
	// pin) and can_pin_messages (supergroups).
	CanPost, CanEdit, CanPin bool
	// Admins maps the users who administer the chat to "creator" or
	// "administrator"; everyone else is "left".
	Admins map[int64]string
}

// AddChat adds a channel (Type "" = "channel") or supergroup with the
// bot's rights in it.
func (f *BotAPI) AddChat(ch BotChannel, r ChatRights) {
	if ch.ID >= 0 {
		f.t.Fatalf("testkit: a channel needs a negative id, got %d", ch.ID)
	}
	if ch.Type == "" {
		ch.Type = "channel"
	}
	if r.Bot == "" {
		r.Bot = "administrator"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.chats[ch.ID] = &botChat{id: ch.ID, typ: ch.Type, title: ch.Title, username: ch.Username, nextID: 1,
		messages: map[int64]*botStored{}, rights: &r}
}

// SetChatRights changes the bot's rights (or status) in an added chat,
// e.g. Bot "kicked" when the channel removed the bot.
func (f *BotAPI) SetChatRights(chatID int64, r ChatRights) {
	if r.Bot == "" {
		r.Bot = "administrator"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.chats[chatID]; ok {
		c.rights = &r
	}
}

// DeleteChat removes a chat: every later call about it is "chat not found".
func (f *BotAPI) DeleteChat(chatID int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.chats, chatID)
}

// Pinned lists the messages pinned in a chat, in the order they were.
func (f *BotAPI) Pinned(chatID int64) []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.chats[chatID]; ok {
		return slices.Clone(c.pinned)
	}
	return nil
}

// chatByRefLocked finds a chat by its id or "@username".
func (f *BotAPI) chatByRefLocked(ref string) (*botChat, bool) {
	ref = strings.TrimSpace(ref)
	if name, ok := strings.CutPrefix(ref, "@"); ok {
		for _, c := range f.chats {
			if c.username != "" && strings.EqualFold(c.username, name) {
				return c, true
			}
		}
		return nil, false
	}
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return nil, false
	}
	c, ok := f.chats[id]
	return c, ok
}

// sendRefusal is how Telegram refuses a send to an added chat the bot may
// not post in (nil: it may).
func (c *botChat) sendRefusal() *botError {
	r := c.rights
	if r == nil {
		return nil
	}
	switch {
	case r.Bot == "kicked":
		return &botError{status: http.StatusForbidden, description: "Forbidden: bot was kicked from the " + c.typ + " chat"}
	case r.Bot == "left" || (c.typ == "channel" && r.Bot != "administrator"):
		return &botError{status: http.StatusForbidden, description: "Forbidden: bot is not a member of the " + c.typ + " chat"}
	case c.typ == "channel" && !r.CanPost:
		return badRequest("need administrator rights in the channel chat")
	}
	return nil
}

// getChatLocked answers getChat: a public chat is seen by anyone, a
// private one only by a member.
func (f *BotAPI) getChatLocked(ref string) (any, *botError) {
	c, ok := f.chatByRefLocked(ref)
	if !ok || (c.rights != nil && c.username == "" && (c.rights.Bot == "left" || c.rights.Bot == "kicked")) {
		return nil, badRequest("chat not found")
	}
	out := map[string]any{"id": c.id, "type": c.typ, "accent_color_id": 0, "max_reaction_count": 11}
	if c.typ == "private" {
		out["first_name"] = c.title
	} else {
		out["title"] = c.title
	}
	if c.username != "" {
		out["username"] = c.username
	}
	return out, nil
}

// getChatMemberLocked answers getChatMember.
func (f *BotAPI) getChatMemberLocked(ref string, userID int64) (any, *botError) {
	c, ok := f.chatByRefLocked(ref)
	if !ok {
		return nil, badRequest("chat not found")
	}
	r := c.rights
	if r == nil {
		r = &ChatRights{Bot: "member"}
	}
	if userID == f.me.ID {
		me := f.me
		out := map[string]any{"status": r.Bot, "user": me}
		if r.Bot == "administrator" {
			out["can_be_edited"], out["can_manage_chat"] = false, true
			if c.typ == "channel" {
				out["can_post_messages"], out["can_edit_messages"] = r.CanPost, r.CanEdit
			} else {
				out["can_pin_messages"] = r.CanPin
			}
		}
		return out, nil
	}
	if c.typ == "channel" && r.Bot != "administrator" {
		return nil, badRequest("member list is inaccessible")
	}
	user := tgUser{ID: userID, FirstName: "User" + strconv.FormatInt(userID, 10)}
	switch status := r.Admins[userID]; status {
	case "creator":
		return map[string]any{"status": "creator", "user": user, "is_anonymous": false}, nil
	case "administrator":
		return map[string]any{"status": "administrator", "user": user, "can_be_edited": false, "can_manage_chat": true}, nil
	}
	return map[string]any{"status": "left", "user": user}, nil
}

// pinLocked answers pinChatMessage.
func (f *BotAPI) pinLocked(c *botChat, messageID int64) (any, *botError) {
	if err := c.sendRefusal(); err != nil {
		return nil, err
	}
	if r := c.rights; r != nil && (c.typ == "channel" && !r.CanEdit || c.typ == "supergroup" && !r.CanPin) {
		return nil, badRequest("not enough rights to manage pinned messages in the chat")
	}
	st, ok := c.messages[messageID]
	if !ok || st.deleted {
		return nil, badRequest("message to pin not found")
	}
	c.pinned = append(c.pinned, messageID)
	return true, nil
}
