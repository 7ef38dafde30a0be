package ech0_test

import (
	"archive/zip"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/ech0"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

func load(t *testing.T, p string) (*capsule.Source, *ech0.Loaded) {
	t.Helper()
	src, err := capsule.Open(p)
	require.NoError(t, err)
	t.Cleanup(func() { _ = src.Close() })
	require.True(t, ech0.Is(src))
	l, err := ech0.Load(src)
	require.NoError(t, err)
	return src, l
}

func importDir(t *testing.T, in *capsuletest.Instance, tenant uuid.UUID, p string, dry bool) (importer.ForeignReport, error) {
	t.Helper()
	src, l := load(t, p)
	return ech0.Import(context.Background(), in.App, src, l, ech0.Options{ForeignOptions: importer.ForeignOptions{TenantID: tenant, DryRun: dry}})
}

// The sample, read by a person: owner alice, one echo
// 01947c3e-0000-7000-8000-000000000001 of 2026-01-01 saying "hello world"
// with one image file (cat.png, 9 bytes) and a WEBSITE extension, and one
// approved comment by bob. Ech0's checker finds nothing in it.
func TestRealCapsule(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "ech0/capsule-from-check_test")
	_, l := load(t, dir)
	require.Empty(t, l.Problems, "Ech0's own checker passes this capsule")
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		in := capsuletest.New(t, st)
		alice := in.Tenant(t, "alice", nil)
		rep, err := importDir(t, in, alice, dir, false)
		require.NoError(t, err)
		require.Len(t, rep.Created, 1)
		require.Equal(t, []importer.Skip{{Reason: "comment (Monitor keeps the echoes, not their comments)", Count: 1}}, rep.Skips)
		page, err := in.App.Collections(ctx, alice, 10, "")
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		c := page.Items[0]
		require.Equal(t, "ech0", c.Platform)
		require.Equal(t, "01947c3e-0000-7000-8000-000000000001", c.ExternalID)
		require.Equal(t, "hello world", c.Text)
		require.Equal(t, "alice", c.AuthorName)
		require.Equal(t, "private", c.Visibility)
		require.True(t, c.PublishedAt.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		require.Len(t, c.Media, 1)
		require.Equal(t, "image", c.Media[0].Kind)
		require.Equal(t, "image/png", c.Media[0].Mime)
		require.EqualValues(t, 9, c.Media[0].Size)

		res, err := in.App.Search(ctx, alice, "hello", 10, "", "")
		require.NoError(t, err)
		require.Len(t, res.Items, 1)

		again, err := importDir(t, in, alice, dir, false)
		require.NoError(t, err)
		require.Empty(t, again.Created)
		require.Len(t, again.Skipped, 1)
	})
}

func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	}))
	return to
}

// What Ech0's checker calls an error refuses the import, and nothing is
// written.
func TestCheckerErrors(t *testing.T) {
	t.Parallel()
	real := testkit.RealFixturesDir(t, "ech0/capsule-from-check_test")
	echo := "echoes/2026/2026-01-01-01947c3e.md"
	cases := []struct {
		name, file, from, to, want string
	}{
		{"no owner", "ech0.yaml", "username: alice", "username: \"\"", "ech0.yaml: owner.username: owner.username is required"},
		{"newer schema", "ech0.yaml", "schema_version: 1", "schema_version: 2", "unsupported schema_version 2"},
		{"bad id", echo, "id: 01947c3e-0000-7000-8000-000000000001", "id: 42", `id "42" is not a valid UUID`},
		{"bad time", echo, "created_at: 2026-01-01T00:00:00Z", "created_at: yesterday", `invalid time "yesterday"`},
		{"key with a path", echo, "key: cat.png", "key: ../cat.png", "key must be flat"},
		{"missing file", echo, "key: cat.png", "key: dog.png", "files/images/dog.png is missing"},
		{"forbidden comment field", "comments.yaml", "nickname: bob", "nickname: bob\n    email: bob@example.org", `forbidden field "email"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyDir(t, real)
			p := filepath.Join(dir, tc.file)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Contains(t, string(b), tc.from)
			require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), tc.from, tc.to, 1)), 0o644))
			_, l := load(t, dir)
			var all []string
			for _, pr := range l.Problems {
				all = append(all, pr.String())
			}
			require.Contains(t, strings.Join(all, "\n"), tc.want)
			require.Positive(t, l.Errors())

			in := capsuletest.New(t, storetest.New(t, "sqlite"))
			alice := in.Tenant(t, "alice", nil)
			_, err = importDir(t, in, alice, dir, false)
			require.ErrorContains(t, err, "by Ech0's own rules")
			n, err := in.App.CountCollections(context.Background(), alice)
			require.NoError(t, err)
			require.Zero(t, n)
		})
	}
}

// export --flavor ech0 writes a capsule Ech0's rules accept, which reads
// back with the posts' text and media.
func TestExportFlavorEch0(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := capsuletest.NewPipeline(t, storetest.New(t, "sqlite"))
	alice := src.Tenant(t, "alice", nil)
	src.Capture(t, alice, capsuletest.FixturePosts()...)
	out := filepath.Join(t.TempDir(), "ech0")
	res, err := export.Export(ctx, src.App, export.Options{TenantID: alice, TenantName: "alice", Out: out, Flavor: export.FlavorEch0, Generator: "monitor test"})
	require.NoError(t, err)
	require.Equal(t, 4, res.Collections)
	require.FileExists(t, filepath.Join(out, "ech0.yaml"))
	require.NoFileExists(t, filepath.Join(out, "monitor.yaml"))

	_, l := load(t, out)
	for _, p := range l.Problems {
		require.True(t, p.Warning, "Ech0's checker would refuse: %s", p)
	}
	require.Empty(t, l.Problems)
	require.Equal(t, "alice", l.Manifest.Owner.Username)
	require.Len(t, l.Echoes, 4)
	media := 0
	for _, e := range l.Echoes {
		_, err := uuid.Parse(e.Echo.ID)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(e.Path, "echoes/20"), e.Path)
		require.Equal(t, "WEBSITE", e.Echo.Extension.Type)
		for _, f := range e.Echo.Files {
			require.NotContains(t, f.Key, "/")
			require.FileExists(t, filepath.Join(out, filepath.FromSlash(ech0.MediaPath(f.Key))))
			media++
		}
	}
	require.Positive(t, media)

	dst := capsuletest.New(t, storetest.New(t, "sqlite"))
	bob := dst.Tenant(t, "bob", nil)
	rep, err := importDir(t, dst, bob, out, false)
	require.NoError(t, err)
	require.Len(t, rep.Created, 4)
	want, err := src.App.Collections(ctx, alice, 10, "")
	require.NoError(t, err)
	texts := map[string]bool{}
	for _, c := range want.Items {
		texts[strings.TrimSpace(c.Text)] = true
	}
	got, err := dst.App.Collections(ctx, bob, 10, "")
	require.NoError(t, err)
	gotMedia := 0
	for _, c := range got.Items {
		require.True(t, texts[strings.TrimSpace(c.Text)], "text %q came back", c.Text)
		gotMedia += len(c.Media)
	}
	require.Equal(t, media, gotMedia)
}

// Hostile Ech0 capsules are refused whole: a zip entry that leaves the
// folder, a symlink out of it, a zip cut short.
func TestRefusesHostileCapsules(t *testing.T) {
	t.Parallel()
	real := testkit.RealFixturesDir(t, "ech0/capsule-from-check_test")
	t.Run("zip slip", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "c.zip")
		f, err := os.Create(p)
		require.NoError(t, err)
		zw := zip.NewWriter(f)
		for _, name := range []string{"ech0.yaml", "echoes/2026/2026-01-01-01947c3e.md", "files/images/cat.png"} {
			w, err := zw.Create(name)
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(real, name))
			require.NoError(t, err)
			_, _ = w.Write(b)
		}
		w, err := zw.Create("../../evil.md")
		require.NoError(t, err)
		_, _ = w.Write([]byte("x"))
		require.NoError(t, zw.Close())
		require.NoError(t, f.Close())
		_, l := load(t, p)
		require.Positive(t, l.Errors())
		in := capsuletest.New(t, storetest.New(t, "sqlite"))
		_, err = importDir(t, in, in.Tenant(t, "alice", nil), p, false)
		require.ErrorContains(t, err, "by Ech0's own rules")
	})
	t.Run("symlink", func(t *testing.T) {
		dir := copyDir(t, real)
		p := filepath.Join(dir, "files/images/cat.png")
		require.NoError(t, os.Remove(p))
		require.NoError(t, os.Symlink("/etc/hostname", p))
		_, l := load(t, dir)
		require.Positive(t, l.Errors())
	})
	t.Run("truncated zip", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "c.zip")
		require.NoError(t, os.WriteFile(p, []byte("PK\x03\x04 cut"), 0o644))
		_, err := capsule.Open(p)
		require.ErrorContains(t, err, "neither a folder nor a readable zip file")
	})
}
