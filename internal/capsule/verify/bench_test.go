package verify_test

import (
	"context"
	"crypto/ed25519"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsulegen"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/verify"
)

// BenchmarkVerifyCapsule is `monitor check --verify --key K` on a
// generated 10,000-collection capsule (scripts/gencapsule -verifiable):
// the format check, every file re-hashed against monitor.sum, the
// signature, and every chain recomputed from the files. It reports the
// bytes re-hashed per second and the collections per second; "check" is
// the plain `monitor check` of the same capsule, for scale.
func BenchmarkVerifyCapsule(b *testing.B) {
	const n = 10_000
	dir := filepath.Join(b.TempDir(), "capsule")
	require.NoError(b, capsulegen.VerifiableCapsule(dir, n))
	key := capsulegen.SigningKey().Public().(ed25519.PublicKey)
	ctx := context.Background()
	b.Run("check", func(b *testing.B) {
		runs := 0
		for b.Loop() {
			src, err := capsule.Open(dir)
			require.NoError(b, err)
			res, err := check.Run(ctx, src, check.Options{})
			require.NoError(b, err)
			require.Zero(b, res.Errors())
			runs++
			_ = src.Close()
		}
		b.ReportMetric(float64(runs*n)/b.Elapsed().Seconds(), "collections/s")
	})
	b.Run("check+verify", func(b *testing.B) { benchmarkVerify(b, dir, n, key) })
}

func benchmarkVerify(b *testing.B, dir string, n int, key ed25519.PublicKey) {
	ctx := context.Background()
	var bytes int64
	runs := 0
	for b.Loop() {
		src, err := capsule.Open(dir)
		require.NoError(b, err)
		res, err := check.Run(ctx, src, check.Options{})
		require.NoError(b, err)
		vr, err := verify.Run(ctx, src, res, verify.Options{Key: key})
		require.NoError(b, err)
		require.Zero(b, res.Errors())
		require.Empty(b, vr.Problems)
		require.Equal(b, n, vr.Collections)
		bytes += vr.Bytes
		runs++
		_ = src.Close()
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(bytes)/(1<<20)/s, "MiB/s")
	b.ReportMetric(float64(runs*n)/s, "collections/s")
}

// The generated capsule verifies: the benchmark's input is what an export
// writes.
func TestGeneratedCapsuleVerifies(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "capsule")
	require.NoError(t, capsulegen.VerifiableCapsule(dir, 30))
	vr, lines := run(t, dir, capsulegen.SigningKey().Public().(ed25519.PublicKey))
	require.Empty(t, lines)
	require.Equal(t, 30, vr.Collections)
}
