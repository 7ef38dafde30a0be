package tgchannel

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
)

const testBot = "monitor_test_bot"

func TestRegistryDrivesHelpAndMenu(t *testing.T) {
	t.Parallel()
	r := newRegistry()
	var names []string
	for _, c := range r.commands {
		names = append(names, c.name)
	}
	require.Equal(t, []string{"start", "help", "list", "search", "get", "delete", "watch", "watches", "unwatch", "bind", "channels", "unbind", "account_add", "accounts", "account_remove", "join", "cancel", "download", "pin", "usage", "token", "web", "admin"}, names)
	// /admin is for operators: out of the menu and /help.
	require.True(t, r.find("admin").hidden)
	visible := r.commands[:len(r.commands)-1]
	for _, l := range locales {
		menu := r.menu(l)
		help := r.help(l, testBot)
		require.Len(t, menu, len(visible))
		require.NotContains(t, help, "/admin")
		require.NotEqual(t, "cmd.admin", r.find("admin").description(l), "a description in %s all the same", l)
		for i, c := range visible {
			require.Equal(t, c.name, menu[i].Command)
			require.NotEqual(t, c.descKey, c.description(l), "every command has a description in %s", l)
			require.Contains(t, menu[i].Description, c.description(l))
			require.LessOrEqual(t, len([]rune(menu[i].Description)), 256)
			require.Equal(t, strings.ToLower(c.name), c.name)
			require.Contains(t, help, c.usage()+" — "+c.description(l), "every command in /help")
		}
		require.Contains(t, help, "/get ID")
		require.Contains(t, help, "@"+testBot)
	}
	require.Equal(t, "ID — show a saved item", r.menu(langEN)[4].Description)
	require.Equal(t, "ID — 查看一条收藏", r.menu(langZH)[4].Description)
	require.True(t, strings.HasPrefix(r.help(langZH, testBot), "发给我一个帖子链接"), r.help(langZH, testBot))

	// A hidden command leaves both.
	r.commands[1].hidden = true
	require.Len(t, r.menu(langEN), len(visible)-1)
	require.NotContains(t, r.help(langEN, testBot), "/help —")
}

func msg(text, chatType string) channelapi.Update {
	return channelapi.Update{Kind: channelapi.UpdateMessage, Text: text, ChatType: chatType, ChatID: 1}
}

func TestRegistryParsesMessages(t *testing.T) {
	t.Parallel()
	r := newRegistry()
	id := uuid.New().String()

	req := r.parseMessage(msg("/list", "private"), testBot, langEN)
	require.Equal(t, "list", req.cmd.name)

	req = r.parseMessage(msg("@monitor_test_bot /get "+id[:8], "supergroup"), testBot, langEN)
	require.Equal(t, "get", req.cmd.name)
	require.Equal(t, []string{id[:8]}, req.args)

	req = r.parseMessage(msg("/DELETE@Monitor_Test_Bot "+id, "group"), testBot, langEN)
	require.Equal(t, "delete", req.cmd.name)

	// Argument checks come from the registry.
	req = r.parseMessage(msg("/get", "private"), testBot, langEN)
	require.Nil(t, req.cmd)
	require.Contains(t, req.problem, "Usage: /get ID")
	req = r.parseMessage(msg("/get abc", "private"), testBot, langEN)
	require.Contains(t, req.problem, `"abc" is not an item id`)
	req = r.parseMessage(msg("/get "+id+" more", "private"), testBot, langEN)
	require.Contains(t, req.problem, "Usage: /get ID")
	req = r.parseMessage(msg("/list 2", "private"), testBot, langEN)
	require.Contains(t, req.problem, "Usage: /list")
	req = r.parseMessage(msg("/start deep-link-payload", "private"), testBot, langEN)
	require.Equal(t, "start", req.cmd.name)

	// /token only in private chats.
	req = r.parseMessage(msg("/token@monitor_test_bot", "supergroup"), testBot, langEN)
	require.Nil(t, req.cmd)
	require.Contains(t, req.problem, "private chat")
	require.Equal(t, "token", r.parseMessage(msg("/token", "private"), testBot, langEN).cmd.name)

	require.Contains(t, r.parseMessage(msg("/nope", "private"), testBot, langEN).problem, "I don't know /nope")
	require.Contains(t, r.parseMessage(msg("/list@other_bot", "private"), testBot, langEN).problem, "another bot")

	// Links, from entities or plain words.
	u := msg("@monitor_test_bot look x.com/a/status/1, https://t.me/c/2.", "supergroup")
	u.Entities = []channelapi.Entity{
		{Type: "mention", Offset: 0, Length: 17},
		{Type: "url", Offset: 23, Length: 16},
		{Type: "url", Offset: 41, Length: 16},
	}
	require.Equal(t, []string{"https://x.com/a/status/1", "https://t.me/c/2"}, findLinks(u.Text, u.Entities))
	u.Text, u.Entities = "@monitor_test_bot look x.com/a/status/1, right?", u.Entities[:2]
	req = r.parseMessage(u, testBot, langEN)
	require.Equal(t, []string{"https://x.com/a/status/1"}, req.links)
	req = r.parseMessage(msg("https://x.com/a/status/1 https://x.com/a/status/1", "private"), testBot, langEN)
	require.Equal(t, []string{"https://x.com/a/status/1"}, req.links)
	req = r.parseMessage(msg("https://x.com/a/status/1 https://x.com/a/status/2", "private"), testBot, langEN)
	require.Equal(t, []string{"https://x.com/a/status/1", "https://x.com/a/status/2"}, req.links)
	var many []string
	for i := range maxLinks + 1 {
		many = append(many, fmt.Sprintf("https://x.com/a/status/%d", i+1))
	}
	req = r.parseMessage(msg(strings.Join(many, " "), "private"), testBot, langEN)
	require.Empty(t, req.links)
	require.Contains(t, req.problem, "send at most 10 per message")
	require.Contains(t, r.parseMessage(msg("hello there", "private"), testBot, langEN).problem, "Send me a link")
}

func TestRegistryValidatesCallbacks(t *testing.T) {
	t.Parallel()
	r := newRegistry()
	id := uuid.New()
	for _, data := range []string{
		callbackData(btnView, id),
		callbackData(btnSave, id),
		pageData(12, id),
		pageData(math.MaxInt16, id),
		callbackData(btnMore, id),
		callbackData(btnBatch, id),
		callbackData(btnStop, id),
	} {
		require.LessOrEqual(t, len(data), 64)
		b, arg, err := r.parseCallback(data)
		require.NoError(t, err, data)
		require.Equal(t, data[:1], b.prefix)
		require.Equal(t, data[2:], arg)
	}
	for _, bad := range []string{"", "v", "v:", "v:not-a-uuid", "z:" + id.String(), "l:1:" + id.String(), "l:2", "l:two:" + id.String()} {
		_, _, err := r.parseCallback(bad)
		require.Error(t, err, bad)
	}
}

func TestGroupFilter(t *testing.T) {
	t.Parallel()
	me := botIdentity{ID: 7000001, Username: testBot}
	ent := func(typ string, off, n int) models.MessageEntity {
		return models.MessageEntity{Type: models.MessageEntityType(typ), Offset: off, Length: n}
	}
	cases := []struct {
		name     string
		text     string
		entities []models.MessageEntity
		want     bool
	}{
		{"mention", "@monitor_test_bot https://x.com/a", []models.MessageEntity{ent("mention", 0, 17)}, true},
		{"mention any case, after emoji", "😀 hi @Monitor_Test_Bot", []models.MessageEntity{ent("mention", 6, 17)}, true},
		{"another bot's mention", "@other_bot_here hi", []models.MessageEntity{ent("mention", 0, 15)}, false},
		{"command addressed to us", "/list@monitor_test_bot", []models.MessageEntity{ent("bot_command", 0, 22)}, true},
		{"command for another bot", "/list@other_bot", []models.MessageEntity{ent("bot_command", 0, 15)}, false},
		{"bare command", "/list", []models.MessageEntity{ent("bot_command", 0, 5)}, false},
		{"plain text", "just chatting https://x.com/a", []models.MessageEntity{ent("url", 14, 15)}, false},
		{"mention as text without entity", "@monitor_test_bot", nil, false},
		{"text mention of the bot", "Monitor look", []models.MessageEntity{{Type: models.MessageEntityTypeTextMention, Offset: 0, Length: 7, User: &models.User{ID: me.ID}}}, true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, addressed(c.text, c.entities, me), c.name)
	}
}

func TestNormalizeDropsWhatIsNotOurs(t *testing.T) {
	t.Parallel()
	me := botIdentity{ID: 7000001, Username: testBot}
	alice := &models.User{ID: 42, FirstName: "Alice", LastName: "A", Username: "alice", LanguageCode: "en"}
	group := models.Chat{ID: -100, Type: models.ChatTypeSupergroup}
	private := models.Chat{ID: 42, Type: models.ChatTypePrivate}

	n, ok := normalize(&models.Update{ID: 5, Message: &models.Message{ID: 9, From: alice, Chat: private, Text: "hi",
		ReplyToMessage: &models.Message{ID: 3}}}, me)
	require.True(t, ok)
	require.Equal(t, channelapi.Update{UpdateID: 5, Kind: "message", From: channelapi.User{ID: 42, Username: "alice", DisplayName: "Alice A", Language: "en"},
		ChatID: 42, ChatType: "private", MessageID: 9, Text: "hi", ReplyToMessageID: 3}, n)

	// Group messages need to be addressed to us; captions count.
	_, ok = normalize(&models.Update{ID: 6, Message: &models.Message{ID: 10, From: alice, Chat: group, Text: "hello all"}}, me)
	require.False(t, ok)
	n, ok = normalize(&models.Update{ID: 7, Message: &models.Message{ID: 11, From: alice, Chat: group,
		Caption: "look @monitor_test_bot", CaptionEntities: []models.MessageEntity{{Type: "mention", Offset: 5, Length: 17}},
		Photo: []models.PhotoSize{{FileID: "x"}}}}, me)
	require.True(t, ok)
	require.Equal(t, "look @monitor_test_bot", n.Text)
	require.Equal(t, []channelapi.Entity{{Type: "mention", Offset: 5, Length: 17}}, n.Entities)
	require.Equal(t, "supergroup", n.ChatType)

	// Bots, empty messages, channels and edits are dropped.
	_, ok = normalize(&models.Update{ID: 8, Message: &models.Message{From: &models.User{ID: 1, IsBot: true}, Chat: private, Text: "hi"}}, me)
	require.False(t, ok)
	_, ok = normalize(&models.Update{ID: 9, Message: &models.Message{From: alice, Chat: private}}, me)
	require.False(t, ok)
	_, ok = normalize(&models.Update{ID: 10, EditedMessage: &models.Message{From: alice, Chat: private, Text: "x"}}, me)
	require.False(t, ok)

	// Button presses need no mention, in groups too.
	n, ok = normalize(&models.Update{ID: 11, CallbackQuery: &models.CallbackQuery{ID: "cb1", From: *alice, Data: "v:1",
		Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage, Message: &models.Message{ID: 20, Chat: group}}}}, me)
	require.True(t, ok)
	require.Equal(t, channelapi.Update{UpdateID: 11, Kind: "callback", From: channelapi.User{ID: 42, Username: "alice", DisplayName: "Alice A", Language: "en"},
		ChatID: -100, ChatType: "supergroup", MessageID: 20, CallbackID: "cb1", CallbackData: "v:1"}, n)
}

// Posts of public channels, and unaddressed messages of public
// supergroups, go to core as posts for their watchers, album id and all;
// a private channel's posts do not.
func TestNormalizeChannelPosts(t *testing.T) {
	t.Parallel()
	me := botIdentity{ID: 7000001, Username: testBot}
	alice := &models.User{ID: 42, FirstName: "Alice"}
	channel := models.Chat{ID: -1001234, Type: models.ChatTypeChannel, Title: "Harbour", Username: "Harbour_News"}

	n, ok := normalize(&models.Update{ID: 30, ChannelPost: &models.Message{ID: 77, Chat: channel, Caption: "fog",
		MediaGroupID: "1399", Photo: []models.PhotoSize{{FileID: "p"}}}}, me)
	require.True(t, ok)
	require.Equal(t, channelapi.Update{UpdateID: 30, Kind: "channel_post", ChatID: -1001234, ChatType: "channel",
		ChatUsername: "Harbour_News", MessageID: 77, MediaGroupID: "1399"}, n)

	_, ok = normalize(&models.Update{ID: 31, ChannelPost: &models.Message{ID: 78,
		Chat: models.Chat{ID: -1005678, Type: models.ChatTypeChannel, Title: "Private"}, Text: "secret"}}, me)
	require.False(t, ok, "a private channel's post")

	public := models.Chat{ID: -1009, Type: models.ChatTypeSupergroup, Username: "harbour_chat"}
	n, ok = normalize(&models.Update{ID: 32, Message: &models.Message{ID: 5, From: alice, Chat: public, Text: "hello all"}}, me)
	require.True(t, ok)
	require.Equal(t, "channel_post", n.Kind)
	require.Equal(t, "harbour_chat", n.ChatUsername)
	n, ok = normalize(&models.Update{ID: 33, Message: &models.Message{ID: 6, From: alice, Chat: public, Text: "/list@monitor_test_bot",
		Entities: []models.MessageEntity{{Type: "bot_command", Offset: 0, Length: 22}}}}, me)
	require.True(t, ok)
	require.Equal(t, "message", n.Kind, "a command to the bot stays a command")
}

func TestRenderList(t *testing.T) {
	t.Parallel()
	var items []channelapi.Item
	for i := range 3 {
		items = append(items, channelapi.Item{ID: uuid.New(), SourceURL: "https://x.com/a/status/" + string(rune('1'+i)),
			Summary: "Author：第" + string(rune('1'+i)) + "条\n帖子 😀 [图片]"})
	}
	items[2].SourceURL = ""
	m := renderList(langEN, items, 2, true)
	require.True(t, strings.HasPrefix(m.text, "📚 Your archive — page 2\n\n11. Author：第1条 帖子 😀 [图片]\n\n12. "), m.text)
	require.Len(t, m.entities, 2, "a text link per item with a source")
	for i, e := range m.entities {
		require.Equal(t, models.MessageEntityTypeTextLink, e.Type)
		require.Equal(t, foldSummary(items[i].Summary), utf16Slice(m.text, e.Offset, e.Length))
		require.Equal(t, items[i].SourceURL, e.URL)
	}
	require.Len(t, m.kb.InlineKeyboard, 4)
	require.Equal(t, "v:"+items[0].ID.String(), m.kb.InlineKeyboard[0][0].CallbackData)
	require.Equal(t, items[0].SourceURL, m.kb.InlineKeyboard[0][1].URL)
	require.Len(t, m.kb.InlineKeyboard[2], 1, "no original button without a source")
	require.Equal(t, "l:3:"+items[2].ID.String(), m.kb.InlineKeyboard[3][0].CallbackData)

	require.Contains(t, renderList(langEN, nil, 1, false).text, "empty")
	require.Nil(t, renderList(langEN, nil, 1, false).kb)
}

func TestRenderDetailAndResult(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC)
	it := channelapi.Item{ID: uuid.New(), AuthorName: "Archivist", Text: "Hello\nworld", PublishedAt: &at,
		SourceURL: "https://x.com/a/status/1", Media: []channelapi.Media{{Kind: "image"}, {Kind: "image"}, {Kind: "video"}}}
	d := renderDetail(langEN, it)
	require.Len(t, d, 1)
	require.Equal(t, "🆔 "+it.ID.String()+"\n👤 Archivist\n🕒 2026-03-02 07:00 (UTC+8)\n📎 2 photos · 1 video\n\nHello\nworld", d[0].text)
	require.Equal(t, "https://x.com/a/status/1", d[0].kb.InlineKeyboard[0][0].URL)

	it.PublishedAt = nil
	require.NotContains(t, renderDetail(langEN, it)[0].text, "🕒", "unknown times are left out")

	del := channelapi.Delivery{ChatID: -100, Public: true, Item: &it}
	kb := resultKeyboard(langEN, del)
	require.Len(t, kb.InlineKeyboard[0], 2)
	require.Equal(t, "s:"+it.ID.String(), kb.InlineKeyboard[0][1].CallbackData)
	del.ChatID = 42
	require.Len(t, resultKeyboard(langEN, del).InlineKeyboard[0], 1, "no save-too in private chats")
	require.Contains(t, resultText(langEN, del, []string{"⚠️ note"}), "Hello\nworld\n\n🆔 "+it.ID.String()+"\n⚠️ note")
}

func TestMediaPlanning(t *testing.T) {
	t.Parallel()
	none := func(int) bool { return false }
	photos := make([]string, 12)
	for i := range photos {
		photos[i] = repPhoto
	}
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, planBatch(photos, 0, none))
	require.Equal(t, []int{10, 11}, planBatch(photos, 10, none))

	mixed := []string{repPhoto, repVideo, repAnimation, repPhoto, repDocument, repDocument, "", repPhoto}
	require.Equal(t, []int{0, 1}, planBatch(mixed, 0, none))
	require.Equal(t, []int{2}, planBatch(mixed, 2, none), "an animation goes alone")
	require.Equal(t, []int{3}, planBatch(mixed, 3, none))
	require.Equal(t, []int{4, 5}, planBatch(mixed, 4, none))
	require.Equal(t, []int{0}, planBatch(mixed, 0, func(i int) bool { return i == 1 }))

	require.Equal(t, repPhoto, representation(channelapi.Media{Kind: "image", Size: 1 << 20, Width: 1200, Height: 800}, maxUploadBytes))
	require.Equal(t, repDocument, representation(channelapi.Media{Kind: "image", Size: 11 << 20}, maxUploadBytes))
	require.Equal(t, repDocument, representation(channelapi.Media{Kind: "image", Size: 1, Width: 100, Height: 3000}, maxUploadBytes), "too narrow for a photo")
	require.Equal(t, repVideo, representation(channelapi.Media{Kind: "video", Size: 20 << 20}, maxUploadBytes))
	require.Equal(t, repAnimation, representation(channelapi.Media{Kind: "gif", Size: 1}, maxUploadBytes))
	require.Equal(t, repDocument, representation(channelapi.Media{Kind: "audio", Size: 1}, maxUploadBytes))
	require.Equal(t, "", representation(channelapi.Media{Kind: "video", Size: 51 << 20}, maxUploadBytes), "over the bot upload limit")
	require.Equal(t, repVideo, representation(channelapi.Media{Kind: "video", Size: 51 << 20}, localUploadBytes), "a local Bot API server takes it")
	require.Equal(t, int64(maxUploadBytes), uploadLimit("https://api.telegram.org/", 0))
	require.Equal(t, int64(localUploadBytes), uploadLimit("http://127.0.0.1:8081", 0))
	require.Equal(t, int64(5), uploadLimit("http://127.0.0.1:8081", 5))
	require.Equal(t, "0123456789abcdef.jpg", fileName(channelapi.Media{SHA256: "0123456789abcdef0123", Mime: "image/jpeg"}))
}

func TestLimiterPacesChats(t *testing.T) {
	t.Parallel()
	l := newLimiter(50*time.Millisecond, time.Millisecond)
	ctx := t.Context()
	start := time.Now()
	require.NoError(t, l.wait(ctx, 1, true))
	require.NoError(t, l.wait(ctx, 2, true)) // another chat: no wait
	require.Less(t, time.Since(start), 40*time.Millisecond)
	require.NoError(t, l.wait(ctx, 1, true))
	require.GreaterOrEqual(t, time.Since(start), 45*time.Millisecond)
	l.hold(2, 80*time.Millisecond)
	require.NoError(t, l.wait(ctx, 2, true))
	require.GreaterOrEqual(t, time.Since(start), 75*time.Millisecond)
}
