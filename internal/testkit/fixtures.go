// Package testkit holds fakes of the outside world for tests: servers that
// stand in for FxTwitter (and later the Bot API, t.me and media hosts),
// serving the recorded fixtures in ../shared/fixtures. Nothing here is used
// outside tests.
package testkit

import (
	"os"
	"path/filepath"
	"runtime"
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

// FixturesDir returns the directory of one fixture set, e.g. "fxtwitter".
// It honours FixturesEnv, else walks up from the working directory and from
// this source file until it finds shared/fixtures/<name> (the shared/
// folder lives beside the repository). It fails the test when none is
// found.
func FixturesDir(t testing.TB, name string) string {
	t.Helper()
	if env := os.Getenv(FixturesEnv); env != "" {
		for _, c := range []string{filepath.Join(env, name), env} {
			if filepath.Base(c) == name && isDir(c) {
				return c
			}
		}
		t.Fatalf("testkit: %s=%q has no %s fixtures (want %s/%s)", FixturesEnv, env, name, env, name)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			c := filepath.Join(dir, "shared", "fixtures", name)
			if isDir(c) {
				return c
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	t.Fatalf("testkit: no shared/fixtures/%s above %v; put the shared/ folder beside the repository or set %s", name, starts, FixturesEnv)
	return ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
