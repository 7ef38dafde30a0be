package testkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

func newSDK(t *testing.T, f *testkit.BotAPI) *bot.Bot {
	t.Helper()
	b, err := bot.New(f.Token(), bot.WithServerURL(f.URL()), bot.WithSkipGetMe())
	require.NoError(t, err)
	return b
}

// rawCall posts a JSON or form request and decodes the Bot API envelope.
func rawCall(t *testing.T, f *testkit.BotAPI, method, contentType string, body []byte) (ok bool, result json.RawMessage, description string) {
	t.Helper()
	resp, err := http.Post(f.URL()+"/bot"+f.Token()+"/"+method, contentType, bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		Description string          `json:"description"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	return env.OK, env.Result, env.Description
}

func TestBotAPIGetMeAndCommands(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	b := newSDK(t, f)
	ctx := context.Background()
	me, err := b.GetMe(ctx)
	require.NoError(t, err)
	require.Equal(t, f.BotID(), me.ID)
	require.Equal(t, f.Username(), me.Username)
	require.True(t, me.IsBot)

	_, err = b.SetMyCommands(ctx, &bot.SetMyCommandsParams{Commands: []models.BotCommand{
		{Command: "list", Description: "your archive"}, {Command: "help", Description: "what I can do"},
	}})
	require.NoError(t, err)
	require.Equal(t, []testkit.BotCommand{{Command: "list", Description: "your archive"}, {Command: "help", Description: "what I can do"}}, f.Commands())

	_, err = b.SetMyCommands(ctx, &bot.SetMyCommandsParams{Commands: []models.BotCommand{{Command: "Bad Command", Description: "x"}}})
	require.ErrorIs(t, err, bot.ErrorBadRequest)

	// A wrong token is refused.
	resp, err := http.Post(f.URL()+"/bot1:nope/getMe", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

func TestBotAPIGetUpdatesLongPollAndOffsets(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	alice := testkit.BotUser{ID: 501, FirstName: "Alice", Username: "alice"}

	poll := func(offset int64, timeout int) []models.Update {
		body, _ := json.Marshal(map[string]any{"offset": offset, "timeout": timeout})
		ok, res, desc := rawCall(t, f, "getUpdates", "application/json", body)
		require.True(t, ok, desc)
		var ups []models.Update
		require.NoError(t, json.Unmarshal(res, &ups))
		return ups
	}

	// An empty poll waits for its timeout.
	start := time.Now()
	require.Empty(t, poll(0, 1))
	require.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond)

	// A push wakes a waiting poll.
	polls := f.Polls()
	go func() {
		// Push once the poll below waits.
		for f.Polls() == polls {
			runtime.Gosched()
		}
		f.PushPrivateMessage(alice, "hello")
	}()
	start = time.Now()
	ups := poll(0, 10)
	require.Less(t, time.Since(start), 5*time.Second)
	require.Len(t, ups, 1)
	require.Equal(t, "hello", ups[0].Message.Text)
	require.Equal(t, int64(501), ups[0].Message.Chat.ID)
	require.Equal(t, models.ChatTypePrivate, ups[0].Message.Chat.Type)

	// Without a higher offset, the update comes again; with one, it is gone.
	p2 := f.PushPrivateMessage(alice, "second")
	require.Len(t, poll(0, 0), 2)
	require.Len(t, poll(ups[0].ID+1, 0), 1)
	require.Equal(t, ups[0].ID+1, f.Offset())
	require.Empty(t, poll(p2.UpdateID+1, 0))
	require.Equal(t, 0, f.Pending())
	require.Equal(t, int64(2), p2.MessageID, "message ids count per chat")
}

func TestBotAPIGroupEntitiesCaptionsAndCallbacks(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	bob := testkit.BotUser{ID: 502, FirstName: "Bob"}
	const group = -100777

	f.PushGroupMessage(group, bob, "@monitor_test_bot look https://x.com/a/status/1")
	f.PushGroupMessage(group, bob, "/list@monitor_test_bot 2")
	f.PushCaptionMessage(group, bob, "😀 @monitor_test_bot")
	body, _ := json.Marshal(map[string]any{"timeout": 0})
	ok, res, _ := rawCall(t, f, "getUpdates", "application/json", body)
	require.True(t, ok)
	var ups []models.Update
	require.NoError(t, json.Unmarshal(res, &ups))
	require.Len(t, ups, 3)
	m := ups[0].Message
	require.Equal(t, models.ChatTypeSupergroup, m.Chat.Type)
	require.Equal(t, []models.MessageEntity{
		{Type: models.MessageEntityTypeMention, Offset: 0, Length: 17},
		{Type: models.MessageEntityTypeURL, Offset: 23, Length: 24},
	}, m.Entities)
	require.Equal(t, []models.MessageEntity{{Type: models.MessageEntityTypeBotCommand, Offset: 0, Length: 22}}, ups[1].Message.Entities)
	c := ups[2].Message
	require.NotEmpty(t, c.Photo)
	require.Equal(t, []models.MessageEntity{{Type: models.MessageEntityTypeMention, Offset: 3, Length: 17}}, c.CaptionEntities, "offsets in UTF-16 units")

	// A callback needs a bot message; its answer is accepted once.
	b := newSDK(t, f)
	ctx := context.Background()
	sent, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: group, Text: "pick",
		ReplyMarkup: &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "view", CallbackData: "v:1"}}}}})
	require.NoError(t, err)
	_, cbID := f.PushCallback(group, bob, int64(sent.ID), "v:1")
	ok, res, _ = rawCall(t, f, "getUpdates", "application/json", body)
	require.True(t, ok)
	ups = nil
	require.NoError(t, json.Unmarshal(res, &ups))
	cb := ups[len(ups)-1].CallbackQuery
	require.NotNil(t, cb)
	require.Equal(t, "v:1", cb.Data)
	require.Equal(t, sent.ID, cb.Message.Message.ID)
	_, err = b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: cbID, Text: "ok"})
	require.NoError(t, err)
	_, err = b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: cbID, Text: "again"})
	require.ErrorIs(t, err, bot.ErrorBadRequest)
	answers := f.CallsOf("answerCallbackQuery")
	require.Len(t, answers, 2)
	require.Equal(t, "ok", answers[0].Text)
}

func TestBotAPITextJSONAndForm(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	carol := testkit.BotUser{ID: 503, FirstName: "Carol"}
	in := f.PushPrivateMessage(carol, "hi")

	body, _ := json.Marshal(map[string]any{"chat_id": 503, "text": "hello",
		"reply_parameters": map[string]any{"message_id": in.MessageID}})
	ok, res, desc := rawCall(t, f, "sendMessage", "application/json", body)
	require.True(t, ok, desc)
	var msg models.Message
	require.NoError(t, json.Unmarshal(res, &msg))
	require.Equal(t, 2, msg.ID)
	require.Equal(t, in.MessageID, int64(msg.ReplyToMessage.ID))

	form := url.Values{"chat_id": {"503"}, "message_id": {"2"}, "text": {"hello"}}
	ok, _, desc = rawCall(t, f, "editMessageText", "application/x-www-form-urlencoded", []byte(form.Encode()))
	require.False(t, ok)
	require.Contains(t, desc, "message is not modified")
	form.Set("text", "hello again")
	ok, _, desc = rawCall(t, f, "editMessageText", "application/x-www-form-urlencoded", []byte(form.Encode()))
	require.True(t, ok, desc)

	body, _ = json.Marshal(map[string]any{"chat_id": 503, "text": strings.Repeat("😀", 2049)})
	ok, _, desc = rawCall(t, f, "sendMessage", "application/json", body)
	require.False(t, ok)
	require.Contains(t, desc, "message is too long", "4098 UTF-16 units")

	body, _ = json.Marshal(map[string]any{"chat_id": 999, "text": "x"})
	ok, _, desc = rawCall(t, f, "sendMessage", "application/json", body)
	require.False(t, ok)
	require.Contains(t, desc, "chat not found")

	ok, _, _ = rawCall(t, f, "deleteMessage", "application/json", []byte(`{"chat_id":503,"message_id":2}`))
	require.True(t, ok)
	ok, _, desc = rawCall(t, f, "deleteMessage", "application/json", []byte(`{"chat_id":503,"message_id":2}`))
	require.False(t, ok)
	require.Contains(t, desc, "message to delete not found")

	msgs := f.ChatMessages(503)
	require.Len(t, msgs, 2)
	require.Equal(t, "hello again", msgs[1].Text)
	require.True(t, msgs[1].Deleted)
	require.Equal(t, in.MessageID, msgs[1].ReplyTo)
	calls := f.ChatCalls(503)
	require.Equal(t, in.MessageID, calls[0].ReplyTo)
}

func TestBotAPIMediaUploadsFileIDsAndFaults(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	dave := testkit.BotUser{ID: 504, FirstName: "Dave"}
	f.PushPrivateMessage(dave, "hi")
	b := newSDK(t, f)
	ctx := context.Background()

	photo := bytes.Repeat([]byte{0xff, 0xd8, 1, 2}, 1000)
	m, err := b.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: 504, Caption: "a photo", HasSpoiler: true,
		Photo: &models.InputFileUpload{Filename: "a.jpg", Data: bytes.NewReader(photo)}})
	require.NoError(t, err)
	require.NotEmpty(t, m.Photo)
	require.True(t, m.HasMediaSpoiler)
	fileID := m.Photo[len(m.Photo)-1].FileID
	require.NotEmpty(t, m.Photo[0].FileUniqueID)

	// The issued id is accepted again, and recorded as not uploaded.
	_, err = b.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: 504, Photo: &models.InputFileString{Data: fileID}})
	require.NoError(t, err)
	calls := f.CallsOf("sendPhoto")
	require.Len(t, calls, 2)
	require.True(t, calls[0].Media[0].Uploaded)
	require.Equal(t, int64(len(photo)), calls[0].Media[0].Size)
	require.True(t, calls[0].HasSpoiler())
	require.Equal(t, "a photo", calls[0].Text)
	require.False(t, calls[1].Media[0].Uploaded)
	require.Equal(t, fileID, calls[1].Media[0].FileID)
	require.Equal(t, calls[0].Media[0].SHA256, calls[1].Media[0].SHA256)

	// A photo id is not a document, and forgotten ids are refused.
	_, err = b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: 504, Document: &models.InputFileString{Data: fileID}})
	require.ErrorContains(t, err, "type of file mismatch")
	f.ForgetFileIDs()
	_, err = b.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: 504, Photo: &models.InputFileString{Data: fileID}})
	require.ErrorContains(t, err, "wrong file identifier")

	// An album of uploads.
	album := []models.InputMedia{
		&models.InputMediaPhoto{Media: "attach://p1", MediaAttachment: bytes.NewReader(photo), Caption: "album"},
		&models.InputMediaVideo{Media: "attach://v1", MediaAttachment: strings.NewReader("video bytes"), HasSpoiler: true},
	}
	msgs, err := b.SendMediaGroup(ctx, &bot.SendMediaGroupParams{ChatID: 504, Media: album,
		ReplyParameters: &models.ReplyParameters{MessageID: 1}})
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, msgs[0].MediaGroupID, msgs[1].MediaGroupID)
	require.NotNil(t, msgs[1].Video)
	g := f.CallsOf("sendMediaGroup")[0]
	require.Equal(t, []string{"photo", "video"}, []string{g.Media[0].Kind, g.Media[1].Kind})
	require.Equal(t, int64(1), g.ReplyTo)
	require.False(t, g.Media[0].HasSpoiler)
	require.True(t, g.Media[1].HasSpoiler)
	require.Equal(t, "album", g.Text)

	// Documents cannot mix with photos, and animations are not album media.
	_, err = b.SendMediaGroup(ctx, &bot.SendMediaGroupParams{ChatID: 504, Media: []models.InputMedia{
		&models.InputMediaPhoto{Media: "attach://p1", MediaAttachment: bytes.NewReader(photo)},
		&models.InputMediaDocument{Media: "attach://d1", MediaAttachment: strings.NewReader("doc")},
	}})
	require.ErrorContains(t, err, "can't be mixed")

	// Injected faults: 429 with retry_after, rejected photos, then normal.
	f.RateLimitNext("sendMediaGroup", 3)
	_, err = b.SendMediaGroup(ctx, &bot.SendMediaGroupParams{ChatID: 504, Media: []models.InputMedia{
		&models.InputMediaPhoto{Media: "attach://p1", MediaAttachment: bytes.NewReader(photo)},
		&models.InputMediaPhoto{Media: "attach://p2", MediaAttachment: bytes.NewReader(photo)},
	}})
	var tooMany *bot.TooManyRequestsError
	require.True(t, errors.As(err, &tooMany), "%v", err)
	require.Equal(t, 3, tooMany.RetryAfter)
	last := f.CallsOf("sendMediaGroup")
	require.Equal(t, http.StatusTooManyRequests, last[len(last)-1].Status)

	f.RejectKind("photo", "Bad Request: IMAGE_PROCESS_FAILED")
	_, err = b.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: 504, Photo: &models.InputFileUpload{Filename: "b.jpg", Data: bytes.NewReader(photo)}})
	require.ErrorContains(t, err, "IMAGE_PROCESS_FAILED")
	d, err := b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: 504, Document: &models.InputFileUpload{Filename: "b.jpg", Data: bytes.NewReader(photo)}})
	require.NoError(t, err)
	require.NotEmpty(t, d.Document.FileID)
	_, err = b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: 504, Document: &models.InputFileString{Data: d.Document.FileID}})
	require.NoError(t, err)
}

func TestBotAPIBlockHoldsACallUntilReleasedOrAbandoned(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	erin := testkit.BotUser{ID: 505, FirstName: "Erin"}
	f.PushPrivateMessage(erin, "hi")
	b := newSDK(t, f)

	blk := f.Block("sendMessage", func(c testkit.BotCall) bool { return c.Text == "held" })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: 505, Text: "held"})
		done <- err
	}()
	<-blk.Arrived()
	// Other calls pass.
	_, err := b.SendMessage(context.Background(), &bot.SendMessageParams{ChatID: 505, Text: "free"})
	require.NoError(t, err)
	cancel()
	require.Error(t, <-done)
	require.Eventually(t, func() bool { return len(f.CallsOf("sendMessage")) == 2 }, 5*time.Second, 10*time.Millisecond)
	for _, m := range f.ChatMessages(505) {
		require.NotEqual(t, "held", m.Text, "an abandoned call takes no effect")
	}

	blk.Release()
	_, err = b.SendMessage(context.Background(), &bot.SendMessageParams{ChatID: 505, Text: "held"})
	require.NoError(t, err)
}

func TestBotAPIUnknownMethod(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	resp, err := http.Post(f.URL()+"/bot"+f.Token()+"/sendDice", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// A channel post comes in the Bot API's shape, and only to a bot that
// asks for channel_post updates (Telegram keeps the last list it was
// given).
func TestBotAPIChannelPostsAndAllowedUpdates(t *testing.T) {
	t.Parallel()
	f := testkit.NewBotAPI(t)
	ch := testkit.BotChannel{ID: -1009001, Title: "Harbour News", Username: "harbour_news"}
	f.PushChannelPost(ch, testkit.ChannelPost{MessageID: 41, Photo: true, Caption: "fog", MediaGroupID: "1396"})
	body, _ := json.Marshal(map[string]any{"timeout": 0, "allowed_updates": []string{"channel_post"}})
	ok, res, _ := rawCall(t, f, "getUpdates", "application/json", body)
	require.True(t, ok)
	var ups []models.Update
	require.NoError(t, json.Unmarshal(res, &ups))
	require.Len(t, ups, 1)
	p := ups[0].ChannelPost
	require.NotNil(t, p)
	require.Equal(t, models.Chat{ID: -1009001, Type: models.ChatTypeChannel, Title: "Harbour News", Username: "harbour_news"}, p.Chat)
	require.Equal(t, p.Chat, *p.SenderChat)
	require.Nil(t, p.From, "a channel post has no sender")
	require.Equal(t, 41, p.ID)
	require.Equal(t, "1396", p.MediaGroupID)
	require.Equal(t, "fog", p.Caption)
	require.NotEmpty(t, p.Photo)
	require.NotZero(t, p.Date)

	// Without channel_post in the list, a post never arrives.
	body, _ = json.Marshal(map[string]any{"timeout": 0, "offset": ups[0].ID + 1, "allowed_updates": []string{"message"}})
	f.PushChannelPost(ch, testkit.ChannelPost{MessageID: 42, Text: "high tide"})
	f.PushPrivateMessage(testkit.BotUser{ID: 7, FirstName: "Ada"}, "hi")
	ok, res, _ = rawCall(t, f, "getUpdates", "application/json", body)
	require.True(t, ok)
	ups = nil
	require.NoError(t, json.Unmarshal(res, &ups))
	require.Len(t, ups, 1)
	require.NotNil(t, ups[0].Message)
	require.Equal(t, "hi", ups[0].Message.Text)
}
