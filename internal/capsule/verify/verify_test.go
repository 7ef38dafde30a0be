package verify_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/capsule/verify"
	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// archive is a source instance with two posts, the photos post edited
// upstream and refreshed (two revisions), exported with history.
type archive struct {
	in    *capsuletest.Instance
	alice uuid.UUID
	ids   []uuid.UUID
	dir   string
}

func newArchive(t *testing.T, driver string, history bool) *archive {
	t.Helper()
	ctx := context.Background()
	in := capsuletest.NewPipeline(t, storetest.New(t, driver))
	alice := in.Tenant(t, "alice", nil)
	posts := capsuletest.FixturePosts()
	ids := in.Capture(t, alice, posts[0], posts[1])
	body := bytes.Replace(in.FX.Raw("status-photos.json"), []byte("the old crane."), []byte("the old crane (edited)."), 1)
	in.FX.SetOverride("/2/status/2078399740166950912", 200, "application/json", body)
	res, err := in.App.Refresh(ctx, alice, ids[0], "")
	require.NoError(t, err)
	in.WaitCapture(t, alice, res.CaptureID)
	dir := filepath.Join(t.TempDir(), "capsule")
	_, err = export.Export(ctx, in.App, export.Options{TenantID: alice, TenantName: "alice", Out: dir, History: history,
		Generator: "monitor test", Now: func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }})
	require.NoError(t, err)
	return &archive{in: in, alice: alice, ids: ids, dir: dir}
}

// copyOf is a copy of the capsule to tamper with.
func (a *archive) copyOf(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, os.CopyFS(dst, os.DirFS(a.dir)))
	return dst
}

// photosFile is the photos post's collection file in a capsule.
func (a *archive) photosFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "collections", "x", "*", "*.md"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		if strings.Contains(string(b), "id: "+a.ids[0].String()) {
			rel, _ := filepath.Rel(dir, f)
			return filepath.ToSlash(rel)
		}
	}
	t.Fatal("no file of the photos post")
	return ""
}

// run checks and verifies a capsule and returns every problem line.
func run(t *testing.T, dir string, key ed25519.PublicKey) (*verify.Result, []string) {
	t.Helper()
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	vr, err := verify.Run(context.Background(), src, res, verify.Options{Key: key})
	require.NoError(t, err)
	var lines []string
	for _, p := range append(res.Problems, vr.Problems...) {
		lines = append(lines, p.String())
	}
	return vr, lines
}

// edit rewrites a collection file through the capsule types.
func edit(t *testing.T, dir, rel string, fn func(c *capsule.Collection)) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	c, probs := capsule.ParseCollection(rel, b)
	require.Empty(t, probs)
	fn(&c)
	out, err := capsule.MarshalCollection(&c)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, out, 0o644))
}

// hasLine requires a problem line that starts with prefix.
func hasLine(t *testing.T, lines []string, prefix string) {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return
		}
	}
	t.Fatalf("no problem starts with %q; got:\n%s", prefix, strings.Join(lines, "\n"))
}

func TestUntouchedCapsuleVerifies(t *testing.T) {
	t.Parallel()
	for _, driver := range storetest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			a := newArchive(t, driver, true)
			pub := a.in.Core.SigningKey.Public().(ed25519.PublicKey)
			vr, lines := run(t, a.dir, pub)
			require.Empty(t, lines)
			require.True(t, vr.SignatureOK)
			require.True(t, vr.Signer.Equal(pub), "the capsule names the key that signed it")
			require.Equal(t, 2, vr.Collections)
			require.Equal(t, 3, vr.Revisions, "the photos post has two revisions, the video one")

			// The photos file carries both links, the second after the first.
			b, err := os.ReadFile(filepath.Join(a.dir, filepath.FromSlash(a.photosFile(t, a.dir))))
			require.NoError(t, err)
			c, _ := capsule.ParseCollection("photos.md", b)
			require.NotNil(t, c.Chain)
			require.Len(t, c.Chain.Revisions, 2)
			require.Empty(t, c.Chain.Revisions[0].PrevHash)
			require.Equal(t, c.Chain.Revisions[0].ChainHash, c.Chain.Revisions[1].PrevHash)
			require.Equal(t, c.Chain.Revisions[1].ChainHash, c.Chain.Head)
			require.NotEmpty(t, c.Chain.Revisions[0].Raw, "the link covers the capture's raw response")

			// Without --history the file still carries the whole chain.
			b2 := newArchive(t, "sqlite", false)
			_, lines = run(t, b2.dir, nil)
			require.Empty(t, lines)
		})
	}
}

func TestTamperedCapsulesAreCaughtAndNamed(t *testing.T) {
	t.Parallel()
	a := newArchive(t, "sqlite", true)
	pub := a.in.Core.SigningKey.Public().(ed25519.PublicKey)
	photos := a.photosFile(t, a.dir)

	t.Run("one changed byte in the text", func(t *testing.T) {
		dir := a.copyOf(t)
		p := filepath.Join(dir, filepath.FromSlash(photos))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		b = bytes.Replace(b, []byte("(edited)"), []byte("(edit3d)"), 1)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		_, lines := run(t, dir, pub)
		hasLine(t, lines, photos+": sha256: ")
		hasLine(t, lines, photos+": text: this version's content hashes to ")
	})

	t.Run("one changed byte in the text, re-summed and re-signed", func(t *testing.T) {
		dir := a.copyOf(t)
		p := filepath.Join(dir, filepath.FromSlash(photos))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, bytes.Replace(b, []byte("(edited)"), []byte("(edit3d)"), 1), 0o644))
		_, other, _ := ed25519.GenerateKey(rand.Reader)
		resign(t, dir, other)
		_, lines := run(t, dir, nil)
		hasLine(t, lines, photos+": text: this version's content hashes to ")
		hasLine(t, lines, photos+": chain.revisions[1]: no version in the file has this link's content")
	})

	t.Run("a swapped media file", func(t *testing.T) {
		dir := a.copyOf(t)
		media, err := filepath.Glob(filepath.Join(dir, "files", "*", "*"))
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(media), 2)
		other, err := os.ReadFile(media[1])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(media[0], other, 0o644))
		rel, _ := filepath.Rel(dir, media[0])
		_, lines := run(t, dir, pub)
		hasLine(t, lines, filepath.ToSlash(rel)+": sha256: the file has SHA-256 ")
	})

	t.Run("a dropped revision", func(t *testing.T) {
		dir := a.copyOf(t)
		edit(t, dir, photos, func(c *capsule.Collection) {
			c.History = c.History[1:]
			c.Chain.Revisions = c.Chain.Revisions[1:]
		})
		_, lines := run(t, dir, pub)
		hasLine(t, lines, photos+": chain.revisions[0].prev_hash: the first revision names a previous one")
	})

	t.Run("a dropped history entry", func(t *testing.T) {
		dir := a.copyOf(t)
		edit(t, dir, photos, func(c *capsule.Collection) { c.History = c.History[1:] })
		_, lines := run(t, dir, pub)
		// With no history left the file reads as one exported without
		// --history; monitor.sum names the change.
		hasLine(t, lines, photos+": sha256: the file has SHA-256 ")
	})

	t.Run("a history entry dropped from a longer history", func(t *testing.T) {
		dir := a.copyOf(t)
		edit(t, dir, photos, func(c *capsule.Collection) {
			// The current version moved into history, so one of two is dropped.
			c.History = append(c.History, capsule.Revision{CapturedAt: c.CapturedAt, PublishedAt: c.PublishedAt, AuthorName: c.Author.Name,
				Summary: c.Summary, TextKind: c.TextKind, Media: c.Media, Graph: c.Graph, Text: c.Text})[1:]
		})
		_, lines := run(t, dir, pub)
		hasLine(t, lines, photos+": chain.revisions[0]: no version in the file has this link's content")
	})

	t.Run("a reordered revision", func(t *testing.T) {
		dir := a.copyOf(t)
		edit(t, dir, photos, func(c *capsule.Collection) {
			r := c.Chain.Revisions
			r[0], r[1] = r[1], r[0]
		})
		_, lines := run(t, dir, pub)
		hasLine(t, lines, photos+": chain.revisions[0].prev_hash: ")
		hasLine(t, lines, photos+": chain.revisions[1].prev_hash: ")
	})

	t.Run("a changed monitor.sum", func(t *testing.T) {
		dir := a.copyOf(t)
		p := filepath.Join(dir, chain.SumName)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		b[0] = map[byte]byte{'0': '1'}[b[0]] | 'a'&^map[byte]byte{'0': 0xff}[b[0]] // any other hex digit
		require.NoError(t, os.WriteFile(p, b, 0o644))
		_, lines := run(t, dir, pub)
		hasLine(t, lines, chain.SigName+": signature: does not verify")
	})

	t.Run("a signature by another key", func(t *testing.T) {
		dir := a.copyOf(t)
		_, other, _ := ed25519.GenerateKey(rand.Reader)
		resign(t, dir, other)
		vr, lines := run(t, dir, pub)
		require.Equal(t, []string{chain.SigName + ": key: the capsule is signed by key " + chain.Fingerprint(other.Public().(ed25519.PublicKey)) +
			", not by the key given (" + chain.Fingerprint(pub) + ")"}, lines)
		require.True(t, vr.SignatureOK, "it is a good signature, by someone else")
		vr, lines = run(t, dir, nil)
		require.Empty(t, lines, "without --key the check names the signer")
		require.True(t, vr.Signer.Equal(other.Public().(ed25519.PublicKey)))
	})

	t.Run("a file added after the export", func(t *testing.T) {
		dir := a.copyOf(t)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644))
		_, lines := run(t, dir, pub)
		hasLine(t, lines, "notes.txt: file: is not listed in monitor.sum")
	})
}

// resign rewrites monitor.sum for the capsule's files as they are now and
// signs it with key, as someone forging a capsule would.
func resign(t *testing.T, dir string, key ed25519.PrivateKey) {
	t.Helper()
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	var entries []chain.SumEntry
	for _, name := range src.Files() {
		if name == chain.SumName || name == chain.SigName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		entries = append(entries, chain.SumEntry{SHA256: sha256hex(b), Path: name})
	}
	sum := chain.FormatSum(entries)
	require.NoError(t, os.WriteFile(filepath.Join(dir, chain.SumName), sum, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, chain.SigName), chain.Sign(key, sum), 0o644))
}

// An import rebuilds the capsule's chain link for link, so the imported
// copy verifies and exports a capsule that verifies again; a tampered
// capsule is refused.
func TestImportKeepsTheChainVerifiable(t *testing.T) {
	t.Parallel()
	for _, driver := range storetest.Drivers() {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			a := newArchive(t, driver, true)
			want, err := a.in.App.Proof(ctx, a.alice, a.ids[0])
			require.NoError(t, err)

			dst := capsuletest.New(t, storetest.New(t, driver))
			bob := dst.Tenant(t, "bob", nil)
			rep := importDir(t, dst, bob, a.dir)
			require.NoError(t, rep.err)
			var mine uuid.UUID
			for _, o := range rep.Created {
				if o.FileID == a.ids[0] {
					mine = o.ID
				}
			}
			require.NotEqual(t, uuid.Nil, mine)
			got, err := dst.App.Proof(ctx, bob, mine)
			require.NoError(t, err)
			require.Len(t, got.Chain, 2)
			for i := range want.Chain {
				require.Equal(t, want.Chain[i].ChainHash, got.Chain[i].ChainHash, "link %d is rebuilt as it was", i)
			}
			require.Equal(t, want.Head, got.Head)
			sum, err := dst.App.CollectionChainSummary(ctx, bob, mine)
			require.NoError(t, err)
			require.True(t, sum.Verified)
			require.Equal(t, 2, sum.Revisions)
			vrep, err := dst.App.Verify(ctx, appVerifyAll())
			require.NoError(t, err)
			require.Empty(t, vrep.Problems)
			require.Equal(t, 2, vrep.Collections, "bob's private copies are verified too")
			require.Equal(t, 3, vrep.Revisions)

			// Exported again from the importing instance, it verifies, signed by it.
			again := filepath.Join(t.TempDir(), "again")
			_, err = export.Export(ctx, dst.App, export.Options{TenantID: bob, TenantName: "bob", Out: again, History: true, IncludePrivate: true})
			require.NoError(t, err)
			vr, lines := run(t, again, dst.Core.SigningKey.Public().(ed25519.PublicKey))
			require.Empty(t, lines)
			require.Equal(t, 3, vr.Revisions)

			// A capsule changed after its export is refused whole.
			bad := a.copyOf(t)
			edit(t, bad, a.photosFile(t, bad), func(c *capsule.Collection) { c.Text += " (forged)" })
			carol := dst.Tenant(t, "carol", nil)
			r2 := importDir(t, dst, carol, bad)
			require.ErrorContains(t, r2.err, "nothing was imported: ")
			require.ErrorContains(t, r2.err, ": text: this version's content hashes to ")
		})
	}
}

type importResult struct {
	importer.Report
	err error
}

func importDir(t *testing.T, in *capsuletest.Instance, tenant uuid.UUID, dir string) importResult {
	t.Helper()
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	rep, err := importer.Import(context.Background(), in.App, src, res, importer.Options{TenantID: tenant})
	return importResult{rep, err}
}
