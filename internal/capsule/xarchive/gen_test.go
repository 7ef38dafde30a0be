package xarchive_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// genTweet is one invented post of a generated archive, in the shape the
// real archives have (every number a string, HTML-escaped text).
type genTweet struct {
	ID, Text    string
	At          time.Time
	ReplyTo     string
	Photo       string // basename of a photo, also written to the media folder unless NoFile
	NoFile      bool
	Edits       []string
	EditInitial string // set on a later version of an edited post
}

// layout is what differs between the archive generations.
type layout struct {
	data, global, media, typ string
	wrap                     bool
}

var (
	layout2026 = layout{data: "data/tweets.js", global: "YTD.tweets.part0", media: "data/tweets_media", typ: "tweets", wrap: true}
	layout2020 = layout{data: "data/tweet.js", global: "YTD.tweet.part0", media: "data/tweet_media", typ: "tweet", wrap: true}
)

func tweetJSON(g genTweet) map[string]any {
	t := map[string]any{
		"id_str": g.ID, "id": g.ID, "created_at": g.At.UTC().Format(time.RubyDate),
		"full_text":      strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(g.Text),
		"favorite_count": "3", "retweet_count": "1", "lang": "en", "truncated": false, "retweeted": false,
		"source":             `<a href="https://mobile.twitter.com" rel="nofollow">Twitter Web App</a>`,
		"display_text_range": []string{"0", fmt.Sprint(len(g.Text))},
		"entities":           map[string]any{"hashtags": []any{}, "symbols": []any{}, "user_mentions": []any{}, "urls": []any{}},
	}
	edits := g.Edits
	if len(edits) == 0 {
		edits = []string{g.ID}
	}
	if g.EditInitial != "" {
		t["edit_info"] = map[string]any{"edit": map[string]any{"initialTweetId": g.EditInitial,
			"editControlInitial": map[string]any{"editTweetIds": edits, "editsRemaining": "4", "isEditEligible": true}}}
	} else {
		t["edit_info"] = map[string]any{"initial": map[string]any{"editTweetIds": edits, "editsRemaining": "5", "isEditEligible": true}}
	}
	if g.ReplyTo != "" {
		t["in_reply_to_status_id_str"], t["in_reply_to_status_id"] = g.ReplyTo, g.ReplyTo
		t["in_reply_to_screen_name"] = "someone"
	}
	if g.Photo != "" {
		m := map[string]any{"id_str": g.ID + "9", "type": "photo", "media_url_https": "https://pbs.twimg.com/media/" + g.Photo,
			"url": "https://t.co/m" + g.ID[len(g.ID)-4:], "sizes": map[string]any{"large": map[string]any{"w": "640", "h": "480"}}}
		t["full_text"] = t["full_text"].(string) + " https://t.co/m" + g.ID[len(g.ID)-4:]
		t["entities"].(map[string]any)["media"] = []any{m}
		t["extended_entities"] = map[string]any{"media": []any{m}}
	}
	return t
}

// writeArchive writes an archive folder with the given posts, and returns
// it. note, when set, adds a note-tweet.js with these entries; deleted
// adds a deleted-tweets.js.
func writeArchive(t testing.TB, dir string, l layout, handle string, tweets []genTweet, notes []map[string]any, deleted []genTweet) string {
	t.Helper()
	dataTypes := map[string]any{
		l.typ:       map[string]any{"mediaDirectory": l.media, "files": []any{map[string]any{"fileName": l.data, "globalName": l.global, "count": fmt.Sprint(len(tweets))}}},
		"noteTweet": map[string]any{"files": []any{map[string]any{"fileName": "data/note-tweet.js", "globalName": "YTD.note_tweet.part0", "count": fmt.Sprint(len(notes))}}},
		"deletedTweets": map[string]any{"mediaDirectory": "data/deleted_tweets_media",
			"files": []any{map[string]any{"fileName": "data/deleted-tweets.js", "globalName": "YTD.deleted_tweets.part0", "count": fmt.Sprint(len(deleted))}}},
	}
	man := map[string]any{
		"userInfo":    map[string]any{"accountId": "1400000000000000001", "userName": handle, "displayName": "Gen Author"},
		"archiveInfo": map[string]any{"sizeBytes": "1", "generationDate": "2026-03-06T13:15:31.187Z", "isPartialArchive": false},
		"dataTypes":   dataTypes,
	}
	writeJS(t, filepath.Join(dir, "data/manifest.js"), "window.__THAR_CONFIG", man)
	writeTweets(t, dir, l, tweets)
	if notes != nil {
		var arr []any
		for _, n := range notes {
			arr = append(arr, map[string]any{"noteTweet": n})
		}
		writeJS(t, filepath.Join(dir, "data/note-tweet.js"), "window.YTD.note_tweet.part0", arr)
	}
	if deleted != nil {
		var arr []any
		for _, d := range deleted {
			arr = append(arr, map[string]any{"tweet": tweetJSON(d)})
		}
		writeJS(t, filepath.Join(dir, "data/deleted-tweets.js"), "window.YTD.deleted_tweets.part0", arr)
	}
	return dir
}

// writeTweets streams the tweets data file and the media files, so a big
// generated archive takes no more memory than a small one.
func writeTweets(t testing.TB, dir string, l layout, tweets []genTweet) {
	t.Helper()
	p := filepath.Join(dir, l.data)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	f, err := os.Create(p)
	require.NoError(t, err)
	defer f.Close()
	fmt.Fprintf(f, "window.%s = [ ", l.global)
	for i, g := range tweets {
		if i > 0 {
			io.WriteString(f, ",\n")
		}
		var v any = tweetJSON(g)
		if l.wrap {
			v = map[string]any{"tweet": v}
		}
		b, err := json.MarshalIndent(v, "  ", "  ")
		require.NoError(t, err)
		_, err = f.Write(b)
		require.NoError(t, err)
		if g.Photo != "" && !g.NoFile {
			mp := filepath.Join(dir, l.media, g.ID+"-"+g.Photo)
			require.NoError(t, os.MkdirAll(filepath.Dir(mp), 0o755))
			require.NoError(t, os.WriteFile(mp, fakeJPEG(g.ID), 0o644))
		}
	}
	io.WriteString(f, " ]")
}

// fakeJPEG is a few bytes that start like a JPEG, distinct per post.
func fakeJPEG(seed string) []byte {
	return append([]byte{0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F', 'I', 'F', 0}, []byte("photo of "+seed+strings.Repeat(".", 2000))...)
}

func writeJS(t testing.TB, p, global string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, append([]byte(global+" = "), b...), 0o644))
}

// zipFolder zips a folder under one top folder, as X's zips are read by
// people who unpack and re-zip them.
func zipFolder(t testing.TB, dir, out, top string) string {
	t.Helper()
	f, err := os.Create(out)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := filepath.ToSlash(rel)
		if top != "" {
			name = top + "/" + name
		}
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(w, src)
		return err
	}))
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return out
}

// genTweets invents n posts, one in photos with a photo.
func genTweets(n, photoEvery int) []genTweet {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]genTweet, n)
	for i := range out {
		id := fmt.Sprint(1800000000000000000 + int64(i)*1000)
		out[i] = genTweet{ID: id, Text: fmt.Sprintf("generated post %d about harbour tides & weather", i), At: base.Add(time.Duration(i) * time.Minute)}
		if photoEvery > 0 && i%photoEvery == 0 {
			out[i].Photo = fmt.Sprintf("G%07dAAA.jpg", i)
		}
	}
	return out
}
