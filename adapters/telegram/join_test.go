package telegram_test

import (
	"context"
	"testing"

	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

func (h *mtHarness) join(t *testing.T, invite string, checkOnly bool) *adapterv1.JoinResponse {
	t.Helper()
	resp, err := h.client.Join(context.Background(), &adapterv1.JoinRequest{ProviderId: telegram.ProviderMTProto,
		Credential: h.cred, Invite: invite, CheckOnly: checkOnly})
	require.NoError(t, err)
	return resp
}

// An invite link is checked without joining, then joined: the account is
// a member and the channel comes back as its t.me/c/ collection; joining
// again is joined too (already a member).
func TestMTProtoJoinInvite(t *testing.T) {
	t.Parallel()
	h := newMTHarness(t)
	ch := &tg.Channel{ID: 7007, AccessHash: 70, Title: "Harbour Watch", Broadcast: true}
	h.fake.AddInvite("AbCdEf012345_-", testkit.FakeInvite{Channel: ch})

	checked := h.join(t, "t.me/joinchat/AbCdEf012345_-", true)
	require.Nil(t, checked.GetError())
	require.Equal(t, adapterv1.JoinState_JOIN_STATE_CHECKED, checked.GetState())
	require.Equal(t, "Harbour Watch", checked.GetTitle())
	require.Equal(t, "https://t.me/+AbCdEf012345_-", checked.GetInvite())
	require.False(t, h.fake.Member(7007), "a check joins nothing")
	require.Zero(t, h.fake.Calls(tg.MessagesImportChatInviteRequestTypeID))

	res := h.join(t, "https://t.me/+AbCdEf012345_-", false)
	require.Nil(t, res.GetError())
	require.Equal(t, adapterv1.JoinState_JOIN_STATE_JOINED, res.GetState())
	require.True(t, h.fake.Member(7007))
	require.Equal(t, "https://t.me/c/7007", res.GetChannel().GetCanonicalUrl())
	require.Equal(t, "telegram.channel", res.GetChannel().GetEntityType())

	again := h.join(t, "https://telegram.me/+AbCdEf012345_-", false)
	require.Nil(t, again.GetError())
	require.Equal(t, adapterv1.JoinState_JOIN_STATE_JOINED, again.GetState())
	require.Equal(t, 1, h.fake.Calls(tg.MessagesImportChatInviteRequestTypeID), "already a member: nothing imported")

	// The channel's posts now read through the account.
	h.fake.AddMessage(7007, &tg.Message{ID: 3, Message: "tide table"})
	got := h.fetch(t, "c/7007/3")
	require.Nil(t, got.GetError())
	require.Equal(t, "tide table", got.GetDisplay().GetText())
}

// Telegram's refusals of an invite each have their own words; a channel
// that approves its members is a request sent, not a failure.
func TestMTProtoJoinRefusals(t *testing.T) {
	t.Parallel()
	h := newMTHarness(t)
	h.fake.AddInvite("expiredHash01", testkit.FakeInvite{Channel: &tg.Channel{ID: 7101, AccessHash: 1, Title: "Old", Broadcast: true}, Expired: true})
	h.fake.AddInvite("gatedHash0001", testkit.FakeInvite{Channel: &tg.Channel{ID: 7102, AccessHash: 2, Title: "Gated", Broadcast: true}, RequestNeeded: true})
	h.fake.AddInvite("floodHash0001", testkit.FakeInvite{Channel: &tg.Channel{ID: 7103, AccessHash: 3, Title: "Busy", Broadcast: true}})

	e := h.join(t, "https://t.me/+expiredHash01", false).GetError()
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, e.GetCode())
	require.Equal(t, "INVITE_HASH_EXPIRED", e.GetReason())
	require.Contains(t, e.GetMessage(), "expired")

	e = h.join(t, "https://t.me/+unknownHash1", true).GetError()
	require.Equal(t, "INVITE_HASH_INVALID", e.GetReason())
	require.Contains(t, e.GetMessage(), "does not know this invite link")

	gated := h.join(t, "https://t.me/+gatedHash0001", false)
	require.Nil(t, gated.GetError())
	require.Equal(t, adapterv1.JoinState_JOIN_STATE_REQUESTED, gated.GetState())
	require.False(t, h.fake.Member(7102))

	h.fake.Fail(tg.MessagesImportChatInviteRequestTypeID, testkit.ErrFloodWait3)
	e = h.join(t, "https://t.me/+floodHash0001", false).GetError()
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, e.GetCode())
	require.True(t, e.GetRetryable())
	require.Contains(t, e.GetMessage(), "approve the request again later")
	require.False(t, h.fake.Member(7103))
}

// Links that are not invite links are refused before Telegram is asked.
func TestMTProtoJoinBadLinks(t *testing.T) {
	t.Parallel()
	h := newMTHarness(t)
	for _, bad := range []string{"", "https://t.me/durov", "https://example.com/+AbCdEf", "https://t.me/joinchat/",
		"https://t.me/+12025550123", "https://t.me/+abc%21def", "https://t.me/c/1234/5", "ftp://t.me/+AbCdEf"} {
		e := h.join(t, bad, false).GetError()
		require.NotNil(t, e, bad)
		require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, e.GetCode(), bad)
	}
	require.Zero(t, h.fake.Calls(tg.MessagesCheckChatInviteRequestTypeID))
	e := h.join(t, "tg://join?invite=", false).GetError()
	require.Contains(t, e.GetMessage(), "not a Telegram invite link")
}
