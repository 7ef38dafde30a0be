package app_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// tokenOf is the token of a login link's URL.
func tokenOf(t *testing.T, url string) string {
	t.Helper()
	_, token, ok := strings.Cut(url, "/login/")
	require.True(t, ok, "a login URL ends in /login/TOKEN: %s", url)
	return token
}

var browser = app.WebClient{IP: "192.0.2.7", UserAgent: "Mozilla/5.0 (test)"}

func TestLoginLinkSignsInOnce(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)

		url, expires, err := c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(url, "http://127.0.0.1:8080/login/"), url)
		require.WithinDuration(t, c.Clock.Now().Add(app.DefaultLoginLinkTTL), expires, 5*time.Second)

		key, s, err := c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.NoError(t, err)
		require.Equal(t, alice, s.TenantID)
		require.Equal(t, "alice", s.TenantName)
		require.False(t, s.Admin)
		require.Equal(t, app.LabelLoginLink, s.Label)
		require.Equal(t, browser.IP, s.IP)
		require.Len(t, s.ID, 16)
		require.Len(t, s.CSRF, 43)
		require.NotEqual(t, key, s.CSRF)
		require.WithinDuration(t, s.CreatedAt.Add(app.WebSessionTTL), s.ExpiresAt, time.Second)

		got, err := c.App.WebSession(ctx, key)
		require.NoError(t, err)
		require.Equal(t, s.ID, got.ID)
		require.Equal(t, s.CSRF, got.CSRF, "the CSRF token stays for the session's life")
		require.NotNil(t, got.LastSeenAt)

		_, _, err = c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.ErrorIs(t, err, app.ErrLoginLinkUsed)
		require.Contains(t, err.Error(), "already used")

		_, _, err = c.App.RedeemLoginLink(ctx, "not-a-token", browser)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, _, err = c.App.RedeemLoginLink(ctx, strings.Repeat("A", 43), browser)
		require.ErrorIs(t, err, app.ErrNotFound)

		// The creation is audited, without the token.
		entries, err := c.App.Audit(ctx, 10)
		require.NoError(t, err)
		var found bool
		for _, e := range entries {
			if e.Action == "web.login_link.create" {
				found = true
				require.Equal(t, "tenant:alice", e.Target)
				require.NotContains(t, string(e.After), tokenOf(t, url))
			}
		}
		require.True(t, found, "login-link creation is in the audit log")

		// Admin links make admin sessions; the bot's links never do.
		url, _, err = c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", true, time.Hour)
		require.NoError(t, err)
		_, s, err = c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.NoError(t, err)
		require.True(t, s.Admin)
		url, _, err = c.App.LoginLinkURL(ctx, alice, 0)
		require.NoError(t, err)
		_, s, err = c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.NoError(t, err)
		require.False(t, s.Admin)
	})
}

func TestLoginLinkRefusals(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		c.Tenant(t, "alice", nil)

		for _, ttl := range []time.Duration{time.Second, 59 * time.Second, 7*24*time.Hour + time.Second, -time.Minute} {
			_, _, err := c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, ttl)
			require.ErrorIs(t, err, app.ErrInvalid, "ttl %s", ttl)
			require.Contains(t, err.Error(), "1 minute to 7 days")
		}
		_, _, err := c.App.CreateLoginLink(ctx, app.ActorCLI, "nobody", false, 0)
		require.ErrorIs(t, err, app.ErrNotFound)
		require.Contains(t, err.Error(), "monitor admin tenant create nobody")

		url, _, err := c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, time.Minute)
		require.NoError(t, err)
		c.Clock.Advance(time.Minute + time.Second)
		_, _, err = c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.ErrorIs(t, err, app.ErrLoginLinkExpired)
		require.Contains(t, err.Error(), "expired")

		// A disabled tenant gets no session, and its sessions stop working.
		url, _, err = c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.NoError(t, err)
		key, _, err := c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.NoError(t, err)
		url, _, err = c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.NoError(t, err)
		disabled := "disabled"
		_, err = c.App.UpdateTenant(ctx, app.ActorCLI, "alice", app.TenantChange{Status: &disabled})
		require.NoError(t, err)
		_, _, err = c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.ErrorIs(t, err, app.ErrForbidden)
		require.Contains(t, err.Error(), "disabled")
		_, err = c.App.WebSession(ctx, key)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		_, _, err = c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.ErrorIs(t, err, app.ErrTenantNotActive)
	})
}

func TestLoginLinkRacingBrowsersGetOneSession(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		url, _, err := c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, errs[i] = c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			require.ErrorIs(t, err, app.ErrLoginLinkUsed)
		}
		require.Equal(t, 1, won)
		sessions, err := c.App.WebSessions(ctx, alice)
		require.NoError(t, err)
		require.Len(t, sessions, 1)
	})
}

func TestWebSessionsExpireAndAreRevokedOnlyByTheirTenant(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		signIn := func(name string) (string, app.WebSession) {
			t.Helper()
			url, _, err := c.App.CreateLoginLink(ctx, app.ActorCLI, name, false, 0)
			require.NoError(t, err)
			key, s, err := c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
			require.NoError(t, err)
			return key, s
		}
		a1, s1 := signIn("alice")
		c.Clock.Advance(time.Second)
		a2, s2 := signIn("alice")
		b1, sb := signIn("bob")

		list, err := c.App.WebSessions(ctx, alice)
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, s2.ID, list[0].ID, "newest first")
		require.Equal(t, s1.ID, list[1].ID)

		err = c.App.RevokeWebSession(ctx, bob, s1.ID)
		require.ErrorIs(t, err, app.ErrNotFound, "bob cannot revoke alice's session")
		_, err = c.App.WebSession(ctx, a1)
		require.NoError(t, err)
		require.NoError(t, c.App.RevokeWebSession(ctx, alice, s1.ID))
		_, err = c.App.WebSession(ctx, a1)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		require.ErrorIs(t, c.App.RevokeWebSession(ctx, alice, s1.ID), app.ErrNotFound)

		// Logout; an unknown key is not an error.
		require.NoError(t, c.App.EndWebSession(ctx, b1))
		_, err = c.App.WebSession(ctx, b1)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		require.NoError(t, c.App.EndWebSession(ctx, b1))
		require.NoError(t, c.App.EndWebSession(ctx, "garbage"))
		_ = sb

		// Last seen moves at most once a minute.
		first, err := c.App.WebSession(ctx, a2)
		require.NoError(t, err)
		c.Clock.Advance(10 * time.Second)
		again, err := c.App.WebSession(ctx, a2)
		require.NoError(t, err)
		require.Equal(t, first.LastSeenAt.Unix(), again.LastSeenAt.Unix())
		c.Clock.Advance(time.Minute)
		later, err := c.App.WebSession(ctx, a2)
		require.NoError(t, err)
		require.True(t, later.LastSeenAt.After(*first.LastSeenAt))

		// A session lives 30 days from sign-in, however much it is used.
		c.Clock.Advance(app.WebSessionTTL - 2*time.Minute)
		_, err = c.App.WebSession(ctx, a2)
		require.NoError(t, err)
		c.Clock.Advance(2 * time.Minute)
		_, err = c.App.WebSession(ctx, a2)
		require.ErrorIs(t, err, app.ErrUnauthorized)
		list, err = c.App.WebSessions(ctx, alice)
		require.NoError(t, err)
		require.Empty(t, list)

		// The purge deletes the expired session and every expired link.
		_, _, err = c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, time.Minute)
		require.NoError(t, err)
		c.Clock.Advance(2 * time.Minute)
		sessions, links, err := c.App.PurgeWebSessions(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(1), sessions, "alice's expired session (the others were ended)")
		require.Equal(t, int64(4), links, "every link made so far has expired, used or not")
	})
}

func TestLoginLinkBaseURL(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true, HTTPAddr: "0.0.0.0:9090"}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		c.Tenant(t, "alice", nil)
		url, _, err := c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(url, "http://localhost:9090/login/"), url)

		for _, bad := range []string{"monitor.example.org", "ftp://example.org", "https://example.org/?a=1", "https://example.org/#x", "https://u:p@example.org", "/relative"} {
			_, err := c.App.SetSetting(ctx, app.ActorCLI, "web_base_url", bad)
			require.ErrorIs(t, err, app.ErrInvalid, bad)
		}
		_, err = c.App.SetSetting(ctx, app.ActorCLI, "web_base_url", "https://example.org/monitor/")
		require.NoError(t, err)
		url, _, err = c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(url, "https://example.org/monitor/login/"), url)
		require.Len(t, tokenOf(t, url), 43)
	})
}

func TestWebPreferences(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		p, err := c.App.WebPreferences(ctx, alice)
		require.NoError(t, err)
		require.Equal(t, app.WebPreferences{}, p, "automatic until set")
		require.NoError(t, c.App.SetWebPreferences(ctx, alice, app.WebPreferences{Language: "zh-CN", Theme: "dark"}))
		p, err = c.App.WebPreferences(ctx, alice)
		require.NoError(t, err)
		require.Equal(t, app.WebPreferences{Language: "zh-CN", Theme: "dark"}, p)
		p, err = c.App.WebPreferences(ctx, bob)
		require.NoError(t, err)
		require.Equal(t, app.WebPreferences{}, p, "bob's are his own")

		err = c.App.SetWebPreferences(ctx, alice, app.WebPreferences{Language: "fr"})
		require.ErrorIs(t, err, app.ErrInvalid)
		require.Contains(t, err.Error(), `language "fr"`)
		err = c.App.SetWebPreferences(ctx, alice, app.WebPreferences{Theme: "neon"})
		require.ErrorIs(t, err, app.ErrInvalid)
		require.Contains(t, err.Error(), `theme "neon"`)
		p, err = c.App.WebPreferences(ctx, alice)
		require.NoError(t, err)
		require.Equal(t, app.WebPreferences{Language: "zh-CN", Theme: "dark"}, p, "a refused change loses nothing")
	})
}

// TestWebSessionPurgeRunsPeriodically ends a session by its expiry and
// starts the queue with the production schedule: the purge job runs at
// start and deletes it.
func TestWebSessionPurgeRunsPeriodically(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		url, _, err := c.App.CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
		require.NoError(t, err)
		key, s, err := c.App.RedeemLoginLink(ctx, tokenOf(t, url), browser)
		require.NoError(t, err)
		c.Clock.Advance(app.WebSessionTTL + time.Minute)

		log := storetest.Logger(t)
		q, err := queue.New(c.Store, config.Queue{CaptureWorkers: 1, DownloadWorkers: 1, ControlWorkers: 1}, log, c.App.RegisterWorkers)
		require.NoError(t, err)
		require.NoError(t, q.AddPeriodic(queue.Schedule()...))
		c.App.AttachQueue(q)
		purged := testcore.JobDone(t, q, queue.PurgeWebSessionsArgs{}.Kind())
		require.NoError(t, q.Start(ctx))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = q.Stop(ctx)
		})
		purged()
		n, links, err := c.App.PurgeWebSessions(ctx)
		require.NoError(t, err)
		require.Zero(t, n+links, "the periodic purge left nothing to purge")
		_, err = c.Store.WebSessionGetByDigest(ctx, app.TokenDigest(key))
		require.ErrorIs(t, err, store.ErrNotFound, "session %s of %s is gone", s.ID, alice)
	})
}
