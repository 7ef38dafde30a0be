package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/runtime"
)

// A profile in a browser: the capture form lands on the progress page,
// which follows the posts by itself and reloads when they are archived;
// Fetch more and Stop are its forms; the profile's page lists its posts.
// Both languages, both themes and a phone's width, without sideways
// scrolling. With MONITOR_SCREENSHOTS set it saves submission-*.png and
// profile-*.png.
func TestProfileInTheBrowser(t *testing.T) {
	findChromium(t)
	l := newLive(t, runtime.WithPageSize(30))
	ctx := context.Background()
	tl := l.fx.AddTextTimeline(timelineHandle, timelineID, 75, 10)
	alice, err := l.App().CreateTenant(ctx, "test", "alice", nil)
	require.NoError(t, err)

	// waitText waits until the page (reloaded by its script) says text.
	waitText := func(b *browser, text string) {
		b.t.Helper()
		waitJS(b, `document.body.innerText.includes(`+jsString(text)+`)`)
	}
	noSideways := func(b *browser, what string) {
		b.t.Helper()
		require.LessOrEqual(b.t, eval[int](b, `document.documentElement.scrollWidth`), eval[int](b, `document.documentElement.clientWidth`),
			"no sideways scrolling on %s", what)
	}
	var progress, profile string

	t.Run("en", func(t *testing.T) {
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "alice")
		b.do(chromedp.SendKeys(chromedp.ID("capture-url"), tl.ProfileURL), chromedp.Submit(chromedp.ID("capture-url")),
			chromedp.WaitVisible(chromedp.CSS("[data-submission]")))
		progress = strings.TrimPrefix(runGet(b, chromedp.Location()), l.base)
		require.True(t, strings.HasPrefix(progress, "/submissions/"), progress)
		waitText(b, "30 of 30 posts done")
		require.Contains(t, b.text(), "The profile's posts are archived")
		b.screenshot("submission-done-en")

		// The profile's page lists the posts, with Fetch more.
		b.do(chromedp.Click(chromedp.CSS(`a.button.secondary`)), chromedp.WaitVisible(chromedp.CSS("ol.author-posts")))
		profile = strings.TrimPrefix(runGet(b, chromedp.Location()), l.base)
		require.Equal(t, 20, eval[int](b, `document.querySelectorAll("ol.author-posts li").length`))
		require.Contains(t, b.text(), "Older posts")
		b.screenshot("profile-en")

		// Fetch more from there, held back upstream: the progress page's
		// counts move without a reload while Stop is offered; Stop ends it.
		l.fx.Delay(150 * time.Millisecond)
		b.do(chromedp.Click(chromedp.CSS(`.members-more form[action$="/more"] button`)), chromedp.WaitVisible(chromedp.CSS(`form[action$="/stop"] button`)))
		require.Equal(t, l.base+progress, runGet(b, chromedp.Location()), "back on the profile's progress")
		waitJS(b, `+document.querySelector("[data-count=total]").textContent > 30`)
		require.Contains(t, b.text(), "Archiving the profile's posts")
		b.screenshot("submission-running-en")
		b.do(chromedp.Click(chromedp.CSS(`form[action$="/stop"] button`)), chromedp.WaitVisible(chromedp.CSS(`.notice`)))
		require.Contains(t, b.text(), "Stopped: nothing new starts")
		l.fx.Delay(0)
		waitJS(b, `["complete","partial","failed"].includes(document.querySelector("[data-submission]").dataset.state)`)
		require.Zero(t, eval[int](b, `document.querySelectorAll("form[action$='/more'], form[action$='/stop']").length`), "stopped: neither more nor stop")

		b.do(chromedp.Navigate(l.base+profile), chromedp.WaitVisible(chromedp.CSS("ol.author-posts")))
		require.Zero(t, eval[int](b, `document.querySelectorAll(".members-more form").length`), "stopped: no Fetch more")
		b.screenshot("profile-stopped-en")
	})

	t.Run("zh-CN", func(t *testing.T) {
		b := newBrowser(t, "zh-CN", 1280, 900)
		b.signIn(l, "alice")
		b.do(chromedp.Navigate(l.base+progress), chromedp.WaitVisible(chromedp.CSS("[data-submission]")))
		require.Contains(t, b.text(), "已停止")
		b.screenshot("submission-zh")
		b.do(chromedp.Navigate(l.base+profile), chromedp.WaitVisible(chromedp.CSS("ol.author-posts")))
		require.Contains(t, b.text(), "收藏库中的帖子")
		require.Contains(t, b.text(), "更早的帖子")
		b.screenshot("profile-zh")
	})

	for _, lang := range []string{"en-US", "zh-CN"} {
		t.Run(lang+" dark 390", func(t *testing.T) {
			require.NoError(t, l.App().SetWebPreferences(ctx, alice.ID, app.WebPreferences{Theme: "dark"}))
			defer func() { _ = l.App().SetWebPreferences(ctx, alice.ID, app.WebPreferences{}) }()
			b := newBrowser(t, lang, 390, 844)
			b.signIn(l, "alice")
			noSideways(b, "the library with the capture form's limit")
			b.screenshot("library-" + lang + "-dark-390")
			b.do(chromedp.Navigate(l.base+progress), chromedp.WaitVisible(chromedp.CSS("[data-submission]")))
			require.Equal(t, "dark", b.attr("html", "data-theme"))
			noSideways(b, progress)
			b.screenshot("submission-" + lang + "-dark-390")
			b.do(chromedp.Navigate(l.base+profile), chromedp.WaitVisible(chromedp.CSS("ol.author-posts")))
			noSideways(b, profile)
			b.screenshot("profile-" + lang + "-dark-390")
		})
	}
}

// waitJS waits until a JavaScript expression is true on the page, across
// the reloads the page's own script makes, or fails the test after
// actionTimeout.
func waitJS(b *browser, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(actionTimeout)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { try { return !!(`+expr+`); } catch (e) { return false; } })()`))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the page never had %s (last error: %v)", expr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}
