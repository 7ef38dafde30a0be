package tgchannel_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// largeWait bounds the wait for a result with 51 MB of media. It only
// bounds a hang: alone such a capture takes about 20 s under -race (the
// fake host builds the body, the core hashes and stores it, the bot reads
// it back and the fake Bot API parses the upload), and several times that
// beside the rest of the suite on two cores.
const largeWait = 4 * time.Minute

// Media over the 50 MB that Telegram's own Bot API takes from a bot: the
// result says so and links the item's page in the web library instead.
func TestLargeMediaIsLinkedOnTelegramsOwnAPI(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.uploadLimit = 50 << 20
	w.fx.SetMediaSize(51 << 20)
	w.start()
	w.bot.PushPrivateMessage(alice, gifPost)
	// Nothing to send but the text: the status message becomes the result.
	res := w.waitCallWithin("the result in the status message", largeWait, func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && c.Method == "editMessageText" && strings.Contains(c.Text, "🆔 ")
	})
	id := idOf(t, res.Text)
	require.Contains(t, res.Text, "⚠️ 1 media file(s) are larger than the 50 MB a bot may send here; see them in your library: http://")
	require.Contains(t, res.Text, "/c/"+id)
	for _, c := range w.bot.ChatCalls(alice.ID) {
		require.Empty(t, c.Media, "nothing uploaded")
	}
}

// With a local telegram-bot-api server (any MONITOR_TELEGRAM_API_URL but
// Telegram's own), the same media is sent.
func TestLargeMediaIsSentThroughALocalBotAPIServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.fx.SetMediaSize(51 << 20)
	w.start()
	w.bot.PushPrivateMessage(alice, gifPost)
	res := w.resultWithin(alice.ID, largeWait)
	require.NotContains(t, res.Text, "larger than")
	var sent []testkit.BotMedia
	for _, c := range w.bot.ChatCalls(alice.ID) {
		if c.OK() {
			sent = append(sent, c.Media...)
		}
	}
	require.Len(t, sent, 1)
	require.True(t, sent[0].Uploaded)
	require.EqualValues(t, 51<<20, sent[0].Size)
}
