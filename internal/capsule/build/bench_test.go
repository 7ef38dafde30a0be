package build_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/capsulegen"
	"github.com/monitorhq/monitor/internal/capsule/check"
)

// BenchmarkBuild builds the site of a generated capsule of
// MONITOR_BENCH_BUILD_POSTS posts (default 1,000; one 2 KiB image each),
// check included, as `monitor build` does. scripts/bench-build times the
// command itself next to Hugo. Profile it with
//
//	MONITOR_BENCH_BUILD_POSTS=10000 go test -run '^$' -bench Build -benchtime 1x -cpuprofile cpu.out ./internal/capsule/build
func BenchmarkBuild(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("MONITOR_BENCH_BUILD_POSTS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "capsule")
	require.NoError(b, capsulegen.Capsule(dir, n))
	out := filepath.Join(b.TempDir(), "site")
	for b.Loop() {
		src, err := capsule.Open(dir)
		require.NoError(b, err)
		res, err := check.Run(ctx, src, check.Options{})
		require.NoError(b, err)
		st, err := build.Build(ctx, src, res, build.Options{Out: out, BaseURL: "https://example.org/"})
		require.NoError(b, err)
		require.Equal(b, n, st.Collections)
		require.NoError(b, src.Close())
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "posts/s")
}

// TestBuildIsTheSameBytesEveryTime builds one capsule twice and compares
// every file: pages are rendered in parallel, and author and tag pages
// come from maps, so neither may leak into the output.
func TestBuildIsTheSameBytesEveryTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "capsule")
	require.NoError(t, capsulegen.Capsule(dir, 120))
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = src.Close() })
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Errors())

	var sites []map[string]string
	for range 2 {
		out := filepath.Join(t.TempDir(), "site")
		var seen []int
		st, err := build.Build(ctx, src, res, build.Options{Out: out, BaseURL: "https://example.org/",
			Progress: func(done, _ int) { seen = append(seen, done) }})
		require.NoError(t, err)
		require.Equal(t, 120, st.Collections)
		require.Len(t, seen, 120, "progress is told of every post page")
		require.Equal(t, 120, seen[len(seen)-1])
		files := map[string]string{}
		require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(out, p)
			files[rel] = string(b)
			return err
		}))
		require.Equal(t, st.Files, len(files))
		sites = append(sites, files)
	}
	require.Equal(t, len(sites[0]), len(sites[1]))
	for name, body := range sites[0] {
		require.Equal(t, body, sites[1][name], name)
	}
	// Tag pages are listed in slug order: tag0, tag1, tag10, tag11, …
	sitemap := sites[0]["sitemap.xml"]
	require.Less(t, strings.Index(sitemap, "/tags/tag0/"), strings.Index(sitemap, "/tags/tag1/"))
	require.Less(t, strings.Index(sitemap, "/tags/tag1/"), strings.Index(sitemap, "/tags/tag10/"))
	require.Less(t, strings.Index(sitemap, "/tags/tag10/"), strings.Index(sitemap, "/tags/tag2/"))
}

// TestBuildReportsAFileItCannotCopy removes a media file after the check:
// the copy fails on a worker, Build says which file, and no site is left.
func TestBuildReportsAFileItCannotCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "capsule")
	require.NoError(t, capsulegen.Capsule(dir, 30))
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = src.Close() })
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	gone := res.Entries[7].Collection.Media[0].File
	require.NoError(t, os.Remove(filepath.Join(dir, filepath.FromSlash(gone))))

	out := filepath.Join(t.TempDir(), "site")
	_, err = build.Build(ctx, src, res, build.Options{Out: out})
	require.ErrorContains(t, err, "build: "+gone)
	require.NoDirExists(t, out)
}
