package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

func TestCapsuleCommands(t *testing.T) {
	t.Parallel()
	fx := testkit.NewFxTwitter(t)
	src := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code := cli(t, src, "admin", "tenant", "create", "alice")
	require.Equal(t, 0, code, errOut)
	allowFakeMedia(t, src)
	for _, u := range []string{"https://x.com/archivist_demo/status/2078399740166950912", "https://x.com/archivist_demo/status/2080424850067443712"} {
		_, errOut, code = cli(t, src, "capture", u, "--tenant", "alice", "--wait")
		require.Equal(t, 0, code, errOut)
	}

	work := t.TempDir()
	dir := filepath.Join(work, "capsule")
	out, errOut, code := cli(t, src, "export", "capsule", "--tenant", "alice", "-o", dir)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "exported 2 collection(s) to "+dir)
	_, errOut, code = cli(t, src, "export", "capsule", "--tenant", "alice", "-o", dir)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "is not empty; choose another -o")
	zipPath := filepath.Join(work, "capsule.zip")
	_, errOut, code = cli(t, src, "export", "capsule", "--tenant", "alice", "--zip", "-o", zipPath)
	require.Equal(t, 0, code, errOut)

	out, errOut, code = cli(t, nil, "check", dir)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "2 collection file(s): 0 error(s), 0 warning(s)\n", out)
	out, _, code = cli(t, nil, "check", zipPath)
	require.Equal(t, 0, code, out)

	dst := map[string]string{"MONITOR_DATA_DIR": t.TempDir(), "MONITOR_LOG_LEVEL": "error"}
	_, errOut, code = cli(t, dst, "admin", "tenant", "create", "bob")
	require.Equal(t, 0, code, errOut)
	out, errOut, code = cli(t, dst, "import", "capsule", zipPath, "--tenant", "bob", "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "dry run, nothing written; would import: 2 created")
	out, errOut, code = cli(t, dst, "import", "capsule", zipPath, "--tenant", "bob")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "imported: 2 created, 0 linked, 0 skipped")
	require.Contains(t, out, "the capsule calls it public, but an import is no proof of that: it is private to you, as ",
		"the report says the copy is private and its id changed")
	out, errOut, code = cli(t, dst, "import", "capsule", dir, "--tenant", "bob")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "imported: 0 created, 0 linked, 2 skipped")
	require.Contains(t, out, "skipped  ")

	site := filepath.Join(work, "site")
	out, errOut, code = cli(t, nil, "build", dir, "-o", site)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "for 2 collection(s) into "+site)
	require.FileExists(t, filepath.Join(site, "index.html"))
	require.Contains(t, errOut, "warning: no feed.xml or sitemap.xml written: no --base-url was given", "the build says what it left out")
	require.NoFileExists(t, filepath.Join(site, "feed.xml"))
	out, errOut, code = cli(t, nil, "build", dir, "-o", site, "--base-url", "https://archive.example.org/")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "warning")
	require.FileExists(t, filepath.Join(site, "feed.xml"))
	require.FileExists(t, filepath.Join(site, "sitemap.xml"))

	// A broken capsule: one line per problem, exit 1; import refuses it.
	var md string
	require.NoError(t, filepath.Walk(filepath.Join(dir, "collections"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && md == "" {
			md = p
		}
		return err
	}))
	b, err := os.ReadFile(md)
	require.NoError(t, err)
	broken := strings.Replace(string(b), "visibility: public", "visibility: secret\nmood: fine", 1)
	require.NoError(t, os.WriteFile(md, []byte(broken), 0o644))
	rel, _ := filepath.Rel(dir, md)
	out, errOut, code = cli(t, nil, "check", dir)
	require.Equal(t, 1, code)
	require.Contains(t, out, filepath.ToSlash(rel)+`: visibility: "secret" is not one of public, private`+"\n")
	require.Contains(t, out, filepath.ToSlash(rel)+": mood: warning: unknown field, ignored\n")
	require.Equal(t, "monitor: the capsule has 1 error(s)\n", errOut)
	_, errOut, code = cli(t, dst, "import", "capsule", dir, "--tenant", "bob")
	require.Equal(t, 1, code)
	require.Contains(t, lastLine(errOut), "has 1 error(s), listed above")

	_, errOut, code = cli(t, nil, "check", zipPath, "--fix")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "cannot change a zip")
}
