package tgchannel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
)

// archive is Alice's channel, which she binds in these tests.
var archive = testkit.BotChannel{ID: -1009001, Title: "Alice's Archive", Username: "alice_archive"}

// copyFooter is the footer a copy of photosPost ends with.
const copyFooter = "🔗 Original: " + photosPost

// copies are the successful calls of a method to a bound chat.
func (w *world) copies(chat int64, method string) []testkit.BotCall {
	return w.calls(chat, method)
}

// bindArchive adds Alice's channel with the bot as an admin that may post,
// and binds it through the bot; n is how many messages Alice had.
func (w *world) bindArchive(n int) {
	w.t.Helper()
	w.bot.AddChat(archive, testkit.ChatRights{CanPost: true, CanEdit: true, Admins: map[int64]string{alice.ID: "creator"}})
	w.bot.PushPrivateMessage(alice, "/bind @alice_archive")
	require.Contains(w.t, w.nthMessage(alice.ID, n, "the bind answer").Text, "✅ Bound Alice's Archive (@alice_archive)")
}

// bindings are the tenant's bindings, unbound ones too.
func (w *world) bindings(person testkit.BotUser) []app.ChannelBindingView {
	w.t.Helper()
	ctx := context.Background()
	tv, err := w.core.App().TenantByName(ctx, fmt.Sprintf("tg%d", person.ID))
	require.NoError(w.t, err)
	bs, err := w.core.App().TenantBindings(ctx, tv.ID)
	require.NoError(w.t, err)
	return bs
}

// /bind checks the bot's rights and the person's, and each refusal names
// what is missing; a bot admin that may post in a channel its person
// administers binds it, by @name, t.me link or id alike.
func TestBindRefusalsNameWhatIsMissing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bot.AddChat(archive, testkit.ChatRights{Bot: "member", Admins: map[int64]string{alice.ID: "creator"}})
	answer := func(n int, text string) string {
		w.bot.PushPrivateMessage(alice, text)
		return w.nthMessage(alice.ID, n, "the answer to "+text).Text
	}

	require.Contains(t, answer(0, "/bind @alice_archive"), "I am not an administrator there")
	w.bot.SetChatRights(archive.ID, testkit.ChatRights{Bot: "administrator", Admins: map[int64]string{alice.ID: "creator"}})
	require.Contains(t, answer(1, "/bind https://t.me/alice_archive"), "without the right “Post messages”")
	w.bot.SetChatRights(archive.ID, testkit.ChatRights{CanPost: true, Admins: map[int64]string{bob.ID: "administrator"}})
	require.Contains(t, answer(2, "/bind -1009001"), "You are not an administrator of Alice's Archive")
	require.Contains(t, answer(3, "/bind t.me/+AbCdEf"), "cannot open invite links")
	require.Contains(t, answer(4, "/bind @no_such_channel"), "I cannot see @no_such_channel")
	require.Contains(t, answer(5, "/bind hello!"), "names no channel")
	require.Empty(t, w.bindings(alice))

	w.bot.SetChatRights(archive.ID, testkit.ChatRights{CanPost: true, Admins: map[int64]string{alice.ID: "administrator"}})
	require.Contains(t, answer(6, "/bind t.me/alice_archive"), "✅ Bound Alice's Archive (@alice_archive)")
	require.Contains(t, answer(7, "/bind @alice_archive"), "is bound already")
	list := answer(8, "/channels")
	require.Contains(t, list, "1. Alice's Archive (@alice_archive) · -1009001")

	// One channel by default: a second one is over the limit.
	second := testkit.BotChannel{ID: -1009002, Title: "Second", Username: "alice_second"}
	w.bot.AddChat(second, testkit.ChatRights{CanPost: true, Admins: map[int64]string{alice.ID: "creator"}})
	require.Contains(t, answer(9, "/bind @alice_second"), "may bind one channel")
	// The operator raises it.
	limit := 2
	_, err := w.core.App().UpdateTenant(context.Background(), "test", fmt.Sprintf("tg%d", alice.ID), app.TenantChange{ChannelLimit: &limit})
	require.NoError(t, err)
	require.Contains(t, answer(10, "/bind @alice_second"), "✅ Bound Second")

	require.Contains(t, answer(11, "/unbind 2"), "✅ Unbound Second")
	require.Contains(t, answer(12, "/unbind @alice_archive"), "✅ Unbound Alice's Archive")
	require.Contains(t, answer(13, "/channels"), "No channel is bound")
	bs := w.bindings(alice)
	require.Len(t, bs, 2)
	for _, b := range bs {
		require.Equal(t, "unbound", b.State)
		require.Equal(t, app.UnbindManual, b.UnbindReason)
	}

	// In a group, /bind is refused before anything is looked up.
	w.bot.PushGroupMessage(group, alice, "/bind@"+w.bot.Username()+" @alice_archive")
	require.Contains(t, w.nthMessage(group, 0, "the group answer").Text, "private chat")
}

// A channel belongs to one account: a second person who also runs it
// cannot bind it while it is bound.
func TestSecondTenantCannotBindATakenChannel(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bindArchive(0)
	w.bot.SetChatRights(archive.ID, testkit.ChatRights{CanPost: true,
		Admins: map[int64]string{alice.ID: "creator", bob.ID: "administrator"}})
	w.bot.PushPrivateMessage(bob, "/bind @alice_archive")
	require.Contains(t, w.nthMessage(bob.ID, 0, "Bob's answer").Text, "is bound to another account already")
	require.Empty(t, w.bindings(bob))

	// Once Alice unbinds it, Bob may.
	w.bot.PushPrivateMessage(alice, "/unbind")
	require.Contains(t, w.nthMessage(alice.ID, 1, "the unbind answer").Text, "✅ Unbound")
	w.bot.PushPrivateMessage(bob, "/bind @alice_archive")
	require.Contains(t, w.nthMessage(bob.ID, 1, "Bob's second answer").Text, "✅ Bound")
}

// Once bound, each capture reaches the private chat and the channel, once
// each: in the channel the media first, then the text with a footer
// linking the original and no buttons. A post archived without the bot (the
// REST API) is copied too.
func TestBoundChannelGetsEachCaptureOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.noSubmitInterval()
	w.start()
	w.bindArchive(0)

	w.bot.PushPrivateMessage(alice, photosPost)
	res := w.result(alice.ID)
	require.Contains(t, res.Text, "Two frames")
	text := w.waitCall("the copy's text", func(c testkit.BotCall) bool {
		return c.ChatID == archive.ID && c.OK() && strings.Contains(c.Text, copyFooter)
	})
	require.Contains(t, text.Text, "Two frames from this morning's walk")
	require.NotContains(t, text.Text, "🆔 ")
	require.Empty(t, text.Buttons)
	albums := w.copies(archive.ID, "sendMediaGroup")
	require.Len(t, albums, 1)
	require.Len(t, albums[0].Media, 2)
	require.True(t, albums[0].At.Before(text.At), "media first, then the text")
	require.Len(t, w.copies(archive.ID, "sendMessage"), 1)
	require.Len(t, w.calls(alice.ID, "sendMediaGroup"), 1)

	// Archived through the REST API: copied to the channel as well.
	w.saveDirectly(alice, 1)
	w.waitCall("the REST post's copy", func(c testkit.BotCall) bool {
		return c.ChatID == archive.ID && c.OK() && c.Method == "sendMessage" && !strings.Contains(c.Text, copyFooter)
	})
	require.Len(t, w.copies(archive.ID, "sendMessage"), 2)
}

// A channel process stopped in the middle of a copy: the next one resumes
// from the stored progress and sends nothing twice.
func TestRestartMidCopyPostsNothingTwice(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	stop := w.start()
	w.bindArchive(0)
	held := w.bot.Block("sendMessage", func(c testkit.BotCall) bool {
		return c.ChatID == archive.ID && strings.Contains(c.Text, copyFooter)
	})
	w.bot.PushPrivateMessage(alice, photosPost)
	select {
	case <-held.Arrived():
	case <-time.After(60 * time.Second):
		t.Fatal("the copy never reached its text")
	}
	require.Len(t, w.copies(archive.ID, "sendMediaGroup"), 1)
	stop()
	w.waitCall("the abandoned copy text", func(c testkit.BotCall) bool {
		return c.ChatID == archive.ID && c.Method == "sendMessage" && strings.Contains(c.Error, "went away")
	})
	held.Release()

	w.start()
	w.waitCall("the copy's text from the next process", func(c testkit.BotCall) bool {
		return c.ChatID == archive.ID && c.OK() && strings.Contains(c.Text, copyFooter)
	})
	w.result(alice.ID)
	require.Len(t, w.copies(archive.ID, "sendMediaGroup"), 1, "no media copied twice")
	require.Len(t, w.copies(archive.ID, "sendMessage"), 1, "the text copied once")
}

// A channel that removed the bot: the copy fails there, the binding is
// unbound with reason channel_gone, the person is told once, and later
// posts are not copied.
func TestGoneChannelIsUnboundAndThePersonTold(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bindArchive(0)
	w.bot.SetChatRights(archive.ID, testkit.ChatRights{Bot: "kicked"})

	w.bot.PushPrivateMessage(alice, photosPost)
	w.result(alice.ID)
	told := w.waitCall("the notice", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && strings.Contains(c.Text, "is no longer bound")
	})
	require.Contains(t, told.Text, "Alice's Archive (@alice_archive)")
	require.Contains(t, told.Text, "kicked")
	bs := w.bindings(alice)
	require.Len(t, bs, 1)
	require.Equal(t, "unbound", bs[0].State)
	require.Equal(t, app.UnbindChannelGone, bs[0].UnbindReason)
	require.Empty(t, w.copies(archive.ID, "sendMediaGroup"))

	w.bot.PushPrivateMessage(alice, "/channels")
	require.Contains(t, w.waitCall("the channel list", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && strings.Contains(c.Text, "No channel is bound")
	}).Text, "/bind")
	notices := 0
	for _, c := range w.calls(alice.ID, "sendMessage") {
		if strings.Contains(c.Text, "is no longer bound") {
			notices++
		}
	}
	require.Equal(t, 1, notices)
}

// The bot's answers about bindings speak Chinese to a Chinese client.
func TestBindAnswersInChinese(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	li := testkit.BotUser{ID: 1003, FirstName: "Li", Username: "li", LanguageCode: "zh-hans"}
	w.bot.AddChat(archive, testkit.ChatRights{Bot: "member", Admins: map[int64]string{li.ID: "creator"}})
	w.bot.PushPrivateMessage(li, "/bind @alice_archive")
	require.Contains(t, w.nthMessage(li.ID, 0, "the answer").Text, "我不是那里的管理员")
}
