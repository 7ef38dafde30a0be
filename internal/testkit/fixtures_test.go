package testkit

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFixturesMatchShared keeps the repository's fixtures byte-equal to the
// shared copy they came from, when the shared/ folder is beside the
// repository: every shared file has its twin in testdata/, and the
// FxTwitter set has nothing else (the t.me set also holds our own pages).
func TestFixturesMatchShared(t *testing.T) {
	t.Setenv(FixturesEnv, "")
	for _, set := range []struct {
		name  string
		exact bool
	}{{"fxtwitter", true}, {"tme", false}} {
		t.Run(set.name, func(t *testing.T) {
			shared, ok := findAbove(searchStarts(), filepath.Join("shared", "fixtures", set.name))
			if !ok {
				t.Skipf("no shared/fixtures/%s beside the repository; skipped comparing it with %s/%s", set.name, fixturesRel, set.name)
			}
			ours := FixturesDir(t, set.name)
			sharedFiles := readTree(t, shared)
			require.NotEmpty(t, sharedFiles)
			oursFiles := readTree(t, ours)
			for name, b := range sharedFiles {
				got, ok := oursFiles[name]
				require.True(t, ok, "%s/%s/%s is missing; copy it from %s", fixturesRel, set.name, name, shared)
				require.True(t, bytes.Equal(b, got), "%s/%s/%s differs from %s/%s; copy it again", fixturesRel, set.name, name, shared, name)
			}
			if set.exact {
				for name := range oursFiles {
					_, ok := sharedFiles[name]
					require.True(t, ok, "%s/%s/%s is not in %s", fixturesRel, set.name, name, shared)
				}
			}
		})
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	}))
	return out
}

func TestFixturesDirIsInRepository(t *testing.T) {
	t.Setenv(FixturesEnv, "")
	for _, name := range []string{"fxtwitter", "tme"} {
		dir := FixturesDir(t, name)
		require.True(t, strings.HasSuffix(filepath.ToSlash(dir), fixturesRel+"/"+name), dir)
	}
	require.FileExists(t, filepath.Join(FixturesDir(t, "fxtwitter"), "routes.json"))
}

// recorder stands in for a test to see what a helper skips or fails with.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Skipf(f string, a ...any)  { r.skipped = fmt.Sprintf(f, a...) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...) }

func TestRealFixturesDir(t *testing.T) {
	samples := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(samples, "tme", "any2feed"), 0o755))
	nowhere := []string{t.TempDir()} // no shared/ above a fresh temp dir

	t.Run("from the environment", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, samples)
		r := &recorder{TB: t}
		require.Equal(t, filepath.Join(samples, "tme", "any2feed"), realFixturesDir(r, "tme/any2feed", nowhere))
		require.Empty(t, r.skipped+r.failed)

		r = &recorder{TB: t}
		require.Empty(t, realFixturesDir(r, "fxtwitter/fxembed-run", nowhere))
		require.Contains(t, r.failed, "have no fxtwitter/fxembed-run")
	})
	t.Run("environment names no directory", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, filepath.Join(samples, "nope"))
		r := &recorder{TB: t}
		require.Empty(t, realFixturesDir(r, "tme", nowhere))
		require.Contains(t, r.failed, "is not a directory")
	})
	t.Run("found above", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, "")
		t.Setenv("CI", "")
		top := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(top, "shared", "fixtures", "real", "tme"), 0o755))
		deep := filepath.Join(top, "monitor", "adapters", "telegram")
		require.NoError(t, os.MkdirAll(deep, 0o755))
		r := &recorder{TB: t}
		require.Equal(t, filepath.Join(top, "shared", "fixtures", "real", "tme"), realFixturesDir(r, "tme", []string{deep}))
		require.Empty(t, r.skipped+r.failed)
	})
	t.Run("absent skips", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, "")
		t.Setenv("CI", "")
		r := &recorder{TB: t}
		require.Empty(t, realFixturesDir(r, "tme", nowhere))
		require.Empty(t, r.failed)
		require.Contains(t, r.skipped, "real upstream samples absent")
		require.Contains(t, r.skipped, "skipping (set MONITOR_REAL_FIXTURES to run this test)")
	})
	t.Run("absent fails on CI", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, "")
		t.Setenv("CI", "true")
		r := &recorder{TB: t}
		require.Empty(t, realFixturesDir(r, "tme", nowhere))
		require.Empty(t, r.skipped)
		require.Contains(t, r.failed, "CI=true requires them: set MONITOR_REAL_FIXTURES")
	})
}

func TestRealFixturesSeeds(t *testing.T) {
	samples := t.TempDir()
	dir := filepath.Join(samples, "tme", "any2feed")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub.html"), 0o755)) // a directory, not a seed
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.html"), []byte("<b>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.html"), []byte("<a>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("MIT"), 0o644))
	nowhere := []string{t.TempDir()}

	t.Run("present", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, samples)
		r := &recorder{TB: t}
		require.Equal(t, [][]byte{[]byte("<a>"), []byte("<b>")}, realFixturesSeeds(r, "tme/any2feed", ".html", nowhere))
		require.Empty(t, r.skipped+r.failed)
	})
	t.Run("absent: no seeds, no skip", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, "")
		t.Setenv("CI", "")
		r := &recorder{TB: t}
		require.Nil(t, realFixturesSeeds(r, "tme/any2feed", ".html", nowhere))
		require.Empty(t, r.skipped+r.failed)
	})
	t.Run("absent fails on CI", func(t *testing.T) {
		t.Setenv(RealFixturesEnv, "")
		t.Setenv("CI", "true")
		r := &recorder{TB: t}
		require.Nil(t, realFixturesSeeds(r, "tme/any2feed", ".html", nowhere))
		require.Contains(t, r.failed, "CI=true requires them")
	})
}
