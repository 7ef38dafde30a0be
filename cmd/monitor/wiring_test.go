package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCommandsAreWiringOnly keeps cmd/monitor to wiring, as DESIGN.md's
// layout asks: commands get their business layer from internal/runtime
// (runtime.OpenOffline, runtime.OpenEngine) and never build an app.App
// themselves. Which packages cmd may import is the root TestArrows.
func TestCommandsAreWiringOnly(t *testing.T) {
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
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		appName := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/monitorhq/monitor/internal/app" {
				appName = "app"
				if imp.Name != nil {
					appName = imp.Name.Name
				}
			}
		}
		if appName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "New" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == appName {
				offenders = append(offenders, fset.Position(sel.Pos()).String()+" calls app.New")
			}
			return true
		})
	}
	require.Empty(t, offenders, "ask internal/runtime for the business layer (runtime.OpenOffline) instead of building it in cmd/monitor")
}
