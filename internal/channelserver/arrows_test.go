package channelserver_test

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/monitorhq/monitor/"

// moduleRoot is the folder holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test")
		dir = parent
	}
}

// imports lists what the package at path (relative to the module, e.g.
// "internal/app") imports, tests left out.
func imports(t *testing.T, root, path string) []string {
	t.Helper()
	p, err := build.ImportDir(filepath.Join(root, path), 0)
	require.NoError(t, err)
	return p.Imports
}

// ours lists the packages of this module that path imports, directly or
// through others.
func ours(t *testing.T, root, path string) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(string)
	walk = func(path string) {
		for _, imp := range imports(t, root, path) {
			rel, ok := strings.CutPrefix(imp, module)
			if ok && !seen[rel] {
				seen[rel] = true
				walk(rel)
			}
		}
	}
	walk(path)
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestTheChannelProtocolsImportArrows checks DESIGN.md's arrows around the
// channel protocol: channelapi is a leaf a channel process imports alone,
// app speaks no protocol, and the server reaches the store only through
// app.
func TestTheChannelProtocolsImportArrows(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)

	require.Empty(t, ours(t, root, "internal/channelapi"), "channelapi imports nothing of ours")

	for _, p := range ours(t, root, "internal/app") {
		require.NotContains(t, []string{"internal/channelapi", "internal/channelserver", "internal/httpapi", "internal/web",
			"internal/tgchannel", "internal/runtime"}, p, "app must not import %s", p)
	}
	// app downloads media over HTTP, but its channel actions know nothing
	// of it.
	files, err := filepath.Glob(filepath.Join(root, "internal/app/channel*.go"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range parsed.Imports {
			require.NotEqual(t, `"net/http"`, imp.Path.Value, "%s speaks HTTP", filepath.Base(f))
		}
	}

	require.NotContains(t, imports(t, root, "internal/channelserver"), module+"internal/store", "handlers never import store")
	for _, p := range ours(t, root, "internal/tgchannel") {
		require.NotContains(t, []string{"internal/app", "internal/store", "internal/channelserver"}, p,
			"the Telegram channel talks to core only through channelapi")
	}
}
