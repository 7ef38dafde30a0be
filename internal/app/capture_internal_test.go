package app

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A capture job finalizes from the staged content it has at hand, a
// finalize job from the copy stored on the capture: both must write the
// same entity data, byte for byte.
func TestStagedDataIsWhatTheStoredCopyReadsBack(t *testing.T) {
	for _, raw := range []string{
		`{"text": "a < b && c > d", "handle":"archivist_demo"}`,
		"{\n  \"name\": \"line\u2028break\",\n  \"n\": [1, 2,\t3]\n}",
		`{"emoji":"🗄️","nested":{"k":"<script>"}}`,
	} {
		st := staged{Graph: stagedGraph{Entities: []stagedEntity{{Key: "post:1", Data: stagedData(raw)}}}}
		body, err := json.Marshal(st)
		require.NoError(t, err)
		var back staged
		require.NoError(t, json.Unmarshal(body, &back))
		require.Equal(t, string(back.Graph.Entities[0].Data), string(st.Graph.Entities[0].Data), "for %s", raw)
	}
	require.Equal(t, "not json", string(stagedData("not json")), "left for encoding to refuse")
}
