package x

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// FuzzGraphQL feeds X GraphQL bodies (seeded from the real samples, when
// present, and our own) to the x-session decoders: no input may panic,
// every error is typed, and every post that builds has entities its
// schemas accept.
func FuzzGraphQL(f *testing.F) {
	for _, b := range testkit.RealFixturesSeeds(f, "x-graphql", ".json") {
		if len(b) <= 24<<10 { // the large timelines slow the fuzzer down
			f.Add(b)
		}
	}
	own, _ := filepath.Glob(filepath.Join("testdata", "xgraphql", "*.json"))
	for _, p := range own {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"data":{"tweetResult":{"result":{"__typename":"TweetWithVisibilityResults","tweet":{"__typename":"TweetWithVisibilityResults"}}}}}`))
	f.Add([]byte(`{"data":{"tweetResult":{"result":{"rest_id":"1","legacy":{"full_text":"a","entities":{"urls":[{"url":"","indices":[5,1]}]}},"core":{"user_results":{"result":{"rest_id":"2","core":{"screen_name":"b"}}}},"quoted_status_result":{"result":null}}}}}`))
	d := New(Options{})
	desc, err := d.Describe(f.Context(), nil)
	if err != nil {
		f.Fatal(err)
	}
	schemas := kittest.CompileSchemas(f, desc)
	f.Fuzz(func(t *testing.T, body []byte) {
		var r tweetResultResponse
		if json.Unmarshal(body, &r) == nil {
			id := "1"
			if res := r.Data.TweetResult.Result; res != nil {
				if inner, _ := res.unwrap(); inner != nil && canonicalID(inner.id()) {
					id = inner.id()
				}
			}
			out := buildSessionPost(r.Data.TweetResult.Result, id)
			if e := out.GetError(); e != nil {
				if e.GetCode() == 0 || e.GetMessage() == "" {
					t.Fatalf("untyped error %v", e)
				}
			} else {
				for _, ent := range out.GetGraph().GetEntities() {
					if err := schemas.Validate(ent.GetType(), ent.GetDataJson()); err != nil {
						t.Fatalf("entity %s: its schema refuses its data: %v\n%s", ent.GetKey(), err, ent.GetDataJson())
					}
				}
			}
		}
		var tl userTweetsResponse
		if json.Unmarshal(body, &tl) == nil {
			_ = readTimeline(tl.instructions())
		}
		var td tweetDetailResponse
		if json.Unmarshal(body, &td) == nil {
			_ = readTimeline(td.Data.Conversation.Instructions)
		}
	})
}
