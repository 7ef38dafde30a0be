package app_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// searchAll runs a search to its last page (pages of 3, so the cursor is
// walked too) and returns every item.
func searchAll(t *testing.T, a *app.App, tenant uuid.UUID, q, sort string) []app.SearchItem {
	t.Helper()
	var out []app.SearchItem
	seen := map[uuid.UUID]bool{}
	cursor := ""
	for range 100 {
		page, err := a.Search(context.Background(), tenant, q, 3, cursor, sort)
		require.NoError(t, err, q)
		for _, it := range page.Items {
			require.False(t, seen[it.ID], "%q: %s twice", q, it.ID)
			seen[it.ID] = true
		}
		out = append(out, page.Items...)
		if page.NextCursor == "" {
			return out
		}
		cursor = page.NextCursor
	}
	t.Fatalf("%q: more than 100 pages", q)
	return nil
}

func texts(items []app.SearchItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Text
	}
	return out
}

// only is the one item of a search that must find exactly one.
func only(t *testing.T, a *app.App, tenant uuid.UUID, q string) app.SearchItem {
	t.Helper()
	items := searchAll(t, a, tenant, q, "")
	require.Len(t, items, 1, "%q found %q", q, texts(items))
	return items[0]
}

func TestSearchTheDemoArchive(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		n, err := demo.Import(ctx, c.App, alice)
		require.NoError(t, err)
		all := searchAll(t, c.App, alice, "", "")
		require.Len(t, all, n, "an empty query is every saved collection")
		for i := 1; i < len(all); i++ {
			require.False(t, all[i].SavedAt.After(all[i-1].SavedAt), "newest save first")
		}

		// CJK: one character through LIKE, a 2-character term, 3+ through the index.
		tide := searchAll(t, c.App, alice, "潮", "")
		require.Contains(t, texts(tide), "潮の満ち引きを毎日記録しています。今夜の満潮は二十一時四十五分でした。")
		require.Contains(t, texts(tide), "今天的大潮把防波堤都淹没了。潮汐表说下一次在二十三号，记得提前存档。 #潮汐")
		for _, it := range tide {
			require.Contains(t, it.Snippet, app.SnippetOpen+"潮"+app.SnippetClose)
		}
		hit := only(t, c.App, alice, "满潮")
		require.True(t, strings.HasPrefix(hit.Text, "今晚满潮 21:45"), hit.Text)
		require.Equal(t, "今晚«满潮» 21:45，潮高 4.2 米。港口东侧的步道可能被淹，请绕行。 明早低潮 04:10。", hit.Snippet)
		require.Contains(t, only(t, c.App, alice, "防波堤").Text, "防波堤都淹没了")
		require.Contains(t, only(t, c.App, alice, "満ち引き").Text, "潮の満ち引き")

		// Case-insensitive words, a phrase, and alt texts.
		fog := only(t, c.App, alice, `"FOG over the harbour"`)
		require.Contains(t, fog.Text, "Two frames from this morning's walk")
		require.Equal(t, "…frames from this morning's walk: «fog over the harbour» and the old crane. #harbour", fog.Snippet)
		require.Empty(t, searchAll(t, c.App, alice, `"harbour over fog"`, ""), "a phrase is in order")
		require.Equal(t, fog.ID, only(t, c.App, alice, "rusty").ID, "an alt text is searched")
		require.Contains(t, only(t, c.App, alice, `"storm plan 2026"`).Text, "storm plan", "a link title is searched")

		// Exclusion.
		harbour := searchAll(t, c.App, alice, "harbour -tide", "")
		require.Contains(t, texts(harbour), fog.Text)
		for _, it := range harbour {
			require.NotContains(t, strings.ToLower(it.Text), "tide")
		}
		require.Less(t, len(harbour), len(searchAll(t, c.App, alice, "harbour", "")))

		// from: the author's handle, not a quoted post's author.
		mine := searchAll(t, c.App, alice, "from:MONITOR_DEMO", "")
		require.GreaterOrEqual(t, len(mine), 9)
		for _, it := range mine {
			require.Equal(t, "x", it.Platform)
		}
		require.Empty(t, searchAll(t, c.App, alice, "from:tide_tables_demo", ""))
		require.Len(t, searchAll(t, c.App, alice, "from:monitor_demo -from:monitor_demo", ""), 0)

		// has:, is:, kind:, platform:, #tag.
		video := only(t, c.App, alice, "has:video")
		require.Contains(t, video.Text, "Timelapse of the tide")
		require.Contains(t, only(t, c.App, alice, "has:poll").Text, "Which do you keep")
		require.Contains(t, only(t, c.App, alice, "has:quote").Text, "Worth saving")
		require.Contains(t, only(t, c.App, alice, "is:sensitive").Text, "the damage at the east pier")
		for _, it := range searchAll(t, c.App, alice, "has:photo", "") {
			kinds := ""
			for _, m := range it.Media {
				kinds += m.Kind + " "
			}
			require.Contains(t, kinds, "image", it.Text)
		}
		require.Equal(t, "telegram.channel", only(t, c.App, alice, "kind:channel platform:telegram").EntityType)
		require.Equal(t, "x.profile", only(t, c.App, alice, "kind:profile").EntityType)
		for _, it := range searchAll(t, c.App, alice, "platform:telegram", "") {
			require.Equal(t, "telegram", it.Platform)
		}
		tagged := searchAll(t, c.App, alice, "#harbour", "")
		require.Len(t, tagged, 2, "%q", texts(tagged))
		require.Contains(t, only(t, c.App, alice, "#潮汐").Text, "今天的大潮")
		// Imported content is private to the importing tenant.
		require.Empty(t, searchAll(t, c.App, alice, "is:public", ""))
		require.Len(t, searchAll(t, c.App, alice, "is:private", ""), n)

		// after: is from the day's start, before: up to it (UTC days).
		day := searchAll(t, c.App, alice, "after:2026-11-10 before:2026-11-11", "")
		require.Equal(t, []string{"潮の満ち引きを毎日記録しています。今夜の満潮は二十一時四十五分でした。"}, texts(day))
		require.Empty(t, searchAll(t, c.App, alice, "after:2026-11-11 before:2026-11-11", ""))
		for _, it := range searchAll(t, c.App, alice, "before:2026-11-05", "") {
			require.True(t, it.PublishedAt.Before(time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)), it.Text)
		}
		first := searchAll(t, c.App, alice, "after:2026-11-05 before:2026-11-06", "")
		require.Equal(t, []string{video.Text}, texts(first), "published 2026-11-05T17:05:44Z")

		// OR with groups.
		either := searchAll(t, c.App, alice, "(fog OR 满潮) -crane", "")
		require.Equal(t, []string{hit.Text}, texts(either))
		require.Len(t, searchAll(t, c.App, alice, "(fog OR 满潮) OR (has:video storm)", ""), 2)
		require.Len(t, searchAll(t, c.App, alice, "fog OR 满潮 OR has:video", ""), 3)

		// Relevance: more of the words first.
		ranked := searchAll(t, c.App, alice, "harbour OR fog OR crane", app.SearchSortRelevance)
		require.Equal(t, fog.ID, ranked[0].ID, "%q", texts(ranked))
		require.Greater(t, len(ranked), 2)

		// Bad input: a clear error naming the position, nothing else.
		for q, pos := range map[string]int{`tide "unclosed`: 15, `from:`: 6, `after:2026-13-01`: 7, strings.Repeat("a", 2000): 1001} {
			_, err := c.App.Search(ctx, alice, q, 10, "", "")
			var qe *app.QueryError
			require.True(t, errors.As(err, &qe), "%q: %v", q, err)
			require.ErrorIs(t, err, app.ErrInvalid)
			require.Contains(t, err.Error(), "at character ", q)
			_ = pos
		}
		_, err = c.App.Search(ctx, alice, "tide", 10, "", "best")
		require.ErrorIs(t, err, app.ErrInvalid)
		_, err = c.App.Search(ctx, alice, "tide", 0, "", "")
		require.ErrorIs(t, err, app.ErrInvalid)
		_, err = c.App.Search(ctx, alice, "tide", 10, "bm90LWEtY3Vyc29y", "")
		require.ErrorIs(t, err, app.ErrInvalid)
		page, err := c.App.Search(ctx, alice, "harbour", 1, "", "")
		require.NoError(t, err)
		require.NotEmpty(t, page.NextCursor)
		_, err = c.App.Search(ctx, alice, "harbour", 1, page.NextCursor, app.SearchSortRelevance)
		require.ErrorIs(t, err, app.ErrInvalid, "a cursor of another sort")
	})
}

// Tenants: private content is found by its owner only; an imported post
// with two versions is found by its current text only.
func TestSearchTenantsDeletesAndRefreshes(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		saved := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		imp := func(tn uuid.UUID, items ...app.ImportCollection) app.ImportReport {
			rep, err := c.App.ImportCollections(ctx, tn, items, app.ImportOptions{Open: importFiles{}.open})
			require.NoError(t, err)
			return rep
		}
		rep := imp(alice, xPost(uuid.Must(uuid.NewV7()), store.Private, "1888", "alice's secret 秘密草稿 draft", saved))
		require.Len(t, rep.Created, 1)
		require.Equal(t, rep.Created[0].ID, only(t, c.App, alice, "秘密").ID)
		require.Equal(t, rep.Created[0].ID, only(t, c.App, alice, "secret is:private").ID)
		require.Empty(t, searchAll(t, c.App, bob, "秘密", ""))
		require.Empty(t, searchAll(t, c.App, bob, "secret", ""))
		require.Empty(t, searchAll(t, c.App, bob, "is:private", ""))
		// bob's own private copy of the same post is his, with his text.
		bobs := imp(bob, xPost(uuid.Must(uuid.NewV7()), store.Private, "1888", "bob's notes", saved))
		require.Empty(t, searchAll(t, c.App, bob, "秘密", ""))
		require.Equal(t, bobs.Created[0].ID, only(t, c.App, bob, "notes").ID)
		require.Empty(t, searchAll(t, c.App, alice, "notes", ""))

		// Emoji: one (the short-term fallback) and three in a row (the index).
		wave := imp(alice, xPost(uuid.Must(uuid.NewV7()), store.Private, "1555", "high water 🌊🌊🌊 tonight", saved))
		require.Equal(t, wave.Created[0].ID, only(t, c.App, alice, "🌊").ID)
		require.Equal(t, wave.Created[0].ID, only(t, c.App, alice, "🌊🌊🌊").ID)
		require.Equal(t, "high water «🌊🌊🌊» tonight", only(t, c.App, alice, `"🌊🌊🌊 "`).Snippet)
		require.Empty(t, searchAll(t, c.App, alice, "🌊🌊🌊🌊", ""))

		// Refreshed: a newer revision is current.
		post := xPost(uuid.Must(uuid.NewV7()), store.Public, "1777", "the old wording about herons", saved)
		newer := xPost(post.ID, store.Public, "1777", "the new wording about cormorants", saved).Revisions[0]
		newer.CapturedAt = saved.Add(time.Hour)
		post.Revisions = append(post.Revisions, newer)
		rep = imp(alice, post)
		require.Len(t, rep.Created, 1)
		require.Equal(t, rep.Created[0].ID, only(t, c.App, alice, "cormorants").ID)
		require.Empty(t, searchAll(t, c.App, alice, "herons", ""))
		require.Empty(t, searchAll(t, c.App, alice, "her", ""), "nor through the short-term fallback")
	})
}

// A live capture is indexed as it is written: found by its author's
// handle and words; refreshed with new text it is found by that, not the
// old; deleted by one saver it is gone for them and still there for the
// other.
func TestSearchLiveCapturesRefreshAndDelete(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		res, v := c.Capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		_, v = c.Capture(t, bob, photosPost)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		coll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, res.CollectionID, only(t, c.App, alice, "from:archivist_demo has:photo").ID)
		require.Equal(t, res.CollectionID, only(t, c.App, bob, "from:archivist_demo has:photo").ID)

		// A word of the post's text that the new text will not have.
		var word string
		for _, w := range strings.Fields(coll.Text) {
			if len(w) >= 6 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
				word = w
				break
			}
		}
		require.NotEmpty(t, word, coll.Text)
		require.Equal(t, res.CollectionID, only(t, c.App, alice, word).ID)
		body := c.FX.Raw("status-photos.json")
		body = []byte(strings.ReplaceAll(string(body), word, "zebracrossing"))
		c.FX.SetOverride("/2/status/2078399740166950912", 200, "application/json", body)
		rr, err := c.App.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		v = c.WaitCapture(t, alice, rr.CaptureID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		now, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Contains(t, now.Text, "zebracrossing")
		hit := only(t, c.App, alice, "zebracrossing")
		require.Contains(t, hit.Snippet, "«zebracrossing»")
		require.Empty(t, searchAll(t, c.App, alice, word, ""), "the old text is not found")
		require.Equal(t, res.CollectionID, only(t, c.App, bob, "zebracrossing").ID, "one shared public post")

		require.NoError(t, c.App.DeleteCollection(ctx, alice, res.CollectionID))
		require.Empty(t, searchAll(t, c.App, alice, "zebracrossing", ""))
		require.Empty(t, searchAll(t, c.App, alice, "ze", ""))
		require.Empty(t, searchAll(t, c.App, alice, "", ""))
		require.Equal(t, res.CollectionID, only(t, c.App, bob, "zebracrossing").ID, "still saved by bob")

		// is:failed is the latest capture a person asked for.
		_, gone := c.Capture(t, alice, goncePost)
		require.Equal(t, app.StateFailed, gone.State)
		failed := only(t, c.App, alice, "is:failed")
		require.Empty(t, failed.Snippet, "nothing archived to show")
		require.NotEqual(t, res.CollectionID, failed.ID)
		require.Empty(t, searchAll(t, c.App, bob, "is:failed", ""))

		// Purged when nobody saves it: the index rows go with the revisions.
		raw := rawDB(t, c.StoreURL)
		count := func(q string) (n int) {
			require.NoError(t, raw.QueryRowContext(ctx, q).Scan(&n), q)
			return n
		}
		require.Equal(t, 2, count(`SELECT count(*) FROM search_docs`))
		require.NoError(t, c.App.DeleteCollection(ctx, bob, res.CollectionID))
		c.Clock.Advance(8 * 24 * time.Hour)
		n, err := c.App.PurgeCollections(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Zero(t, count(`SELECT count(*) FROM search_docs`))
		if strings.HasPrefix(c.StoreURL, "sqlite://") {
			require.Zero(t, count(`SELECT count(*) FROM search_fts WHERE search_fts MATCH '"zebracrossing"'`), "the FTS5 index too")
			require.Zero(t, count(`SELECT count(*) FROM search_fts`))
		}
	})
}

// rawDB opens the store's database directly, to look at what no API shows.
func rawDB(t testing.TB, url string) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", url
	if p, ok := strings.CutPrefix(url, "sqlite://"); ok {
		driver, dsn = "sqlite", p
	}
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// The search migration indexes what was archived before it: the index is
// dropped and the migration forgotten, and running it again finds the
// same as the index written with each revision.
func TestSearchMigrationIndexesWhatIsArchived(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Drivers() {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			var cfg config.Database
			var rawURL, rawDriver string
			var drop, migrations []string
			switch d {
			case "sqlite":
				p := filepath.Join(t.TempDir(), "monitor.db")
				cfg = config.Database{Driver: "sqlite", Path: p, URL: "sqlite://" + p}
				rawDriver, rawURL, migrations = "sqlite", p, []string{"0010_search.sql"}
				drop = []string{`DROP TABLE search_fts`, `DROP TABLE search_docs`}
			case "postgres":
				owner, _ := storetest.NewPostgresDatabase(t)
				cfg = config.Database{Driver: "postgres", URL: owner}
				// The search functions of 0020 and 0024 read search_docs: all go.
				rawDriver, rawURL, migrations = "pgx", owner, []string{"0011_search.sql", "0020_search_match_all.sql", "0024_search_filters.sql"}
				drop = []string{`DROP FUNCTION monitor_search_match_docs(text[], text[], text[], integer)`, `DROP TABLE search_docs`}
			}
			st, err := store.Open(ctx, cfg, storetest.Logger(t))
			require.NoError(t, err)
			t.Cleanup(func() { _ = st.Close() })
			_, err = st.Migrate(ctx)
			require.NoError(t, err)
			c := testcore.New(t, testcore.Options{Store: st, NoAdapters: true})
			alice := c.Tenant(t, "alice", nil)
			_, err = demo.Import(ctx, c.App, alice)
			require.NoError(t, err)
			queries := []string{"満ち引き", "潮", "满潮", "from:monitor_demo has:video", "has:poll", "has:quote", "is:sensitive",
				"after:2026-11-10 before:2026-11-11", `"storm plan 2026"`, "rusty", "#harbour", "from:monitor_demo_tides"}
			before := map[string][]string{}
			for _, q := range queries {
				before[q] = texts(searchAll(t, c.App, alice, q, ""))
				require.NotEmpty(t, before[q], q)
			}

			raw, err := sql.Open(rawDriver, rawURL)
			require.NoError(t, err)
			defer raw.Close()
			for _, m := range migrations {
				drop = append(drop, `DELETE FROM schema_migrations WHERE name = '`+m+`'`)
			}
			for _, s := range drop {
				_, err := raw.ExecContext(ctx, s)
				require.NoError(t, err, s)
			}
			_, err = c.App.Search(ctx, alice, "潮", 10, "", "")
			require.Error(t, err, "no index")
			applied, err := st.Migrate(ctx)
			require.NoError(t, err)
			require.Equal(t, migrations, applied)
			for _, q := range queries {
				require.Equal(t, before[q], texts(searchAll(t, c.App, alice, q, "")), q)
			}
		})
	}
}
