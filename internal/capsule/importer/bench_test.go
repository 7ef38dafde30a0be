package importer_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// benchCollections is how many collections the capsule benchmark makes:
// MONITOR_BENCH_COLLECTIONS, default 1,000 (the figure is 10,000).
func benchCollections() int {
	if n, err := strconv.Atoi(os.Getenv("MONITOR_BENCH_COLLECTIONS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// generateCapsule writes n collections, each with a short text and one
// small distinct image.
func generateCapsule(t testing.TB, dir string, n int) {
	t.Helper()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	man, err := capsule.MarshalManifest(&capsule.Manifest{SchemaVersion: 1, Generator: "bench", Site: capsule.Site{Title: "Bench"}})
	require.NoError(t, err)
	write(capsule.ManifestName, man)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	img := make([]byte, 2048)
	for i := range n {
		for j := 0; j < len(img); j += 8 {
			binary.LittleEndian.PutUint64(img[j:], uint64(i)*0x9e3779b97f4a7c15+uint64(j))
		}
		sum := sha256.Sum256(img)
		sha := hex.EncodeToString(sum[:])
		file := capsule.FilePath(sha, "image/png")
		write(file, img)
		ext := strconv.Itoa(1_000_000 + i)
		published := base.Add(time.Duration(i) * time.Hour)
		c := capsule.Collection{
			ID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("bench/"+ext)).String(), Platform: "x", Kind: "x.post", ExternalID: ext,
			URL: "https://x.com/bench/status/" + ext, Visibility: "public", SavedAt: published.Add(time.Minute), PublishedAt: &published,
			CapturedAt: published.Add(time.Minute), Author: capsule.Author{Name: "Bench Author", Handle: "bench"},
			Summary: "Bench Author：post " + ext, Tags: []string{fmt.Sprintf("tag%d", i%50)}, TextKind: "plain",
			Text:  fmt.Sprintf("Post number %d with a little text to search for. #tag%d", i, i%50),
			Media: []capsule.Media{{File: file, SHA256: sha, Kind: "image", Mime: "image/png", Size: int64(len(img)), Width: 32, Height: 32}},
			Graph: capsule.Graph{Root: "post:" + ext, Entities: []capsule.Entity{{Key: "post:" + ext, Type: "x.post", ExternalID: ext,
				Data: []byte(`{"id":"` + ext + `","text":"Post"}`)}}},
		}
		data, err := capsule.MarshalCollection(&c)
		require.NoError(t, err)
		write(capsule.CollectionPath(&c), data)
	}
}

func dirSize(t testing.TB, dir string) int64 {
	var n int64
	require.NoError(t, filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return err
	}))
	return n
}

// benchDriver is the database the capsule benchmark runs on:
// MONITOR_BENCH_STORE, sqlite (the default) or postgres.
func benchDriver() string {
	if d := os.Getenv("MONITOR_BENCH_STORE"); d != "" {
		return d
	}
	return "sqlite"
}

// heapPeak samples the heap in use every few milliseconds until stop is
// called, which returns the highest sample in MiB.
func heapPeak() (stop func() float64) {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var hi uint64
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			hi = max(hi, m.HeapInuse)
			select {
			case <-done:
				peak <- hi
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 { close(done); return float64(<-peak) / (1 << 20) }
}

// BenchmarkCapsule imports a generated capsule into a fresh instance,
// exports it again and builds its site, reporting each step in
// collections per second, the peak heap of import and export, and the
// capsule's size. Run it once:
//
//	MONITOR_BENCH_COLLECTIONS=10000 go test -run '^$' -bench Capsule -benchtime 1x ./internal/capsule/importer
//
// MONITOR_BENCH_STORE=postgres runs it on PostgreSQL
// (MONITOR_TEST_POSTGRES_URL).
func BenchmarkCapsule(b *testing.B) {
	n := benchCollections()
	ctx := context.Background()
	gen := filepath.Join(b.TempDir(), "generated")
	generateCapsule(b, gen, n)
	for b.Loop() {
		in := capsuletest.New(b, storetest.New(b, benchDriver()))
		runtime.GC()
		stopImport := heapPeak()
		tenant := in.Tenant(b, "bench", nil)

		start := time.Now()
		src, err := capsule.Open(gen)
		require.NoError(b, err)
		res, err := check.Run(ctx, src, check.Options{})
		require.NoError(b, err)
		require.Zero(b, res.Errors())
		checked := time.Since(start)
		rep, err := importer.Import(ctx, in.App, src, res, importer.Options{TenantID: tenant})
		require.NoError(b, err)
		require.Len(b, rep.Created, n)
		imported := time.Since(start)
		importHeap := stopImport()
		require.NoError(b, src.Close())
		runtime.GC()
		stopExport := heapPeak()

		out := filepath.Join(b.TempDir(), "capsule")
		start = time.Now()
		// Imported copies are private: the export asks for them.
		ex, err := export.Export(ctx, in.App, export.Options{TenantID: tenant, TenantName: "bench", Out: out, IncludePrivate: true})
		require.NoError(b, err)
		require.Equal(b, n, ex.Collections)
		exported := time.Since(start)
		exportHeap := stopExport()

		start = time.Now()
		src, err = capsule.Open(out)
		require.NoError(b, err)
		res, err = check.Run(ctx, src, check.Options{})
		require.NoError(b, err)
		_, err = build.Build(ctx, src, res, build.Options{Out: filepath.Join(b.TempDir(), "site")})
		require.NoError(b, err)
		built := time.Since(start)
		require.NoError(b, src.Close())

		b.ReportMetric(float64(n)/checked.Seconds(), "check-coll/s")
		b.ReportMetric(float64(n)/imported.Seconds(), "import-coll/s")
		b.ReportMetric(float64(n)/exported.Seconds(), "export-coll/s")
		b.ReportMetric(float64(n)/built.Seconds(), "build-coll/s")
		b.ReportMetric(importHeap, "import-heap-MiB")
		b.ReportMetric(exportHeap, "export-heap-MiB")
		b.ReportMetric(float64(dirSize(b, out))/(1<<20), "capsule-MiB")
	}
}
