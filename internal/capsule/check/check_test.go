package check_test

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/check"
)

const postPath = "collections/x/2026/2026-07-18-8663d77b.md"

var image = []byte("\x89PNG not really, but bytes all the same")

func imageSHA() string {
	s := sha256.Sum256(image)
	return hex.EncodeToString(s[:])
}

// post is a valid collection file; edit replaces parts of it.
func post(edit ...string) string {
	s := `---
id: 0198a3f2-ac96-774b-bcce-b302099a8057
platform: x
kind: x.post
external_id: "2078399740166950912"
url: https://x.com/archivist_demo/status/2078399740166950912
visibility: public
saved_at: 2026-07-18T10:00:00Z
published_at: 2026-07-18T09:00:00Z
author: {name: Archivist Demo}
media:
  - file: files/ab/IMAGE.png
    sha256: IMAGE
    kind: image
    mime: image/png
    size: SIZE
---
Hello, capsule.
`
	s = strings.ReplaceAll(s, "files/ab/IMAGE.png", "files/"+imageSHA()[:2]+"/"+imageSHA()+".png")
	s = strings.ReplaceAll(s, "IMAGE", imageSHA())
	s = strings.ReplaceAll(s, "SIZE", itoa(len(image)))
	for i := 0; i+1 < len(edit); i += 2 {
		if !strings.Contains(s, edit[i]) {
			panic("no " + edit[i])
		}
		s = strings.Replace(s, edit[i], edit[i+1], 1)
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// capsuleDir writes a capsule with the given collection files.
func capsuleDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("monitor.yaml", "schema_version: 1\ngenerator: test\n")
	write("files/"+imageSHA()[:2]+"/"+imageSHA()+".png", string(image))
	for name, body := range files {
		write(name, body)
	}
	return dir
}

func run(t *testing.T, p string) *check.Result {
	t.Helper()
	src, err := capsule.Open(p)
	require.NoError(t, err)
	t.Cleanup(func() { _ = src.Close() })
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	return res
}

func lines(res *check.Result) []string {
	var out []string
	for _, p := range res.Problems {
		out = append(out, p.String())
	}
	return out
}

// requireProblem asserts a problem with the path and field, whose message
// contains want.
func requireProblem(t *testing.T, res *check.Result, path, field, want string, warning bool) {
	t.Helper()
	for _, p := range res.Problems {
		if p.Path == path && p.Field == field && strings.Contains(p.Message, want) && p.Warning == warning {
			return
		}
	}
	t.Fatalf("no problem %s: %s: …%s… in\n%s", path, field, want, strings.Join(lines(res), "\n"))
}

func TestValidCapsule(t *testing.T) {
	t.Parallel()
	res := run(t, capsuleDir(t, map[string]string{postPath: post()}))
	require.Empty(t, res.Problems)
	require.Len(t, res.Entries, 1)
	c := res.Entries[0].Collection
	require.Equal(t, "Hello, capsule.", c.Text)
	require.Equal(t, "2026-07-18T09:00:00Z", capsule.FormatTime(*c.PublishedAt))
	// Written back, it reads the same.
	b, err := capsule.MarshalCollection(&c)
	require.NoError(t, err)
	again, probs := capsule.ParseCollection(postPath, b)
	require.Empty(t, probs)
	require.Equal(t, c, again)
}

func TestCheckProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, field, want string
		file              string
		warning           bool
	}{
		{"missing id", "id", "missing; run `monitor check --fix`", post("id: 0198a3f2-ac96-774b-bcce-b302099a8057\n", ""), false},
		{"unparsable time", "saved_at", `"yesterday" is not an RFC 3339 time`, post("2026-07-18T10:00:00Z", "yesterday"), false},
		{"date without time", "published_at", `"2026-07-18" is not an RFC 3339 time`, post("2026-07-18T09:00:00Z", "2026-07-18"), false},
		{"unknown visibility", "visibility", `"secret" is not one of public, private`, post("visibility: public", "visibility: secret"), false},
		{"unknown media kind", "media[0].kind", `"picture" is not one of image, video, gif, audio, document`, post("kind: image", "kind: picture"), false},
		{"missing media file", "media[0].file", "files/00/missing.png does not exist", post("file: files/"+imageSHA()[:2]+"/"+imageSHA()+".png", "file: files/00/missing.png"), false},
		{"sha256 mismatch", "media[0].sha256", "has SHA-256 " + imageSHA() + ", not " + strings.Repeat("0", 64), post("sha256: "+imageSHA(), "sha256: "+strings.Repeat("0", 64)), false},
		{"parent path", "media[0].file", "leaves the capsule (..)", post("file: files/", "file: ../../etc/"), false},
		{"absolute path", "media[0].file", "is an absolute path", post("file: files/", "file: /etc/"), false},
		{"alias bomb", "frontmatter", "aliases and anchors are not allowed", post("author: {name: Archivist Demo}",
			"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]"), false},
		{"not closed", "frontmatter", "not closed by a line ---", strings.Replace(post(), "---\nHello", "Hello", 1), false},
		{"unknown field", "mood", "unknown field, ignored", post("visibility: public", "visibility: public\nmood: happy"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := run(t, capsuleDir(t, map[string]string{postPath: tc.file}))
			requireProblem(t, res, postPath, tc.field, tc.want, tc.warning)
			if tc.warning {
				require.Zero(t, res.Errors(), "%v", lines(res))
				require.NoError(t, res.Err())
			} else {
				require.Error(t, res.Err())
			}
		})
	}
}

func TestDuplicateID(t *testing.T) {
	t.Parallel()
	other := "collections/x/2026/2026-07-19-8663d77b.md"
	res := run(t, capsuleDir(t, map[string]string{postPath: post(), other: post()}))
	requireProblem(t, res, other, "id", "is also the id of "+postPath, false)
}

func TestManifestNewer(t *testing.T) {
	t.Parallel()
	dir := capsuleDir(t, map[string]string{postPath: post()})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "monitor.yaml"), []byte("schema_version: 2\n"), 0o644))
	requireProblem(t, run(t, dir), "monitor.yaml", "schema_version", "2 is newer than this monitor understands", false)
}

func TestSymlinkLeavingCapsule(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.png")
	require.NoError(t, os.WriteFile(outside, image, 0o644))
	dir := capsuleDir(t, map[string]string{postPath: post("file: files/"+imageSHA()[:2]+"/"+imageSHA()+".png", "file: files/link.png")})
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "files", "link.png")))
	res := run(t, dir)
	requireProblem(t, res, "files/link.png", "file", "which leaves the capsule", false)
	requireProblem(t, res, postPath, "media[0].file", "files/link.png does not exist", false)

	// A symlink that stays inside is followed.
	dir = capsuleDir(t, map[string]string{postPath: post("file: files/"+imageSHA()[:2]+"/"+imageSHA()+".png", "file: files/inside.png")})
	require.NoError(t, os.Symlink(filepath.Join(imageSHA()[:2], imageSHA()+".png"), filepath.Join(dir, "files", "inside.png")))
	require.Empty(t, run(t, dir).Problems)
}

func TestZip(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "capsule.zip")
	f, err := os.Create(p)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	add := func(name string, body []byte) {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write(body)
		require.NoError(t, err)
	}
	add("monitor.yaml", []byte("schema_version: 1\n"))
	add("files/"+imageSHA()[:2]+"/"+imageSHA()+".png", image)
	add(postPath, []byte(post()))
	add("../evil.md", []byte("x"))
	add("/etc/cron.d/evil", []byte("x"))
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())

	res := run(t, p)
	requireProblem(t, res, "../evil.md", "zip entry", "escapes the target folder", false)
	requireProblem(t, res, "/etc/cron.d/evil", "zip entry", "has an absolute path", false)
	require.Len(t, res.Entries, 1)
	require.True(t, res.Entries[0].OK)

	src, err := capsule.Open(p)
	require.NoError(t, err)
	defer src.Close()
	_, err = check.Fix(src, res)
	require.ErrorIs(t, err, check.ErrFixZip)
}

func TestFixWritesMissingID(t *testing.T) {
	t.Parallel()
	other := "collections/x/2026/2026-07-19-empty.md"
	dir := capsuleDir(t, map[string]string{
		postPath: post("id: 0198a3f2-ac96-774b-bcce-b302099a8057\n", ""),
		other:    post("id: 0198a3f2-ac96-774b-bcce-b302099a8057", `id: ""`),
	})
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	require.Equal(t, 2, res.Errors())
	fixed, err := check.Fix(src, res)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{postPath, other}, fixed)
	res = run(t, dir)
	require.Empty(t, res.Problems)
	require.NotEqual(t, res.Entries[0].Collection.ID, res.Entries[1].Collection.ID)
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(postPath)))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), "---\nid: "), string(b))
	require.True(t, strings.HasSuffix(string(b), "---\nHello, capsule.\n"), "the rest of the file is kept")
}
