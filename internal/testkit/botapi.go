package testkit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// Telegram's documented limits, which the fake enforces like the real API.
const (
	botMaxText      = 4096 // UTF-16 units of a message text
	botMaxCaption   = 1024 // UTF-16 units of a media caption
	botMaxAlbum     = 10
	botMaxCallback  = 64 // bytes of callback_data
	botMaxPollLimit = 100
)

// BotUser is a Telegram user who writes to the fake bot.
type BotUser struct {
	ID        int64
	FirstName string
	Username  string
	// LanguageCode is what the user's Telegram client reports ("" = "en").
	LanguageCode string
}

// PushedMessage names a message a test pushed as an update.
type PushedMessage struct {
	UpdateID  int64
	ChatID    int64
	MessageID int64
}

// BotCall is one Bot API call the fake received (getUpdates excepted), as
// the tests assert on it.
type BotCall struct {
	Method string
	At     time.Time
	ChatID int64
	// MessageID is the target of editMessageText and deleteMessage.
	MessageID int64
	// Text is the message text, the caption of a single media, or the
	// first caption of an album.
	Text     string
	Entities []BotEntity
	// ReplyTo is reply_parameters.message_id (or reply_to_message_id); 0 = none.
	ReplyTo int64
	// Media lists the media of send{Photo,Video,Animation,Document} and
	// sendMediaGroup, in order.
	Media []BotMedia
	// Buttons is the inline keyboard, row by row.
	Buttons [][]BotButton
	// UserID is getChatMember's user_id.
	UserID int64
	// CallbackQueryID, ShowAlert: answerCallbackQuery.
	CallbackQueryID string
	ShowAlert       bool
	// Commands and LanguageCode ("" = the default list): setMyCommands.
	Commands     []BotCommand
	LanguageCode string
	// Status is the HTTP status answered (0 when the client went away
	// first); Error and RetryAfter describe a failure.
	Status     int
	Error      string
	RetryAfter int
	// Result holds the ids of the messages sent or edited.
	Result []int64
}

// OK reports whether the call succeeded.
func (c BotCall) OK() bool { return c.Status == http.StatusOK }

// HasSpoiler reports whether any media of the call asked for a spoiler.
func (c BotCall) HasSpoiler() bool {
	for _, m := range c.Media {
		if m.HasSpoiler {
			return true
		}
	}
	return false
}

// Button returns the first button with the text (substring match) and
// whether there is one.
func (c BotCall) Button(text string) (BotButton, bool) {
	for _, row := range c.Buttons {
		for _, b := range row {
			if strings.Contains(b.Text, text) {
				return b, true
			}
		}
	}
	return BotButton{}, false
}

// BotMedia is one media of a send call.
type BotMedia struct {
	Kind string // photo, video, animation, document, audio
	// Uploaded is true when the bytes came with the request; otherwise
	// FileID names a file the fake issued earlier.
	Uploaded bool
	FileID   string
	Filename string
	Size     int64
	SHA256   string
	// HasSpoiler is the media's has_spoiler flag.
	HasSpoiler bool
	Caption    string
}

// BotButton is one inline keyboard button.
type BotButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

// BotCommand is one entry of setMyCommands.
type BotCommand struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// BotEntity is a message entity in UTF-16 units.
type BotEntity struct {
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	URL    string `json:"url,omitempty"`
}

// BotMessage is a message as it stands in a chat now (after edits).
type BotMessage struct {
	ID      int64
	FromBot bool
	Kind    string // text, photo, video, animation, document, audio
	Text    string // text or caption
	Buttons [][]BotButton
	ReplyTo int64
	Spoiler bool
	Deleted bool
	Edits   int
}

// BotBlock holds matching calls until released; see BotAPI.Block.
type BotBlock struct {
	method  string
	match   func(BotCall) bool
	arrived chan struct{}
	release chan struct{}
	aOnce   sync.Once
	rOnce   sync.Once
}

// Arrived is closed when a matching call has arrived and is being held.
func (b *BotBlock) Arrived() <-chan struct{} { return b.arrived }

// Release lets the held call (and later matching calls) proceed.
func (b *BotBlock) Release() { b.rOnce.Do(func() { close(b.release) }) }

type botFault struct {
	status      int
	description string
	retryAfter  int
}

type botFile struct {
	kind   string
	size   int64
	sha256 string
	unique string
}

type botChat struct {
	id       int64
	typ      string
	title    string
	username string
	nextID   int64
	messages map[int64]*botStored
	// rights is set for a chat the test added (AddChat).
	rights *ChatRights
	pinned []int64
}

type botStored struct {
	msg     tgMessage
	fromBot bool
	kind    string
	deleted bool
	edits   int
	markup  string
}

// BotAPI is a fake Telegram Bot API on an httptest server. It serves
// /bot<token>/<method> for getUpdates (a long poll honouring offset,
// limit and timeout over updates the test pushes), getMe, setMyCommands,
// sendMessage, editMessageText, deleteMessage, sendPhoto, sendVideo,
// sendAnimation, sendDocument, sendMediaGroup and answerCallbackQuery,
// accepting JSON, URL-encoded and multipart bodies. It answers realistic
// Message objects (ids per chat, photo sizes, file ids it then accepts as
// media), enforces Telegram's limits (text, caption, album size and mix,
// callback data, reply targets, "message is not modified"), records every
// call, and injects faults: errors and 429s on the next call of a method,
// rejected media kinds, forgotten file ids and held calls. All methods are
// safe for concurrent use.
type BotAPI struct {
	t     testing.TB
	srv   *httptest.Server
	token string
	me    tgUser

	mu          sync.Mutex
	wake        chan struct{} // closed and replaced when updates arrive
	updates     []tgUpdate
	nextUpdate  int64
	offset      int64
	pollGen     int
	polls       int
	conflicts   int
	chats       map[int64]*botChat
	files       map[string]botFile
	fileSeq     int
	calls       []BotCall
	faults      map[string][]botFault
	rejectKinds map[string]string
	blocks      []*BotBlock
	commands    map[string][]BotCommand // by language_code
	callbacks   map[string]bool
	callbackSeq int
	// allowed is the last non-empty allowed_updates of getUpdates (nil:
	// every kind), which Telegram keeps until it is changed.
	allowed []string
}

// NewBotAPI starts a fake Bot API for the test, for a bot with id 7000001
// and username monitor_test_bot; it is closed when the test ends.
func NewBotAPI(t testing.TB) *BotAPI {
	t.Helper()
	f := &BotAPI{
		t:           t,
		token:       "7000001:AAF-fake-token-for-tests",
		me:          tgUser{ID: 7000001, IsBot: true, FirstName: "Monitor", Username: "monitor_test_bot"},
		wake:        make(chan struct{}),
		nextUpdate:  100,
		chats:       map[int64]*botChat{},
		files:       map[string]botFile{},
		faults:      map[string][]botFault{},
		rejectKinds: map[string]string{},
		callbacks:   map[string]bool{},
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the server's base URL (the Bot API URL without /bot<token>).
func (f *BotAPI) URL() string { return f.srv.URL }

// Token is the bot token the fake accepts.
func (f *BotAPI) Token() string { return f.token }

// BotID is the bot's user id.
func (f *BotAPI) BotID() int64 { return f.me.ID }

// Username is the bot's username, without @.
func (f *BotAPI) Username() string { return f.me.Username }

// CloseConnections drops every open connection, as a network failure
// would.
func (f *BotAPI) CloseConnections() { f.srv.CloseClientConnections() }

// ---- updates the test pushes -------------------------------------------

// PushPrivateMessage queues a text message from the user in their private
// chat with the bot.
func (f *BotAPI) PushPrivateMessage(from BotUser, text string) PushedMessage {
	return f.pushMessage(from.ID, from, text, false)
}

// PushGroupMessage queues a text message from the user in a group (chatID
// negative). Entities (bot_command, mention, url) are detected the way
// Telegram does.
func (f *BotAPI) PushGroupMessage(chatID int64, from BotUser, text string) PushedMessage {
	if chatID >= 0 {
		f.t.Fatalf("testkit: group chat ids are negative, got %d", chatID)
	}
	return f.pushMessage(chatID, from, text, false)
}

// PushCaptionMessage queues a photo with a caption (and caption entities)
// from the user, in a group when chatID is negative, else in their private
// chat.
func (f *BotAPI) PushCaptionMessage(chatID int64, from BotUser, caption string) PushedMessage {
	if chatID >= 0 {
		chatID = from.ID
	}
	return f.pushMessage(chatID, from, caption, true)
}

func (f *BotAPI) pushMessage(chatID int64, from BotUser, text string, asCaption bool) PushedMessage {
	return f.pushReply(chatID, from, 0, text, asCaption)
}

// PushPrivateReply queues a private message from the user that replies
// to message replyTo of their chat (one the bot sent).
func (f *BotAPI) PushPrivateReply(from BotUser, replyTo int64, text string) PushedMessage {
	return f.pushReply(from.ID, from, replyTo, text, false)
}

func (f *BotAPI) pushReply(chatID int64, from BotUser, replyTo int64, text string, asCaption bool) PushedMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	chat := f.chatLocked(chatID, from)
	id := chat.nextID
	chat.nextID++
	msg := tgMessage{
		MessageID: id,
		From:      fromUser(from),
		Chat:      chat.tg(),
		Date:      time.Now().Unix(),
	}
	kind := "text"
	if asCaption {
		kind = "photo"
		msg.Caption = text
		msg.CaptionEntities = detectEntities(text)
		sum := sha256.Sum256([]byte(text))
		msg.Photo = f.photoSizesLocked(int64(len(text)+1000), hex.EncodeToString(sum[:]))
	} else {
		msg.Text = text
		msg.Entities = detectEntities(text)
	}
	if st, ok := chat.messages[replyTo]; ok && replyTo != 0 {
		r := st.msg
		r.ReplyToMessage = nil
		msg.ReplyToMessage = &r
	}
	chat.messages[id] = &botStored{msg: msg, kind: kind}
	u := f.queueLocked(tgUpdate{Message: &msg})
	return PushedMessage{UpdateID: u, ChatID: chatID, MessageID: id}
}

// PushCallback queues a press of a button with data on message messageID
// in the chat (a message the bot sent) by the user, and returns the
// callback query id.
func (f *BotAPI) PushCallback(chatID int64, from BotUser, messageID int64, data string) (updateID int64, callbackID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	chat := f.chatLocked(chatID, from)
	st, ok := chat.messages[messageID]
	if !ok || !st.fromBot {
		f.t.Fatalf("testkit: no bot message %d in chat %d to press a button of", messageID, chatID)
	}
	f.callbackSeq++
	callbackID = fmt.Sprintf("%d%06d", from.ID, f.callbackSeq)
	f.callbacks[callbackID] = true
	msg := st.msg
	cb := &tgCallback{
		ID: callbackID, From: *fromUser(from), Message: &msg,
		ChatInstance: strconv.FormatInt(chatID*7, 10), Data: data,
	}
	return f.queueLocked(tgUpdate{CallbackQuery: cb}), callbackID
}

// BotChannel is a channel (or, with Type "supergroup", a public group)
// the bot is an admin of. Username "" is a private channel.
type BotChannel struct {
	ID       int64 // negative, -100…
	Type     string
	Title    string
	Username string
}

// ChannelPost is a post to push from a BotChannel: text, or a photo with
// a caption; MediaGroupID makes it a part of an album.
type ChannelPost struct {
	MessageID    int64
	Text         string
	Photo        bool
	Caption      string
	MediaGroupID string
}

// PushChannelPost queues a post of a channel the bot is an admin of, in
// the Bot API's shape: a channel_post update whose message has the chat
// (id, type "channel", title, username), the channel as sender_chat, its
// message_id and date, text or caption and photo sizes, and the album's
// media_group_id. A supergroup's post comes as a message from a person.
func (f *BotAPI) PushChannelPost(ch BotChannel, p ChannelPost) PushedMessage {
	if ch.ID >= 0 || p.MessageID <= 0 {
		f.t.Fatalf("testkit: a channel post needs a negative chat id and a message id, got %d and %d", ch.ID, p.MessageID)
	}
	if ch.Type == "" {
		ch.Type = "channel"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	chat := tgChat{ID: ch.ID, Type: ch.Type, Title: ch.Title, Username: ch.Username}
	msg := tgMessage{MessageID: p.MessageID, Chat: chat, Date: time.Now().Unix(), MediaGroupID: p.MediaGroupID}
	if p.Photo {
		msg.Caption = p.Caption
		msg.CaptionEntities = detectEntities(p.Caption)
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d/%d", ch.ID, p.MessageID)))
		msg.Photo = f.photoSizesLocked(int64(len(p.Caption)+1000), hex.EncodeToString(sum[:]))
	} else {
		msg.Text = p.Text
		msg.Entities = detectEntities(p.Text)
	}
	u := tgUpdate{ChannelPost: &msg}
	if ch.Type == "channel" {
		msg.SenderChat = &chat
	} else {
		msg.From = fromUser(BotUser{ID: 555000111, FirstName: "Poster"})
		u = tgUpdate{Message: &msg}
	}
	return PushedMessage{UpdateID: f.queueLocked(u), ChatID: ch.ID, MessageID: p.MessageID}
}

// PushRaw queues an update given as JSON (without update_id, which the
// fake assigns) and returns its update id.
func (f *BotAPI) PushRaw(update json.RawMessage) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queueLocked(tgUpdate{raw: update})
}

func (f *BotAPI) queueLocked(u tgUpdate) int64 {
	u.UpdateID = f.nextUpdate
	f.nextUpdate++
	f.updates = append(f.updates, u)
	close(f.wake)
	f.wake = make(chan struct{})
	return u.UpdateID
}

func (f *BotAPI) chatLocked(chatID int64, from BotUser) *botChat {
	c, ok := f.chats[chatID]
	if !ok {
		c = &botChat{id: chatID, typ: "private", nextID: 1, messages: map[int64]*botStored{}}
		if chatID < 0 {
			c.typ, c.title = "supergroup", fmt.Sprintf("Group %d", -chatID)
		} else {
			c.title = from.FirstName
		}
		f.chats[chatID] = c
	}
	return c
}

func fromUser(u BotUser) *tgUser {
	name := u.FirstName
	if name == "" {
		name = "User" + strconv.FormatInt(u.ID, 10)
	}
	lang := u.LanguageCode
	if lang == "" {
		lang = "en"
	}
	return &tgUser{ID: u.ID, FirstName: name, Username: u.Username, LanguageCode: lang}
}

// Offset is the highest offset a getUpdates call confirmed: every update
// below it is gone.
func (f *BotAPI) Offset() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.offset
}

// Pending counts pushed updates not yet confirmed.
func (f *BotAPI) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.updates)
}

// Polls counts getUpdates calls.
func (f *BotAPI) Polls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls
}

// Conflicts counts getUpdates calls answered 409 Conflict because a newer
// getUpdates call took over, as Telegram answers a second poller.
func (f *BotAPI) Conflicts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conflicts
}

// ---- faults ---------------------------------------------------------------

// FailNext makes the next call of method answer status with description;
// retryAfter > 0 adds parameters.retry_after. Faults queue up per method.
func (f *BotAPI) FailNext(method string, status int, description string, retryAfter int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := strings.ToLower(method)
	f.faults[m] = append(f.faults[m], botFault{status: status, description: description, retryAfter: retryAfter})
}

// RateLimitNext makes the next call of method answer 429 with retry_after.
func (f *BotAPI) RateLimitNext(method string, retryAfter int) {
	f.FailNext(method, http.StatusTooManyRequests, fmt.Sprintf("Too Many Requests: retry after %d", retryAfter), retryAfter)
}

// RejectKind makes every later send of a media kind (photo, video,
// animation) fail with 400 and description, in single sends and albums,
// as Telegram does for media it cannot process; "" stops it. Documents are
// always accepted.
func (f *BotAPI) RejectKind(kind, description string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if description == "" {
		delete(f.rejectKinds, kind)
		return
	}
	f.rejectKinds[kind] = description
}

// ForgetFileIDs makes every file id issued so far invalid: sending one
// answers 400 "wrong file identifier".
func (f *BotAPI) ForgetFileIDs() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files = map[string]botFile{}
}

// Block holds the calls of method for which match (nil: any) returns true,
// after they are parsed and before they take effect, until Release; a
// call whose client goes away meanwhile takes no effect, as when a
// process dies mid-request.
func (f *BotAPI) Block(method string, match func(BotCall) bool) *BotBlock {
	b := &BotBlock{method: strings.ToLower(method), match: match, arrived: make(chan struct{}), release: make(chan struct{})}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blocks = append(f.blocks, b)
	return b
}

// ---- what was recorded ----------------------------------------------------

// Calls returns every recorded call so far, in order.
func (f *BotAPI) Calls() []BotCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]BotCall(nil), f.calls...)
}

// CallsOf returns the recorded calls of the methods, in order.
func (f *BotAPI) CallsOf(methods ...string) []BotCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []BotCall
	for _, c := range f.calls {
		for _, m := range methods {
			if strings.EqualFold(c.Method, m) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// ChatCalls returns the recorded calls addressed to a chat, in order.
func (f *BotAPI) ChatCalls(chatID int64) []BotCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []BotCall
	for _, c := range f.calls {
		if c.ChatID == chatID {
			out = append(out, c)
		}
	}
	return out
}

// Commands returns the last default command list set with setMyCommands.
func (f *BotAPI) Commands() []BotCommand { return f.CommandsFor("") }

// CommandsFor returns the last command list set with setMyCommands for
// users of a language_code ("" = the default list).
func (f *BotAPI) CommandsFor(languageCode string) []BotCommand {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]BotCommand(nil), f.commands[languageCode]...)
}

// ChatMessages returns the messages of a chat as they stand now, oldest
// first, deleted ones included (Deleted set).
func (f *BotAPI) ChatMessages(chatID int64) []BotMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return nil
	}
	out := make([]BotMessage, 0, len(c.messages))
	for id := int64(1); id < c.nextID; id++ {
		st, ok := c.messages[id]
		if !ok {
			continue
		}
		m := BotMessage{ID: id, FromBot: st.fromBot, Kind: st.kind, Deleted: st.deleted, Edits: st.edits,
			Text: st.msg.Text, Spoiler: st.msg.HasMediaSpoiler}
		if m.Text == "" {
			m.Text = st.msg.Caption
		}
		if st.msg.ReplyToMessage != nil {
			m.ReplyTo = st.msg.ReplyToMessage.MessageID
		}
		m.Buttons = parseKeyboard(st.markup)
		out = append(out, m)
	}
	return out
}

// ---- the server -----------------------------------------------------------

// botError is a Bot API error answer.
type botError struct {
	status      int
	description string
	retryAfter  int
}

func (e *botError) Error() string { return e.description }

func badRequest(format string, args ...any) *botError {
	return &botError{status: http.StatusBadRequest, description: "Bad Request: " + fmt.Sprintf(format, args...)}
}

func (f *BotAPI) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		writeBot(w, nil, &botError{status: http.StatusNotFound, description: "Not Found"})
		return
	}
	if token != f.token {
		writeBot(w, nil, &botError{status: http.StatusUnauthorized, description: "Unauthorized"})
		return
	}
	req, err := parseBotRequest(r)
	// Read the body to its end (a multipart reader stops at the closing
	// boundary), so that the server notices a client that goes away while
	// a call is held.
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeBot(w, nil, badRequest("%v", err))
		return
	}
	m := strings.ToLower(method)
	if m == "getupdates" {
		f.getUpdates(w, r, req)
		return
	}
	call := BotCall{Method: method, At: time.Now()}
	if err := f.describe(m, req, &call); err != nil {
		call.Status, call.Error = err.status, err.description
		f.record(call)
		writeBot(w, nil, err)
		return
	}
	if b := f.blockFor(m, call); b != nil {
		b.aOnce.Do(func() { close(b.arrived) })
		select {
		case <-b.release:
		case <-r.Context().Done():
			call.Error = "client went away while the call was held"
			f.record(call)
			return
		}
	}
	result, berr := f.apply(m, req, &call)
	if berr != nil {
		call.Status, call.Error, call.RetryAfter = berr.status, berr.description, berr.retryAfter
	} else {
		call.Status = http.StatusOK
	}
	f.record(call)
	writeBot(w, result, berr)
}

func (f *BotAPI) record(c BotCall) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
}

func (f *BotAPI) blockFor(method string, c BotCall) *BotBlock {
	f.mu.Lock()
	blocks := append([]*BotBlock(nil), f.blocks...)
	f.mu.Unlock()
	for _, b := range blocks {
		if b.method == method && (b.match == nil || b.match(c)) {
			return b
		}
	}
	return nil
}

func writeBot(w http.ResponseWriter, result any, err *botError) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		body := map[string]any{"ok": false, "error_code": err.status, "description": err.description}
		if err.retryAfter > 0 {
			body["parameters"] = map[string]any{"retry_after": err.retryAfter}
		}
		w.WriteHeader(err.status)
		_ = json.NewEncoder(w).Encode(body)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

// describe fills the call from the request's parameters, before any
// effect; it fails for requests Telegram would refuse outright.
func (f *BotAPI) describe(method string, req *botRequest, c *BotCall) *botError {
	switch method {
	case "getme", "setmycommands", "answercallbackquery":
	case "getchat", "getchatmember":
		ref := req.fields["chat_id"]
		if ref == "" {
			return badRequest("chat_id is empty")
		}
		f.mu.Lock()
		if ch, ok := f.chatByRefLocked(ref); ok {
			c.ChatID = ch.id
		}
		f.mu.Unlock()
		c.UserID, _ = req.int64("user_id")
	case "pinchatmessage", "sendmessage", "editmessagetext", "deletemessage", "sendphoto", "sendvideo",
		"sendanimation", "senddocument", "sendaudio", "sendmediagroup":
		id, err := req.int64("chat_id")
		if err != nil {
			return badRequest("chat_id is empty")
		}
		c.ChatID = id
	default:
		return &botError{status: http.StatusNotFound, description: "Not Found"}
	}
	c.MessageID, _ = req.int64("message_id")
	c.ReplyTo = req.replyTo()
	if s, ok := req.fields["text"]; ok {
		c.Text = s
	}
	if s, ok := req.fields["caption"]; ok {
		c.Text = s
	}
	if raw := req.fields["entities"]; raw != "" {
		_ = json.Unmarshal([]byte(raw), &c.Entities)
	}
	if raw := req.fields["caption_entities"]; raw != "" {
		_ = json.Unmarshal([]byte(raw), &c.Entities)
	}
	c.Buttons = parseKeyboard(req.fields["reply_markup"])
	c.CallbackQueryID = req.fields["callback_query_id"]
	c.ShowAlert = req.bool("show_alert")
	if method == "answercallbackquery" {
		c.Text = req.fields["text"]
	}
	if method == "setmycommands" {
		if err := json.Unmarshal([]byte(req.fields["commands"]), &c.Commands); err != nil {
			return badRequest("can't parse commands JSON object")
		}
		c.LanguageCode = req.fields["language_code"]
	}
	switch method {
	case "sendphoto", "sendvideo", "sendanimation", "senddocument", "sendaudio":
		kind := strings.TrimPrefix(method, "send")
		m, err := f.mediaOf(req, req.fields[kind], kind)
		if err != nil {
			return err
		}
		m.HasSpoiler = req.bool("has_spoiler")
		m.Caption = req.fields["caption"]
		c.Media = []BotMedia{m}
	case "sendmediagroup":
		var items []struct {
			Type       string `json:"type"`
			Media      string `json:"media"`
			Caption    string `json:"caption"`
			HasSpoiler bool   `json:"has_spoiler"`
		}
		if err := json.Unmarshal([]byte(req.fields["media"]), &items); err != nil {
			return badRequest("can't parse media JSON object")
		}
		for i, it := range items {
			m, err := f.mediaOf(req, it.Media, it.Type)
			if err != nil {
				return err
			}
			m.HasSpoiler, m.Caption = it.HasSpoiler, it.Caption
			c.Media = append(c.Media, m)
			if i == 0 {
				c.Text = it.Caption
			}
		}
	}
	return nil
}

// mediaOf resolves one media parameter: an uploaded part, attach://name
// or a file id the fake issued.
func (f *BotAPI) mediaOf(req *botRequest, value, kind string) (BotMedia, *botError) {
	m := BotMedia{Kind: kind}
	if up, ok := req.files[kind]; ok && value == "" {
		m.Uploaded, m.Filename, m.Size, m.SHA256 = true, up.filename, up.size, up.sha256
		return m, nil
	}
	if name, ok := strings.CutPrefix(value, "attach://"); ok {
		up, ok := req.files[name]
		if !ok {
			return m, badRequest("wrong HTTP URL specified")
		}
		m.Uploaded, m.Filename, m.Size, m.SHA256 = true, up.filename, up.size, up.sha256
		return m, nil
	}
	if value == "" {
		return m, badRequest("there is no %s in the request", kind)
	}
	m.FileID = value
	f.mu.Lock()
	file, ok := f.files[value]
	f.mu.Unlock()
	if !ok {
		return m, badRequest("wrong file identifier/HTTP URL specified")
	}
	if (file.kind == "photo") != (kind == "photo") {
		return m, badRequest("type of file mismatch")
	}
	m.Size, m.SHA256 = file.size, file.sha256
	return m, nil
}

// apply performs a described call and returns its result.
func (f *BotAPI) apply(method string, req *botRequest, c *BotCall) (any, *botError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if q := f.faults[method]; len(q) > 0 {
		f.faults[method] = q[1:]
		return nil, &botError{status: q[0].status, description: q[0].description, retryAfter: q[0].retryAfter}
	}
	switch method {
	case "getme":
		me := f.me
		return map[string]any{"id": me.ID, "is_bot": true, "first_name": me.FirstName, "username": me.Username,
			"can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false}, nil
	case "setmycommands":
		for _, cmd := range c.Commands {
			if cmd.Command == "" || len(cmd.Command) > 32 || strings.ToLower(cmd.Command) != cmd.Command || cmd.Description == "" || len([]rune(cmd.Description)) > 256 {
				return nil, badRequest("BOT_COMMAND_INVALID")
			}
		}
		if f.commands == nil {
			f.commands = map[string][]BotCommand{}
		}
		f.commands[c.LanguageCode] = c.Commands
		return true, nil
	case "getchat":
		return f.getChatLocked(req.fields["chat_id"])
	case "getchatmember":
		return f.getChatMemberLocked(req.fields["chat_id"], c.UserID)
	case "answercallbackquery":
		if !f.callbacks[c.CallbackQueryID] {
			return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
		}
		delete(f.callbacks, c.CallbackQueryID)
		if len([]rune(c.Text)) > 200 {
			return nil, badRequest("MESSAGE_TOO_LONG")
		}
		return true, nil
	}
	chat, ok := f.chats[c.ChatID]
	if !ok {
		return nil, badRequest("chat not found")
	}
	markup := req.fields["reply_markup"]
	if err := checkKeyboard(c.Buttons); err != nil {
		return nil, err
	}
	switch method {
	case "pinchatmessage":
		return f.pinLocked(chat, c.MessageID)
	case "sendmessage", "sendphoto", "sendvideo", "sendanimation", "senddocument", "sendaudio", "sendmediagroup":
		if err := chat.sendRefusal(); err != nil {
			return nil, err
		}
	}
	switch method {
	case "deletemessage":
		st, ok := chat.messages[c.MessageID]
		if !ok || st.deleted {
			return nil, badRequest("message to delete not found")
		}
		st.deleted = true
		return true, nil
	case "editmessagetext":
		st, ok := chat.messages[c.MessageID]
		if !ok || st.deleted {
			return nil, badRequest("message to edit not found")
		}
		if !st.fromBot {
			return nil, badRequest("message can't be edited")
		}
		if st.kind != "text" {
			return nil, badRequest("there is no text in the message to edit")
		}
		if err := checkText(c.Text, c.Entities); err != nil {
			return nil, err
		}
		if st.msg.Text == c.Text && st.markup == markup {
			return nil, badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
		}
		st.msg.Text, st.msg.Entities, st.markup = c.Text, toTgEntities(c.Entities), markup
		st.msg.ReplyMarkup = rawOrNil(markup)
		st.edits++
		c.Result = []int64{c.MessageID}
		return st.msg, nil
	}
	// Sends.
	var reply *tgMessage
	if c.ReplyTo != 0 {
		st, ok := chat.messages[c.ReplyTo]
		if !ok || st.deleted {
			if !req.allowNoReply() {
				return nil, badRequest("message to be replied not found")
			}
		} else {
			r := st.msg
			r.ReplyToMessage = nil
			reply = &r
		}
	}
	switch method {
	case "sendmessage":
		if err := checkText(c.Text, c.Entities); err != nil {
			return nil, err
		}
		msg := f.newMessageLocked(chat, reply, markup)
		msg.Text, msg.Entities = c.Text, toTgEntities(c.Entities)
		chat.messages[msg.MessageID] = &botStored{msg: msg, fromBot: true, kind: "text", markup: markup}
		c.Result = []int64{msg.MessageID}
		return msg, nil
	case "sendmediagroup":
		if len(c.Media) < 2 || len(c.Media) > botMaxAlbum {
			return nil, badRequest("too many messages to send as an album")
		}
		if markup != "" {
			return nil, badRequest("reply markup is not supported in media groups")
		}
		docs := 0
		for _, m := range c.Media {
			switch m.Kind {
			case "photo", "video", "document", "audio":
			default:
				return nil, badRequest("wrong media type %q in an album", m.Kind)
			}
			if m.Kind == "document" {
				docs++
			}
		}
		if docs != 0 && docs != len(c.Media) {
			return nil, badRequest("document can't be mixed with other media types")
		}
		for _, m := range c.Media {
			if err := f.checkMediaLocked(m); err != nil {
				return nil, err
			}
		}
		group := strconv.FormatInt(time.Now().UnixNano(), 10)
		out := make([]tgMessage, 0, len(c.Media))
		for i := range c.Media {
			msg := f.newMessageLocked(chat, reply, "")
			msg.MediaGroupID = group
			kind := f.attachLocked(&msg, &c.Media[i])
			chat.messages[msg.MessageID] = &botStored{msg: msg, fromBot: true, kind: kind}
			c.Result = append(c.Result, msg.MessageID)
			out = append(out, msg)
		}
		return out, nil
	default: // sendPhoto, sendVideo, sendAnimation, sendDocument, sendAudio
		if err := f.checkMediaLocked(c.Media[0]); err != nil {
			return nil, err
		}
		msg := f.newMessageLocked(chat, reply, markup)
		kind := f.attachLocked(&msg, &c.Media[0])
		chat.messages[msg.MessageID] = &botStored{msg: msg, fromBot: true, kind: kind, markup: markup}
		c.Result = []int64{msg.MessageID}
		return msg, nil
	}
}

func (f *BotAPI) checkMediaLocked(m BotMedia) *botError {
	if d, ok := f.rejectKinds[m.Kind]; ok && m.Kind != "document" {
		return &botError{status: http.StatusBadRequest, description: d}
	}
	if utf16Len(m.Caption) > botMaxCaption {
		return badRequest("message caption is too long")
	}
	if m.Uploaded && m.Size == 0 {
		return badRequest("file must be non-empty")
	}
	return nil
}

func (f *BotAPI) newMessageLocked(chat *botChat, reply *tgMessage, markup string) tgMessage {
	id := chat.nextID
	chat.nextID++
	me := f.me
	return tgMessage{
		MessageID: id, From: &me, Chat: chat.tg(), Date: time.Now().Unix(),
		ReplyToMessage: reply, ReplyMarkup: rawOrNil(markup),
	}
}

// attachLocked puts a sent media into msg, issuing file ids for uploads.
func (f *BotAPI) attachLocked(msg *tgMessage, m *BotMedia) string {
	spoiler := m.HasSpoiler && m.Kind != "document" && m.Kind != "audio"
	msg.Caption = m.Caption
	msg.HasMediaSpoiler = spoiler
	switch m.Kind {
	case "photo":
		msg.Photo = f.photoSizesLocked(m.Size, m.SHA256)
		if !m.Uploaded {
			// Re-sending a photo keeps its sizes' ids as issued.
			msg.Photo[len(msg.Photo)-1].FileID = m.FileID
		}
	case "video":
		msg.Video = f.fileLocked("video", m, &tgFile{Width: 1280, Height: 720, Duration: 5, MimeType: "video/mp4"})
	case "animation":
		msg.Animation = f.fileLocked("animation", m, &tgFile{Width: 480, Height: 270, Duration: 3, MimeType: "video/mp4", FileName: "animation.mp4"})
		doc := *msg.Animation
		msg.Document = &doc
	case "audio":
		msg.Audio = f.fileLocked("audio", m, &tgFile{Duration: 30, MimeType: "audio/mpeg", FileName: m.Filename})
	default:
		msg.Document = f.fileLocked("document", m, &tgFile{FileName: m.Filename, MimeType: mime.TypeByExtension(extOf(m.Filename))})
	}
	return m.Kind
}

func extOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i:]
	}
	return ""
}

func (f *BotAPI) issueLocked(kind string, size int64, sha string) (id, unique string) {
	f.fileSeq++
	var r [6]byte
	_, _ = rand.Read(r[:])
	prefix := map[string]string{"photo": "AgAC", "video": "BAAC", "animation": "CgAC", "document": "BQAC", "audio": "CQAC"}[kind]
	id = fmt.Sprintf("%sfake%06d%s", prefix, f.fileSeq, hex.EncodeToString(r[:]))
	unique = "AQAD" + sha[:min(12, len(sha))]
	f.files[id] = botFile{kind: kind, size: size, sha256: sha, unique: unique}
	return id, unique
}

func (f *BotAPI) photoSizesLocked(size int64, sha string) []tgPhotoSize {
	dims := [][2]int{{90, 60}, {320, 213}, {800, 533}, {1280, 853}}
	out := make([]tgPhotoSize, 0, len(dims))
	for i, d := range dims {
		s := size * int64(i+1) / int64(len(dims))
		id, unique := f.issueLocked("photo", size, sha)
		out = append(out, tgPhotoSize{FileID: id, FileUniqueID: unique + strconv.Itoa(i), Width: d[0], Height: d[1], FileSize: s})
	}
	return out
}

func (f *BotAPI) fileLocked(kind string, m *BotMedia, tmpl *tgFile) *tgFile {
	if m.Uploaded {
		tmpl.FileID, tmpl.FileUniqueID = f.issueLocked(kind, m.Size, m.SHA256)
	} else {
		tmpl.FileID, tmpl.FileUniqueID = m.FileID, f.files[m.FileID].unique
	}
	tmpl.FileSize = m.Size
	return tmpl
}

func checkText(text string, entities []BotEntity) *botError {
	n := utf16Len(text)
	if strings.TrimSpace(text) == "" {
		return badRequest("message text is empty")
	}
	if n > botMaxText {
		return badRequest("message is too long")
	}
	for _, e := range entities {
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > n {
			return badRequest("can't parse entities: entity beyond the end of the text")
		}
	}
	return nil
}

func checkKeyboard(rows [][]BotButton) *botError {
	for _, row := range rows {
		for _, b := range row {
			if b.Text == "" {
				return badRequest("text buttons are unallowed in the inline keyboard")
			}
			switch {
			case b.URL != "":
				if !strings.HasPrefix(b.URL, "https://") && !strings.HasPrefix(b.URL, "http://") && !strings.HasPrefix(b.URL, "tg://") {
					return badRequest("BUTTON_URL_INVALID")
				}
			case b.CallbackData == "" || len(b.CallbackData) > botMaxCallback:
				return badRequest("BUTTON_DATA_INVALID")
			}
		}
	}
	return nil
}

func parseKeyboard(raw string) [][]BotButton {
	if raw == "" {
		return nil
	}
	var kb struct {
		InlineKeyboard [][]BotButton `json:"inline_keyboard"`
	}
	if json.Unmarshal([]byte(raw), &kb) != nil {
		return nil
	}
	return kb.InlineKeyboard
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// ---- getUpdates -------------------------------------------------------------

func (f *BotAPI) getUpdates(w http.ResponseWriter, r *http.Request, req *botRequest) {
	offset, _ := req.int64("offset")
	limit, _ := req.int64("limit")
	if limit <= 0 || limit > botMaxPollLimit {
		limit = botMaxPollLimit
	}
	timeout, _ := req.int64("timeout")
	deadline := time.Now().Add(time.Duration(timeout) * time.Second)

	f.mu.Lock()
	f.polls++
	f.pollGen++
	gen := f.pollGen
	f.mu.Unlock()
	for {
		f.mu.Lock()
		if f.pollGen != gen {
			f.conflicts++
			f.mu.Unlock()
			writeBot(w, nil, &botError{status: http.StatusConflict, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"})
			return
		}
		if q := f.faults["getupdates"]; len(q) > 0 {
			f.faults["getupdates"] = q[1:]
			f.mu.Unlock()
			writeBot(w, nil, &botError{status: q[0].status, description: q[0].description, retryAfter: q[0].retryAfter})
			return
		}
		if offset > 0 {
			kept := f.updates[:0]
			for _, u := range f.updates {
				if u.UpdateID >= offset {
					kept = append(kept, u)
				}
			}
			f.updates = kept
			f.offset = max(f.offset, offset)
		}
		if raw := req.fields["allowed_updates"]; raw != "" {
			var kinds []string
			if json.Unmarshal([]byte(raw), &kinds) == nil && len(kinds) > 0 {
				f.allowed = kinds
			}
		}
		if f.allowed != nil {
			// Telegram never sends the kinds the bot did not ask for.
			kept := f.updates[:0]
			for _, u := range f.updates {
				if slices.Contains(f.allowed, u.kind()) {
					kept = append(kept, u)
				}
			}
			f.updates = kept
		}
		if n := min(int(limit), len(f.updates)); n > 0 || !time.Now().Before(deadline) {
			out := make([]json.RawMessage, 0, n)
			for _, u := range f.updates[:n] {
				out = append(out, u.encode())
			}
			f.mu.Unlock()
			writeBot(w, out, nil)
			return
		}
		wake := f.wake
		f.mu.Unlock()
		timer := time.NewTimer(time.Until(deadline))
		select {
		case <-wake:
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return
		}
		timer.Stop()
	}
}

// ---- request parsing --------------------------------------------------------

type botUpload struct {
	filename string
	size     int64
	sha256   string
}

// botRequest is a request's parameters: plain values (JSON values other
// than strings kept as JSON text) and uploaded files by field name.
type botRequest struct {
	fields map[string]string
	files  map[string]botUpload
}

func parseBotRequest(r *http.Request) (*botRequest, error) {
	req := &botRequest{fields: map[string]string{}, files: map[string]botUpload{}}
	for k, v := range r.URL.Query() {
		req.fields[k] = v[0]
	}
	if r.Body == nil || r.Method == http.MethodGet {
		return req, nil
	}
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var m map[string]json.RawMessage
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m); err != nil && err != io.EOF {
			return nil, fmt.Errorf("can't parse JSON: %v", err)
		}
		for k, raw := range m {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				req.fields[k] = s
			} else {
				req.fields[k] = string(raw)
			}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		for k, v := range r.PostForm {
			req.fields[k] = v[0]
		}
	case "multipart/form-data":
		if params["boundary"] == "" {
			return nil, fmt.Errorf("multipart without boundary")
		}
		mr, err := r.MultipartReader()
		if err != nil {
			return nil, err
		}
		for first := true; ; first = false {
			p, err := mr.NextPart()
			// An empty body (the SDK's calls without parameters) ends at once.
			if err == io.EOF || (first && errors.Is(err, io.EOF)) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("reading multipart: %v", err)
			}
			if p.FileName() != "" {
				h := sha256.New()
				n, err := io.Copy(h, p)
				if err != nil {
					return nil, fmt.Errorf("reading upload %s: %v", p.FormName(), err)
				}
				req.files[p.FormName()] = botUpload{filename: p.FileName(), size: n, sha256: hex.EncodeToString(h.Sum(nil))}
				continue
			}
			b, err := io.ReadAll(io.LimitReader(p, 1<<20))
			if err != nil {
				return nil, err
			}
			req.fields[p.FormName()] = string(b)
		}
	case "":
	default:
		return nil, fmt.Errorf("unsupported content type %q", ct)
	}
	return req, nil
}

func (r *botRequest) int64(name string) (int64, error) {
	return strconv.ParseInt(strings.TrimSpace(r.fields[name]), 10, 64)
}

func (r *botRequest) bool(name string) bool {
	v, _ := strconv.ParseBool(r.fields[name])
	return v
}

func (r *botRequest) replyTo() int64 {
	if raw := r.fields["reply_parameters"]; raw != "" {
		var p struct {
			MessageID int64 `json:"message_id"`
		}
		if json.Unmarshal([]byte(raw), &p) == nil {
			return p.MessageID
		}
	}
	id, _ := r.int64("reply_to_message_id")
	return id
}

func (r *botRequest) allowNoReply() bool {
	var p struct {
		Allow bool `json:"allow_sending_without_reply"`
	}
	_ = json.Unmarshal([]byte(r.fields["reply_parameters"]), &p)
	return p.Allow || r.bool("allow_sending_without_reply")
}

// ---- wire types ---------------------------------------------------------------

type tgUser struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
}

type tgChat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
}

func (c *botChat) tg() tgChat {
	if c.typ == "private" {
		return tgChat{ID: c.id, Type: c.typ, FirstName: c.title}
	}
	return tgChat{ID: c.id, Type: c.typ, Title: c.title, Username: c.username}
}

type tgPhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int64  `json:"file_size,omitempty"`
}

type tgFile struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width,omitempty"`
	Height       int    `json:"height,omitempty"`
	Duration     int    `json:"duration,omitempty"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
}

type tgEntity struct {
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	URL    string `json:"url,omitempty"`
}

func toTgEntities(es []BotEntity) []tgEntity {
	out := make([]tgEntity, 0, len(es))
	for _, e := range es {
		out = append(out, tgEntity(e))
	}
	return out
}

type tgMessage struct {
	MessageID       int64           `json:"message_id"`
	From            *tgUser         `json:"from,omitempty"`
	SenderChat      *tgChat         `json:"sender_chat,omitempty"`
	Chat            tgChat          `json:"chat"`
	Date            int64           `json:"date"`
	MediaGroupID    string          `json:"media_group_id,omitempty"`
	ReplyToMessage  *tgMessage      `json:"reply_to_message,omitempty"`
	Text            string          `json:"text,omitempty"`
	Entities        []tgEntity      `json:"entities,omitempty"`
	Caption         string          `json:"caption,omitempty"`
	CaptionEntities []tgEntity      `json:"caption_entities,omitempty"`
	Photo           []tgPhotoSize   `json:"photo,omitempty"`
	Video           *tgFile         `json:"video,omitempty"`
	Animation       *tgFile         `json:"animation,omitempty"`
	Document        *tgFile         `json:"document,omitempty"`
	Audio           *tgFile         `json:"audio,omitempty"`
	HasMediaSpoiler bool            `json:"has_media_spoiler,omitempty"`
	ReplyMarkup     json.RawMessage `json:"reply_markup,omitempty"`
}

type tgCallback struct {
	ID           string     `json:"id"`
	From         tgUser     `json:"from"`
	Message      *tgMessage `json:"message,omitempty"`
	ChatInstance string     `json:"chat_instance"`
	Data         string     `json:"data,omitempty"`
}

type tgUpdate struct {
	UpdateID      int64       `json:"update_id"`
	Message       *tgMessage  `json:"message,omitempty"`
	ChannelPost   *tgMessage  `json:"channel_post,omitempty"`
	CallbackQuery *tgCallback `json:"callback_query,omitempty"`
	raw           json.RawMessage
}

// kind is the update's kind as allowed_updates names it.
func (u tgUpdate) kind() string {
	switch {
	case u.Message != nil:
		return "message"
	case u.ChannelPost != nil:
		return "channel_post"
	case u.CallbackQuery != nil:
		return "callback_query"
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(u.raw, &m)
	for k := range m {
		if k != "update_id" {
			return k
		}
	}
	return ""
}

func (u tgUpdate) encode() json.RawMessage {
	if u.raw != nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(u.raw, &m) == nil {
			m["update_id"] = json.RawMessage(strconv.FormatInt(u.UpdateID, 10))
			b, _ := json.Marshal(m)
			return b
		}
	}
	b, _ := json.Marshal(u)
	return b
}

// ---- entities as Telegram detects them ---------------------------------------

// detectEntities finds bot commands, mentions and links in text, with
// UTF-16 offsets.
func detectEntities(text string) []tgEntity {
	units := utf16.Encode([]rune(text))
	var out []tgEntity
	isWord := func(c uint16) bool {
		return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
	}
	atStart := func(i int) bool { return i == 0 || units[i-1] == ' ' || units[i-1] == '\n' || units[i-1] == '\t' }
	for i := 0; i < len(units); {
		if !atStart(i) {
			i++
			continue
		}
		switch c := units[i]; {
		case c == '/':
			j := i + 1
			for j < len(units) && isWord(units[j]) {
				j++
			}
			if j > i+1 && j-i-1 <= 32 {
				if j < len(units) && units[j] == '@' {
					k := j + 1
					for k < len(units) && isWord(units[k]) {
						k++
					}
					if k-j-1 >= 5 {
						j = k
					}
				}
				out = append(out, tgEntity{Type: "bot_command", Offset: i, Length: j - i})
				i = j
				continue
			}
		case c == '@':
			j := i + 1
			for j < len(units) && isWord(units[j]) {
				j++
			}
			if j-i-1 >= 5 {
				out = append(out, tgEntity{Type: "mention", Offset: i, Length: j - i})
				i = j
				continue
			}
		case hasPrefixUnits(units[i:], "https://") || hasPrefixUnits(units[i:], "http://"):
			j := i
			for j < len(units) && units[j] != ' ' && units[j] != '\n' && units[j] != '\t' {
				j++
			}
			out = append(out, tgEntity{Type: "url", Offset: i, Length: j - i})
			i = j
			continue
		}
		i++
	}
	return out
}

func hasPrefixUnits(units []uint16, prefix string) bool {
	if len(units) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if units[i] != uint16(prefix[i]) {
			return false
		}
	}
	return true
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
