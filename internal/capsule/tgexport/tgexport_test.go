package tgexport_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/capsule/tgexport"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

func importPath(t testing.TB, in *capsuletest.Instance, tenant uuid.UUID, p string, o tgexport.Options) (importer.ForeignReport, error) {
	t.Helper()
	src, err := tgexport.Open(p)
	if err != nil {
		return importer.ForeignReport{}, err
	}
	defer src.Close()
	o.TenantID = tenant
	return tgexport.Import(context.Background(), in.App, src, o)
}

func mustImport(t testing.TB, in *capsuletest.Instance, tenant uuid.UUID, p string, o tgexport.Options) importer.ForeignReport {
	t.Helper()
	rep, err := importPath(t, in, tenant, p, o)
	require.NoError(t, err)
	return rep
}

func everything(t testing.TB, a *app.App, tenant uuid.UUID) map[string]app.CollectionView {
	t.Helper()
	page, err := a.Collections(context.Background(), tenant, 100, "")
	require.NoError(t, err)
	out := map[string]app.CollectionView{}
	for _, c := range page.Items {
		out[c.ExternalID] = c
	}
	return out
}

// The real sample, read by a person: a private group "TestRag" (id
// 4696915167) with 5 messages, the first a service message (create_group),
// then 4 text messages by verymuchuser, no files.
func TestRealExport(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "telegram-desktop/ragtgbot")
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.New(t, st)
		alice := in.Tenant(t, "alice", nil)

		dry := mustImport(t, in, alice, dir, tgexport.Options{ForeignOptions: importer.ForeignOptions{DryRun: true}})
		require.Len(t, dry.Created, 4)
		n, err := in.App.CountCollections(ctx, alice)
		require.NoError(t, err)
		require.Zero(t, n, "a dry run writes nothing")

		rep := mustImport(t, in, alice, dir, tgexport.Options{})
		require.Len(t, rep.Created, 4)
		require.Equal(t, []importer.Skip{{Reason: "service message (joins, pins, title changes…)", Count: 1}}, rep.Skips)
		require.Empty(t, rep.Unavailable)
		got := everything(t, in.App, alice)
		require.Len(t, got, 4)
		first := got["c/4696915167/603441"]
		require.Equal(t, "Hi, how are you?", first.Text)
		require.Equal(t, "verymuchuser", first.AuthorName)
		require.Equal(t, "telegram", first.Platform)
		require.Equal(t, "telegram.message", first.EntityType)
		require.Equal(t, "private", first.Visibility)
		require.Empty(t, first.SourceURL, "a private group's messages have no link")
		require.Equal(t, "Что то на русском.", got["c/4696915167/603443"].Text)

		res, err := in.App.Search(ctx, alice, "русском", 10, "", "")
		require.NoError(t, err)
		require.Len(t, res.Items, 1)

		again := mustImport(t, in, alice, dir, tgexport.Options{})
		require.Empty(t, again.Created)
		require.Len(t, again.Skipped, 4)
	})
}

// channelExport is a single-chat export of a public channel in the shape
// of research/peers.md §4.2: a service message, mixed-array text, an album
// of two photos and a video with one caption, a reply, and a voice
// message whose file was not exported.
func channelExport(t *testing.T, dir string) string {
	t.Helper()
	doc := map[string]any{
		"name": "Harbour News", "type": "public_channel", "id": 1234567890,
		"messages": []any{
			map[string]any{"id": 41, "type": "service", "date": "2025-01-15T09:00:00", "date_unixtime": "1736931600",
				"actor": "Harbour News", "actor_id": "channel1234567890", "action": "create_channel", "title": "Harbour News", "text": "", "text_entities": []any{}},
			map[string]any{"id": 42, "type": "message", "date": "2025-01-15T10:30:00", "date_unixtime": "1736937000",
				"edited": "2025-01-15T10:35:00", "edited_unixtime": "1736937300", "from": "Harbour News", "from_id": "channel1234567890", "author": "Ann",
				"photo": "photos/photo_1@15-01-2025_10-30-00.jpg", "width": 1280, "height": 720,
				"text": []any{"Launch day! ", map[string]any{"type": "bold", "text": "Read more"}, " at ",
					map[string]any{"type": "text_link", "text": "our site", "href": "https://example.org"}},
				"text_entities": []any{map[string]any{"type": "plain", "text": "Launch day! "}, map[string]any{"type": "bold", "text": "Read more"},
					map[string]any{"type": "plain", "text": " at "}, map[string]any{"type": "text_link", "text": "our site", "href": "https://example.org"}}},
			map[string]any{"id": 43, "type": "message", "date": "2025-01-15T10:30:00", "date_unixtime": "1736937000",
				"from": "Harbour News", "from_id": "channel1234567890", "photo": "photos/photo_2@15-01-2025_10-30-00.jpg", "width": 800, "height": 600,
				"text": "", "text_entities": []any{}},
			map[string]any{"id": 44, "type": "message", "date": "2025-01-15T10:30:00", "date_unixtime": "1736937000",
				"from": "Harbour News", "from_id": "channel1234567890", "file": "video_files/clip.mp4", "thumbnail": "video_files/clip.mp4_thumb.jpg",
				"media_type": "video_file", "mime_type": "video/mp4", "duration_seconds": 12, "width": 1920, "height": 1080, "text": "", "text_entities": []any{}},
			map[string]any{"id": 45, "type": "message", "date": "2025-01-15T10:31:00", "date_unixtime": "1736937060",
				"from": "Harbour News", "from_id": "channel1234567890", "reply_to_message_id": 42, "text": "Tide tables follow tomorrow.",
				"text_entities": []any{map[string]any{"type": "plain", "text": "Tide tables follow tomorrow."}}},
			map[string]any{"id": 46, "type": "message", "date": "2025-01-15T10:32:00", "date_unixtime": "1736937120",
				"from": "Harbour News", "from_id": "channel1234567890", "file": "(File not included. Change data exporting settings to download.)",
				"media_type": "voice_message", "mime_type": "audio/ogg", "duration_seconds": 7, "text": "", "text_entities": []any{}},
		},
	}
	b, err := json.MarshalIndent(doc, "", " ")
	require.NoError(t, err)
	for name, data := range map[string][]byte{
		"result.json":                            b,
		"photos/photo_1@15-01-2025_10-30-00.jpg": append([]byte{0xff, 0xd8, 0xff}, "one"...),
		"photos/photo_2@15-01-2025_10-30-00.jpg": append([]byte{0xff, 0xd8, 0xff}, "two"...),
		"video_files/clip.mp4":                   []byte("\x00\x00\x00\x18ftypmp42clip"),
		"video_files/clip.mp4_thumb.jpg":         append([]byte{0xff, 0xd8, 0xff}, "thumb"...),
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	return dir
}

func TestPublicChannel(t *testing.T) {
	t.Parallel()
	dir := channelExport(t, t.TempDir())
	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	rep := mustImport(t, in, alice, dir, tgexport.Options{Username: "Harbour_News"})
	require.Len(t, rep.Created, 3, "the album (42–44), the reply (45) and the voice message (46)")
	require.Equal(t, 1, rep.Skips[0].Count)
	require.Contains(t, rep.Notes, "1 album(s) grouped from consecutive media messages")
	require.Len(t, rep.Unavailable, 1)
	require.Equal(t, "https://t.me/harbour_news/46", rep.Unavailable[0].Post)
	require.Contains(t, rep.Unavailable[0].Reason, "File not included")

	got := everything(t, in.App, alice)
	album := got["harbour_news/42"]
	require.Equal(t, "https://t.me/harbour_news/42", album.SourceURL)
	require.Equal(t, app.PrivateCollectionID(alice, "telegram", "telegram.message", "harbour_news", "harbour_news/42"), album.ID,
		"the tme adapter's identity of the post, in the tenant's private scope")
	require.Equal(t, "Launch day! Read more at our site", album.Text)
	require.Len(t, album.Media, 3)
	require.Equal(t, []string{"image", "image", "video"}, []string{album.Media[0].Kind, album.Media[1].Kind, album.Media[2].Kind})
	require.Equal(t, 12000, album.Media[2].DurationMS)
	require.Equal(t, "Harbour News", album.AuthorName)
	var data map[string]any
	require.NoError(t, json.Unmarshal(album.Graph.Entities[0].Data, &data))
	require.Len(t, data["text_entities"], 4, "text_entities kept")
	reply := got["harbour_news/45"]
	require.Contains(t, reply.Graph.Relations, app.RelationView{From: "message", Relation: "replies_to", To: "reply_to"})

	// Without the username the posts keep an identity of their own.
	bob := in.Tenant(t, "bob", nil)
	mustImport(t, in, bob, dir, tgexport.Options{})
	require.Contains(t, everything(t, in.App, bob), "c/1234567890/42")
}

// A whole account's export: chats.list[], each chat's files under
// chats/chat_NNN/ relative to result.json.
func TestFullAccountExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := map[string]any{
		"about":                "Here is the data you requested.",
		"personal_information": map[string]any{"user_id": 1, "first_name": "Ann"},
		"chats": map[string]any{"about": "chats", "list": []any{
			map[string]any{"name": "Bob", "type": "personal_chat", "id": 11, "messages": []any{
				map[string]any{"id": 1, "type": "message", "date": "2024-02-01T08:00:00", "date_unixtime": "1706774400", "from": "Bob", "from_id": "user11",
					"text": "morning", "text_entities": []any{}},
				map[string]any{"id": 2, "type": "message", "date": "2024-02-01T08:01:00", "date_unixtime": "1706774460", "from": "Ann", "from_id": "user1",
					"photo": "chats/chat_001/photos/p.jpg", "width": 10, "height": 10, "text": "look", "text_entities": []any{}},
			}},
			map[string]any{"name": "Saved Messages", "type": "saved_messages", "id": 1, "messages": []any{
				map[string]any{"id": 7, "type": "message", "date": "2024-02-02T08:00:00", "date_unixtime": "1706860800", "from": "Ann", "from_id": "user1",
					"text": "note to self", "text_entities": []any{}},
			}},
		}},
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "chats/chat_001/photos"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "chats/chat_001/photos/p.jpg"), []byte{0xff, 0xd8, 0xff, 1}, 0o644))

	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	rep := mustImport(t, in, alice, dir, tgexport.Options{})
	require.Len(t, rep.Created, 3)
	got := everything(t, in.App, alice)
	require.Len(t, got["c/11/2"].Media, 1)
	require.Equal(t, "note to self", got["c/1/7"].Text)
}

func refused(t *testing.T, p, want string) {
	t.Helper()
	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	_, err := importPath(t, in, alice, p, tgexport.Options{})
	require.Error(t, err)
	require.Contains(t, err.Error(), want)
	n, err := in.App.CountCollections(context.Background(), alice)
	require.NoError(t, err)
	require.Zero(t, n, "nothing half-imported")
	blobs, err := in.Store.BlobCount(context.Background())
	require.NoError(t, err)
	require.Zero(t, blobs)
}

func writeZip(t *testing.T, fn func(zw *zip.Writer)) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	fn(zw)
	require.NoError(t, zw.Close())
	p := filepath.Join(t.TempDir(), "export.zip")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

func TestRefusesBadExports(t *testing.T) {
	t.Parallel()
	t.Run("zip slip", func(t *testing.T) {
		p := writeZip(t, func(zw *zip.Writer) {
			w, _ := zw.Create("result.json")
			_, _ = w.Write([]byte(`{"name":"x","type":"public_channel","id":1,"messages":[]}`))
			w, _ = zw.Create("photos/../../../etc/cron.d/x")
			_, _ = w.Write([]byte("boom"))
		})
		refused(t, p, "escapes the target folder")
	})
	t.Run("symlink", func(t *testing.T) {
		dir := channelExport(t, t.TempDir())
		p := filepath.Join(dir, "photos/photo_2@15-01-2025_10-30-00.jpg")
		require.NoError(t, os.Remove(p))
		require.NoError(t, os.Symlink("/etc/hostname", p))
		refused(t, dir, "is a symlink")
	})
	t.Run("2 GiB result.json", func(t *testing.T) {
		p := writeZip(t, func(zw *zip.Writer) {
			body := []byte(`{"name":"x","type":"public_channel","id":1,"messages":[`)
			w, err := zw.CreateRaw(&zip.FileHeader{Name: "result.json", Method: zip.Store, CRC32: crc32.ChecksumIEEE(body),
				CompressedSize64: uint64(len(body)), UncompressedSize64: 2 << 30})
			require.NoError(t, err)
			_, _ = w.Write(body)
		})
		refused(t, p, "result.json is 2147483648 bytes unpacked, over the 1073741824-byte limit")
	})
	t.Run("truncated zip", func(t *testing.T) {
		dir := channelExport(t, t.TempDir())
		p := writeZip(t, func(zw *zip.Writer) {
			b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
			w, _ := zw.Create("result.json")
			_, _ = w.Write(b)
		})
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, b[:len(b)-30], 0o644))
		refused(t, p, "neither a folder nor a readable zip file")
	})
	t.Run("truncated result.json", func(t *testing.T) {
		dir := channelExport(t, t.TempDir())
		p := filepath.Join(dir, "result.json")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		refused(t, dir, "ends in the middle of its data")
	})
	t.Run("x archive", func(t *testing.T) {
		refused(t, testkit.RealFixturesDir(t, "x-archive/milahu104-2026"), "use monitor import x-archive")
	})
	t.Run("html export", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "messages.html"), []byte("<html>"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "export_results.html"), []byte("<html>"), 0o644))
		refused(t, dir, "Machine-readable JSON")
	})
	t.Run("other json", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"hello": "world"}`), 0o644))
		refused(t, dir, "holds neither a chat")
	})
	t.Run("quota", func(t *testing.T) {
		dir := channelExport(t, t.TempDir())
		in := capsuletest.New(t, storetest.New(t, "sqlite"))
		quota := int64(100)
		alice := in.Tenant(t, "alice", &quota)
		_, err := importPath(t, in, alice, dir, tgexport.Options{})
		var qe *app.QuotaError
		require.ErrorAs(t, err, &qe)
		require.True(t, strings.Contains(err.Error(), "nothing was imported"))
	})
}

// A public channel's imported post and a live capture of its t.me link end
// as one collection (the fake t.me serves tidewatch_demo/101).
func TestImportThenCapture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := json.Marshal(map[string]any{"name": "Tidewatch", "type": "public_channel", "id": 1591537674, "messages": []any{
		map[string]any{"id": 101, "type": "message", "date": "2025-01-15T10:30:00", "date_unixtime": "1736937000",
			"from": "Tidewatch", "from_id": "channel1591537674", "text": "an old copy", "text_entities": []any{}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644))
	in := capsuletest.NewPipeline(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	rep := mustImport(t, in, alice, dir, tgexport.Options{Username: "tidewatch_demo"})
	require.Len(t, rep.Created, 1)

	public := in.Capture(t, alice, "https://t.me/tidewatch_demo/101")[0]
	require.Equal(t, app.PublicCollectionID("telegram", "telegram.message", "tidewatch_demo", "tidewatch_demo/101"), public)
	got := everything(t, in.App, alice)
	require.Len(t, got, 1, "one collection, not two")
	require.Equal(t, public, got["tidewatch_demo/101"].ID)
	c, err := in.App.Collection(context.Background(), alice, rep.Created[0].ID)
	require.NoError(t, err)
	require.Equal(t, public, c.ID, "the imported copy's id finds the post")
}
