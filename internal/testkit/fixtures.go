// Package testkit holds fakes of the outside world for tests: servers that
// stand in for FxTwitter, the Bot API, t.me and media hosts, serving the
// fixtures in testdata/. Nothing here is used outside tests.
package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// FixturesEnv names a directory that overrides where fixtures are looked
// for: the fixtures directory itself (holding fxtwitter/, tme/) or one
// fixture set's directory.
const FixturesEnv = "MONITOR_FIXTURES_DIR"

// FetchAllowHosts is the fetch_allow_hosts setting a test core needs to
// download media from these fakes: they are httptest servers on 127.0.0.1,
// which core refuses to fetch from by default. Every harness that builds a
// core sets it, through the app or `monitor admin config set`.
const FetchAllowHosts = "127.0.0.1"

// RealFixturesEnv names the directory of the real upstream samples (the
// folder that holds fxtwitter/, tme/ and SOURCES.md). Without it they are
// looked for in shared/fixtures/real above the repository.
const RealFixturesEnv = "MONITOR_REAL_FIXTURES"

// fixturesRel is where the in-repository fixtures live, relative to the
// module root.
const fixturesRel = "internal/testkit/testdata"

// FixturesDir returns the directory of one fixture set, e.g. "fxtwitter".
// It honours FixturesEnv, else uses the repository's own copy in
// internal/testkit/testdata (found beside this source file, or by walking
// up from the working directory). It fails the test when none is found.
func FixturesDir(t testing.TB, name string) string {
	t.Helper()
	if env := os.Getenv(FixturesEnv); env != "" {
		for _, c := range []string{filepath.Join(env, name), env} {
			if filepath.Base(c) == name && isDir(c) {
				return c
			}
		}
		t.Fatalf("testkit: %s=%q has no %s fixtures (want %s/%s)", FixturesEnv, env, name, env, name)
		return ""
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if c := filepath.Join(filepath.Dir(file), "testdata", name); isDir(c) {
			return c
		}
	}
	if c, ok := findAbove(searchStarts(), filepath.Join(fixturesRel, name)); ok {
		return c
	}
	t.Fatalf("testkit: no %s/%s found above %v; run the tests inside a Monitor checkout or set %s",
		fixturesRel, name, searchStarts(), FixturesEnv)
	return ""
}

// RealFixturesDir returns sub (e.g. "fxtwitter/fxembed-run") inside the
// real upstream samples, which may not be copied into the repository. It
// reads RealFixturesEnv, else walks up to shared/fixtures/real. When they
// are absent it skips the test with a line saying so, or fails it when the
// CI environment variable is "true": CI must run the real-sample suites.
// A samples folder without sub fails the test either way.
func RealFixturesDir(t testing.TB, sub string) string {
	t.Helper()
	return realFixturesDir(t, sub, searchStarts())
}

// realFixturesDir is RealFixturesDir walking up from starts.
func realFixturesDir(t testing.TB, sub string, starts []string) string {
	t.Helper()
	return lookupRealFixtures(t, sub, starts, func(absent string) {
		t.Skipf("%s; skipping (set %s to run this test)", absent, RealFixturesEnv)
	})
}

// RealFixturesSeeds returns the contents of the files of sub inside the
// real upstream samples whose names end in suffix (e.g. ".html"), sorted
// by name, to seed a fuzz target. When the samples are absent it logs a
// line and returns nil, so the target still runs on its own seeds; like
// RealFixturesDir it fails when CI is "true" and they are absent.
func RealFixturesSeeds(t testing.TB, sub, suffix string) [][]byte {
	t.Helper()
	return realFixturesSeeds(t, sub, suffix, searchStarts())
}

func realFixturesSeeds(t testing.TB, sub, suffix string, starts []string) [][]byte {
	t.Helper()
	dir := lookupRealFixtures(t, sub, starts, func(absent string) {
		t.Logf("%s; fuzzing without them (set %s to seed with them)", absent, RealFixturesEnv)
	})
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("testkit: read the real samples in %s: %v", dir, err)
		return nil
	}
	var out [][]byte
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("testkit: read the real sample %s: %v", e.Name(), err)
			return nil
		}
		out = append(out, b)
	}
	return out
}

// lookupRealFixtures finds sub in the real samples; when they are absent
// (and CI does not require them) it calls absent with a line saying so
// and returns "".
func lookupRealFixtures(t testing.TB, sub string, starts []string, absent func(msg string)) string {
	t.Helper()
	root, where := os.Getenv(RealFixturesEnv), RealFixturesEnv
	if root == "" {
		where = "shared/fixtures/real"
		if c, ok := findAbove(starts, filepath.Join("shared", "fixtures", "real")); ok {
			root = c
		}
	} else if !isDir(root) {
		t.Fatalf("testkit: %s=%q is not a directory; point it at the real samples folder (shared/fixtures/real)", RealFixturesEnv, root)
		return ""
	}
	if root == "" {
		msg := fmt.Sprintf("testkit: real upstream samples absent: no shared/fixtures/real above %v and %s is unset", starts, RealFixturesEnv)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI=true requires them: set %s to the samples folder", msg, RealFixturesEnv)
			return ""
		}
		absent(msg)
		return ""
	}
	dir := filepath.Join(root, filepath.FromSlash(sub))
	if !isDir(dir) {
		t.Fatalf("testkit: the real samples at %s (%s) have no %s; the samples folder is incomplete", root, where, sub)
		return ""
	}
	return dir
}

// searchStarts are the directories lookups walk up from: the working
// directory and this source file's directory.
func searchStarts() []string {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	return starts
}

// findAbove returns the first directory rel found in one of starts or one
// of their parents.
func findAbove(starts []string, rel string) (string, bool) {
	for _, dir := range starts {
		for {
			if c := filepath.Join(dir, rel); isDir(c) {
				return c, true
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", false
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
