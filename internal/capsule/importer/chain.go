package importer

import (
	"fmt"
	"slices"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/chain"
)

// fileRevision is a version the collection file holds, with the field
// that names it.
type fileRevision struct {
	field string
	rev   app.ImportRevision
	media []string
}

// ChainProblems recomputes a collection file's hash chain (docs/verify.md):
// every link from its fields and the one before it, the head, and each
// version the file holds against its link (content hash, time, media,
// order). links counts the links checked; a file without a chain, or with
// one of an encoding this monitor does not know, has none to check.
func ChainProblems(path string, c *capsule.Collection) (probs []capsule.Problem, links int) {
	add := func(field, format string, args ...any) {
		probs = append(probs, capsule.Problem{Path: path, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	ch := c.Chain
	if ch == nil || ch.Version != chain.Version {
		return nil, 0 // an unknown version is check's warning
	}
	if len(ch.Revisions) == 0 {
		add("chain.revisions", "is empty; a chain has a link for every revision")
		return probs, 0
	}
	ls := make([]chain.Link, len(ch.Revisions))
	claimed := make([]string, len(ch.Revisions))
	byContent := map[string]int{}
	for i, l := range ch.Revisions {
		ls[i] = chain.Link{PrevHash: l.PrevHash, ContentHash: l.ContentHash, Media: l.Media, Raw: l.Raw, CapturedAt: l.Time,
			AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion}
		claimed[i] = l.ChainHash
		byContent[l.ContentHash] = i
	}
	first := ch.Revisions[0]
	for _, p := range chain.Check(ls, claimed, len(first.Raw) == 0 && first.PrevHash != "") {
		add(fmt.Sprintf("chain.revisions[%d].%s", p.Index, p.Field), "%s", p.Message)
	}
	if head := claimed[len(claimed)-1]; ch.Head != head {
		add("chain.head", "is %s, but the newest link has chain hash %s", ch.Head, head)
	}

	// The versions the file holds must be links of the chain, in its order.
	it := toImport(path, c)
	var revs []fileRevision
	for i, rev := range it.Revisions {
		field := "text"
		if i < len(c.History) {
			field = fmt.Sprintf("history[%d]", i)
		}
		revs = append(revs, fileRevision{field: field, rev: rev, media: mediaOf(rev)})
	}
	last := -1
	seen := map[int]bool{}
	for i, fr := range revs {
		hash, err := app.ContentHash(fr.rev, c.URL)
		if err != nil {
			add(fr.field, "cannot be encoded: %v", err)
			continue
		}
		idx, ok := byContent[hash]
		if !ok {
			add(fr.field, "this version's content hashes to %s, which is no link of the chain: the text or the frontmatter was changed after the export", hash)
			continue
		}
		seen[idx] = true
		l := ch.Revisions[idx]
		if !l.Time.Equal(fr.rev.CapturedAt) {
			add(fr.field+".captured_at", "is %s, but its link says %s", capsule.FormatTime(fr.rev.CapturedAt), capsule.FormatTime(l.Time))
		}
		if !slices.Equal(chain.SortedSet(l.Media), fr.media) {
			add(fr.field+".media", "the version shows media %v, but its link covers %v", fr.media, chain.SortedSet(l.Media))
		}
		// History is oldest first; the current version may be any link.
		if i < len(c.History) {
			if idx < last {
				add(fr.field, "is out of order: it comes after a later revision of the chain (link %d before link %d); the history was reordered", last, idx)
			}
			last = idx
		}
	}
	if len(c.History) > 0 {
		for i := range ch.Revisions {
			if !seen[i] {
				add(fmt.Sprintf("chain.revisions[%d]", i), "no version in the file has this link's content (%s): a revision was dropped from history", ch.Revisions[i].ContentHash)
			}
		}
	}
	return probs, len(ls)
}

// mediaOf lists the media a version shows, as a link covers them.
func mediaOf(r app.ImportRevision) []string {
	var out []string
	for _, m := range r.Media {
		out = append(out, m.SHA256)
	}
	for _, e := range r.Graph.Entities {
		for _, res := range e.Resources {
			out = append(out, res.SHA256)
		}
	}
	return chain.SortedSet(out)
}
