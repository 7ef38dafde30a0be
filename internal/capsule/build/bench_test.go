package build_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
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
