package capsule_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/monitorhq/monitor/internal/capsule"
)

// fuzzSeeds are collection files the package's tests use, a full
// collection written by MarshalCollection, and hostile shapes the reader
// must refuse with a problem: aliases, deep nesting, duplicate keys,
// CRLF fences, an unclosed frontmatter, a YAML timestamp.
func fuzzSeeds(f *testing.F) {
	pub := time.Date(2026, 7, 18, 8, 41, 27, 500_000_000, time.UTC)
	full := capsule.Collection{ID: "0198a3f2-ac96-774b-bcce-b302099a8057", Platform: "x", Kind: "x.post", ExternalID: "1",
		URL: "https://x.com/a/status/1", Visibility: "private", ClaimedVisibility: "public", SavedAt: pub, PublishedAt: &pub,
		CapturedAt: pub, Author: capsule.Author{Name: "A"}, Summary: "A：text", Tags: []string{"tag"}, Sensitive: true,
		TextKind: "plain", Text: "  leading spaces\n\n---\ntrailing newline kept\n",
		Media: []capsule.Media{{File: "files/96/96aa.png", SHA256: strings.Repeat("a", 64), Kind: "image", Mime: "image/png", Size: 3,
			Width: 1, Height: 2, DurationMS: 1500, Alt: "alt", SourceURL: "https://pbs.twimg.com/media/x.png?name=orig"}},
		Graph: capsule.Graph{Root: "k", Entities: []capsule.Entity{{Key: "k", Type: "x.post", ExternalID: "1",
			Data: json.RawMessage(`{"z":1,"a":"2026-12-01","b":"true","c":null,"d":[1.5,-2,1e+21,"x: y"]}`)}},
			Relations: []capsule.Relation{{From: "k", Relation: "quotes", To: "k"}}},
		History: []capsule.Revision{{CapturedAt: pub.Add(-time.Hour), Text: "older"}},
	}
	b, err := capsule.MarshalCollection(&full)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	const head = "---\nid: 0198a3f2-ac96-774b-bcce-b302099a8057\nplatform: x\nkind: x.post\nexternal_id: \"1\"\nvisibility: public\nsaved_at: 2026-11-30T12:31:44Z\n"
	for _, s := range []string{
		head + "---\ntext\n",
		strings.ReplaceAll(head, "\n", "\r\n") + "---\r\ntext\r\n",
		head + "a: &x [1]\nb: *x\n---\n",
		head + "x: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n---\n",
		head + "platform: x\n---\n",
		head + "published_at: 2026-07-22\n---\n",
		head + "media:\n  - {file: ../x, sha256: zz, kind: image, size: -1}\n---\n",
		head + "graph: {root: a, entities: [{key: a, type: t, data: {k: [1, {b: c}]}}], relations: [{from: a, relation: r, to: b}]}\n---\n",
		head + "history:\n  - {captured_at: 2026-01-01T00:00:00+02:00, text: old}\n---\n",
		head,
		"---\n---\n",
		"id: x\n",
		"",
	} {
		f.Add([]byte(s))
	}
}

// FuzzReadCollection reads arbitrary collection files: the reader never
// panics and reports what is wrong as problems; a file it accepts is
// written back by MarshalCollection, read again without errors, and
// written to the same bytes (the writer is deterministic and the reader
// keeps what it accepts).
func FuzzReadCollection(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, probs := capsule.ParseCollection("f.md", data)
		for _, p := range probs {
			if p.Path != "f.md" || p.Message == "" {
				t.Fatalf("problem without a place or message: %#v", p)
			}
			if !p.Warning {
				return // refused, as it should be: nothing more to check
			}
		}
		out, err := capsule.MarshalCollection(&c)
		if err != nil {
			t.Fatalf("an accepted collection cannot be written: %v", err)
		}
		again, probs := capsule.ParseCollection("f.md", out)
		for _, p := range probs {
			t.Fatalf("the written form of an accepted collection has a problem: %s\n%s", p, out)
		}
		out2, err := capsule.MarshalCollection(&again)
		if err != nil {
			t.Fatalf("write again: %v", err)
		}
		if string(out) != string(out2) {
			t.Fatalf("writing is not stable:\n%s\n---- vs ----\n%s", out, out2)
		}
	})
}
