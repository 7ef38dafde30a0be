package tgchannel_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// /cancel as a reply to the status message stops only the caller's
// submission: Bob, who sent the same link, still gets the result from the
// shared capture; Alice's status message says cancelled, with the link
// struck through, and she gets no result.
func TestCancelByReplyStopsOnlyTheCallersSubmission(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.fx.Delay(4 * time.Second) // the media downloads take a while
	w.start()
	w.bot.PushPrivateMessage(alice, photosPost)
	w.bot.PushPrivateMessage(bob, photosPost)
	status := w.nthMessage(alice.ID, 0, "Alice's status message")
	require.True(t, strings.HasPrefix(status.Text, "⏳"), status.Text)
	w.nthMessage(bob.ID, 0, "Bob's status message")
	w.fx.WaitMediaHeld(t, 1)

	w.bot.PushPrivateReply(alice, status.Result[0], "/cancel")
	done := w.nthMessage(alice.ID, 1, "the cancel answer")
	require.Equal(t, "🚫 Stopped archiving "+photosPost+" for you.", done.Text)

	res := w.result(bob.ID)
	require.Contains(t, res.Text, "Two frames")
	edit := w.waitCall("Alice's status cancelled", func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.Method == "editMessageText" && c.OK() && strings.HasPrefix(c.Text, "🚫 Cancelled: ")
	})
	require.Equal(t, status.Result[0], edit.MessageID)
	require.Equal(t, []testkit.BotEntity{{Type: "strikethrough", Offset: len("🚫 Cancelled: ") - 2, Length: len(photosPost)}}, edit.Entities)
	for _, c := range w.bot.ChatCalls(alice.ID) {
		require.NotContains(t, c.Text, "🆔 ", "Alice gets no result")
		require.NotEqual(t, "sendMediaGroup", c.Method)
	}

	// Cancelling it again, or something archived already, is refused.
	w.bot.PushPrivateMessage(alice, "/cancel "+photosPost)
	require.Contains(t, w.nthMessage(alice.ID, 2, "the second cancel answer").Text, "nothing of yours is being archived")
	// The result message is recorded just after it is sent: ask until it
	// is, as a person replying to it would only once it is on screen.
	var answer testkit.BotCall
	require.Eventually(t, func() bool {
		n := len(w.calls(bob.ID, "sendMessage"))
		w.bot.PushPrivateReply(bob, res.Result[0], "/cancel")
		answer = w.nthMessage(bob.ID, n, "Bob's cancel answer")
		return !strings.Contains(answer.Text, "not about a link you sent")
	}, 30*time.Second, 200*time.Millisecond)
	require.Contains(t, answer.Text, "archived already")
}

// /pin as a reply to a result, or with its link, pins the copy's first
// message in the bound channel; a channel that does not let the bot pin
// says which right is missing.
func TestPinPinsTheCopyInTheBoundChannel(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start()
	w.bindArchive(0)
	w.bot.PushPrivateMessage(alice, photosPost)
	res := w.result(alice.ID)
	w.waitCall("the copy's text", func(c testkit.BotCall) bool {
		return c.ChatID == archive.ID && c.OK() && strings.Contains(c.Text, copyFooter)
	})
	album := w.copies(archive.ID, "sendMediaGroup")[0]

	// The copy's first message is recorded as the copy item ends, just
	// after its text: ask until it is.
	var answer testkit.BotCall
	require.Eventually(t, func() bool {
		n := len(w.calls(alice.ID, "sendMessage"))
		w.bot.PushPrivateReply(alice, res.Result[0], "/pin")
		answer = w.nthMessage(alice.ID, n, "the pin answer")
		return strings.HasPrefix(answer.Text, "📌")
	}, 30*time.Second, 200*time.Millisecond)
	require.Equal(t, "📌 Pinned in Alice's Archive (@alice_archive).", answer.Text)
	require.Equal(t, []int64{album.Result[0]}, w.bot.Pinned(archive.ID))

	n := len(w.calls(alice.ID, "sendMessage"))
	w.bot.SetChatRights(archive.ID, testkit.ChatRights{CanPost: true, Admins: map[int64]string{alice.ID: "creator"}})
	w.bot.PushPrivateMessage(alice, "/pin "+photosPost)
	refused := w.nthMessage(alice.ID, n, "the refused pin")
	require.Contains(t, refused.Text, "I could not pin it in Alice's Archive")
	require.Contains(t, refused.Text, "edit messages")
	require.Len(t, w.bot.Pinned(archive.ID), 1)

	w.bot.PushPrivateMessage(alice, "/pin https://x.com/archivist_demo/status/1")
	require.Contains(t, w.nthMessage(alice.ID, n+1, "the unknown pin").Text, "you have not archived")
}

// /download archives the link and uploads it to the person's cloud
// destination instead of sending it (to the chat or a bound channel); the
// bot says when it is up.
func TestDownloadUploadsToTheCloudDestination(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed; /download needs it")
	}
	w := newWorldEnv(t, map[string]string{"MONITOR_MASTER_KEY": "test-master-key-0123456789"})
	w.start()
	w.bindArchive(0)
	w.bot.PushPrivateMessage(alice, "/download "+photosPost)
	require.Contains(t, w.nthMessage(alice.ID, 1, "the refusal").Text, "may not upload to a cloud drive")

	ctx := context.Background()
	root := t.TempDir()
	a := w.core.App()
	_, err := a.AddDestination(ctx, "test", "drive", "local:"+root, []byte("[local]\ntype = local\n"))
	require.NoError(t, err)
	require.NoError(t, a.AllowDestination(ctx, "test", "drive", fmt.Sprintf("tg%d", alice.ID), true))
	w.bot.PushPrivateMessage(alice, "/download "+photosPost)
	require.Equal(t, "☁️ Archiving "+photosPost+"; it goes up to drive once archived, and you are told here.",
		w.nthMessage(alice.ID, 2, "the answer").Text)
	done := w.nthMessage(alice.ID, 3, "the upload notice")
	require.Contains(t, done.Text, "☁️ Uploaded "+photosPost+" to drive: 3 file(s)")
	dir := strings.TrimSuffix(done.Text[strings.LastIndex(done.Text, " in ")+4:], ".")
	md, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.md"))
	require.NoError(t, err)
	require.Len(t, md, 1)
	require.Empty(t, w.calls(alice.ID, "sendMediaGroup"), "nothing sent to the chat")
	require.Empty(t, w.calls(archive.ID, "sendMessage"), "nor to the bound channel")
	require.Empty(t, w.calls(archive.ID, "sendMediaGroup"))
}
