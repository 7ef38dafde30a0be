package httpapi

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHandlersDoNotImportStore keeps the arrow of DESIGN.md's layout:
// handlers speak to app and see only app's types, never the store's.
func TestHandlersDoNotImportStore(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var offenders []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if path == "github.com/monitorhq/monitor/internal/store" {
				offenders = append(offenders, name)
			}
		}
	}
	require.Empty(t, offenders, "internal/httpapi imports internal/store; return app types from app instead")
}
