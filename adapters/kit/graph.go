package kit

import (
	"encoding/json"
	"fmt"
	"strings"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Graph collects the media and the entity graph of one fetch. The zero
// value is ready to use.
type Graph struct {
	// Media are the fetch's media in order; entities name them by index.
	Media []*adapterv1.Media
	// Entities are the graph's entities, one per key.
	Entities []*adapterv1.Entity
	// Relations are the graph's named edges.
	Relations []*adapterv1.Relation

	keys map[string]bool
}

// AddMedia appends media and returns their indexes.
func (g *Graph) AddMedia(ms ...*adapterv1.Media) []uint32 {
	idx := make([]uint32, 0, len(ms))
	for _, m := range ms {
		idx = append(idx, uint32(len(g.Media)))
		g.Media = append(g.Media, m)
	}
	return idx
}

// Has reports whether the graph has an entity with key.
func (g *Graph) Has(key string) bool { return g.keys[key] }

// AddEntity appends an entity whose data is encoded as plain JSON (no HTML
// escaping: "&" stays "&"), unless one with its key exists: the first one
// added wins.
func (g *Graph) AddEntity(key, typ, externalID string, data any, resources []uint32) error {
	if g.keys[key] {
		return nil
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if g.keys == nil {
		g.keys = map[string]bool{}
	}
	g.keys[key] = true
	g.Entities = append(g.Entities, &adapterv1.Entity{
		Key:             key,
		Type:            typ,
		ExternalId:      externalID,
		DataJson:        strings.TrimSuffix(b.String(), "\n"),
		ResourceIndexes: resources,
	})
	return nil
}

// AddResources appends media as resources of the entity with key, after
// the ones it was added with; it returns their indexes. With no such
// entity the media are not added.
func (g *Graph) AddResources(key string, ms ...*adapterv1.Media) []uint32 {
	for _, e := range g.Entities {
		if e.Key == key {
			idx := g.AddMedia(ms...)
			e.ResourceIndexes = append(e.ResourceIndexes, idx...)
			return idx
		}
	}
	return nil
}

// Relate adds the relation from -name-> to.
func (g *Graph) Relate(from, name, to string) {
	g.Relations = append(g.Relations, &adapterv1.Relation{FromKey: from, Name: name, ToKey: to})
}

// Proto is the graph as the protocol carries it, rooted at rootKey.
func (g *Graph) Proto(rootKey string) *adapterv1.Graph {
	return &adapterv1.Graph{RootKey: rootKey, Entities: g.Entities, Relations: g.Relations}
}
