package monitor_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path every package of ours starts with.
const module = "github.com/monitorhq/monitor"

// An arrowRule says what the packages in From (each an area: the package
// and everything below it) may import of ours. Either Forbid lists the
// areas they must not import, or Only lists all they may import besides
// their own area.
type arrowRule struct {
	From   []string
	Forbid []string
	Only   []string
	Why    string
}

// arrowRules are the arrows of DESIGN.md ("Layout"), as data.
func arrowRules() []arrowRule {
	return []arrowRule{
		{
			From:   []string{"internal/store", "internal/blob", "internal/backup", "internal/queue", "internal/adapterapi", "internal/config", "internal/channelapi", "internal/metrics", "api", "adapters"},
			Forbid: []string{"internal/app"},
			Why:    "nothing below app imports app",
		},
		{
			From:   []string{"internal/app"},
			Forbid: []string{"cmd", "internal/runtime", "internal/httpapi", "internal/channelserver", "internal/web", "internal/capsule", "internal/channelapi", "internal/tgchannel"},
			Why:    "app sits below the handlers and the channel protocol and speaks only in its own types",
		},
		{
			From:   []string{"cmd"},
			Forbid: []string{"internal/store", "internal/blob", "internal/queue", "internal/backup"},
			Why:    "cmd is wiring only and asks runtime for what it needs (it may call the *app.App runtime hands it, never build one: TestCommandsAreWiringOnly)",
		},
		{
			From: []string{"adapters"},
			Only: []string{"api/adapter/v1", "adapters/kit"},
			Why:  "adapters import only the protocol (api/adapter/v1), adapters/kit and their own code",
		},
		{
			From: []string{"api"},
			Only: []string{},
			Why:  "the adapter protocol imports nothing of ours",
		},
		{
			From: []string{"internal/tgchannel"},
			Only: []string{"internal/channelapi"},
			Why:  "the Telegram channel talks to core only through channelapi",
		},
		{
			From:   []string{"internal/httpapi", "internal/web", "internal/channelserver"},
			Forbid: []string{"internal/store"},
			Why:    "handlers never import store",
		},
		{
			From: []string{"internal/channelapi"},
			Only: []string{},
			Why:  "channelapi is a leaf: it imports nothing of ours",
		},
		{
			From: []string{"internal/metrics"},
			Only: []string{},
			Why:  "metrics is a leaf every layer may count into: it imports nothing of ours",
		},
	}
}

// knownArrowExceptions are arrows DESIGN.md forbids that the code has,
// each with its reason. Delete an entry when the code no longer needs it;
// the test fails on an entry that is no longer needed.
func knownArrowExceptions() map[string]string {
	return map[string]string{
		// The bot writes sizes for people with config.FormatBytes, the one
		// way the CLI and the bot write them; config is a leaf with no
		// business logic. Kept deliberately.
		"internal/tgchannel -> internal/config": "tgchannel writes sizes with config.FormatBytes",
	}
}

// within reports whether pkg is area or below it.
func within(pkg, area string) bool {
	return pkg == area || strings.HasPrefix(pkg, area+"/")
}

func withinAny(pkg string, areas []string) bool {
	return slices.ContainsFunc(areas, func(a string) bool { return within(pkg, a) })
}

// checkArrows returns one line per forbidden import of graph (package →
// its non-test imports of ours, paths relative to the module) that is not
// an exception, and one per exception the graph no longer needs.
func checkArrows(graph map[string][]string, rules []arrowRule, exceptions map[string]string) []string {
	var out []string
	used := map[string]bool{}
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		imports := slices.Clone(graph[pkg])
		sort.Strings(imports)
		for _, imp := range imports {
			for _, r := range rules {
				from := ""
				for _, a := range r.From {
					if within(pkg, a) {
						from = a
						break
					}
				}
				if from == "" {
					continue
				}
				var broken bool
				if r.Only != nil {
					broken = !withinAny(imp, r.Only) && !within(imp, ownArea(pkg, from))
				} else {
					broken = withinAny(imp, r.Forbid)
				}
				if !broken {
					continue
				}
				arrow := pkg + " -> " + imp
				if _, ok := exceptions[arrow]; ok {
					used[arrow] = true
					continue
				}
				out = append(out, fmt.Sprintf("%s imports %s: forbidden, %s (DESIGN.md, Layout)", pkg, imp, r.Why))
			}
		}
	}
	var stale []string
	for arrow := range exceptions {
		if !used[arrow] {
			stale = append(stale, fmt.Sprintf("known exception %q is no longer needed: delete it from knownArrowExceptions", arrow))
		}
	}
	sort.Strings(stale)
	return append(out, stale...)
}

// ownArea is the area a package's own code is in: for a rule on
// "adapters", adapters/x/... is adapters/x; for any other, the rule's
// area itself.
func ownArea(pkg, from string) string {
	rest, ok := strings.CutPrefix(pkg, from+"/")
	if !ok || from != "adapters" {
		return from
	}
	first, _, _ := strings.Cut(rest, "/")
	return from + "/" + first
}

// importGraph lists every package of the module with its non-test imports
// of ours, through go list -deps -json.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-deps", "-json=ImportPath,Imports,Standard", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -json ./...: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(outb))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Standard   bool
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		rel, ok := relPath(p.ImportPath)
		if p.Standard || !ok {
			continue
		}
		var ours []string
		for _, imp := range p.Imports {
			if r, ok := relPath(imp); ok {
				ours = append(ours, r)
			}
		}
		graph[rel] = ours
	}
	return graph
}

func relPath(importPath string) (string, bool) {
	if importPath == module {
		return ".", true
	}
	return strings.CutPrefix(importPath, module+"/")
}

// TestArrows fails on an import DESIGN.md forbids, naming the package and
// the import.
func TestArrows(t *testing.T) {
	t.Parallel()
	graph := importGraph(t)
	for _, must := range []string{"internal/app", "adapters/x", "adapters/kit", "internal/store"} {
		if _, ok := graph[must]; !ok {
			t.Fatalf("go list did not list %s; the import graph is incomplete", must)
		}
	}
	for _, v := range checkArrows(graph, arrowRules(), knownArrowExceptions()) {
		t.Error(v)
	}
}

// TestCheckArrowsOnABrokenGraph shows the checker failing on a synthetic
// graph that breaks each kind of arrow.
func TestCheckArrowsOnABrokenGraph(t *testing.T) {
	t.Parallel()
	graph := map[string][]string{
		"adapters/x":             {"api/adapter/v1", "adapters/kit", "adapters/x/internal/fx", "internal/config"},
		"adapters/x/internal/fx": {"adapters/telegram"},
		"adapters/kit/kittest":   {"adapters/kit", "api/adapter/v1", "internal/testkit"},
		"internal/store":         {"internal/config", "internal/app"},
		"internal/web":           {"internal/app", "internal/store/sqlite"},
		"internal/channelapi":    {"internal/config"},
		"internal/tgchannel":     {"internal/channelapi", "internal/tgchannel/render", "internal/store"},
		"internal/app":           {"internal/store", "internal/httpapi"},
		"cmd/monitor":            {"internal/runtime"},
		"internal/runtime":       {"internal/app", "internal/store", "adapters/x"},
	}
	exceptions := map[string]string{
		"internal/app -> internal/httpapi": "on purpose",
		"cmd/monitor -> internal/app":      "fixed already",
	}
	want := []string{
		"adapters/kit/kittest imports internal/testkit: forbidden, adapters import only the protocol (api/adapter/v1), adapters/kit and their own code (DESIGN.md, Layout)",
		"adapters/x imports internal/config: forbidden, adapters import only the protocol (api/adapter/v1), adapters/kit and their own code (DESIGN.md, Layout)",
		"adapters/x/internal/fx imports adapters/telegram: forbidden, adapters import only the protocol (api/adapter/v1), adapters/kit and their own code (DESIGN.md, Layout)",
		"internal/channelapi imports internal/config: forbidden, channelapi is a leaf: it imports nothing of ours (DESIGN.md, Layout)",
		"internal/store imports internal/app: forbidden, nothing below app imports app (DESIGN.md, Layout)",
		"internal/tgchannel imports internal/store: forbidden, the Telegram channel talks to core only through channelapi (DESIGN.md, Layout)",
		"internal/web imports internal/store/sqlite: forbidden, handlers never import store (DESIGN.md, Layout)",
		`known exception "cmd/monitor -> internal/app" is no longer needed: delete it from knownArrowExceptions`,
	}
	got := checkArrows(graph, arrowRules(), exceptions)
	if !slices.Equal(got, want) {
		t.Fatalf("checkArrows:\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
	if v := checkArrows(map[string][]string{"adapters/x": {"adapters/kit", "api/adapter/v1"}}, arrowRules(), nil); len(v) != 0 {
		t.Fatalf("a clean graph has violations: %v", v)
	}
}
