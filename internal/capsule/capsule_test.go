package capsule_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
)

func TestSplitFrontmatter(t *testing.T) {
	t.Parallel()
	front, body, err := capsule.SplitFrontmatter([]byte("---\r\nid: x\r\n---\r\nline one\n---\nstill text\n"))
	require.NoError(t, err)
	require.Equal(t, "id: x\r\n", string(front))
	require.Equal(t, "line one\n---\nstill text", string(body), "only the first closing fence counts")
	_, body, err = capsule.SplitFrontmatter([]byte("---\n---\n"))
	require.NoError(t, err)
	require.Empty(t, body)
	_, _, err = capsule.SplitFrontmatter([]byte("id: x\n"))
	require.ErrorContains(t, err, "must start with a line ---")
}

// Entity data survives JSON → YAML → JSON byte for byte, including values
// YAML would otherwise read as other types.
func TestEntityDataRoundTrip(t *testing.T) {
	t.Parallel()
	data := `{"z":1,"a":"2026-12-01","b":"true","c":null,"d":[1.5,-2,1e+21,"x: y"],"e":{"nested":"line\nbreak","empty":""},"f":false,"g":"123","h":"<&>"}`
	pub := time.Date(2026, 7, 18, 8, 41, 27, 500_000_000, time.UTC)
	c := capsule.Collection{ID: "0198a3f2-ac96-774b-bcce-b302099a8057", Platform: "x", Kind: "x.post", ExternalID: "1",
		Visibility: "public", SavedAt: pub, PublishedAt: &pub, TextKind: "plain", Text: "  leading spaces\n\ntrailing newline kept\n",
		Graph: capsule.Graph{Root: "k", Entities: []capsule.Entity{{Key: "k", Type: "x.post", Data: json.RawMessage(data)}}}}
	b, err := capsule.MarshalCollection(&c)
	require.NoError(t, err)
	require.Contains(t, string(b), "published_at: 2026-07-18T08:41:27.5Z\n")
	got, probs := capsule.ParseCollection("a.md", b)
	require.Empty(t, probs)
	require.Equal(t, data, string(got.Graph.Entities[0].Data))
	require.Equal(t, c.Text, got.Text)
	require.Equal(t, pub, *got.PublishedAt)
	again, err := capsule.MarshalCollection(&got)
	require.NoError(t, err)
	require.Equal(t, string(b), string(again), "writing is deterministic")
}

func TestYAMLGuards(t *testing.T) {
	t.Parallel()
	deep := "---\nid: 0198a3f2-ac96-774b-bcce-b302099a8057\nx: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n---\n"
	_, probs := capsule.ParseCollection("deep.md", []byte(deep))
	require.Equal(t, "deep.md: frontmatter: nests deeper than 64 levels", probs[0].String())
	_, probs = capsule.ParseCollection("two.md", []byte("---\nid: a\n---\n"))
	require.Contains(t, probs[0].String(), `two.md: id: "a" is not a UUID`)
	_, probs = capsule.ParseManifest([]byte("schema_version: 1\n---\nschema_version: 2\n"))
	require.Contains(t, probs[0].Message, "more than one YAML document")
}

func TestPathProblem(t *testing.T) {
	t.Parallel()
	require.Empty(t, capsule.PathProblem("files/ab/abc.jpg"))
	for _, p := range []string{"../x", "files/../../x", "/etc/passwd", `C:\x`, `files\x`, "./files/x", "files//x"} {
		require.NotEmpty(t, capsule.PathProblem(p), p)
	}
}
