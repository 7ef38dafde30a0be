package export_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// hugoBin finds Hugo on PATH, skipping the test when it is absent unless
// MONITOR_REQUIRE_HUGO=1 (scripts/test sets it and installs Hugo v0.165).
func hugoBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("hugo")
	if err != nil {
		if os.Getenv("MONITOR_REQUIRE_HUGO") == "1" {
			t.Fatalf("hugo is not on PATH and MONITOR_REQUIRE_HUGO=1: go install github.com/gohugoio/hugo@v0.165.0")
		}
		t.Skip("hugo is not on PATH; skipping the Hugo build test (go install github.com/gohugoio/hugo@v0.165.0, or set MONITOR_REQUIRE_HUGO=1 to require it)")
	}
	return p
}

// Hugo builds an exported capsule as it is: no errors, one page per
// collection, the media where the pages reference them, and the capsule
// still checks clean for Monitor.
func TestHugoBuildsTheCapsule(t *testing.T) {
	t.Parallel()
	hugo := hugoBin(t)
	ctx := context.Background()
	in := capsuletest.NewPipeline(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	in.Capture(t, alice, capsuletest.FixturePosts()...)
	dir := filepath.Join(t.TempDir(), "capsule")
	res, err := export.Export(ctx, in.App, export.Options{TenantID: alice, TenantName: "alice", Out: dir, Generator: "monitor test"})
	require.NoError(t, err)
	require.Equal(t, 4, res.Collections)
	require.FileExists(t, filepath.Join(dir, "hugo.toml"))
	require.FileExists(t, filepath.Join(dir, export.HugoDir, "content", "_content.gotmpl"))

	// Monitor's reader ignores the Hugo files: no problem, no warning.
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	chk, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	require.NoError(t, src.Close())
	require.Empty(t, chk.Problems)
	require.Len(t, chk.Entries, 4)

	site := filepath.Join(t.TempDir(), "site")
	cmd := exec.CommandContext(ctx, hugo, "--source", dir, "--destination", site, "--logLevel", "warn")
	cmd.Env = append(os.Environ(), "HUGO_CACHEDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "hugo: %s", out)
	require.NotContains(t, string(out), "ERROR", "hugo: %s", out)
	require.NotContains(t, string(out), "WARN", "hugo: %s", out)

	var pages []string
	for _, e := range chk.Entries {
		rel := strings.TrimSuffix(strings.TrimPrefix(e.Path, capsule.CollectionsDir+"/"), ".md")
		page := filepath.Join(site, filepath.FromSlash(rel), "index.html")
		require.FileExists(t, page, "one page per collection")
		pages = append(pages, page)
		html, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range e.Collection.Media {
			require.Contains(t, string(html), `src="/`+m.File+`"`, "the page shows its media")
			require.FileExists(t, filepath.Join(site, filepath.FromSlash(m.File)), "the media is published where the page references it")
		}
		if len(e.Collection.Tags) > 0 {
			require.DirExists(t, filepath.Join(site, "tags", e.Collection.Tags[0]))
		}
	}
	// No other post pages than the collections'.
	found, err := filepath.Glob(filepath.Join(site, "x", "*", "*", "index.html"))
	require.NoError(t, err)
	require.Len(t, found, len(pages))
	home, err := os.ReadFile(filepath.Join(site, "index.html"))
	require.NoError(t, err)
	require.Equal(t, 4, strings.Count(string(home), "<li>"), "the home page lists every post")
}
