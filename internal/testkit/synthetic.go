package testkit

import (
	"encoding/json"
	"fmt"
)

// SyntheticPost describes an invented post the fake serves beside the
// fixtures, for load tests that need many distinct posts.
type SyntheticPost struct {
	// ID is the post id (digits).
	ID string
	// Photos is how many distinct photos the post has.
	Photos int
	// VideoURL, when set, makes the post a video with this one MP4 variant.
	VideoURL string
	// NoAvatar drops the author's avatar and banner, so a text-only post
	// fetches no media at all.
	NoAvatar bool
	// Handle is the author's handle ("": archivist_demo, the fixtures').
	// AuthorID is the author's numeric id with it.
	Handle, AuthorID string
}

// AddPost serves p at /2/status/<id>, shaped like the photos fixture, and
// returns the post's x.com URL.
func (f *FxTwitter) AddPost(p SyntheticPost) string {
	f.t.Helper()
	doc := f.syntheticDoc(p)
	body, err := json.Marshal(doc)
	if err != nil {
		f.t.Fatalf("testkit: synthetic post: %v", err)
	}
	f.SetOverride("/2/status/"+p.ID, 200, "application/json", body)
	return doc["status"].(map[string]any)["url"].(string)
}

// syntheticDoc is the /2/status answer of a synthetic post.
func (f *FxTwitter) syntheticDoc(p SyntheticPost) map[string]any {
	f.t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(f.Raw("status-photos.json"), &doc); err != nil {
		f.t.Fatalf("testkit: photos fixture: %v", err)
	}
	st := doc["status"].(map[string]any)
	st["id"] = p.ID
	st["url"] = "https://x.com/archivist_demo/status/" + p.ID
	st["text"] = "Synthetic post " + p.ID
	st["raw_text"] = map[string]any{"text": st["text"], "facets": []any{}}
	var all, photos []any
	for i := 0; i < p.Photos; i++ {
		all = append(all, map[string]any{
			"type": "photo", "id": fmt.Sprintf("%s%02d", p.ID, i),
			"url":   f.MediaURL(fmt.Sprintf("https://pbs.twimg.com/media/S%s-%d.jpg?name=orig", p.ID, i)),
			"width": 1200, "height": 800,
		})
	}
	photos = all
	media := map[string]any{"all": all, "photos": photos}
	if p.VideoURL != "" {
		v := map[string]any{
			"type": "video", "id": p.ID + "99", "url": p.VideoURL, "width": 1920, "height": 1080, "duration": 60.0,
			"thumbnail_url": f.MediaURL("https://pbs.twimg.com/ext_tw_video_thumb/" + p.ID + "/pu/img/t.jpg"),
			"format":        "video/mp4",
			"variants":      []any{map[string]any{"content_type": "video/mp4", "bitrate": 10368000, "url": p.VideoURL}},
			"formats":       []any{map[string]any{"container": "mp4", "codec": "h264", "bitrate": 10368000, "url": p.VideoURL}},
		}
		media = map[string]any{"all": []any{v}, "videos": []any{v}}
	}
	if p.Photos == 0 && p.VideoURL == "" {
		delete(st, "media")
	} else {
		st["media"] = media
	}
	author := st["author"].(map[string]any)
	if p.NoAvatar {
		delete(author, "avatar_url")
		delete(author, "banner_url")
	}
	if p.Handle != "" {
		author["screen_name"], author["id"], author["name"] = p.Handle, p.AuthorID, "Synthetic "+p.Handle
		author["url"] = "https://x.com/" + p.Handle
		st["url"] = "https://x.com/" + p.Handle + "/status/" + p.ID
	}
	return doc
}
