package app

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// What one caller does to the content it got never reaches what the next
// one reads, and the cache keeps at most its size, dropping the least
// recently used.
func TestContentCacheCopiesAndEvicts(t *testing.T) {
	c := newContentCache(2)
	a, b, d := uuid.New(), uuid.New(), uuid.New()
	rv := RevisionView{ID: a, Text: "the harbour at dawn", Media: []MediaView{{SHA256: "aa", Kind: "image"}},
		Graph: GraphView{Root: "p", Entities: []EntityNode{{Key: "p", Data: json.RawMessage(`{"text":"x"}`),
			Resources: []ResourceView{{SHA256: "bb"}}}}, Relations: []RelationView{{From: "p", Relation: "authored_by", To: "u"}}}}
	c.put(a, rv)
	rv.Media[0].Sensitive = true // the caller's own copy

	got, ok := c.get(a)
	require.True(t, ok)
	require.False(t, got.Media[0].Sensitive, "a change before put is not kept")
	got.Media[0].URL = "/media/aa"
	got.Graph.Entities[0].Data[2] = 'X'
	got.Graph.Entities[0].Resources[0].SHA256 = "cc"
	got.Graph.Relations[0].To = "someone else"
	again, _ := c.get(a)
	require.Equal(t, "", again.Media[0].URL)
	require.JSONEq(t, `{"text":"x"}`, string(again.Graph.Entities[0].Data))
	require.Equal(t, "bb", again.Graph.Entities[0].Resources[0].SHA256)
	require.Equal(t, "u", again.Graph.Relations[0].To)

	c.put(b, RevisionView{ID: b})
	_, _ = c.get(a) // a is now the most recently used
	c.put(d, RevisionView{ID: d})
	_, ok = c.get(b)
	require.False(t, ok, "the least recently used goes first")
	_, ok = c.get(a)
	require.True(t, ok)
	_, ok = c.get(d)
	require.True(t, ok)
}
