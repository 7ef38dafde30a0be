package app_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

func message(updateID, userID int64, text string) app.ChannelUpdate {
	return app.ChannelUpdate{UpdateID: updateID, Kind: app.ChannelUpdateMessage, From: app.ChannelUser{ID: userID, Username: "user"},
		ChatID: userID, ChatType: "private", MessageID: updateID, Text: text}
}

// poller is the process that holds the poll lease of hello's channel.
const poller = "poller"

// hello registers the test bot and takes its poll lease for poller.
func hello(t *testing.T, a *app.App) uuid.UUID {
	t.Helper()
	h, err := a.ChannelHello(context.Background(), app.ChannelInstance{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
	require.NoError(t, err)
	pollLease(t, a, h.ChannelID)
	return h.ChannelID
}

// pollLease takes or renews the channel's poll lease for poller.
func pollLease(t *testing.T, a *app.App, channel uuid.UUID) {
	t.Helper()
	l, err := a.ChannelPollLease(context.Background(), app.ChannelPollLeaseRequest{ChannelID: channel, Owner: poller})
	require.NoError(t, err)
	require.True(t, l.Granted, "the poll lease is held by %q", l.Holder)
}

// claimAll leases every ready item of the channel.
func claimAll(t *testing.T, a *app.App, channel uuid.UUID, owner string) []app.ChannelWork {
	t.Helper()
	w, err := a.ChannelClaim(context.Background(), app.ChannelClaimRequest{ChannelID: channel, Owner: owner, Max: 50})
	require.NoError(t, err)
	return w
}

func TestChannelFirstMessagesRaceToOneTenant(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		ctx := context.Background()
		ch := hello(t, a)

		// Eight updates of someone new arrive at once, as from several
		// channel processes.
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller,
					Updates: []app.ChannelUpdate{message(int64(100+i), 4242, "hi")}, NextOffset: int64(101 + i)})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}

		tenants, err := a.Tenants(ctx)
		require.NoError(t, err)
		var names []string
		for _, tn := range tenants {
			if strings.HasPrefix(tn.Name, "tg4242") {
				names = append(names, tn.Name)
			}
		}
		require.Equal(t, []string{"tg4242"}, names, "exactly one personal tenant")

		work := claimAll(t, a, ch, "bot")
		require.Len(t, work, n)
		created := 0
		for _, w := range work {
			require.Equal(t, app.ChannelWorkUpdate, w.Kind)
			require.Equal(t, work[0].Tenant.ID, w.Tenant.ID, "every update acts for the same tenant")
			require.Equal(t, "tg4242", w.Tenant.Name)
			require.Equal(t, store.TenantEnabled, w.Tenant.Status)
			require.NotNil(t, w.Update)
			require.Equal(t, int64(4242), w.Update.From.ID)
			if w.Tenant.New {
				created++
			}
		}
		require.Equal(t, 1, created, "one update created the tenant")

		entries, err := a.Audit(ctx, 100)
		require.NoError(t, err)
		signups := 0
		for _, e := range entries {
			if e.Action == "tenant.signup" && e.Target == "tenant:tg4242" {
				signups++
			}
		}
		require.Equal(t, 1, signups, "the losers' sign-ups rolled back whole")
	})
}

func TestChannelUpdatesStoredOnceThenOffsetAdvances(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		ctx := context.Background()
		ch := hello(t, a)
		req := app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller, Updates: []app.ChannelUpdate{message(5, 7, "/start"), message(6, 7, "/help")}, NextOffset: 9}
		r, err := a.ChannelAcceptUpdates(ctx, req)
		require.NoError(t, err)
		require.Equal(t, app.ChannelUpdatesReply{Stored: 2, NextOffset: 9}, r)

		// The channel did not hear the answer and sends the batch again.
		r, err = a.ChannelAcceptUpdates(ctx, req)
		require.NoError(t, err)
		require.Equal(t, app.ChannelUpdatesReply{Stored: 0, NextOffset: 9}, r, "nothing is stored twice")
		r, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller, NextOffset: 4})
		require.NoError(t, err)
		require.Equal(t, int64(9), r.NextOffset, "the offset never moves back")

		h, err := a.ChannelHello(ctx, app.ChannelInstance{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
		require.NoError(t, err)
		require.Equal(t, ch, h.ChannelID)
		require.Equal(t, int64(9), h.NextOffset, "a restarted channel resumes where it stopped")

		work := claimAll(t, a, ch, "bot")
		require.Len(t, work, 2, "one work item per update")
		require.Equal(t, "/start", work[0].Update.Text)
		require.Equal(t, "/help", work[1].Update.Text)
		require.True(t, work[0].Tenant.New)
		require.False(t, work[1].Tenant.New)

		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: uuid.New(), Owner: poller, NextOffset: 1})
		require.True(t, errors.Is(err, app.ErrInvalid), "unknown channel: %v", err)
	})
}

func TestChannelSignupFollowsTheApprovalModeAndAvoidsTakenNames(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		ctx := context.Background()
		ch := hello(t, a)
		_, err := a.SetSetting(ctx, "ops", "approval_mode", "approval")
		require.NoError(t, err)
		_, err = a.CreateTenant(ctx, "ops", "tg77", nil)
		require.NoError(t, err)

		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller, Updates: []app.ChannelUpdate{message(1, 77, "hi")}, NextOffset: 2})
		require.NoError(t, err)
		work := claimAll(t, a, ch, "bot")
		require.Len(t, work, 1)
		require.Equal(t, "tg77-2", work[0].Tenant.Name, "the name tg77 was taken")
		require.Equal(t, store.TenantPending, work[0].Tenant.Status, "approval mode: pending until approved")
		require.True(t, work[0].Tenant.New)
	})
}

func TestSaveTooChecksTheQuotaUnderTheTenantLock(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		photos, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		video, c := p.capture(t, alice, videoPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)

		// What each post costs whoever saves it.
		carol := p.tenant(t, "carol", nil)
		cost := map[uuid.UUID]int64{}
		for _, id := range []uuid.UUID{photos.CollectionID, video.CollectionID} {
			r, err := p.app.SaveToo(ctx, carol, id)
			require.NoError(t, err)
			require.Equal(t, app.SaveSaved, r.Result)
			u, err := p.app.Usage(ctx, carol)
			require.NoError(t, err)
			cost[id] = u.UsedBytes
			require.NoError(t, p.app.DeleteCollection(ctx, carol, id))
		}

		// Bob has room for either post, not for both; he presses both
		// buttons at once.
		quota := max(cost[photos.CollectionID], cost[video.CollectionID]) + 1
		require.Less(t, quota, cost[photos.CollectionID]+cost[video.CollectionID])
		bob := p.tenant(t, "bob", &quota)
		var wg sync.WaitGroup
		replies := make([]app.SaveReply, 2)
		for i, id := range []uuid.UUID{photos.CollectionID, video.CollectionID} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				replies[i], err = p.app.SaveToo(ctx, bob, id)
				require.NoError(t, err)
			}()
		}
		wg.Wait()
		results := []string{replies[0].Result, replies[1].Result}
		require.ElementsMatch(t, []string{app.SaveSaved, app.SaveRefused}, results)
		for _, r := range replies {
			if r.Result == app.SaveRefused {
				require.Contains(t, r.Reason, "quota")
			}
		}
		u, err := p.app.Usage(ctx, bob)
		require.NoError(t, err)
		require.Less(t, u.UsedBytes, quota, "the quota held")

		// A post that is not archived is refused with a reason.
		r, err := p.app.SaveToo(ctx, bob, uuid.New())
		require.NoError(t, err)
		require.Equal(t, app.SaveRefused, r.Result)
	})
}

func TestChannelOnlyThePollerMovesTheOffset(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := &testkit.Clock{}
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t), Now: clk.Now})
		ctx := context.Background()
		ch := hello(t, a)
		offset := func() int64 {
			t.Helper()
			c, err := st.ChannelGet(ctx, ch)
			require.NoError(t, err)
			return c.NextOffset
		}
		_, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller, NextOffset: 5})
		require.NoError(t, err)

		// Another process asks for the lease and is told who holds it.
		l, err := a.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: ch, Owner: "other"})
		require.NoError(t, err)
		require.False(t, l.Granted)
		require.Equal(t, poller, l.Holder)

		// It posts anyway: refused, nothing stored, the offset stays.
		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: "other",
			Updates: []app.ChannelUpdate{message(6, 7, "hi")}, NextOffset: 9})
		require.True(t, errors.Is(err, app.ErrLeaseLost), "a non-holder's post: %v", err)
		require.Equal(t, int64(5), offset())
		require.Empty(t, claimAll(t, a, ch, "bot"), "nothing was stored")

		// The holder's lease runs out and the other process takes it: the
		// stale poller cannot move the offset any more.
		clk.Advance(app.ChannelLeaseTTL + time.Second)
		l, err = a.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: ch, Owner: "other"})
		require.NoError(t, err)
		require.True(t, l.Granted)
		require.Equal(t, int64(5), l.NextOffset, "the new poller resumes from the stored offset")
		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller, NextOffset: 7})
		require.True(t, errors.Is(err, app.ErrLeaseLost), "a stale poller's post: %v", err)
		require.Equal(t, int64(5), offset())

		// Released, the lease goes to the former holder at once.
		_, err = a.ChannelPollLease(ctx, app.ChannelPollLeaseRequest{ChannelID: ch, Owner: "other", Release: true})
		require.NoError(t, err)
		_, err = a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: "other", NextOffset: 7})
		require.True(t, errors.Is(err, app.ErrLeaseLost), "after releasing: %v", err)
		pollLease(t, a, ch)
		r, err := a.ChannelAcceptUpdates(ctx, app.ChannelUpdatesRequest{ChannelID: ch, Owner: poller, NextOffset: 7})
		require.NoError(t, err)
		require.Equal(t, int64(7), r.NextOffset)
	})
}
