package x

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// FuzzDecode feeds FxTwitter v2 bodies (status answers and profile
// answers, seeded from the fixtures) to the decoders and the graph builders:
// no input may panic, and every post that decodes builds entities whose
// data the adapter's own schemas accept.
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

	// Post 1 written "01": its entity says "1", as the schema wants.
	f.Add([]byte(`{"status":{"id":"01","author":{"screen_name":"0","id":"1"}}}`))
	// The shapes no fixture has (issue 21), so the fuzzer starts from them too.
	f.Add([]byte(`{"code":200,"status":{"id":"1","author":{"id":"1","screen_name":"a","verification":{"verified":true,"type":"government"}},` +
		`"raw_text":{"text":"a #b","display_text_range":[0,4],"facets":[{"type":"hashtag","indices":[2,4],"original":"b"},{"type":"url","indices":[0,9],"replacement":"javascript:x"}]},` +
		`"card":{"url":"https://a.example/","image":{"url":"https://pbs.twimg.com/card_img/1"}},"community":{"id":"01","name":"c","created_at":"bad"},` +
		`"community_note":{"text":"n","facets":[]},"article":{"title":"t","cover_media":{"media_info":{"original_img_url":"ftp://x"}},"content":{"blocks":[{"text":"p"}]}},` +
		`"reposted_by":{"id":"x","screen_name":"r"},"replying_to":{"screen_name":"p","status":"2","display_name":"P"},"poll":{"choices":[{"label":"l","count":1,"percentage":101}],"ends_at":"2020-01-01T00:00:00Z"},` +
		`"media":{"external":{"url":"https://youtube.com/embed/x","width":-5},"broadcast":{"url":"https://x.com/i/broadcasts/1","state":"LIVE"},` +
		`"all":[{"type":"video","id":"5","formats":[{"container":"mp4","codec":"av1","url":"https://video.twimg.com/v/vid/av01/10x10/a.mp4"}],"publisher":{"id":"9","screen_name":""}}]},` +
		`"quote":{"type":"tombstone","reason":"deleted","message":"This post was deleted","id":"3","url":"https://x.com/i/status/3"}}}`))

	a := New(Options{})
	d, err := a.Describe(context.Background(), nil)
	if err != nil {
		f.Fatal(err)
	}
	schemas := kittest.CompileSchemas(f, d)
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
			} else if out, err := buildProfile(u); err == nil {
				if err := schemas.Validate(EntityTypeProfile, out.GetGraph().GetEntities()[0].GetDataJson()); err != nil {
					t.Fatalf("the x.profile schema refuses the profile's data: %v", err)
				}
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
				if err := schemas.Validate(ent.GetType(), ent.GetDataJson()); err != nil {
					t.Fatalf("entity %s: its schema refuses its data: %v\n%s", ent.GetKey(), err, ent.GetDataJson())
				}
			}
		}
	})
}
