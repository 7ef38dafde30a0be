package app_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The watched profile of these tests: 30 posts over upstream pages of 20.
const (
	watchHandle = "watch_demo"
	watchID     = "4400000000000000077"
)

// tick moves the clock by d, runs the watch tick and waits for the n
// source runs it must start.
func (p *pipeline) tick(t testing.TB, d time.Duration, n int) {
	t.Helper()
	p.clock.Advance(d)
	tickOn(t, p.app, p.q, n)
}

func tickOn(t testing.TB, a *app.App, q *queue.Queue, n int) {
	t.Helper()
	done := testcore.JobDone(t, q, queue.WatchSourceArgs{}.Kind())
	got, err := a.WatchTick(context.Background())
	require.NoError(t, err)
	require.Equal(t, n, got, "source runs started")
	for range n {
		done()
	}
}

// lastRun is the newest run of a watch, with its posts archived.
func (p *pipeline) lastRun(t *testing.T, tenantID, watchID uuid.UUID) app.WatchRunView {
	t.Helper()
	runs, err := p.app.WatchRuns(context.Background(), tenantID, watchID, 100)
	require.NoError(t, err)
	require.NotEmpty(t, runs)
	for _, post := range runs[0].Posts {
		v := p.core.WaitCapture(t, tenantID, post.CaptureID)
		require.Equal(t, app.StateComplete, v.State, post.URL)
	}
	return runs[0]
}

func runURLs(r app.WatchRunView) []string {
	out := []string{}
	for _, p := range r.Posts {
		out = append(out, p.URL)
	}
	return out
}

// oldestFirst turns GrowTimeline's newest-first links around.
func oldestFirst(urls []string) []string {
	out := slices.Clone(urls)
	slices.Reverse(out)
	return out
}

func TestWatchArchivesNewPostsInOrderOnce(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
		alice := p.tenant(t, "alice", nil)
		w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		require.Equal(t, "active", w.State)
		require.Equal(t, 900, w.IntervalSeconds)
		require.Equal(t, app.NotifyDeliver, w.Notify)
		require.NotNil(t, w.NextRunAt)

		// The first run learns what is there and archives none of it.
		p.tick(t, 0, 1)
		first := p.lastRun(t, alice, w.ID)
		require.Empty(t, first.Posts)
		lib, err := p.app.Collections(ctx, alice, 100, "")
		require.NoError(t, err)
		require.Empty(t, lib.Items, "posts from before the watch are not archived")

		// Not due again before its interval.
		p.tick(t, time.Minute, 0)

		fresh := p.fx.GrowTimeline(watchHandle, 3)
		p.tick(t, 15*time.Minute, 1)
		run := p.lastRun(t, alice, w.ID)
		require.Equal(t, oldestFirst(fresh), runURLs(run), "new posts, oldest first")
		require.Equal(t, 3, run.NewPosts)
		require.Equal(t, "pending", run.DeliveryState, "notify deliver leaves the posts to the bot")
		for _, post := range run.Posts {
			c, err := p.app.Collection(ctx, alice, post.CollectionID)
			require.NoError(t, err)
			require.Equal(t, post.URL, c.SourceURL)
			require.Len(t, c.Media, 1, "the post's photo is archived")
		}

		// Nothing new: nothing archived twice.
		p.tick(t, 15*time.Minute, 1)
		require.Empty(t, p.lastRun(t, alice, w.ID).Posts)
		more := p.fx.GrowTimeline(watchHandle, 2)
		p.tick(t, 15*time.Minute, 1)
		require.Equal(t, oldestFirst(more), runURLs(p.lastRun(t, alice, w.ID)))

		lib, err = p.app.Collections(ctx, alice, 100, "")
		require.NoError(t, err)
		require.Len(t, lib.Items, 5)
		got, err := p.app.Watch(ctx, alice, w.ID)
		require.NoError(t, err)
		require.Equal(t, 5, got.NewPosts)
		require.NotNil(t, got.LastRunAt)
		require.Empty(t, got.LastError)
		now := p.clock.Now()
		require.True(t, got.NextRunAt.After(now.Add(13*time.Minute)) && !got.NextRunAt.After(now.Add(15*time.Minute)),
			"next run within one interval: %s from now", got.NextRunAt.Sub(now))

		pending, err := p.app.PendingWatchRuns(ctx, alice, 100)
		require.NoError(t, err)
		require.Len(t, pending, 2)
		require.NoError(t, p.app.WatchRunDelivered(ctx, alice, pending[0].ID))
		pending, err = p.app.PendingWatchRuns(ctx, alice, 100)
		require.NoError(t, err)
		require.Len(t, pending, 1)
	})
}

func TestWatchRestartBetweenRuns(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 10, 20)
		alice := p.tenant(t, "alice", nil)
		w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL, Notify: app.NotifyNone})
		require.NoError(t, err)
		p.tick(t, 0, 1)
		a := p.fx.GrowTimeline(watchHandle, 2)
		p.tick(t, 15*time.Minute, 1)
		require.Equal(t, oldestFirst(a), runURLs(p.lastRun(t, alice, w.ID)))
		require.Equal(t, "none", p.lastRun(t, alice, w.ID).DeliveryState)

		// The process stops; another starts on the same database.
		stop, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		require.NoError(t, p.q.Stop(stop))
		again := testcore.New(t, testcore.Options{Store: p.st})
		// The new process talks to its own fake upstream: the same profile,
		// which has posted 3 more meanwhile.
		grown := again.FX.AddTimeline(watchHandle, watchID, 10+2+3, 20)
		require.Equal(t, oldestFirst(a), oldestFirst(grown.Posts[3:5]))
		b := grown.Posts[:3]
		p.clock.Advance(15 * time.Minute)
		tickOn(t, again.App, again.Queue, 1)
		runs, err := again.App.WatchRuns(ctx, alice, w.ID, 100)
		require.NoError(t, err)
		require.Equal(t, oldestFirst(b), runURLs(runs[0]), "nothing missed, nothing twice")
		for _, post := range runs[0].Posts {
			again.WaitCapture(t, alice, post.CaptureID)
		}
		lib, err := again.App.Collections(ctx, alice, 100, "")
		require.NoError(t, err)
		require.Len(t, lib.Items, 5)
	})
}

func TestWatchTwoTenantsOneUpstreamRead(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		// More posts than a page, so that a page is one upstream read.
		tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		wa, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		wb, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: tl.ProfileURL, IntervalSeconds: 3600, Notify: "digest"})
		require.NoError(t, err)
		require.Equal(t, wa.SourceID, wb.SourceID, "one source")
		statuses := "/2/profile/" + watchHandle + "/statuses"
		before := p.fx.Hits(statuses)
		p.tick(t, 0, 1)
		require.Equal(t, before+1, p.fx.Hits(statuses), "one upstream read for two watchers")

		fresh := p.fx.GrowTimeline(watchHandle, 2)
		before = p.fx.Hits(statuses)
		p.tick(t, 15*time.Minute, 1)
		require.Equal(t, before+1, p.fx.Hits(statuses), "one upstream read per run")
		for _, tenant := range []struct {
			id    uuid.UUID
			watch uuid.UUID
		}{{alice, wa.ID}, {bob, wb.ID}} {
			require.Equal(t, oldestFirst(fresh), runURLs(p.lastRun(t, tenant.id, tenant.watch)))
			lib, err := p.app.Collections(ctx, tenant.id, 100, "")
			require.NoError(t, err)
			require.Len(t, lib.Items, 2)
		}
		// Each sees only its own watch.
		_, err = p.app.Watch(ctx, bob, wa.ID)
		require.ErrorIs(t, err, app.ErrNotFound)
		list, err := p.app.Watches(ctx, bob)
		require.NoError(t, err)
		require.Len(t, list, 1)
		require.Equal(t, "digest", list[0].Notify)
	})
}

// A watch made while its source is being read is not in that run: the
// source runs again at the next tick, so the new watch looks at what is
// there at once. Due only an interval later, its first look would have
// taken that interval's posts for old ones and archived none of them.
func TestWatchMadeDuringARunRunsAtTheNextTick(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		wa, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		p.tick(t, 0, 1)

		// Alice's second run reads the timeline; Bob watches it meanwhile.
		p.clock.Advance(15 * time.Minute)
		hold := p.fx.HoldTimeline(watchHandle)
		done := testcore.JobDone(t, p.q, queue.WatchSourceArgs{}.Kind())
		n, err := p.app.WatchTick(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		select {
		case <-hold.Started:
		case <-time.After(30 * time.Second):
			t.Fatal("the run never read the timeline")
		}
		running, err := p.app.Watch(ctx, alice, wa.ID)
		require.NoError(t, err)
		require.False(t, running.NextRunAt.After(p.clock.Now()), "a source being read shows as due now, not at its lease's end")
		wb, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: tl.ProfileURL, IntervalSeconds: 3600})
		require.NoError(t, err)
		hold.Release()
		done()
		got, err := p.app.Watch(ctx, bob, wb.ID)
		require.NoError(t, err)
		require.Nil(t, got.LastRunAt, "Bob's watch was made after the run took its watchers")

		p.tick(t, time.Second, 1)
		got, err = p.app.Watch(ctx, bob, wb.ID)
		require.NoError(t, err)
		require.NotNil(t, got.LastRunAt, "the next tick runs the source for Bob's new watch")
		p.tick(t, time.Minute, 0)

		fresh := p.fx.GrowTimeline(watchHandle, 2)
		p.tick(t, 15*time.Minute, 1)
		require.Equal(t, oldestFirst(fresh), runURLs(p.lastRun(t, bob, wb.ID)), "Bob gets what was posted after he watched")
	})
}

func TestWatchApprovalAndLimits(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
		other := p.fx.AddTimeline("watch_other", "4400000000000000078", 5, 20)
		third := p.fx.AddTimeline("watch_third", "4400000000000000079", 5, 20)
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		set := func(k, v string) {
			_, err := p.app.SetSetting(ctx, "test", k, v)
			require.NoError(t, err)
		}

		set("watch_require_approval", "true")
		w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		require.Equal(t, "pending", w.State)
		require.Nil(t, w.NextRunAt)
		statuses := "/2/profile/" + watchHandle + "/statuses"
		before := p.fx.Hits(statuses)
		p.tick(t, 0, 1)
		require.Equal(t, before, p.fx.Hits(statuses), "a pending watch reads nothing")

		pending, err := p.app.AdminWatches(ctx, "pending", 100)
		require.NoError(t, err)
		require.Len(t, pending, 1)
		require.Equal(t, alice, *pending[0].TenantID)
		approved, err := p.app.AdminWatchAction(ctx, "admin", w.ID, "approve")
		require.NoError(t, err)
		require.Equal(t, "active", approved.State)
		_, err = p.app.AdminWatchAction(ctx, "admin", w.ID, "approve")
		require.ErrorIs(t, err, app.ErrConflict)
		p.tick(t, 15*time.Minute, 1)
		require.Equal(t, before+1, p.fx.Hits(statuses))

		r, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: other.ProfileURL})
		require.NoError(t, err)
		rejected, err := p.app.AdminWatchAction(ctx, "admin", r.ID, "reject")
		require.NoError(t, err)
		require.Equal(t, "rejected", rejected.State)
		set("watch_require_approval", "false")

		// Pause and resume, by the watcher and by an admin.
		paused, err := p.app.PauseWatch(ctx, alice, w.ID)
		require.NoError(t, err)
		require.Equal(t, "paused", paused.State)
		require.Equal(t, "paused by you", paused.PausedReason)
		resumed, err := p.app.AdminWatchAction(ctx, "admin", w.ID, "resume")
		require.NoError(t, err)
		require.Equal(t, "active", resumed.State)
		_, err = p.app.AdminWatchAction(ctx, "admin", w.ID, "pause")
		require.NoError(t, err)
		_, err = p.app.ResumeWatch(ctx, alice, w.ID)
		require.NoError(t, err)

		// Limits, each refused with its reason.
		set("watch_per_user_limit", "1")
		_, err = p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: other.ProfileURL})
		require.ErrorIs(t, err, app.ErrForbidden)
		require.ErrorContains(t, err, "watch_per_user_limit 1")
		set("watch_per_user_limit", "3")
		set("watch_max_sources", "1")
		_, err = p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: third.ProfileURL})
		require.ErrorIs(t, err, app.ErrForbidden)
		require.ErrorContains(t, err, "watch_max_sources 1")
		_, err = p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: tl.ProfileURL})
		require.NoError(t, err, "a source watched already does not count again")
		set("watch_max_sources", "20")
		set("watch_apply_enabled", "false")
		_, err = p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: third.ProfileURL})
		require.ErrorIs(t, err, app.ErrForbidden)
		require.ErrorContains(t, err, "turned off")
		_, err = p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: third.ProfileURL, Admin: true})
		require.NoError(t, err, "an admin adds watches whatever watch_apply_enabled says")
		_, err = p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL, Admin: true})
		require.ErrorIs(t, err, app.ErrConflict, "one watch of a source per tenant")
	})
}

func TestWatchSourceGoneBacksOffAndPauses(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 10, 20)
		alice := p.tenant(t, "alice", nil)
		w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL, Notify: app.NotifyNone})
		require.NoError(t, err)
		p.tick(t, 0, 1)
		p.fx.RemoveTimeline(watchHandle, watchID)

		wait, backoff := 15*time.Minute, 15*time.Minute
		for failure := 1; failure <= app.WatchFailuresToPause; failure++ {
			p.tick(t, wait, 1)
			got, err := p.app.Watch(ctx, alice, w.ID)
			require.NoError(t, err)
			require.Contains(t, got.LastError, "deleted or renamed")
			if failure < app.WatchFailuresToPause {
				require.Equal(t, "active", got.State)
				backoff = min(backoff*2, app.MaxWatchBackoff)
				now := p.clock.Now()
				require.WithinDuration(t, now.Add(backoff), *got.NextRunAt, 5*time.Second, "failure %d backs off", failure)
				// Not before the backoff ends.
				p.tick(t, backoff-time.Minute, 0)
				wait = time.Minute
				continue
			}
			require.Equal(t, "paused", got.State)
			require.Contains(t, got.PausedReason, "after 5 failed runs in a row")
			require.Contains(t, got.PausedReason, "deleted or renamed")
		}
		events, err := p.app.Events(ctx, "open", 100)
		require.NoError(t, err)
		found := false
		for _, e := range events {
			found = found || (e.Key == app.EventWatchPausedPrefix+w.SourceID.String() && e.Severity == "warn")
		}
		require.True(t, found, "an event for operators: %+v", events)
		// The watcher is told why, although notify is none.
		pending, err := p.app.PendingWatchRuns(ctx, alice, 10)
		require.NoError(t, err)
		require.Len(t, pending, 1)
		require.Contains(t, pending[0].Error, "deleted or renamed")
	})
}

func TestWatchSince(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		// A date in the past: the posts published after it, read back over
		// two pages of the timeline (post k was published at
		// SyntheticTime(k)).
		since := testkit.SyntheticTime(5).Add(-30 * time.Minute)
		wa, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL, Since: since.Format(time.RFC3339)})
		require.NoError(t, err)
		require.Equal(t, since, *wa.Since)
		// A later date: nothing until then.
		later := p.clock.Now().Add(2 * time.Hour).UTC().Truncate(time.Second)
		wb, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: tl.ProfileURL, Since: later.Format(time.RFC3339)})
		require.NoError(t, err)
		p.tick(t, 0, 1)
		backfill := p.lastRun(t, alice, wa.ID)
		require.Equal(t, oldestFirst(tl.Posts[:26]), runURLs(backfill), "posts 5 to 30, oldest first")
		runs, err := p.app.WatchRuns(ctx, bob, wb.ID, 10)
		require.NoError(t, err)
		require.Empty(t, runs, "bob's watch starts later")

		p.fx.GrowTimeline(watchHandle, 1)
		p.tick(t, 15*time.Minute, 1)
		runs, err = p.app.WatchRuns(ctx, bob, wb.ID, 10)
		require.NoError(t, err)
		require.Empty(t, runs)
		require.Len(t, p.lastRun(t, alice, wa.ID).Posts, 1)

		p.clock.Advance(2 * time.Hour)
		p.tick(t, 0, 1) // bob's first run learns what is there
		fresh := p.fx.GrowTimeline(watchHandle, 2)
		p.tick(t, 15*time.Minute, 1)
		require.Equal(t, oldestFirst(fresh), runURLs(p.lastRun(t, bob, wb.ID)))
		lib, err := p.app.Collections(ctx, bob, 100, "")
		require.NoError(t, err)
		require.Len(t, lib.Items, 2, "only what appeared after bob's date")
	})
}

// The same on Telegram, whose channel pages date each post; a date of
// "now" (or none) keeps the first run to learning what is there.
func TestWatchSinceOnTelegram(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		ch := p.tme.AddChannel("since_demo", 30, 20)
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		since := testkit.SyntheticTime(25).Add(-30 * time.Minute)
		wa, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: ch.URL, Since: since.Format(time.RFC3339)})
		require.NoError(t, err)
		wb, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: bob, URL: ch.URL, Since: "now"})
		require.NoError(t, err)
		p.tick(t, 0, 1)
		require.Equal(t, oldestFirst(ch.Posts[:6]), runURLs(p.lastRun(t, alice, wa.ID)), "posts 25 to 30, oldest first")
		require.Empty(t, p.lastRun(t, bob, wb.ID).Posts, "since now: the first run archives nothing")

		fresh := p.tme.GrowChannel("since_demo", 1)
		p.tick(t, 15*time.Minute, 1)
		require.Equal(t, fresh, runURLs(p.lastRun(t, alice, wa.ID)))
		require.Equal(t, fresh, runURLs(p.lastRun(t, bob, wb.ID)))
	})
}

func TestWatchBadInput(t *testing.T) {
	p := newPipeline(t, "sqlite", testLimits())
	ctx := context.Background()
	tl := p.fx.AddTimeline(watchHandle, watchID, 5, 20)
	alice := p.tenant(t, "alice", nil)
	for _, c := range []struct {
		req  app.WatchRequest
		want string
	}{
		{app.WatchRequest{URL: ""}, "url is required"},
		{app.WatchRequest{URL: "not a link"}, "is not a link"},
		{app.WatchRequest{URL: "https://example.org/someone"}, "cannot watch"},
		{app.WatchRequest{URL: tl.Posts[0]}, "is a single post; watch the profile or channel"},
		{app.WatchRequest{URL: tl.ProfileURL, IntervalSeconds: 60}, "interval_seconds must be at least 300"},
		{app.WatchRequest{URL: tl.ProfileURL, IntervalSeconds: 30 * 24 * 3600}, "at most 604800"},
		{app.WatchRequest{URL: tl.ProfileURL, Notify: "loud"}, "notify must be deliver"},
		{app.WatchRequest{URL: tl.ProfileURL, Since: "yesterday"}, "since must be"},
	} {
		c.req.TenantID = alice
		_, err := p.app.CreateWatch(ctx, c.req)
		require.ErrorIs(t, err, app.ErrInvalid, c.want)
		require.ErrorContains(t, err, c.want)
	}
	// The floor follows the setting.
	_, err := p.app.SetSetting(ctx, "test", "watch_min_interval_seconds", "600")
	require.NoError(t, err)
	_, err = p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL, IntervalSeconds: 300})
	require.ErrorContains(t, err, "at least 600")
	w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL, IntervalSeconds: 600})
	require.NoError(t, err)
	_, err = p.app.PatchWatch(ctx, alice, w.ID, app.WatchPatch{})
	require.ErrorContains(t, err, "nothing to change")
	bad := "often"
	_, err = p.app.PatchWatch(ctx, alice, w.ID, app.WatchPatch{Notify: &bad})
	require.ErrorContains(t, err, "notify must be")
	n, digest := 7200, "digest"
	got, err := p.app.PatchWatch(ctx, alice, w.ID, app.WatchPatch{IntervalSeconds: &n, Notify: &digest})
	require.NoError(t, err)
	require.Equal(t, 7200, got.IntervalSeconds)
	require.Equal(t, "digest", got.Notify)
	require.NoError(t, p.app.DeleteWatch(ctx, alice, w.ID))
	err = p.app.DeleteWatch(ctx, alice, w.ID)
	require.True(t, errors.Is(err, app.ErrNotFound))
}

func TestWatchTelegramChannel(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		ch := p.tme.AddChannel("watch_channel", 30, 20)
		alice := p.tenant(t, "alice", nil)
		w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: ch.URL})
		require.NoError(t, err)
		p.tick(t, 0, 1)
		require.Empty(t, p.lastRun(t, alice, w.ID).Posts)
		fresh := p.tme.GrowChannel("watch_channel", 3)
		p.tick(t, 15*time.Minute, 1)
		run := p.lastRun(t, alice, w.ID)
		require.Equal(t, oldestFirst(fresh), runURLs(run))
		for _, post := range run.Posts {
			c, err := p.app.Collection(ctx, alice, post.CollectionID)
			require.NoError(t, err)
			require.NotEmpty(t, c.Media, "the post's photo is archived")
		}
		p.tick(t, 15*time.Minute, 1)
		require.Empty(t, p.lastRun(t, alice, w.ID).Posts, "none twice")
	})
}

// A source is never read by two runs at once: a tick skips a source whose
// lease another run holds, takes it again once that lease has expired (a
// process that died), and the run that lost its lease does nothing.
func TestWatchLease(t *testing.T) {
	testcore.Each(t, testcore.Options{NoStart: true}, func(t *testing.T, c *testcore.Core) {
		p := pipelineOf(c)
		ctx := context.Background()
		tl := p.fx.AddTimeline(watchHandle, watchID, 30, 20)
		alice := p.tenant(t, "alice", nil)
		w, err := p.app.CreateWatch(ctx, app.WatchRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		n, err := p.app.WatchTick(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		n, err = p.app.WatchTick(ctx)
		require.NoError(t, err)
		require.Equal(t, 0, n, "the first run holds the source")
		p.clock.Advance(11 * time.Minute)
		done := testcore.JobDone(t, p.q, queue.WatchSourceArgs{}.Kind())
		n, err = p.app.WatchTick(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "an expired lease is taken again")
		statuses := "/2/profile/" + watchHandle + "/statuses"
		before := p.fx.Hits(statuses)
		p.start(t)
		done()
		done()
		require.Equal(t, before+1, p.fx.Hits(statuses), "the run that lost its lease reads nothing")
		runs, err := p.app.WatchRuns(ctx, alice, w.ID, 10)
		require.NoError(t, err)
		require.Len(t, runs, 1)
	})
}
