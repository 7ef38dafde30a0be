package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/demo"
)

// The search page in a browser: a query typed in the header lands on the
// results, a chip's × removes its part, saving puts the search in the
// header, and the page fits a phone without sideways scrolling, in both
// languages and both themes. With MONITOR_SCREENSHOTS set it saves
// search-*.png.
func TestSearchInTheBrowser(t *testing.T) {
	findChromium(t)
	l := newLive(t)
	ctx := context.Background()
	alice, err := l.App().CreateTenant(ctx, "test", "alice", nil)
	require.NoError(t, err)
	_, err = demo.Import(ctx, l.App(), alice.ID)
	require.NoError(t, err)
	_, err = l.App().SaveSearch(ctx, alice.ID, "Tide videos", "tide has:video")
	require.NoError(t, err)
	const query = `harbour OR 潮 -storm has:photo after:2026-01-01`

	t.Run("en", func(t *testing.T) {
		b := newBrowser(t, "en-US", 1280, 900)
		b.signIn(l, "alice")
		require.Contains(t, b.text(), "Tide videos", "saved searches are in the header")
		b.do(chromedp.SendKeys(`header form.search input`, query+"\n"), chromedp.WaitVisible(chromedp.CSS("ul.chips")))
		require.Contains(t, runGet(b, chromedp.Location()), "/search?q=")
		chips := eval[[]string](b, `Array.from(document.querySelectorAll(".chip span")).map(s => s.textContent)`)
		require.Equal(t, []string{"harbour OR 潮", "-storm", "has:photo", "after:2026-01-01"}, chips)
		require.Greater(t, eval[int](b, `document.querySelectorAll("ol.library .snippet mark").length`), 0)
		b.screenshot("search-en")

		b.do(chromedp.Click(chromedp.CSS(`.chip-not a`)), chromedp.WaitVisible(chromedp.CSS("ul.chips")))
		require.Equal(t, "harbour OR 潮 has:photo after:2026-01-01", b.attr("#query", "value"), "the × removed -storm only")

		b.do(chromedp.SendKeys(`#save-name`, "Harbour\n"), chromedp.WaitVisible(chromedp.CSS(".saved-as")))
		require.Equal(t, "page", b.attr(`.saved-searches a[href*="harbour"]`, "aria-current"))

		b.do(chromedp.Navigate(l.base+"/search?q="+url.QueryEscape(`tide "fog over`)), chromedp.WaitVisible(chromedp.CSS(".query-problem")))
		require.Contains(t, b.text(), "at character 15")
		require.InDelta(t, 0, caretOffset(b, 14), 1.5, "the caret stands under the place the parser names")
		b.screenshot("search-error-en")
	})

	t.Run("zh-CN dark phone", func(t *testing.T) {
		require.NoError(t, l.App().SetWebPreferences(ctx, alice.ID, app.WebPreferences{Theme: "dark"}))
		defer func() { _ = l.App().SetWebPreferences(ctx, alice.ID, app.WebPreferences{}) }()
		b := newBrowser(t, "zh-CN", 390, 844)
		b.signIn(l, "alice")
		b.do(chromedp.Navigate(l.base+"/search?q="+url.QueryEscape(query)), chromedp.WaitVisible(chromedp.CSS("ul.chips")))
		require.Equal(t, "zh-CN", b.attr("html", "lang"))
		text := b.text()
		require.Contains(t, text, "保存这个搜索")
		require.Contains(t, text, "已保存的搜索")
		require.LessOrEqual(t, eval[int](b, `document.documentElement.scrollWidth`), 390, "no sideways scrolling")
		b.screenshot("search-zh-dark-390")

		b.do(chromedp.Navigate(l.base+"/search?q="+url.QueryEscape(`潮汐 after:2026-13-01`)), chromedp.WaitVisible(chromedp.CSS(".query-problem")))
		require.True(t, strings.Contains(b.text(), "没有第 13 个月"), b.text())
		require.InDelta(t, 0, caretOffset(b, 9), 1.5, "the caret stands under the 2 of 2026, past two wide characters")
		require.LessOrEqual(t, eval[int](b, `document.documentElement.scrollWidth`), 390)
		b.screenshot("search-error-zh-dark-390")
	})
}

// caretOffset is how far the query problem's caret stands from the left
// edge of character pos of the query above it, in CSS pixels.
func caretOffset(b *browser, pos int) float64 {
	b.t.Helper()
	return eval[float64](b, fmt.Sprintf(`(() => {
		const text = document.querySelector("pre.caret code").firstChild;
		const r = document.createRange();
		r.setStart(text, %d); r.setEnd(text, %d);
		return document.querySelector(".caret-mark").getBoundingClientRect().left - r.getBoundingClientRect().left;
	})()`, pos, pos))
}
