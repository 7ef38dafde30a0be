package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// Joining a channel by invite link (issue 23, Spore's /join): off by
// default, asked by a tenant through its account, decided by an operator.

// harbour is a private channel the fake account is not a member of yet,
// behind the invite t.me/+HarbourInvite01.
func harbourInvite(fake *testkit.Telegram) *tg.Channel {
	ch := &tg.Channel{ID: 5550001, AccessHash: 555, Title: "Harbour Watch", Broadcast: true}
	fake.AddInvite("HarbourInvite01", testkit.FakeInvite{Channel: ch})
	fake.AddMessage(ch.ID, &tg.Message{ID: 7, Message: "low tide at 06:10"})
	return ch
}

func joinOn(t *testing.T, c *testcore.Core) {
	t.Helper()
	_, err := c.App.SetSetting(context.Background(), "test", app.SettingAccountJoin, "true")
	require.NoError(t, err)
}

// auditActions are the audit log's actions on a target, oldest first.
func auditActions(t *testing.T, c *testcore.Core, target string) []string {
	t.Helper()
	entries, err := c.App.Audit(context.Background(), 1000)
	require.NoError(t, err)
	var out []string
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Target == target {
			out = append(out, entries[i].Action)
		}
	}
	return out
}

// While the switch is off every ask, and every approval, is refused with
// the switch's name; nothing reaches Telegram.
func TestJoinOffByDefault(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		harbourInvite(fake)
		alice := c.Tenant(t, "alice", nil)
		conn := addTelegramAccount(t, c, alice, session)
		_, err := c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: alice, ConnectionID: conn.ID, Invite: "https://t.me/+HarbourInvite01"})
		require.ErrorIs(t, err, app.ErrForbidden)
		require.ErrorContains(t, err, "account_join_enabled")
		require.Zero(t, fake.Calls(tg.MessagesCheckChatInviteRequestTypeID))

		// A request asked while on is not approved once it is off again.
		joinOn(t, c)
		r, err := c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: alice, ConnectionID: conn.ID, Invite: "https://t.me/+HarbourInvite01"})
		require.NoError(t, err)
		_, err = c.App.SetSetting(ctx, "test", app.SettingAccountJoin, "false")
		require.NoError(t, err)
		_, err = c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true, Actor: "ops"})
		require.ErrorContains(t, err, "account_join_enabled")
		require.Zero(t, fake.Calls(tg.MessagesImportChatInviteRequestTypeID))
		require.False(t, fake.Member(5550001))
	})
}

// Asked, pending, approved: the account joins, the request records the
// channel's link, and the channel's posts are archived through the
// account, private to the tenant. Bob never sees Alice's request, and
// cannot ask through Alice's account.
func TestJoinApprovedThenArchived(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		harbourInvite(fake)
		joinOn(t, c)
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		conn := addTelegramAccount(t, c, alice, session)

		r, err := c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: alice, ConnectionID: conn.ID,
			Invite: " t.me/joinchat/HarbourInvite01 ", Actor: "tenant:alice"})
		require.NoError(t, err)
		require.Equal(t, "pending", r.State)
		require.Equal(t, "Harbour Watch", r.Title)
		require.Equal(t, "https://t.me/+Harb…01", r.Invite, "shown masked")
		require.Equal(t, "tenant:alice", r.AskedBy)
		require.False(t, fake.Member(5550001), "asking joins nothing")

		_, err = c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: alice, ConnectionID: conn.ID, Invite: "https://t.me/+HarbourInvite01"})
		require.ErrorIs(t, err, app.ErrConflict, "one pending request per invite and account")

		// Bob: not his request, not his account.
		_, err = c.App.JoinRequest(ctx, bob, r.ID)
		require.ErrorIs(t, err, app.ErrNotFound)
		mine, err := c.App.JoinRequests(ctx, bob)
		require.NoError(t, err)
		require.Empty(t, mine)
		_, err = c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: bob, ConnectionID: conn.ID, Invite: "https://t.me/+HarbourInvite01"})
		require.ErrorIs(t, err, app.ErrNotFound)

		pending, err := c.App.AdminJoinRequests(ctx, "pending", 100)
		require.NoError(t, err)
		require.Len(t, pending, 1)
		require.Equal(t, alice, pending[0].TenantID)

		done, err := c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true, Actor: "ops"})
		require.NoError(t, err)
		require.Equal(t, "joined", done.State, done.Reason)
		require.Equal(t, "https://t.me/c/5550001", done.ChannelURL)
		require.Equal(t, "ops", done.DecidedBy)
		require.NotNil(t, done.DecidedAt)
		require.True(t, fake.Member(5550001))
		_, err = c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true})
		require.ErrorIs(t, err, app.ErrConflict, "decided once")

		got, err := c.App.JoinRequests(ctx, alice)
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, "joined", got[0].State)
		require.Equal(t, []string{"join.ask", "join.approve"}, auditActions(t, c, "join_request:"+r.ID.String()))
		entries, err := c.App.Audit(ctx, 1000)
		require.NoError(t, err)
		for _, e := range entries {
			require.NotContains(t, string(e.Before)+string(e.After), "HarbourInvite01", "the audit log keeps no invite link")
		}

		// The channel's posts through the account.
		_, v := captureWith(t, c, alice, done.ChannelURL+"/7", conn.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		coll, err := c.App.Collection(ctx, alice, v.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "low tide at 06:10", coll.Text)
		require.Equal(t, "private", coll.Visibility)
		res, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: done.ChannelURL, ConnectionID: conn.ID, Limit: 10})
		require.NoError(t, err)
		sub := waitSubmission(t, c.App, alice, res.SubmissionID)
		require.Equal(t, app.StateComplete, sub.State, sub.Error)
		require.Equal(t, "channel", sub.Kind)
		_, err = c.App.Collection(ctx, bob, v.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound)

		// Asking again once a member: joined at once, no operator needed.
		again, err := c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: alice, ConnectionID: conn.ID, Invite: "https://t.me/+HarbourInvite01"})
		require.NoError(t, err)
		require.Equal(t, "joined", again.State)
		require.Equal(t, "https://t.me/c/5550001", again.ChannelURL)
		require.Equal(t, 1, fake.Calls(tg.MessagesImportChatInviteRequestTypeID))
	})
}

// Denied: nothing joined, the reason recorded for the tenant; an
// unknown request id is not found.
func TestJoinDenied(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		harbourInvite(fake)
		joinOn(t, c)
		alice := c.Tenant(t, "alice", nil)
		conn := addTelegramAccount(t, c, alice, session)
		r, err := c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: alice, ConnectionID: conn.ID, Invite: "https://t.me/+HarbourInvite01"})
		require.NoError(t, err)

		_, err = c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true, Reason: "why not"})
		require.ErrorIs(t, err, app.ErrInvalid)
		_, err = c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Reason: strings.Repeat("x", 501)})
		require.ErrorIs(t, err, app.ErrInvalid)

		d, err := c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Reason: "not a source we archive", Actor: "ops"})
		require.NoError(t, err)
		require.Equal(t, "denied", d.State)
		require.Equal(t, "not a source we archive", d.Reason)
		require.False(t, fake.Member(5550001))
		require.Zero(t, fake.Calls(tg.MessagesImportChatInviteRequestTypeID))
		got, err := c.App.JoinRequest(ctx, alice, r.ID)
		require.NoError(t, err)
		require.Equal(t, "denied", got.State)
		require.Equal(t, []string{"join.ask", "join.deny"}, auditActions(t, c, "join_request:"+r.ID.String()))

		_, err = c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: uuid.Must(uuid.NewV7())})
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = c.App.AdminJoinRequests(ctx, "maybe", 10)
		require.ErrorIs(t, err, app.ErrInvalid)
	})
}

// Bad links and expired invites are refused when asked, with Telegram's
// reason in words; an invite that expires before the approval fails the
// request; a channel whose admins accept members leaves it requested; a
// rate limit keeps it pending.
func TestJoinRefusals(t *testing.T) {
	t.Parallel()
	tgSessionCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.Telegram, session []byte) {
		ctx := context.Background()
		joinOn(t, c)
		alice := c.Tenant(t, "alice", nil)
		conn := addTelegramAccount(t, c, alice, session)
		ask := func(invite string) (app.JoinRequestView, error) {
			return c.App.AskJoin(ctx, app.AskJoinRequest{TenantID: alice, ConnectionID: conn.ID, Invite: invite})
		}

		for _, bad := range []string{"https://t.me/durov", "https://example.org/+AbCdEf012345", "not a link"} {
			_, err := ask(bad)
			require.ErrorIs(t, err, app.ErrInvalid, bad)
			require.ErrorContains(t, err, "not a Telegram invite link", bad)
		}
		_, err := ask("")
		require.ErrorContains(t, err, "give the invite link")
		_, err = ask("https://t.me/+" + strings.Repeat("a", 600))
		require.ErrorContains(t, err, "longer than 512")

		fake.AddInvite("OldInvite0001", testkit.FakeInvite{Channel: &tg.Channel{ID: 5550002, AccessHash: 1, Title: "Old", Broadcast: true}, Expired: true})
		_, err = ask("https://t.me/+OldInvite0001")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "expired")
		_, err = ask("https://t.me/+NobodyKnows01")
		require.ErrorContains(t, err, "does not know this invite link")

		// Expires between the ask and the approval.
		late := testkit.FakeInvite{Channel: &tg.Channel{ID: 5550003, AccessHash: 1, Title: "Late", Broadcast: true}}
		fake.AddInvite("LateInvite001", late)
		r, err := ask("https://t.me/+LateInvite001")
		require.NoError(t, err)
		late.Expired = true
		fake.AddInvite("LateInvite001", late)
		failed, err := c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true})
		require.NoError(t, err)
		require.Equal(t, "failed", failed.State)
		require.Contains(t, failed.Reason, "expired")

		fake.AddInvite("GatedInvite01", testkit.FakeInvite{Channel: &tg.Channel{ID: 5550004, AccessHash: 1, Title: "Gated", Broadcast: true}, RequestNeeded: true})
		r, err = ask("https://t.me/+GatedInvite01")
		require.NoError(t, err)
		gated, err := c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true})
		require.NoError(t, err)
		require.Equal(t, "requested", gated.State)
		require.Contains(t, gated.Reason, "waiting for the channel's admins")
		require.False(t, fake.Member(5550004))

		harbourInvite(fake)
		r, err = ask("https://t.me/+HarbourInvite01")
		require.NoError(t, err)
		fake.Fail(tg.MessagesImportChatInviteRequestTypeID, testkit.ErrFloodWait3)
		_, err = c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true})
		require.ErrorContains(t, err, "stays pending")
		require.ErrorContains(t, err, "approve the request again later")
		still, err := c.App.JoinRequest(ctx, alice, r.ID)
		require.NoError(t, err)
		require.Equal(t, "pending", still.State)
		require.Contains(t, still.Reason, "wait 3 seconds")
		ok, err := c.App.AdminDecideJoin(ctx, app.DecideJoin{ID: r.ID, Approve: true})
		require.NoError(t, err)
		require.Equal(t, "joined", ok.State)
	})
}
