package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	neturl "net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// searchBenchSize is how many saved collections the search benchmark's
// tenant has (MONITOR_BENCH_SEARCH_SIZE overrides it for a quick run).
func searchBenchSize() int {
	if n, err := strconv.Atoi(os.Getenv("MONITOR_BENCH_SEARCH_SIZE")); err == nil && n >= 1000 {
		return n
	}
	return 100_000
}

// searchBenchQueries are the query kinds the benchmark times: the five of
// the goal (one word, a CJK substring, a phrase, a filter-only query, five
// terms) and the harder neighbours of each.
var searchBenchQueries = []struct{ name, q, sort string }{
	{"word", "harbour", ""},
	{"word-rare", "lighthouse", ""},
	{"word-none", "zeppelin", ""},
	{"cjk", "防波堤", ""},
	{"cjk-short", "满潮", ""},
	{"phrase", `"the old crane"`, ""},
	{"filter-has", "has:video", ""},
	{"filter-from", "from:author_07", ""},
	{"five-terms", "morning harbour tide walk rain", ""},
	{"word-filter", "harbour has:photo from:author_03", ""},
	{"relevance", "harbour tide", app.SearchSortRelevance},
}

// BenchmarkSearch measures App.Search (one page of 20, the REST default)
// over a tenant with 100,000 saved posts of generated Latin, Chinese and
// Japanese text (several authors, media kinds and three years of dates;
// searchPostContent), on every database. Each query kind reports p50 and
// p95 in milliseconds next to the anchor timed in the same loop: the
// first page of App.Collections (GET /v1/collections), which reads the
// same rows without a condition. "write" reports the search index's
// size per post and what the index write adds to a revision's
// transaction. scripts/bench-search runs it and prints a table.
//
//	go test -run X -bench Search -benchtime 200x ./internal/app
func BenchmarkSearch(b *testing.B) {
	for _, db := range storetest.Drivers() {
		b.Run(db, func(b *testing.B) {
			ctx := context.Background()
			c := testcore.New(b, testcore.Options{DB: db, NoAdapters: true})
			tenant := c.Tenant(b, "alice", nil)
			demoCount, err := demo.Import(ctx, c.App, tenant)
			require.NoError(b, err)
			tpl, err := c.App.Search(ctx, tenant, "from:monitor_demo has:photo", 1, "", "")
			require.NoError(b, err)
			require.NotEmpty(b, tpl.Items)
			template := tpl.Items[0].ID

			n := searchBenchSize() - demoCount
			start := time.Now()
			revs := storetest.SeedLibraryContent(b, c.StoreURL, tenant, template, n, searchPostContent)
			seeded := time.Since(start)
			start = time.Now()
			indexed := indexRevisions(b, c.Store, tenant, revs)
			storetest.Analyze(b, c.StoreURL)
			fmt.Fprintf(os.Stderr, "%s: seeded %d saved posts in %s, indexed them in %s (p50 %.3f ms a revision in bulk)\n",
				db, n+demoCount, seeded.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), ms(pct(indexed, 50)))

			for _, qk := range searchBenchQueries {
				b.Run(qk.name, func(b *testing.B) {
					first, err := c.App.Search(ctx, tenant, qk.q, 20, "", qk.sort)
					require.NoError(b, err, qk.q)
					require.Equal(b, qk.name == "word-none", len(first.Items) == 0, "%s finds something, or nothing only for word-none", qk.q)
					var lat, anchor []time.Duration
					for b.Loop() {
						at := time.Now()
						if _, err := c.App.Search(ctx, tenant, qk.q, 20, "", qk.sort); err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(at))
						at = time.Now()
						if _, err := c.App.Collections(ctx, tenant, 20, ""); err != nil {
							b.Fatal(err)
						}
						anchor = append(anchor, time.Since(at))
					}
					b.ReportMetric(ms(pct(lat, 50)), "p50-ms")
					b.ReportMetric(ms(pct(lat, 95)), "p95-ms")
					b.ReportMetric(ms(pct(anchor, 50)), "anchor-p50-ms")
					b.ReportMetric(ms(pct(anchor, 95)), "anchor-p95-ms")
					b.ReportMetric(float64(pct(lat, 95))/float64(pct(anchor, 95)), "p95/anchor")
					b.ReportMetric(float64(len(first.Items)), "hits")
				})
			}

			b.Run("write", func(b *testing.B) {
				var rest, index []time.Duration
				i := 0
				for b.Loop() {
					i++
					r, x, err := app.RevisionWriteTimes(ctx, c.App, tenant, template, searchPostText(rand.New(rand.NewPCG(7, uint64(i)))))
					if err != nil {
						b.Fatal(err)
					}
					rest, index = append(rest, r), append(index, x)
				}
				b.ReportMetric(ms(pct(index, 50)), "index-p50-ms")
				b.ReportMetric(ms(pct(index, 95)), "index-p95-ms")
				b.ReportMetric(ms(pct(rest, 50)), "rest-p50-ms")
				b.ReportMetric(ms(pct(rest, 95)), "rest-p95-ms")
				b.ReportMetric(100*float64(pct(index, 50))/float64(pct(rest, 50)+pct(index, 50)), "index-%-of-tx")
				docs, sizes := searchIndexSize(b, c.StoreURL)
				var total int64
				for _, s := range sizes {
					total += s
				}
				b.ReportMetric(float64(total)/float64(docs), "index-B/post")
				fmt.Fprintf(os.Stderr, "%s: search index of %d revisions: %s\n", db, docs, formatSizes(sizes, docs))
			})
		})
	}
}

// indexRevisions writes the search index of the seeded revisions, 1,000
// a transaction, and returns how long each index write took.
func indexRevisions(b *testing.B, s *store.Store, tenant uuid.UUID, revs []uuid.UUID) []time.Duration {
	b.Helper()
	ctx := store.WithTenant(context.Background(), tenant)
	took := make([]time.Duration, 0, len(revs))
	for i := 0; i < len(revs); i += 1000 {
		err := s.InTx(ctx, func(tx *store.Tx) error {
			for _, id := range revs[i:min(len(revs), i+1000)] {
				at := time.Now()
				if err := tx.SearchIndexRevision(ctx, id); err != nil {
					return err
				}
				took = append(took, time.Since(at))
			}
			return nil
		})
		require.NoError(b, err)
	}
	return took
}

// searchIndexSize is how many search documents there are and the bytes
// each part of the search index takes on disk: SQLite's search_docs table
// and indexes and the FTS5 tables (dbstat), PostgreSQL's search_docs heap
// (with TOAST) and each of its indexes.
func searchIndexSize(b *testing.B, url string) (int64, map[string]int64) {
	b.Helper()
	if !strings.HasPrefix(url, "sqlite://") {
		// As the owner, whom row-level security does not narrow to a tenant.
		app, err := neturl.Parse(url)
		require.NoError(b, err)
		owner, err := neturl.Parse(storetest.PostgresURL())
		require.NoError(b, err)
		owner.Path = app.Path
		url = owner.String()
	}
	db := rawDB(b, url)
	ctx := context.Background()
	var docs int64
	require.NoError(b, db.QueryRowContext(ctx, `SELECT count(*) FROM search_docs`).Scan(&docs))
	q := `SELECT d.name, sum(d.pgsize) FROM dbstat d JOIN sqlite_master m ON m.name = d.name
		WHERE m.tbl_name LIKE 'search%' GROUP BY d.name`
	if !strings.HasPrefix(url, "sqlite://") {
		q = `SELECT 'search_docs', pg_table_size('search_docs')
			UNION ALL SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index
			WHERE indrelid = 'search_docs'::regclass`
	}
	rows, err := db.QueryContext(ctx, q)
	require.NoError(b, err)
	defer rows.Close()
	sizes := map[string]int64{}
	for rows.Next() {
		var name string
		var size int64
		require.NoError(b, rows.Scan(&name, &size))
		sizes[name] = size
	}
	require.NoError(b, rows.Err())
	return docs, sizes
}

func formatSizes(sizes map[string]int64, docs int64) string {
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %.1f MB (%d B/post)", n, float64(sizes[n])/1e6, sizes[n]/max(docs, 1))
	}
	return strings.Join(parts, ", ")
}

// The generated posts. Each post's content depends only on its number,
// so every run and database holds the same archive.

// searchWords are Latin words, most common first: a post picks them
// with a Zipf-like skew, so "harbour" is common and "lighthouse" rare.
var searchWords = strings.Fields(`the a and of to in is it on for this that with at from was by we are
	morning harbour tide walk rain today new water city night boat light sea old day east river wind
	street market bridge photo weather week storm pier crane coast station people train cold map fog
	north south west road coffee hill garden winter summer spring autumn island beach cloud sun moon
	ferry bus tram line clock tower square park church school library museum shop bakery dinner lunch
	friend family dog cat bird fish net rope sail anchor wave rock sand shell salt wood stone iron glass
	paper book letter song film game team match goal score fans crowd noise quiet slow fast early late
	first last long short high low deep wide narrow warm dry wet green blue grey white black red yellow
	repair build open close paint clean cook read write sing dance run swim climb drive ride wait watch
	notes archive thread update report news photos video timelapse sunrise sunset evening flood surge
	gauge schedule warning closed reopened festival lantern parade fireworks harvest orchard vineyard
	lighthouse keeper breakwater estuary mudflat heron cormorant kelp barnacle trawler dredger`)

// searchCJK are Chinese and Japanese words and phrases posts are made of.
var (
	searchChinese = strings.Fields(`今天 今晚 明天 早上 港口 大潮 潮汐 潮高 防波堤 步道 码头 渔船 天气
		下雨 大风 台风 预警 关闭 开放 记得 存档 照片 视频 朋友 城市 地铁 公交 咖啡 市场 海边 灯塔
		满潮 低潮 涨潮 退潮 东侧 西侧 绕行 注意 安全 晚饭 散步 拍摄 记录 每天 一起 已经 还是 终于`)
	searchJapanese = strings.Fields(`今日 今夜 明日 朝 港 潮 満ち引き 防波堤 散歩 写真 動画 天気 雨 風
		台風 警報 記録 毎日 友達 電車 駅 喫茶店 市場 海 灯台 満潮 干潮 桟橋 漁船 夕焼け 朝焼け 霧`)
	searchParticles = strings.Fields(`の は を に が で と も`)
	searchNames     = strings.Fields(`Ada Bo Chen Dana Emil Fatima Goro Hana Ivan Jun Kai Lena Mei Noor Otto Pia
		Qing Rui Sven Tomo`)
)

// searchZipf picks an index below n, index k with weight 1/(k+1).
func searchZipf(r *rand.Rand, n int) int {
	// Inverse of the harmonic CDF, near enough: exp(u·ln(n+1)) - 1.
	k := int(math.Pow(float64(n+1), r.Float64())) - 1
	return min(max(k, 0), n-1)
}

// searchPostText is a post's text: Latin sentences, Chinese, Japanese or
// a mix, with hashtags now and then and the phrase "the old crane" in
// about one post in 200.
func searchPostText(r *rand.Rand) string {
	var b strings.Builder
	latin := func() {
		n := 8 + r.IntN(32)
		for i := 0; i < n; i++ {
			w := searchWords[searchZipf(r, len(searchWords))]
			switch {
			case i == 0:
				w = strings.ToUpper(w[:1]) + w[1:]
			case i%9 == 0:
				w = ". " + strings.ToUpper(w[:1]) + w[1:]
			default:
				w = " " + w
			}
			b.WriteString(w)
		}
		b.WriteString(". ")
	}
	chinese := func() {
		n := 6 + r.IntN(20)
		for i := 0; i < n; i++ {
			b.WriteString(searchChinese[r.IntN(len(searchChinese))])
			if i%5 == 4 {
				b.WriteString("，")
			}
		}
		b.WriteString("。")
	}
	japanese := func() {
		n := 5 + r.IntN(15)
		for i := 0; i < n; i++ {
			b.WriteString(searchJapanese[r.IntN(len(searchJapanese))])
			b.WriteString(searchParticles[r.IntN(len(searchParticles))])
		}
		b.WriteString("。")
	}
	switch p := r.IntN(100); {
	case p < 55:
		latin()
	case p < 80:
		chinese()
	case p < 92:
		japanese()
	default:
		latin()
		chinese()
	}
	if r.IntN(200) == 0 {
		b.WriteString("Saw the old crane by the east pier again. ")
	}
	if r.IntN(5) == 0 {
		b.WriteString("#" + searchWords[20+searchZipf(r, 60)])
	}
	return strings.TrimSpace(b.String())
}

// searchPostContent is the content JSON of generated post i, made from
// the template's: its text, author (one of 40, some posting far more
// than others), publication time (three years), and media (none, photos
// with or without alt text, a video or a GIF).
func searchPostContent(i int, template string) string {
	r := rand.New(rand.NewPCG(1, uint64(i)))
	var doc map[string]any
	if err := json.Unmarshal([]byte(template), &doc); err != nil {
		panic(err)
	}
	doc["text"] = searchPostText(r)
	author := searchZipf(r, 40)
	name := searchNames[author%len(searchNames)] + " " + strconv.Itoa(author)
	handle := fmt.Sprintf("author_%02d", author)
	doc["author_name"] = name
	published := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(3 * 365 * 24 * time.Hour))))
	doc["published_at"] = published.Truncate(time.Second).Format(time.RFC3339)

	tplMedia, _ := doc["media"].([]any)
	var media []any
	if len(tplMedia) > 0 {
		one, _ := json.Marshal(tplMedia[0])
		add := func(kind, mime, alt string) {
			var m map[string]any
			_ = json.Unmarshal(one, &m)
			m["kind"], m["mime"] = kind, mime
			delete(m, "alt")
			if alt != "" {
				m["alt"] = alt
			}
			media = append(media, m)
		}
		switch p := r.IntN(100); {
		case p < 15:
			for k := 0; k < 1+r.IntN(4); k++ {
				alt := ""
				if r.IntN(3) == 0 {
					alt = searchPostText(r)
				}
				add("image", "image/jpeg", alt)
			}
		case p < 18:
			add("video", "video/mp4", "")
		case p < 19:
			add("gif", "video/mp4", "")
		}
	}
	if media == nil {
		media = []any{}
	}
	doc["media"] = media

	graph, _ := doc["graph"].(map[string]any)
	root, _ := graph["root"].(string)
	authorKey := ""
	rels, _ := graph["relations"].([]any)
	for _, l := range rels {
		if l, ok := l.(map[string]any); ok && l["from"] == root && l["relation"] == "authored_by" {
			authorKey, _ = l["to"].(string)
		}
	}
	ents, _ := graph["entities"].([]any)
	for _, e := range ents {
		e, ok := e.(map[string]any)
		if !ok {
			continue
		}
		data, _ := e["data"].(map[string]any)
		switch e["key"] {
		case authorKey:
			data["handle"] = handle
			data["name"] = name
		case root:
			data["text"] = doc["text"]
		}
	}
	body, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return string(body)
}

// pct is the p-th percentile of d.
func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
