package xarchive_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/capsule/xarchive"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

func importPath(t testing.TB, in *capsuletest.Instance, tenant uuid.UUID, p string, o xarchive.Options) (importer.ForeignReport, error) {
	t.Helper()
	src, err := xarchive.Open(p)
	if err != nil {
		return importer.ForeignReport{}, err
	}
	defer src.Close()
	o.TenantID = tenant
	return xarchive.Import(context.Background(), in.App, src, o)
}

func mustImport(t testing.TB, in *capsuletest.Instance, tenant uuid.UUID, p string, o xarchive.Options) importer.ForeignReport {
	t.Helper()
	rep, err := importPath(t, in, tenant, p, o)
	require.NoError(t, err)
	return rep
}

// everything lists every collection the tenant saved.
func everything(t testing.TB, a *app.App, tenant uuid.UUID) []app.CollectionView {
	t.Helper()
	var out []app.CollectionView
	cursor := ""
	for {
		page, err := a.Collections(context.Background(), tenant, 100, cursor)
		require.NoError(t, err)
		out = append(out, page.Items...)
		if page.NextCursor == "" {
			return out
		}
		cursor = page.NextCursor
	}
}

func byExternalID(cs []app.CollectionView) map[string]app.CollectionView {
	m := map[string]app.CollectionView{}
	for _, c := range cs {
		m[c.ExternalID] = c
	}
	return m
}

func skipCount(rep importer.ForeignReport, prefix string) int {
	for _, s := range rep.Skips {
		if strings.HasPrefix(s.Reason, prefix) {
			return s.Count
		}
	}
	return 0
}

// The 2026 sample, read by a person: data/tweets.js holds 189 posts, 40 of
// them retweets ("RT @…"). 23 posts have media: the 14 that are not
// retweets all have their file in tweets_media/; of the 9 retweets, 6 do
// and 3 (the videos of 2027108952211693705, 2020251123341488266 and
// 2015875810125549978) do not. 123 posts are replies.
func TestRealArchive2026(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "x-archive/milahu104-2026")
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.New(t, st)
		alice := in.Tenant(t, "alice", nil)

		dry := mustImport(t, in, alice, dir, xarchive.Options{ForeignOptions: importer.ForeignOptions{DryRun: true}})
		require.Len(t, dry.Created, 149)
		// The 14 media files of non-retweets hold 13 distinct images
		// (2021607477964394540's and 2028424720790491260's are the same
		// bytes): 2,172,533 bytes.
		require.Equal(t, 13, dry.MediaFiles)
		require.EqualValues(t, 2172533, dry.MediaBytes, "a dry run reports the media sizes")
		require.Positive(t, dry.ContentBytes)
		n, err := in.App.CountCollections(ctx, alice)
		require.NoError(t, err)
		require.Zero(t, n, "a dry run writes nothing")
		blobs, err := in.Store.BlobCount(ctx)
		require.NoError(t, err)
		require.Zero(t, blobs)

		rep := mustImport(t, in, alice, dir, xarchive.Options{})
		require.Equal(t, 149, rep.Read)
		require.Equal(t, 13, rep.UploadedFiles)
		require.EqualValues(t, 2172533, rep.UploadedBytes)
		require.Len(t, rep.Created, 149)
		require.Equal(t, 40, skipCount(rep, "retweet"))
		require.Empty(t, rep.Unavailable, "every non-retweet's media is in the sample")
		got := everything(t, in.App, alice)
		require.Len(t, got, 149)
		withMedia, replies := 0, 0
		for _, c := range got {
			require.Equal(t, "x", c.Platform)
			require.Equal(t, "x.post", c.EntityType)
			require.Equal(t, "private", c.Visibility, "an archive is no proof that a post is public")
			require.Equal(t, "https://x.com/milahu104/status/"+c.ExternalID, c.SourceURL)
			require.Equal(t, app.PrivateCollectionID(alice, "x", "x.post", "", c.ExternalID), c.ID)
			require.Equal(t, "Milan Hauth", c.AuthorName)
			require.NotContains(t, c.Text, "&amp;", "full_text is HTML-unescaped")
			require.False(t, strings.HasPrefix(c.Text, "RT @"))
			if len(c.Media) > 0 {
				withMedia++
			}
			for _, r := range c.Graph.Relations {
				if r.Relation == "replies_to" {
					replies++
				}
			}
		}
		require.Equal(t, 14, withMedia)
		require.Equal(t, 123, replies)

		// The GIF post: "ein #Rechter …" with its MP4 from tweets_media.
		posts := byExternalID(got)
		gif := posts["2011883284482207917"]
		require.Len(t, gif.Media, 1)
		require.Equal(t, "gif", gif.Media[0].Kind)
		require.Equal(t, "video/mp4", gif.Media[0].Mime)
		require.EqualValues(t, 55764, gif.Media[0].Size)
		// A reply keeps who it answers.
		reply := posts["2029905358261502168"]
		require.Equal(t, "@SamaHoole https://x.com/milahu104/status/2027739112069878026", reply.Text, "t.co links expanded")
		require.True(t, reply.PublishedAt.Equal(time.Date(2026, 3, 6, 13, 2, 5, 0, time.UTC)))

		// Search finds imported text.
		res, err := in.App.Search(ctx, alice, "RechterTerroranschlag", 10, "", "")
		require.NoError(t, err)
		require.Len(t, res.Items, 1)
		require.Equal(t, gif.ID, res.Items[0].ID)

		// Again: nothing new.
		again := mustImport(t, in, alice, dir, xarchive.Options{})
		require.Empty(t, again.Created)
		require.Len(t, again.Skipped, 149)
		n, err = in.App.CountCollections(ctx, alice)
		require.NoError(t, err)
		require.Equal(t, 149, n)

		// With the retweets: the 40 more posts, and the 3 videos the
		// sample lacks are unavailable, each with its reason.
		bob := in.Tenant(t, "bob", nil)
		all := mustImport(t, in, bob, dir, xarchive.Options{IncludeRetweets: true})
		require.Len(t, all.Created, 189)
		require.Zero(t, skipCount(all, "retweet"))
		require.Len(t, all.Unavailable, 3)
		missing := map[string]bool{}
		for _, u := range all.Unavailable {
			missing[u.Post] = true
			require.Contains(t, u.Reason, "not in the archive")
		}
		for _, id := range []string{"2027108952211693705", "2020251123341488266", "2015875810125549978"} {
			require.True(t, missing["https://x.com/milahu104/status/"+id], id)
		}
		withMedia = 0
		for _, c := range everything(t, in.App, bob) {
			if len(c.Media) > 0 {
				withMedia++
			}
		}
		require.Equal(t, 20, withMedia)
	})
}

// The same sample as a zip under one top folder, as people re-zip it,
// reads the same.
func TestRealArchiveZip(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "x-archive/milahu104-2026")
	zp := zipFolder(t, dir, filepath.Join(t.TempDir(), "twitter-2026-03-06.zip"), "twitter-2026-03-06-abc")
	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	rep := mustImport(t, in, alice, zp, xarchive.Options{})
	require.Len(t, rep.Created, 149)
	require.Equal(t, 40, skipCount(rep, "retweet"))
	require.Empty(t, rep.Unavailable)
}

// The 2020 layout (the real manifest: tweet.js, YTD.tweet.part0,
// tweet_media/) with long posts, edits, replies and deleted posts.
func TestLayout2020(t *testing.T) {
	t.Parallel()
	real := testkit.RealFixturesDir(t, "x-archive/hotoo-2020-and-legacy/2020")
	dir := t.TempDir()
	man, err := os.ReadFile(filepath.Join(real, "data/manifest.js"))
	require.NoError(t, err)
	at := time.Date(2020, 5, 1, 10, 0, 0, 0, time.UTC)
	long := "A long thought about harbours, tides and the moon that goes on well past the old limit of a post; " +
		strings.Repeat("it keeps going with more words about the sea and the weather. ", 6) + "The end."
	tweets := []genTweet{
		{ID: "1256000000000000001", Text: "first post <b> & more", At: at, Photo: "EXaaaaaaaaa1.jpg"},
		{ID: "1256000000000000002", Text: "a reply", At: at.Add(time.Minute), ReplyTo: "1256000000000000001"},
		{ID: "1256000000000000003", Text: long[:200] + "… https://t.co/xyz", At: at.Add(2 * time.Minute)},
		{ID: "1256000000000000004", Text: "the edited version", At: at.Add(3 * time.Minute), EditInitial: "1256000000000000001",
			Edits: []string{"1256000000000000001", "1256000000000000004"}},
		{ID: "1256000000000000005", Text: "photo that was not downloaded", At: at.Add(4 * time.Minute), Photo: "EXbbbbbbbbb2.jpg", NoFile: true},
		{ID: "1256000000000000006", Text: "RT @someone: a retweet", At: at.Add(5 * time.Minute)},
	}
	writeTweets(t, dir, layout2020, tweets)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data/manifest.js"), man, 0o644))
	// The real 2020 manifest names note-tweet.js nowhere; a 2020 archive
	// has no long posts. It still reads, and the manifest's user is the
	// author.
	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	rep := mustImport(t, in, alice, dir, xarchive.Options{})
	require.Len(t, rep.Created, 5)
	require.Equal(t, 1, skipCount(rep, "retweet"))
	require.Len(t, rep.Unavailable, 1)
	require.Equal(t, "https://x.com/hotoo/status/1256000000000000005", rep.Unavailable[0].Post)
	posts := byExternalID(everything(t, in.App, alice))
	first := posts["1256000000000000001"]
	require.Equal(t, "first post <b> & more", first.Text)
	require.Len(t, first.Media, 1)
	require.Equal(t, "image", first.Media[0].Kind)
	require.Equal(t, 640, first.Media[0].Width)
	require.Equal(t, "闲耘™", first.AuthorName)
	edit := posts["1256000000000000004"]
	require.Contains(t, edit.Graph.Relations, app.RelationView{From: "post", Relation: "edit_of", To: "edit_of"})
	require.Contains(t, posts["1256000000000000002"].Graph.Relations, app.RelationView{From: "post", Relation: "replies_to", To: "reply_to"})
}

// note-tweet.js joins by time and text prefix; its noteTweetId matches no
// post, as in the real archives. Deleted posts only when asked.
func TestNoteTweetsAndDeleted(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 3, 5, 14, 2, 11, 0, time.UTC)
	long := "Sunset over the bay & a long thought about harbours, tides and the moon that goes on well past the old limit; " +
		strings.Repeat("more words about the sea. ", 10) + "The end."
	tweets := []genTweet{
		{ID: "1765000000000000123", Text: long[:180] + "… https://t.co/AbCdEf", At: at},
		{ID: "1765000000000000124", Text: "Sunset over the bay & something else", At: at},
	}
	notes := []map[string]any{
		{"noteTweetId": "1765000000000000777", "createdAt": at.Add(400 * time.Millisecond).Format("2006-01-02T15:04:05.000Z"),
			"core": map[string]any{"text": long, "urls": []any{}, "mentions": []any{}, "hashtags": []any{}}},
		{"noteTweetId": "1765000000000000778", "createdAt": "2020-01-01T00:00:00.000Z", "core": map[string]any{"text": "orphan"}},
	}
	deleted := []genTweet{{ID: "1765000000000000200", Text: "I deleted this one", At: at.Add(time.Hour)}}
	dir := writeArchive(t, t.TempDir(), layout2026, "Sea_Watch", tweets, notes, deleted)

	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	rep := mustImport(t, in, alice, dir, xarchive.Options{})
	require.Len(t, rep.Created, 2)
	require.Equal(t, 1, skipCount(rep, "deleted post"))
	require.Contains(t, rep.Notes, "1 long post(s) joined from note-tweet.js")
	posts := byExternalID(everything(t, in.App, alice))
	require.Equal(t, long, posts["1765000000000000123"].Text, "the long post is whole")
	require.Equal(t, "Sunset over the bay & something else", posts["1765000000000000124"].Text, "the other post of the same second keeps its text")
	require.Equal(t, "https://x.com/sea_watch/status/1765000000000000123", posts["1765000000000000123"].SourceURL)

	rep = mustImport(t, in, alice, dir, xarchive.Options{IncludeDeleted: true})
	require.Len(t, rep.Created, 1)
	require.Len(t, rep.Skipped, 2)
	require.Contains(t, byExternalID(everything(t, in.App, alice)), "1765000000000000200")
}

// An imported post and a live capture of the same post end as one
// collection: the public post takes the imported copy's place.
func TestImportThenCapture(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.NewPipeline(t, st)
		alice := in.Tenant(t, "alice", nil)
		url := capsuletest.FixturePosts()[0] // archivist_demo/status/2078399740166950912
		id := url[strings.LastIndex(url, "/")+1:]
		dir := writeArchive(t, t.TempDir(), layout2026, "archivist_demo", []genTweet{
			{ID: id, Text: "an old copy of the post", At: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)},
		}, nil, nil)
		rep := mustImport(t, in, alice, dir, xarchive.Options{})
		require.Len(t, rep.Created, 1)
		copyID := rep.Created[0].ID

		public := in.Capture(t, alice, url)[0]
		require.Equal(t, app.PublicCollectionID("x", "x.post", "", id), public, "the live capture has the same identity")
		got := everything(t, in.App, alice)
		require.Len(t, got, 1, "one collection, not two")
		require.Equal(t, public, got[0].ID)
		require.Equal(t, "public", got[0].Visibility)
		// The imported copy's id finds the post.
		c, err := in.App.Collection(ctx, alice, copyID)
		require.NoError(t, err)
		require.Equal(t, public, c.ID)

		// Importing the archive again adds nothing back.
		again := mustImport(t, in, alice, dir, xarchive.Options{})
		require.Empty(t, again.Created)
		require.Len(t, everything(t, in.App, alice), 1)
	})
}

// The tenant's quota is checked before anything is stored; over it,
// nothing is imported.
func TestQuota(t *testing.T) {
	t.Parallel()
	dir := writeArchive(t, t.TempDir(), layout2026, "gen", genTweets(50, 5), nil, nil)
	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	quota := int64(10_000)
	alice := in.Tenant(t, "alice", &quota)
	_, err := importPath(t, in, alice, dir, xarchive.Options{})
	var qe *app.QuotaError
	require.ErrorAs(t, err, &qe)
	require.Contains(t, err.Error(), "nothing was imported")
	n, err := in.App.CountCollections(context.Background(), alice)
	require.NoError(t, err)
	require.Zero(t, n)
	blobs, err := in.Store.BlobCount(context.Background())
	require.NoError(t, err)
	require.Zero(t, blobs)
}
