package channelserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// A sign-in link is made only for an update from a private chat, only for
// an enabled account, and signs in as the sender's account once.
func TestLoginLinkOnlyInAPrivateChat(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, tc *testcore.Core) {
		c := newCoreOn(t, tc)
		ctx := context.Background()

		w := c.send(t, inGroup(6, "/web@monitor_bot"))
		_, err := c.api.LoginLink(ctx, w.ID, channelapi.LoginLinkRequest{Owner: owner})
		require.Equal(t, channelapi.CodeForbidden, code(t, err))
		require.Contains(t, err.Error(), "private chat")
		require.NoError(t, c.api.Done(ctx, w.ID, owner))

		w = c.send(t, private(6, "/web"))
		link, err := c.api.LoginLink(ctx, w.ID, channelapi.LoginLinkRequest{Owner: owner})
		require.NoError(t, err)
		require.Equal(t, int(app.DefaultLoginLinkTTL/time.Second), link.ValidSeconds)
		require.WithinDuration(t, c.tc.Clock.Now().Add(app.DefaultLoginLinkTTL), link.ExpiresAt, time.Second)
		_, token, ok := strings.Cut(link.URL, "/login/")
		require.True(t, ok, link.URL)
		_, s, err := c.app.RedeemLoginLink(ctx, token, app.WebClient{})
		require.NoError(t, err)
		require.Equal(t, w.Tenant.ID, s.TenantID, "the sender's own account")
		_, _, err = c.app.RedeemLoginLink(ctx, token, app.WebClient{})
		require.ErrorIs(t, err, app.ErrLoginLinkUsed)
		require.NoError(t, c.api.Done(ctx, w.ID, owner))

		_, err = c.app.SetSetting(ctx, "test", "approval_mode", "approval")
		require.NoError(t, err)
		w = c.send(t, private(66, "/web"))
		require.Equal(t, "pending", w.Tenant.Status)
		_, err = c.api.LoginLink(ctx, w.ID, channelapi.LoginLinkRequest{Owner: owner})
		require.Equal(t, channelapi.CodeTenantNotActive, code(t, err), "an account awaiting approval gets no link")
	})
}

// A console sign-in link is only for a tenant marked admin, and its
// session has admin rights; core refuses anyone else whatever the channel
// shows.
func TestConsoleLoginLinkOnlyForAnAdminTenant(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, tc *testcore.Core) {
		c := newCoreOn(t, tc)
		ctx := context.Background()

		w := c.send(t, private(7, "/admin"))
		require.False(t, w.Tenant.Admin)
		_, err := c.api.LoginLink(ctx, w.ID, channelapi.LoginLinkRequest{Owner: owner, Console: true})
		require.Equal(t, channelapi.CodeForbidden, code(t, err))
		require.Contains(t, err.Error(), "Only an operator may open the console")
		require.NoError(t, c.api.Done(ctx, w.ID, owner))

		yes := true
		_, err = c.app.UpdateTenant(ctx, "test", w.Tenant.Name, app.TenantChange{Admin: &yes})
		require.NoError(t, err)
		w = c.send(t, private(7, "/admin"))
		require.True(t, w.Tenant.Admin, "the work item says so")
		link, err := c.api.LoginLink(ctx, w.ID, channelapi.LoginLinkRequest{Owner: owner, Console: true})
		require.NoError(t, err)
		require.True(t, link.Admin)
		_, token, _ := strings.Cut(link.URL, "/login/")
		_, s, err := c.app.RedeemLoginLink(ctx, token, app.WebClient{})
		require.NoError(t, err)
		require.True(t, s.Admin)
		require.Equal(t, w.Tenant.ID, s.TenantID)
	})
}
