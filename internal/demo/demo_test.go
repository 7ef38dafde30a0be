package demo_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/demo"
)

// open writes the embedded capsule out and checks it as `monitor check`
// does.
func open(t *testing.T) *check.Result {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, demo.WriteTo(dir))
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { src.Close() })
	res, err := check.Run(context.Background(), src, check.Options{})
	require.NoError(t, err)
	return res
}

func TestDemoCapsulePassesCheck(t *testing.T) {
	t.Parallel()
	res := open(t)
	require.Empty(t, res.Problems, "monitor check finds nothing, not even a warning")
	require.GreaterOrEqual(t, len(res.Entries), 14)
	require.Equal(t, "Monitor demo archive", res.Manifest.Site.Title)

	var size int64
	for _, f := range demo.Files(t) {
		size += f
	}
	require.Less(t, size, int64(600<<10), "the demo stays small in the binary")
}

// The graphs are what the adapters would write: every entity is valid
// against the JSON Schema its adapter declares.
func TestDemoGraphsFollowTheAdapterSchemas(t *testing.T) {
	t.Parallel()
	schemas := kittest.Schemas{}
	for _, a := range []interface {
		Describe(context.Context, *adapterv1.DescribeRequest) (*adapterv1.DescribeResponse, error)
	}{x.New(x.Options{}), telegram.New(telegram.Options{})} {
		d, err := a.Describe(context.Background(), &adapterv1.DescribeRequest{})
		require.NoError(t, err)
		for k, v := range kittest.CompileSchemas(t, d) {
			schemas[k] = v
		}
	}
	n := 0
	for _, e := range open(t).Entries {
		for _, en := range e.Collection.Graph.Entities {
			require.Contains(t, schemas, en.Type, "%s: %s", e.Path, en.Key)
			require.NoError(t, schemas.Validate(en.Type, string(en.Data)), "%s: %s", e.Path, en.Key)
			n++
		}
	}
	require.Greater(t, n, 30)
}

// What the issue asks the demo to show is there.
func TestDemoHasWhatANewcomerShouldSee(t *testing.T) {
	t.Parallel()
	type post struct {
		c    capsule.Collection
		root map[string]any
	}
	var posts []post
	for _, e := range open(t).Entries {
		p := post{c: e.Collection}
		for _, en := range e.Collection.Graph.Entities {
			if en.Key == e.Collection.Graph.Root {
				require.NoError(t, json.Unmarshal(en.Data, &p.root))
			}
		}
		posts = append(posts, p)
	}
	has := func(what string, ok func(p post) bool) {
		t.Helper()
		for _, p := range posts {
			if ok(p) {
				return
			}
		}
		t.Errorf("the demo has no %s", what)
	}
	kinds := func(p post, kind string) int {
		n := 0
		for _, m := range p.c.Media {
			if m.Kind == kind {
				n++
			}
		}
		return n
	}
	has("X post with photos", func(p post) bool { return p.c.Kind == "x.post" && kinds(p, "image") == 2 })
	has("album of four photos in order", func(p post) bool {
		if kinds(p, "image") != 4 {
			return false
		}
		for i, m := range p.c.Media {
			if !strings.HasSuffix(m.Alt, "photo "+string(rune('1'+i))+" of 4") {
				return false
			}
		}
		return true
	})
	has("video with a poster", func(p post) bool {
		if kinds(p, "video") != 1 || p.c.Media[0].Mime != "video/mp4" || p.c.Media[0].Size > 60<<10 {
			return false
		}
		for _, en := range p.c.Graph.Entities {
			for _, r := range en.Resources {
				if en.Key == p.c.Graph.Root && r.Purpose == "poster" && r.Kind == "image" {
					return true
				}
			}
		}
		return false
	})
	has("quote", func(p post) bool {
		for _, r := range p.c.Graph.Relations {
			if r.Relation == "quotes" && r.From == p.c.Graph.Root {
				return true
			}
		}
		return false
	})
	has("reply", func(p post) bool { return p.root["reply_to_id"] != nil })
	has("poll", func(p post) bool { return p.root["poll"] != nil })
	has("X profile with banner and avatar", func(p post) bool {
		if p.c.Kind != "x.profile" || p.root["followers"] == nil || p.root["description"] == "" {
			return false
		}
		purposes := ""
		for _, r := range p.c.Graph.Entities[0].Resources {
			purposes += r.Purpose + " "
		}
		return purposes == "avatar banner "
	})
	has("Telegram channel", func(p post) bool { return p.c.Kind == "telegram.channel" && p.root["subscribers"] != nil })
	has("Telegram album", func(p post) bool {
		return p.c.Kind == "telegram.message" && p.root["album_id"] != nil && len(p.c.Media) == 3
	})
	has("Telegram forward", func(p post) bool { return p.root["forwarded_from"] != nil })
	has("Telegram link preview", func(p post) bool { return p.root["link_preview"] != nil })
	has("Telegram views", func(p post) bool { return p.c.Kind == "telegram.message" && p.root["views"] != nil })
	has("Chinese text", func(p post) bool { return regexp.MustCompile(`\p{Han}{4}`).MatchString(p.c.Text) })
	has("Japanese text", func(p post) bool { return regexp.MustCompile(`\p{Hiragana}`).MatchString(p.c.Text) })
	has("sensitive image", func(p post) bool { return p.c.Sensitive && kinds(p, "image") == 1 && p.c.Media[0].Sensitive })
	has("long formatted text", func(p post) bool { return len(p.c.Text) > 600 && p.root["text_markdown"] != nil })
}
