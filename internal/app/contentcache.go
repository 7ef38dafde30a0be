package app

import (
	"slices"

	"github.com/google/uuid"
)

// contentCacheSize is how many revisions' decoded content the listing
// keeps: a few pages of 50 (REST's largest) and their neighbours, a few
// megabytes.
const contentCacheSize = 512

// contentCache keeps the decoded content of recently listed revisions, so
// a page of the library (GET /v1/collections, search) is not decoded from
// JSON again at every request: decoding was about 40% of a listing's time.
// A revision's content, its graph and the entity ids of its graph never
// change once written, so an entry is never stale; which revisions a
// tenant may see is still decided by the database at every request, and
// the cache only answers for ids it returned. Entries are copied in and
// out, so no caller can change what another one reads.
type contentCache struct{ kept *lru[uuid.UUID, RevisionView] }

func newContentCache(max int) *contentCache {
	return &contentCache{kept: newLRU[uuid.UUID, RevisionView](max)}
}

// get is a copy of the revision's content view, if it is kept.
func (c *contentCache) get(id uuid.UUID) (RevisionView, bool) {
	rv, ok := c.kept.get(id)
	if !ok {
		return RevisionView{}, false
	}
	return cloneContent(rv), true
}

// put keeps a copy of rv, the content view of revision id.
func (c *contentCache) put(id uuid.UUID, rv RevisionView) {
	if _, ok := c.kept.get(id); ok {
		return
	}
	c.kept.put(id, cloneContent(rv))
}

// cloneContent copies what a listing shows of a revision: its content
// and graph, every slice its own. Times that change (observed_at) are not
// part of it.
func cloneContent(rv RevisionView) RevisionView {
	out := RevisionView{ID: rv.ID, CollectionID: rv.CollectionID, CaptureID: rv.CaptureID, Text: rv.Text, TextKind: rv.TextKind,
		Summary: rv.Summary, AuthorName: rv.AuthorName, Media: slices.Clone(rv.Media),
		Graph: GraphView{Root: rv.Graph.Root, Relations: slices.Clone(rv.Graph.Relations)}}
	if rv.PublishedAt != nil {
		t := *rv.PublishedAt
		out.PublishedAt = &t
	}
	if rv.Graph.Entities != nil {
		out.Graph.Entities = make([]EntityNode, len(rv.Graph.Entities))
		for i, e := range rv.Graph.Entities {
			e.Data = slices.Clone(e.Data)
			e.Resources = slices.Clone(e.Resources)
			out.Graph.Entities[i] = e
		}
	}
	return out
}
