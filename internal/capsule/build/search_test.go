package build_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// searchTable is testdata/search_queries.json.
type searchTable struct {
	Matches []struct {
		Q    string   `json:"q"`
		Want []string `json:"want"`
	} `json:"matches"`
	Errors []struct {
		Q  string `json:"q"`
		At int    `json:"at"`
		EN string `json:"en"`
	} `json:"errors"`
	Unsupported []struct {
		Q  string `json:"q"`
		At int    `json:"at"`
	} `json:"unsupported"`
}

func readSearchTable(t *testing.T) searchTable {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "search_queries.json"))
	require.NoError(t, err)
	var tab searchTable
	dec := json.NewDecoder(bytes.NewReader(b))
	require.NoError(t, dec.Decode(&tab))
	require.NotEmpty(t, tab.Matches)
	return tab
}

// sitePage is what the search page shows.
type sitePage struct {
	Status  string   `json:"status"`
	Invalid bool     `json:"invalid"`
	Hrefs   []string `json:"hrefs"`
	Titles  []string `json:"titles"`
}

func searchSite(t *testing.T, ctx context.Context, site, q string) sitePage {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.ToSlash(site)+"/search/index.html?q="+url.QueryEscape(q)),
		chromedp.WaitReady(chromedp.ID("search-results"))), q)
	got, err := chromedp.Run(ctx, chromedp.Evaluate[sitePage](`({
		status: document.getElementById("search-status").textContent,
		invalid: document.getElementById("q").getAttribute("aria-invalid") === "true",
		hrefs: Array.from(document.querySelectorAll("#search-results li a")).map(a => a.getAttribute("href")),
		titles: Array.from(document.querySelectorAll("#search-results li a")).map(a => a.textContent)})`))
	require.NoError(t, err, q)
	return got
}

// One table of queries, the archive's search and the built site's search
// page: each query finds the same posts in both, and the queries one
// refuses the other refuses at the same character.
func TestSiteSearchAgreesWithTheArchive(t *testing.T) {
	t.Parallel()
	tab := readSearchTable(t)
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.New(t, st)
		alice := in.Tenant(t, "alice", nil)
		_, err := demo.Import(ctx, in.App, alice)
		require.NoError(t, err)

		external := map[uuid.UUID]string{}
		for _, m := range tab.Matches {
			var got []string
			cursor := ""
			for {
				page, err := in.App.Search(ctx, alice, m.Q, 100, cursor, "")
				require.NoError(t, err, m.Q)
				for _, it := range page.Items {
					got = append(got, it.ExternalID)
					external[it.ID] = it.ExternalID
				}
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			require.ElementsMatch(t, m.Want, got, "the archive's search for %q", m.Q)
		}
		for _, e := range tab.Errors {
			_, err := in.App.Search(ctx, alice, e.Q, 10, "", "")
			var qe *app.QueryError
			require.True(t, errors.As(err, &qe), "%q: %v", e.Q, err)
			require.Equal(t, e.At, qe.Pos+1, "%q: %v", e.Q, err)
		}
		for _, u := range tab.Unsupported {
			_, err := in.App.Search(ctx, alice, u.Q, 10, "", "")
			require.NoError(t, err, "the archive answers %q", u.Q)
		}
		if st.Driver() != "sqlite" {
			return // one site is enough: the archive was checked on both
		}

		// The archive → a capsule → a site.
		dir := filepath.Join(t.TempDir(), "capsule")
		_, err = export.Export(ctx, in.App, export.Options{TenantID: alice, TenantName: "alice", Out: dir, IncludePrivate: true})
		require.NoError(t, err)
		src, err := capsule.Open(dir)
		require.NoError(t, err)
		defer src.Close()
		res, err := check.Run(ctx, src, check.Options{})
		require.NoError(t, err)
		site := filepath.Join(t.TempDir(), "site")
		_, err = build.Build(ctx, src, res, build.Options{Out: site})
		require.NoError(t, err)
		title := map[string]string{} // external id → the result's link text
		for _, e := range res.Entries {
			c := e.Collection
			day := c.SavedAt
			if c.PublishedAt != nil {
				day = *c.PublishedAt
			}
			title[c.ExternalID] = c.Author.Name + " · " + day.UTC().Format("2006-01-02")
		}

		exe := chromium(t)
		bctx := browser(t, exe)
		for _, m := range tab.Matches {
			got := searchSite(t, bctx, site, m.Q)
			require.False(t, got.Invalid, m.Q)
			var ids, titles, want []string
			for i, h := range got.Hrefs {
				id, err := uuid.Parse(strings.TrimSuffix(strings.TrimPrefix(h, "../c/"), "/index.html"))
				require.NoError(t, err, h)
				ids = append(ids, external[id])
				titles = append(titles, got.Titles[i])
			}
			require.ElementsMatch(t, m.Want, ids, "the site's search for %q", m.Q)
			for _, w := range m.Want {
				want = append(want, title[w])
			}
			sort.Strings(want)
			sort.Strings(titles)
			require.Equal(t, want, titles, m.Q)
			if len(m.Want) == 1 {
				require.Equal(t, "1 post", got.Status, m.Q)
			} else {
				require.Equal(t, strconv.Itoa(len(m.Want))+" posts", got.Status, m.Q)
			}
		}
		for _, e := range tab.Errors {
			got := searchSite(t, bctx, site, e.Q)
			require.True(t, got.Invalid, e.Q)
			require.Empty(t, got.Hrefs, e.Q)
			require.True(t, strings.HasPrefix(got.Status, "At character "+strconv.Itoa(e.At)+": "), "%q: %s", e.Q, got.Status)
			require.Contains(t, got.Status, e.EN, e.Q)
		}
		for _, u := range tab.Unsupported {
			got := searchSite(t, bctx, site, u.Q)
			require.Empty(t, got.Hrefs, u.Q)
			require.True(t, strings.HasPrefix(got.Status, "At character "+strconv.Itoa(u.At)+": "), "%q: %s", u.Q, got.Status)
			require.Contains(t, got.Status, "filters need the archive itself and do not work in this site's search", u.Q)
		}
		require.Equal(t, "Type words to find posts.", searchSite(t, bctx, site, "   ").Status)

		// Queries made at random from pieces of the language: the site
		// refuses what the archive refuses, at the same character, and
		// finds what it finds.
		bctx = browser(t, exe) // a browser of its own: the time limit is per browser
		rng := rand.New(rand.NewPCG(16, 2026))
		seen := map[string]int{}
		for range 150 {
			q := randomQuery(rng)
			var want []string
			_, perr := app.ParseQuery(q, time.Now())
			if perr == nil {
				cursor := ""
				for {
					page, err := in.App.Search(ctx, alice, q, 100, cursor, "")
					require.NoError(t, err, q)
					for _, it := range page.Items {
						want = append(want, it.ExternalID)
					}
					if cursor = page.NextCursor; cursor == "" {
						break
					}
				}
			}
			got := searchSite(t, bctx, site, q)
			var qe *app.QueryError
			switch {
			case errors.As(perr, &qe):
				seen["refused"]++
				require.True(t, got.Invalid, "%q: the archive refuses it (%v), the site says %q", q, perr, got.Status)
				require.True(t, strings.HasPrefix(got.Status, "At character "+strconv.Itoa(qe.Pos+1)+": "), "%q: %v; the site: %s", q, perr, got.Status)
			case strings.Contains(got.Status, "do not work in this site's search"):
				seen["declined"]++
				lower := strings.ToLower(q)
				require.True(t, strings.Contains(lower, "is:") || strings.Contains(lower, "saved:"), "%q: %s", q, got.Status)
			case got.Status == "Type words to find posts.":
				require.Len(t, want, len(res.Entries), "%q: the site saw an empty query", q)
			default:
				seen["answered"]++
				if len(want) > 0 {
					seen["found"]++
				}
				require.NoError(t, perr, q)
				require.False(t, got.Invalid, "%q: %s", q, got.Status)
				var ids []string
				for _, h := range got.Hrefs {
					id, err := uuid.Parse(strings.TrimSuffix(strings.TrimPrefix(h, "../c/"), "/index.html"))
					require.NoError(t, err, h)
					ids = append(ids, external[id])
				}
				require.ElementsMatch(t, want, ids, "%q", q)
			}
		}
		t.Logf("random queries: %v", seen)
		for _, k := range []string{"refused", "declined", "answered", "found"} {
			require.GreaterOrEqual(t, seen[k], 5, "%s: %v", k, seen)
		}
	})
}

// queryPieces are what randomQuery joins: words (CJK too), phrases,
// groups, negation, OR and filters; badPieces make most queries they are
// in wrong somewhere. saved: ends with a space: the site declines it
// without reading its value.
var (
	queryPieces = []string{"tide", "harbour", "FOG", "storm", "潮", "满潮", "plan", `"fog over"`, "“storm plan”", "(", ")", "(", "-", "-",
		"OR", "OR", "from:monitor_demo", "from:@MONITOR_DEMO_TIDES", "#harbour", "#潮汐", "tag:tides", "has:photo", "has:video",
		"platform:telegram", "kind:post", "kind:channel", "after:2026-11-05", "before:2026-11-10", "is:public", "is:sensitive ",
		"saved:>7d ", "a:b", ":x", "!", "@"}
	badPieces = []string{`"`, "”", ")", "from:", "#", "has:", "has:sound", "after:2026-02-30", "before:11-10", "#tag!", "--"}
)

func randomQuery(rng *rand.Rand) string {
	var b strings.Builder
	for n := 1 + rng.IntN(6); n > 0; n-- {
		if rng.IntN(8) == 0 {
			b.WriteString(badPieces[rng.IntN(len(badPieces))])
		} else {
			b.WriteString(queryPieces[rng.IntN(len(queryPieces))])
		}
		if rng.IntN(3) > 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// A site in Chinese explains a bad query in Chinese.
func TestSiteSearchRefusesInChinese(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, demo.WriteTo(dir))
	man := filepath.Join(dir, "monitor.yaml")
	b, err := os.ReadFile(man)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(man, bytes.Replace(b, []byte("language: en\n"), []byte("language: zh-CN\n"), 1), 0o644))
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	site := filepath.Join(t.TempDir(), "site")
	_, err = build.Build(ctx, src, res, build.Options{Out: site})
	require.NoError(t, err)

	bctx := browser(t, chromium(t))
	require.Equal(t, "第 10 个字符处：第 1 个字符处开始的短语没有结束，请加上结束引号", searchSite(t, bctx, site, `"unclosed`).Status)
	require.Equal(t, "第 5 个字符处：has: 后面需要以下选项之一：photo, video, gif, media, quote, poll", searchSite(t, bctx, site, "has:sound").Status)
	require.Equal(t, "第 1 个字符处：is: 筛选需要存档本身，本站的搜索无法使用；请去掉它，或在存档中搜索", searchSite(t, bctx, site, "is:private").Status)
	got := searchSite(t, bctx, site, "大潮 OR 满潮")
	require.Equal(t, "2 条帖子", got.Status)
}
