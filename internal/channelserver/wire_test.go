package channelserver_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
)

// TestWireAndAppAgreeOnTheProtocolsWords checks the values the server
// passes through as they are: kinds, states, results and the lease's
// length, which the channel and core must read alike.
func TestWireAndAppAgreeOnTheProtocolsWords(t *testing.T) {
	t.Parallel()
	require.Equal(t, channelapi.LeaseTTL, app.ChannelLeaseTTL)
	require.Equal(t, channelapi.WorkUpdate, app.ChannelWorkUpdate)
	require.Equal(t, channelapi.WorkDeliver, app.ChannelWorkDeliver)
	require.Equal(t, channelapi.WorkProgress, app.ChannelWorkProgress)
	require.Equal(t, channelapi.UpdateMessage, app.ChannelUpdateMessage)
	require.Equal(t, channelapi.UpdateCallback, app.ChannelUpdateCallback)
	require.Equal(t, channelapi.UpdatePost, app.ChannelUpdatePost)
	require.Equal(t, channelapi.DeliveryPending, app.DeliveryPending)
	require.Equal(t, channelapi.DeliveryReady, app.DeliveryReady)
	require.Equal(t, channelapi.DeliveryFailed, app.DeliveryFailed)
	require.Equal(t, channelapi.SaveSaved, app.SaveSaved)
	require.Equal(t, channelapi.SaveAlready, app.SaveAlready)
	require.Equal(t, channelapi.SaveRefused, app.SaveRefused)
	require.Equal(t, channelapi.StageQueued, app.DeliveryStageQueued)
	require.Equal(t, channelapi.StageDownloading, app.DeliveryStageDownloading)
	require.Equal(t, channelapi.StageSaving, app.DeliveryStageSaving)
	require.Equal(t, channelapi.LangEnglish, app.LangEnglish)
	require.Equal(t, channelapi.LangChinese, app.LangChinese)
	require.Equal(t, channelapi.MaxSearchPage, app.ChannelMaxSearchPage)
	require.Equal(t, channelapi.SnippetOpen, app.SnippetOpen)
	require.Equal(t, channelapi.SnippetClose, app.SnippetClose)
}

// TestStoredUpdatesKeepTheWiresForm checks that app's update, whose JSON
// the inbox stores, reads and writes the form the wire's update did, so
// updates stored before app had its own type read back whole.
func TestStoredUpdatesKeepTheWiresForm(t *testing.T) {
	t.Parallel()
	wire := channelapi.Update{UpdateID: 7, Kind: channelapi.UpdateCallback,
		From:   channelapi.User{ID: 42, Username: "ada", DisplayName: "Ada", Language: "en"},
		ChatID: -100, ChatType: "supergroup", MessageID: 9, Text: "/get 0190aa", ReplyToMessageID: 3,
		Entities:   []channelapi.Entity{{Type: "text_link", Offset: 1, Length: 2, URL: "https://x.com/a"}},
		CallbackID: "cb", CallbackData: "g:0190aa"}
	stored, err := json.Marshal(wire)
	require.NoError(t, err)

	var u app.ChannelUpdate
	require.NoError(t, json.Unmarshal(stored, &u))
	again, err := json.Marshal(u)
	require.NoError(t, err)
	require.JSONEq(t, string(stored), string(again))
	require.Equal(t, "https://x.com/a", u.Entities[0].URL)
	require.Equal(t, "Ada", u.From.DisplayName)
}
