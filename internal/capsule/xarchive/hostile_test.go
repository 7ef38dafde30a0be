package xarchive_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/capsule/xarchive"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// refused imports p and requires an error containing want, and that
// nothing at all was written.
func refused(t *testing.T, p, want string) error {
	t.Helper()
	in := capsuletest.New(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	_, err := importPath(t, in, alice, p, xarchive.Options{})
	require.Error(t, err)
	require.Contains(t, err.Error(), want)
	n, cerr := in.App.CountCollections(context.Background(), alice)
	require.NoError(t, cerr)
	require.Zero(t, n, "nothing half-imported")
	blobs, cerr := in.Store.BlobCount(context.Background())
	require.NoError(t, cerr)
	require.Zero(t, blobs)
	return err
}

// zipEntries writes a zip of the given entries (name → content).
func zipEntries(t *testing.T, entries [][2]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "archive.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e[0])
		require.NoError(t, err)
		_, err = w.Write([]byte(e[1]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// smallArchive is a valid archive folder of three posts.
func smallArchive(t *testing.T) string {
	return writeArchive(t, t.TempDir(), layout2026, "gen", genTweets(3, 1), nil, nil)
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestRefusesZipSlip(t *testing.T) {
	t.Parallel()
	dir := smallArchive(t)
	p := zipEntries(t, [][2]string{
		{"data/manifest.js", readFile(t, filepath.Join(dir, "data/manifest.js"))},
		{"data/tweets.js", readFile(t, filepath.Join(dir, "data/tweets.js"))},
		{"../../outside.js", "window.x = 1"},
	})
	refused(t, p, "escapes the target folder")
}

func TestRefusesSymlinks(t *testing.T) {
	t.Parallel()
	t.Run("folder", func(t *testing.T) {
		dir := smallArchive(t)
		secret := filepath.Join(t.TempDir(), "secret.jpg")
		require.NoError(t, os.WriteFile(secret, []byte("not yours"), 0o600))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data/tweets_media"), 0o755))
		require.NoError(t, os.Symlink(secret, filepath.Join(dir, "data/tweets_media/1800000000000000000-x.jpg")))
		refused(t, dir, "leaves the capsule")
	})
	t.Run("zip", func(t *testing.T) {
		dir := smallArchive(t)
		p := filepath.Join(t.TempDir(), "archive.zip")
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, name := range []string{"data/manifest.js", "data/tweets.js"} {
			w, err := zw.Create(name)
			require.NoError(t, err)
			_, _ = w.Write([]byte(readFile(t, filepath.Join(dir, name))))
		}
		h := &zip.FileHeader{Name: "data/tweets_media/1800000000000000000-G0000000AAA.jpg"}
		h.SetMode(os.ModeSymlink | 0o777)
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, _ = w.Write([]byte("/etc/passwd"))
		require.NoError(t, zw.Close())
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		refused(t, p, "is a symlink")
	})
}

// A data file that declares 2 GiB is refused before a byte of it is
// inflated; the test writes a few bytes that claim to be 2 GiB.
func TestRefusesHugeJSON(t *testing.T) {
	t.Parallel()
	t.Run("zip", func(t *testing.T) {
		dir := smallArchive(t)
		p := filepath.Join(t.TempDir(), "archive.zip")
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.Create("data/manifest.js")
		require.NoError(t, err)
		_, _ = w.Write([]byte(readFile(t, filepath.Join(dir, "data/manifest.js"))))
		body := []byte("window.YTD.tweets.part0 = [ ")
		raw, err := zw.CreateRaw(&zip.FileHeader{Name: "data/tweets.js", Method: zip.Store, CRC32: crc32.ChecksumIEEE(body),
			CompressedSize64: uint64(len(body)), UncompressedSize64: 2 << 30})
		require.NoError(t, err)
		_, _ = raw.Write(body)
		require.NoError(t, zw.Close())
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		refused(t, p, "data/tweets.js is 2147483648 bytes unpacked, over the 1073741824-byte limit")
	})
	t.Run("folder", func(t *testing.T) {
		dir := smallArchive(t)
		// A sparse file: 2 GiB by its size, no disk used.
		require.NoError(t, os.Truncate(filepath.Join(dir, "data/tweets.js"), 2<<30))
		refused(t, dir, "over the 1073741824-byte limit")
	})
}

func TestRefusesTruncated(t *testing.T) {
	t.Parallel()
	t.Run("zip", func(t *testing.T) {
		dir := smallArchive(t)
		p := zipFolder(t, dir, filepath.Join(t.TempDir(), "a.zip"), "")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		refused(t, p, "neither a folder nor a readable zip file")
	})
	t.Run("data file", func(t *testing.T) {
		dir := smallArchive(t)
		js := filepath.Join(dir, "data/tweets.js")
		b, err := os.ReadFile(js)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(js, b[:len(b)*2/3], 0o644))
		err = refused(t, dir, "ends in the middle of its data")
		require.True(t, errors.Is(err, importer.ErrFormat))
	})
}

func TestRefusesWrongFormat(t *testing.T) {
	t.Parallel()
	t.Run("grailbird", func(t *testing.T) {
		refused(t, testkit.RealFixturesDir(t, "x-archive/hotoo-2020-and-legacy"), `old "Grailbird" layout`)
	})
	t.Run("telegram export", func(t *testing.T) {
		refused(t, testkit.RealFixturesDir(t, "telegram-desktop/ragtgbot"), "monitor import telegram-export")
	})
	t.Run("ech0 capsule", func(t *testing.T) {
		refused(t, testkit.RealFixturesDir(t, "ech0/capsule-from-check_test"), "monitor import capsule")
	})
	t.Run("not a zip", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "notes.txt")
		require.NoError(t, os.WriteFile(p, []byte("just some text"), 0o644))
		refused(t, p, "neither a folder nor a readable zip file")
	})
	t.Run("not a data file", func(t *testing.T) {
		dir := smallArchive(t)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "data/tweets.js"), []byte(`[{"tweet": {}}]`), 0o644))
		refused(t, dir, "does not start like an X archive data file")
	})
	t.Run("manifest names a missing file", func(t *testing.T) {
		dir := smallArchive(t)
		require.NoError(t, os.Remove(filepath.Join(dir, "data/tweets.js")))
		refused(t, dir, "which is not in the archive")
	})
	t.Run("bad id", func(t *testing.T) {
		dir := smallArchive(t)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "data/tweets.js"),
			[]byte(`window.YTD.tweets.part0 = [{"tweet": {"id_str": "12abc", "created_at": "Fri Mar 06 13:02:05 +0000 2026", "full_text": "x"}}]`), 0o644))
		refused(t, dir, "is not an X post id")
	})
}
