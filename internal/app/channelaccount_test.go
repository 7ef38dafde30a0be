package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// claimKind claims the channel's ready items and returns the first of a
// kind, after marking the others done.
func claimKind(t *testing.T, a *app.App, channel uuid.UUID, kind string) app.ChannelWork {
	t.Helper()
	var found *app.ChannelWork
	for _, w := range claimAll(t, a, channel, poller) {
		if w.Kind == kind && found == nil {
			found = &w
			continue
		}
		require.NoError(t, a.ChannelDone(context.Background(), w.ID, poller))
	}
	require.NotNil(t, found, "no ready %s item", kind)
	return *found
}

// The /account_add dialog in core, on both databases: started only in a
// private chat; the next message sealed as it arrives (the stored update
// keeps no text); the account added once from the staged secret; a dialog
// nobody answers expires after 10 minutes and leaves the next message
// alone; /cancel ends one.
func TestChannelAccountDialog(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{MasterKey: accountsMasterKey}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		c.X.AddSession(xAlice)
		a := c.App
		ch := hello(t, a)
		const user = 7001
		accept := func(u app.ChannelUpdate) {
			t.Helper()
			_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
				Updates: []app.ChannelUpdate{u}, NextOffset: u.UpdateID + 1})
			require.NoError(t, err)
		}
		start := func(updateID int64) app.AccountDialogView {
			t.Helper()
			accept(message(updateID, user, "/account_add"))
			w := claimKind(t, a, ch, app.ChannelWorkUpdate)
			d, err := a.ChannelAccountStart(ctx, w.ID, poller, "x")
			require.NoError(t, err)
			require.NoError(t, a.ChannelDone(ctx, w.ID, poller))
			return d
		}

		// A group is refused.
		g := message(1, user, "/account_add")
		g.ChatID, g.ChatType = -100, "group"
		accept(g)
		w := claimKind(t, a, ch, app.ChannelWorkUpdate)
		_, err := a.ChannelAccountStart(ctx, w.ID, poller, "x")
		require.ErrorIs(t, err, app.ErrForbidden)
		_, err = a.ChannelAccountStart(ctx, w.ID, poller, "telegram")
		require.Error(t, err)
		require.NoError(t, a.ChannelDone(ctx, w.ID, poller))

		d := start(2)
		require.Equal(t, "X", d.Adapter.Name)
		require.Contains(t, d.Adapter.Help, "auth_token and ct0")
		require.WithinDuration(t, c.Clock.Now().Add(app.AccountDialogTTL), d.ExpiresAt, time.Minute)

		accept(message(3, user, xAlice.Cookie()))
		c.Clock.Advance(time.Second)
		works := claimAll(t, a, ch, poller)
		require.Len(t, works, 2, "the update that carried the secret, and the dialog")
		require.Equal(t, app.ChannelWorkUpdate, works[0].Kind, "the update first")
		require.True(t, works[0].Update.Staged)
		require.Empty(t, works[0].Update.Text, "no text of the secret is kept")
		require.Equal(t, int64(3), works[0].Update.MessageID)
		require.Equal(t, app.ChannelWorkAccount, works[1].Kind)
		require.NotContains(t, string(works[1].Progress), xAlice.AuthToken)
		res, err := a.ChannelAccountFinish(ctx, works[1].ID, poller)
		require.NoError(t, err)
		require.Empty(t, res.Problem)
		require.NotNil(t, res.Connection)
		require.Equal(t, "alice_archivist", res.Connection.Handle)
		connID := res.Connection.ID
		again, err := a.ChannelAccountFinish(ctx, works[1].ID, poller)
		require.NoError(t, err)
		require.True(t, again.Expired, "the staged secret is taken once")
		for _, w := range works {
			require.NoError(t, a.ChannelDone(ctx, w.ID, poller))
		}
		list, err := a.Connections(ctx, works[0].Tenant.ID)
		require.NoError(t, err)
		require.Len(t, list, 1)

		// Nobody answers: the dialog expires, and a later message stays
		// an ordinary one.
		start(4)
		c.Clock.Advance(app.AccountDialogTTL + time.Second)
		pollLease(t, a, ch)
		exp := claimKind(t, a, ch, app.ChannelWorkAccount)
		res, err = a.ChannelAccountFinish(ctx, exp.ID, poller)
		require.NoError(t, err)
		require.True(t, res.Expired)
		require.NoError(t, a.ChannelDone(ctx, exp.ID, poller))
		accept(message(5, user, "auth_token=zzz"))
		u := claimKind(t, a, ch, app.ChannelWorkUpdate)
		require.False(t, u.Update.Staged)
		require.Equal(t, "auth_token=zzz", u.Update.Text)
		require.NoError(t, a.ChannelDone(ctx, u.ID, poller))

		// A secret that comes after the 10 minutes, before the dialog
		// ended: deleted and kept nowhere all the same, nothing added.
		start(10)
		c.Clock.Advance(app.AccountDialogTTL + time.Second)
		pollLease(t, a, ch)
		accept(message(11, user, "auth_token=late"))
		c.Clock.Advance(time.Second)
		late := claimAll(t, a, ch, poller)
		require.Len(t, late, 2)
		require.True(t, late[0].Update.Staged)
		require.Empty(t, late[0].Update.Text)
		res, err = a.ChannelAccountFinish(ctx, late[1].ID, poller)
		require.NoError(t, err)
		require.Contains(t, res.Problem, "ended before this message came")
		require.Nil(t, res.Connection)
		for _, w := range late {
			require.NoError(t, a.ChannelDone(ctx, w.ID, poller))
		}

		// /cancel.
		start(6)
		accept(message(7, user, "/cancel"))
		cw := claimKind(t, a, ch, app.ChannelWorkUpdate)
		require.NoError(t, a.ChannelAccountCancel(ctx, cw.ID, poller))
		require.ErrorIs(t, a.ChannelAccountCancel(ctx, cw.ID, poller), app.ErrNotFound)
		require.NoError(t, a.ChannelDone(ctx, cw.ID, poller))
		accept(message(8, user, "ct0=abc"))
		u = claimKind(t, a, ch, app.ChannelWorkUpdate)
		require.False(t, u.Update.Staged, "no dialog waits after /cancel")
		require.NoError(t, a.ChannelDone(ctx, u.ID, poller))

		// Remove the account.
		accept(message(9, user, "/account_remove"))
		rw := claimKind(t, a, ch, app.ChannelWorkUpdate)
		rv, err := a.ChannelAccountRemove(ctx, rw.ID, poller, connID)
		require.NoError(t, err)
		require.Equal(t, "revoked", rv.Status)
	})
}
