package runtime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// With a bot token, serve runs the Telegram bot in its own process: a
// Telegram user who sends an album member's link gets the album back as
// one album of four, in order, then the text with its buttons.
func TestServeRunsTheBotAndAnAlbumComesBackAsOneAlbum(t *testing.T) {
	t.Parallel()
	bot := testkit.NewBotAPI(t)
	tme := testkit.NewTme(t)
	cfg := testConfig(t)
	cfg.TmeURL = tme.URL()
	cfg.FxTwitterURL = testkit.NewFxTwitter(t).URL()
	cfg.TelegramToken = bot.Token()
	cfg.TelegramAPIURL = bot.URL()

	core := runCore(t, cfg)
	require.NotEmpty(t, core.ChannelAddr(), "a loopback channel API for the bot in this process")

	user := testkit.BotUser{ID: 4242, FirstName: "Mia", Username: "mia"}
	msg := bot.PushPrivateMessage(user, "https://t.me/tidewatch_demo/102?single")

	var albums, texts []testkit.BotCall
	require.Eventually(t, func() bool {
		albums, texts = nil, nil
		for _, c := range bot.ChatCalls(msg.ChatID) {
			switch {
			case !c.OK():
			case c.Method == "sendMediaGroup":
				albums = append(albums, c)
			case c.Method == "sendMessage" && len(albums) > 0:
				texts = append(texts, c)
			}
		}
		return len(texts) > 0
	}, 60*time.Second, 50*time.Millisecond, "the album and its text arrive")

	require.Len(t, albums, 1, "one album")
	var kinds []string
	for _, m := range albums[0].Media {
		kinds = append(kinds, m.Kind)
		require.True(t, m.Uploaded)
	}
	require.Equal(t, []string{"photo", "video", "photo", "video"}, kinds)
	require.Contains(t, texts[0].Text, "Spring tide, 9 January")
	orig, ok := texts[0].Button("Original")
	require.True(t, ok, "the text carries the buttons")
	require.Equal(t, "https://t.me/tidewatch_demo/101", orig.URL, "the album's own link")
	_, ok = texts[0].Button("Save too")
	require.False(t, ok, "nobody else in a private chat to save it too")
	for _, c := range bot.ChatCalls(msg.ChatID) {
		require.NotContains(t, []string{"sendPhoto", "sendVideo", "sendDocument"}, c.Method, "no member sent on its own")
	}
}
