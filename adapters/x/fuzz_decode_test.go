package x

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
	"github.com/monitorhq/monitor/internal/testkit"
)

// FuzzDecode feeds FxTwitter v2 bodies (status answers and profile
// answers, seeded from the fixtures) to the decoders and the graph builders:
// no input may panic, and every post that decodes builds entities of valid
// JSON.
func FuzzDecode(f *testing.F) {
	dir := testkit.FixturesDir(f, "fxtwitter")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || d.Name() == "routes.json" {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"code":200,"status":{"id":"1","author":{"id":"1","screen_name":"a"},"quote":{"id":"2","author":{"id":"3","screen_name":"b"}}}}`))
	f.Add([]byte(`{"code":200,"status":{"id":"1","author":{"id":"1","screen_name":"a"},"media":{"all":[{"type":"video","formats":[{"container":"mp4","bitrate":-1}]}]}}}`))

	a := New(Options{})
	f.Fuzz(func(t *testing.T, body []byte) {
		var probe struct {
			Status *struct {
				ID json.RawMessage `json:"id"`
			} `json:"status"`
			User *fxUser `json:"user"`
		}
		_ = json.Unmarshal(body, &probe)
		id := "1"
		if probe.Status != nil {
			var s string
			if json.Unmarshal(probe.Status.ID, &s) == nil {
				if got, ok := parseID(s); ok {
					id = got
				}
			}
		}
		if probe.User != nil {
			if _, err := json.Marshal(profileDataOf(probe.User)); err != nil {
				t.Fatalf("profile data does not encode: %v", err)
			}
		}
		for _, ct := range []string{"application/json", "text/html"} {
			resp := &kit.Response{StatusCode: 200, ContentType: ct, Body: body}
			if u, e := a.decodeProfile(resp, profileRef{id: "1"}); e != nil {
				if e.GetCode() == 0 || e.GetMessage() == "" {
					t.Fatalf("untyped profile error %v", e)
				}
			} else if out, err := buildProfile(u); err == nil && !json.Valid([]byte(out.GetGraph().GetEntities()[0].GetDataJson())) {
				t.Fatalf("profile data is not JSON")
			}
			st, e := a.decodeStatus(resp, id)
			if e != nil {
				if e.GetCode() == 0 || e.GetMessage() == "" {
					t.Fatalf("untyped error %v", e)
				}
				continue
			}
			out, err := buildPost(st, time.Now())
			if err != nil {
				continue
			}
			for _, ent := range out.GetGraph().GetEntities() {
				if !json.Valid([]byte(ent.GetDataJson())) {
					t.Fatalf("entity %s: data is not JSON: %s", ent.GetKey(), ent.GetDataJson())
				}
			}
		}
	})
}
