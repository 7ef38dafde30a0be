package app_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/importer"
)

// benchSearchPosts is how many posts the search benchmark's tenant saved:
// enough that every page up to app.ChannelMaxSearchPage has ten.
const benchSearchPosts = 520

// writeTextCapsule writes a capsule of n text posts that all contain the
// word "harbour".
func writeTextCapsule(b *testing.B, n int) string {
	b.Helper()
	root := filepath.Join(b.TempDir(), "capsule")
	dir := filepath.Join(root, "collections", "x", "2026")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	meta := "schema_version: 1\ngenerator: bench\nexported_at: 2026-11-30T09:00:00Z\nowner:\n  name: bench\n"
	if err := os.WriteFile(filepath.Join(root, "monitor.yaml"), []byte(meta), 0o644); err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := range n {
		id := uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "bench-search-%d", i))
		ext := fmt.Sprintf("19990000000%08d", i)
		saved := at.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		text := fmt.Sprintf("Note %d on the harbour: the tide came in at %d past eight, 潮汐 %d.", i, i%60, i)
		doc := fmt.Sprintf("---\nid: %s\nplatform: x\nkind: x.post\nexternal_id: \"%s\"\nurl: https://x.com/bench/status/%s\n"+
			"visibility: public\nsaved_at: %s\npublished_at: %s\ncaptured_at: %s\nauthor:\n  name: Bench\n  handle: bench\n"+
			"summary: 'Bench：%s'\nsensitive: false\n---\n%s\n", id, ext, ext, saved, saved, saved, text, text)
		name := fmt.Sprintf("2026-11-01-%s.md", id.String()[28:])
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkChannelSearch reads one page of a bot's /search: the first;
// deeper ones found by counting (a ‹ button: they read past the pages
// before them); and the deepest resumed after the last result of the page
// before (a › button). One op is one page of 10.
func BenchmarkChannelSearch(b *testing.B) {
	eachChannelStore(b, func(b *testing.B, driver string) {
		c := newChannelBench(b, driver)
		const user = 6_000_000
		c.accept(b, batchOf([]int64{user}, 1))
		work := c.claim(b, 1)
		if len(work) != 1 {
			b.Fatalf("claimed %d items", len(work))
		}
		tenant, err := c.app.TenantByName(b.Context(), fmt.Sprintf("tg%d", user))
		if err != nil {
			b.Fatal(err)
		}
		src, err := capsule.Open(writeTextCapsule(b, benchSearchPosts))
		if err != nil {
			b.Fatal(err)
		}
		defer src.Close()
		res, err := check.Run(b.Context(), src, check.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := res.Err(); err != nil {
			b.Fatal(err)
		}
		rep, err := importer.Import(b.Context(), c.app, src, res, importer.Options{TenantID: tenant.ID})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Created) != benchSearchPosts {
			b.Fatalf("imported %d posts", len(rep.Created))
		}
		// The last result of page 49, which a "next" button on it carries.
		prev, err := c.app.ChannelSearch(b.Context(), work[0].ID, benchOwner, "harbour", app.ChannelMaxSearchPage-1, nil, 10)
		if err != nil || len(prev.Items) != 10 {
			b.Fatalf("page %d: %v", app.ChannelMaxSearchPage-1, err)
		}
		last := prev.Items[9].ID
		for _, bc := range []struct {
			name  string
			page  int
			after *uuid.UUID
		}{
			{"page=1", 1, nil},
			{"page=10/counted", 10, nil},
			{"page=50/counted", app.ChannelMaxSearchPage, nil},
			{"page=50/after", app.ChannelMaxSearchPage, &last},
		} {
			b.Run(bc.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := c.app.ChannelRenew(b.Context(), work[0].ID, benchOwner); err != nil {
						b.Fatal(err)
					}
					p, err := c.app.ChannelSearch(b.Context(), work[0].ID, benchOwner, "harbour", bc.page, bc.after, 10)
					if err != nil {
						b.Fatal(err)
					}
					if len(p.Items) != 10 {
						b.Fatalf("%s has %d items", bc.name, len(p.Items))
					}
				}
			})
		}
	})
}
