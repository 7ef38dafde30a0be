//go:build ignore

// generate writes the demo archive (capsule/) from the posts below and
// media it draws with ffmpeg: run `go generate ./internal/demo` after
// changing either. Only the output is embedded; ffmpeg is needed here,
// never at run time. The graphs follow what the X and Telegram adapters
// write for a live capture (adapters/x/fetch.go, adapters/telegram/fetch.go)
// so that the web library and the static build render them as they
// render real captures.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/adapters/kit"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/export"
)

const font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

// media drawn for the archive, by name.
type drawn struct {
	file, sha, mime string
	size            int64
	w, h, ms        int
}

var (
	work  string
	out   = "capsule"
	files = map[string]drawn{}
)

func main() {
	var err error
	if work, err = os.MkdirTemp("", "monitor-demo-"); err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	if err := os.RemoveAll(out); err != nil {
		log.Fatal(err)
	}
	drawAll()
	colls := posts()
	man := &capsule.Manifest{SchemaVersion: 1, Generator: "monitor demo", ExportedAt: at("2026-11-30T09:00:00Z"),
		Site:  capsule.Site{Title: "Monitor demo archive", Description: "A sample archive that ships with Monitor: X and Telegram posts written by the Monitor team.", Language: "en"},
		Owner: capsule.Owner{Name: "demo"}}
	b, err := capsule.MarshalManifest(man)
	check(err)
	write(capsule.ManifestName, b)
	for _, c := range colls {
		b, err := capsule.MarshalCollection(c)
		check(err)
		write(capsule.CollectionPath(c), b)
	}
	var total int64
	for _, d := range files {
		data, err := os.ReadFile(filepath.Join(work, d.file))
		check(err)
		write(capsule.FilePath(d.sha, d.mime), data)
		total += d.size
	}
	log.Printf("wrote %d collections and %d media files (%d bytes of media) into %s", len(colls), len(files), total, out)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func write(rel string, data []byte) {
	p := filepath.Join(out, filepath.FromSlash(rel))
	check(os.MkdirAll(filepath.Dir(p), 0o755))
	check(os.WriteFile(p, data, 0o644))
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	check(err)
	return t
}

func ptr[T any](v T) *T { return &v }

// ffmpeg runs ffmpeg quietly.
func ffmpeg(args ...string) {
	cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
	cmd.Stderr = os.Stderr
	check(cmd.Run())
}

// image draws a still: a gradient with a caption, as JPEG.
func image(name, caption string, w, h int, c0, c1 string, seed int) {
	file := name + ".jpg"
	text := strings.NewReplacer(":", `\:`, "'", `\'`).Replace(caption)
	ffmpeg("-f", "lavfi", "-i", fmt.Sprintf("gradients=s=%dx%d:c0=%s:c1=%s:seed=%d", w, h, c0, c1, seed),
		"-vf", fmt.Sprintf("drawtext=fontfile=%s:text='%s':fontcolor=white:fontsize=%d:borderw=2:bordercolor=0x00000080:x=(w-tw)/2:y=(h-th)/2", font, text, fontSize(caption, h)),
		"-frames:v", "1", "-q:v", "7", filepath.Join(work, file))
	files[name] = measure(file, "image/jpeg", w, h, 0)
}

// fontSize fits a caption: short ones (avatar initials) large.
func fontSize(caption string, h int) int {
	if len([]rune(caption)) <= 3 {
		return h * 2 / 5
	}
	return max(14, h/10)
}

func measure(file, mime string, w, h, ms int) drawn {
	data, err := os.ReadFile(filepath.Join(work, file))
	check(err)
	sum := sha256.Sum256(data)
	return drawn{file: file, sha: hex.EncodeToString(sum[:]), mime: mime, size: int64(len(data)), w: w, h: h, ms: ms}
}

func drawAll() {
	// The X account's avatar and banner, and the other account's.
	image("avatar", "MD", 200, 200, "0x0b5394", "0x6fa8dc", 1)
	image("banner", "Monitor demo · tides and harbours", 750, 250, "0x073763", "0x9fc5e8", 2)
	image("avatar-tides", "TT", 200, 200, "0x38761d", "0xb6d7a8", 3)
	image("avatar-tg", "TW", 200, 200, "0x134f5c", "0x76a5af", 4)
	// Two harbour photos.
	image("harbour-fog", "Fog over the harbour", 640, 420, "0x666666", "0xcccccc", 5)
	image("harbour-crane", "The old crane", 420, 560, "0x783f04", "0xf6b26b", 6)
	// The album, numbered so that order is visible.
	for i, c := range [][2]string{{"0x1c4587", "0xa4c2f4"}, {"0x274e13", "0x93c47d"}, {"0x7f6000", "0xffd966"}, {"0x660000", "0xea9999"}} {
		image(fmt.Sprintf("album-%d", i+1), fmt.Sprintf("Low tide %d of 4", i+1), 480, 360, c[0], c[1], 10+i)
	}
	image("tide-table", "August tide table", 640, 360, "0x20124d", "0xb4a7d6", 20)
	image("sensitive", "Storm damage (sensitive)", 560, 380, "0x4c1130", "0xd5a6bd", 21)
	for i := 1; i <= 3; i++ {
		image(fmt.Sprintf("tg-album-%d", i), fmt.Sprintf("Causeway %d of 3", i), 480, 320, "0x0c343d", "0xa2c4c9", 30+i)
	}
	image("link-preview", "Harbour Radio · storm warning", 600, 315, "0x351c75", "0x8e7cc3", 40)
	// A 2 s test pattern with its poster (the first frame).
	ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x180:r=12:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-profile:v", "baseline",
		"-crf", "32", "-movflags", "+faststart", "-an", filepath.Join(work, "timelapse.mp4"))
	files["video"] = measure("timelapse.mp4", "video/mp4", 320, 180, 2000)
	ffmpeg("-i", filepath.Join(work, "timelapse.mp4"), "-frames:v", "1", "-q:v", "6", filepath.Join(work, "timelapse-poster.jpg"))
	files["poster"] = measure("timelapse-poster.jpg", "image/jpeg", 320, 180, 0)
}

// Collections -----------------------------------------------------------

const (
	demoID    = "1799000000000000001"
	tidesID   = "1799000000000000002"
	tgChannel = "monitor_demo_tides"
	tgTitle   = "Tide Watch Demo 潮汐观察"
	radioTG   = "harbour_radio_demo"
)

func id(platform, kind, external string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://monitor.invalid/demo/"+platform+"/"+kind+"/"+external)).String()
}

func mediaOf(name, kind, alt string, sensitive bool, source string) capsule.Media {
	d := files[name]
	return capsule.Media{File: capsule.FilePath(d.sha, d.mime), SHA256: d.sha, Kind: kind, Mime: d.mime, Size: d.size,
		Width: d.w, Height: d.h, DurationMS: d.ms, Alt: alt, Sensitive: sensitive, SourceURL: source}
}

func res(name, purpose, kind string) capsule.Resource {
	d := files[name]
	return capsule.Resource{Purpose: purpose, File: capsule.FilePath(d.sha, d.mime), SHA256: d.sha, Kind: kind, Mime: d.mime, Size: d.size}
}

func data(v any) json.RawMessage {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	check(enc.Encode(v))
	return json.RawMessage(strings.TrimSuffix(b.String(), "\n"))
}

// X ----------------------------------------------------------------------

type xProfile struct {
	ID          string `json:"id"`
	Handle      string `json:"handle"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	AvatarURL   string `json:"avatar_url,omitempty"`
	BannerURL   string `json:"banner_url,omitempty"`
	Followers   *int64 `json:"followers,omitempty"`
	Following   *int64 `json:"following,omitempty"`
	Posts       *int64 `json:"posts,omitempty"`
	CreatedAt   string `json:"created_at,omitempty"`
	Location    string `json:"location,omitempty"`
	URL         string `json:"url,omitempty"`
	Website     string `json:"website,omitempty"`
	Protected   bool   `json:"protected"`
}

type xPoll struct {
	Choices    []xChoice `json:"choices"`
	TotalVotes *int64    `json:"total_votes,omitempty"`
	EndsAt     string    `json:"ends_at,omitempty"`
}

type xChoice struct {
	Label      string   `json:"label"`
	Votes      *int64   `json:"votes,omitempty"`
	Percentage *float64 `json:"percentage,omitempty"`
}

type xPost struct {
	ID            string `json:"id"`
	URL           string `json:"url,omitempty"`
	Text          string `json:"text"`
	CreatedAt     string `json:"created_at,omitempty"`
	Lang          string `json:"lang,omitempty"`
	Likes         *int64 `json:"likes,omitempty"`
	Reposts       *int64 `json:"reposts,omitempty"`
	Replies       *int64 `json:"replies,omitempty"`
	Views         *int64 `json:"views,omitempty"`
	Sensitive     bool   `json:"sensitive"`
	Source        string `json:"source,omitempty"`
	QuoteID       string `json:"quote_id,omitempty"`
	ReplyToID     string `json:"reply_to_id,omitempty"`
	ReplyToHandle string `json:"reply_to_handle,omitempty"`
	Poll          *xPoll `json:"poll,omitempty"`
}

var (
	demoProfile = xProfile{ID: demoID, Handle: "monitor_demo", Name: "Monitor Demo",
		Description: "The sample account of Monitor's demo archive: harbour photos, tide tables and notes on keeping an archive. 示例账号。",
		AvatarURL:   "https://pbs.twimg.com/profile_images/1799000000000000101/mDemoAv1.jpg",
		BannerURL:   "https://pbs.twimg.com/profile_banners/" + demoID + "/1764460800",
		Followers:   ptr(int64(2048)), Following: ptr(int64(128)), Posts: ptr(int64(512)),
		CreatedAt: "2024-06-01T08:00:00Z", Location: "Harbour City", URL: "https://x.com/monitor_demo",
		Website: "https://monitor.invalid/demo"}
	tidesProfile = xProfile{ID: tidesID, Handle: "tide_tables_demo", Name: "Tide Tables 潮汐表",
		Description: "High and low water for the harbour, every day. 每天的高潮和低潮时间。",
		AvatarURL:   "https://pbs.twimg.com/profile_images/1799000000000000102/tTidesAv.jpg",
		Followers:   ptr(int64(15320)), Following: ptr(int64(12)), Posts: ptr(int64(4100)),
		CreatedAt: "2019-03-14T06:30:00Z", URL: "https://x.com/tide_tables_demo"}
)

func profileEntity(p xProfile, withBanner bool) capsule.Entity {
	avatar := "avatar"
	if p.ID == tidesID {
		avatar = "avatar-tides"
	}
	rs := []capsule.Resource{res(avatar, "avatar", "image")}
	if withBanner && p.BannerURL != "" {
		rs = append(rs, res("banner", "banner", "image"))
	}
	return capsule.Entity{Key: "profile:" + p.ID, Type: "x.profile", ExternalID: p.ID, Data: data(p), Resources: rs}
}

// xPostColl is an X post collection the way a capture of it is exported.
type xItem struct {
	post      xPost
	author    xProfile
	published string
	saved     string
	media     []capsule.Media
	posters   []string // drawn names
	extra     []capsule.Entity
	relations []capsule.Relation
	sensitive bool
}

func xColl(it xItem) *capsule.Collection {
	p := it.post
	p.URL = "https://x.com/" + it.author.Handle + "/status/" + p.ID
	p.CreatedAt = it.published
	p.Sensitive = it.sensitive
	root := "post:" + p.ID
	var rs []capsule.Resource
	markers := ""
	for _, m := range it.media {
		rs = append(rs, capsule.Resource{File: m.File, SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size})
		if m.Kind == "image" {
			markers += kit.MarkerImage
		} else {
			markers += kit.MarkerVideo
		}
	}
	for _, n := range it.posters {
		rs = append(rs, res(n, "poster", "image"))
	}
	g := capsule.Graph{Root: root, Entities: []capsule.Entity{
		{Key: root, Type: "x.post", ExternalID: p.ID, Data: data(p), Resources: rs},
		profileEntity(it.author, true),
	}, Relations: []capsule.Relation{{From: root, Relation: "authored_by", To: "profile:" + it.author.ID}}}
	g.Entities = append(g.Entities, it.extra...)
	g.Relations = append(g.Relations, it.relations...)
	pub := at(it.published)
	saved := at(it.saved)
	return &capsule.Collection{
		ID: id("x", "x.post", p.ID), Platform: "x", Kind: "x.post", ExternalID: p.ID, URL: p.URL, Visibility: "public",
		SavedAt: saved, PublishedAt: &pub, CapturedAt: saved,
		Author:  capsule.Author{Name: it.author.Name, Handle: it.author.Handle, URL: it.author.URL},
		Summary: kit.Summary(it.author.Name, p.Text, markers), Tags: export.Hashtags(p.Text), Sensitive: it.sensitive,
		TextKind: "plain", Media: it.media, Graph: g, Text: p.Text,
	}
}

// Telegram ----------------------------------------------------------------

type tgChannelData struct {
	Username    string `json:"username"`
	URL         string `json:"url"`
	Preview     bool   `json:"preview,omitempty"`
	ID          int64  `json:"id,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	AvatarURL   string `json:"avatar_url,omitempty"`
	Verified    bool   `json:"verified,omitempty"`
	Subscribers *int64 `json:"subscribers,omitempty"`
	Photos      *int64 `json:"photos,omitempty"`
	Videos      *int64 `json:"videos,omitempty"`
	Files       *int64 `json:"files,omitempty"`
	Links       *int64 `json:"links,omitempty"`
}

type tgMedia struct {
	MessageID  int64  `json:"message_id"`
	Kind       string `json:"kind"`
	DurationMS uint32 `json:"duration_ms,omitempty"`
}

type tgForward struct {
	Name      string `json:"name,omitempty"`
	URL       string `json:"url,omitempty"`
	Channel   string `json:"channel,omitempty"`
	MessageID int64  `json:"message_id,omitempty"`
}

type tgLinkPreview struct {
	URL         string `json:"url,omitempty"`
	SiteName    string `json:"site_name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	ImageURL    string `json:"image_url,omitempty"`
}

type tgMessage struct {
	ID            int64          `json:"id"`
	Channel       string         `json:"channel"`
	URL           string         `json:"url"`
	Preview       bool           `json:"preview,omitempty"`
	Text          *string        `json:"text,omitempty"`
	TextMarkdown  string         `json:"text_markdown,omitempty"`
	PublishedAt   string         `json:"published_at,omitempty"`
	Edited        *bool          `json:"edited,omitempty"`
	Signature     string         `json:"signature,omitempty"`
	AuthorName    string         `json:"author_name,omitempty"`
	Views         *int64         `json:"views,omitempty"`
	ViewsText     string         `json:"views_text,omitempty"`
	AlbumID       int64          `json:"album_id,omitempty"`
	Media         []tgMedia      `json:"media,omitempty"`
	ForwardedFrom *tgForward     `json:"forwarded_from,omitempty"`
	LinkPreview   *tgLinkPreview `json:"link_preview,omitempty"`
}

var tgChannelInfo = tgChannelData{Username: tgChannel, URL: "https://t.me/" + tgChannel, ID: -1001799000000,
	Title:       tgTitle,
	Description: "Daily tide notes, harbour photos and storm warnings — a demo channel of the Monitor archive. 每日潮汐、港口照片和风暴预警。",
	AvatarURL:   "https://cdn4.cdn-telegram.org/file/demoTideAvatar.jpg",
	Subscribers: ptr(int64(3120)), Photos: ptr(int64(420)), Videos: ptr(int64(36)), Files: ptr(int64(12)), Links: ptr(int64(88))}

func tgChannelEntity(full bool) capsule.Entity {
	d := tgChannelData{Username: tgChannel, URL: "https://t.me/" + tgChannel, ID: tgChannelInfo.ID, Title: tgTitle, AvatarURL: tgChannelInfo.AvatarURL}
	if full {
		d = tgChannelInfo
	}
	return capsule.Entity{Key: "channel:" + tgChannel, Type: "telegram.channel", ExternalID: tgChannel, Data: data(d),
		Resources: []capsule.Resource{res("avatar-tg", "avatar", "image")}}
}

type tgItem struct {
	msg       tgMessage
	published string
	saved     string
	media     []capsule.Media
	extra     []capsule.Resource // resources of the message beyond its media
	entities  []capsule.Entity
	relations []capsule.Relation
}

func tgColl(it tgItem) *capsule.Collection {
	m := it.msg
	m.Channel = tgChannel
	m.URL = fmt.Sprintf("https://t.me/%s/%d", tgChannel, m.ID)
	m.PublishedAt = it.published
	m.Edited = ptr(false)
	m.AuthorName = tgTitle
	ext := fmt.Sprintf("%s/%d", tgChannel, m.ID)
	root := "message:" + ext
	var rs []capsule.Resource
	markers := ""
	for _, md := range it.media {
		rs = append(rs, capsule.Resource{File: md.File, SHA256: md.SHA256, Kind: md.Kind, Mime: md.Mime, Size: md.Size})
		markers += kit.MarkerImage
	}
	rs = append(rs, it.extra...)
	text := ""
	if m.Text != nil {
		text = *m.Text
	}
	g := capsule.Graph{Root: root, Entities: []capsule.Entity{
		{Key: root, Type: "telegram.message", ExternalID: ext, Data: data(m), Resources: rs},
		tgChannelEntity(false),
	}, Relations: []capsule.Relation{{From: root, Relation: "posted_in", To: "channel:" + tgChannel}}}
	g.Entities = append(g.Entities, it.entities...)
	g.Relations = append(g.Relations, it.relations...)
	pub, saved := at(it.published), at(it.saved)
	return &capsule.Collection{
		ID: id("telegram", "telegram.message", ext), Platform: "telegram", Kind: "telegram.message", ExternalID: ext, URL: m.URL,
		Visibility: "public", SavedAt: saved, PublishedAt: &pub, CapturedAt: saved,
		Author:  capsule.Author{Name: tgTitle},
		Summary: kit.Summary(tgTitle, text, markers), Tags: export.Hashtags(text), TextKind: "plain",
		Media: it.media, Graph: g, Text: text,
	}
}

func posts() []*capsule.Collection {
	twimg := "https://pbs.twimg.com/media/"
	var out []*capsule.Collection

	// The X profile itself, as a profile capture saves it.
	prof := demoProfile
	pe := profileEntity(prof, true)
	out = append(out, &capsule.Collection{
		ID: id("x", "x.profile", demoID), Platform: "x", Kind: "x.profile", ExternalID: demoID, URL: prof.URL, Visibility: "public",
		SavedAt: at("2026-11-20T09:00:00Z"), CapturedAt: at("2026-11-20T09:00:00Z"),
		Author:  capsule.Author{Name: prof.Name, Handle: prof.Handle, URL: prof.URL},
		Summary: kit.Summary(prof.Name, prof.Description, ""), TextKind: "plain",
		Graph: capsule.Graph{Root: pe.Key, Entities: []capsule.Entity{pe}}, Text: prof.Description,
	})

	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-01T07:12:00Z", saved: "2026-11-20T09:01:00Z",
		post: xPost{ID: "1999000000000000101", Text: "Two frames from this morning's walk: fog over the harbour and the old crane. #harbour",
			Lang: "en", Likes: ptr(int64(187)), Reposts: ptr(int64(11)), Replies: ptr(int64(4)), Views: ptr(int64(6042)), Source: "Twitter for iPhone"},
		media: []capsule.Media{
			mediaOf("harbour-fog", "image", "Fog rolling over a grey harbour at dawn", false, twimg+"DemoFog1.jpg?name=orig"),
			mediaOf("harbour-crane", "image", "A rusty harbour crane against an orange sky", false, twimg+"DemoCrane.jpg?name=orig"),
		}}))

	var album []capsule.Media
	for i := 1; i <= 4; i++ {
		album = append(album, mediaOf(fmt.Sprintf("album-%d", i), "image", fmt.Sprintf("Low tide, photo %d of 4", i), false, fmt.Sprintf("%sDemoLow%d.jpg?name=orig", twimg, i)))
	}
	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-03T16:40:00Z", saved: "2026-11-20T09:02:00Z",
		post: xPost{ID: "1999000000000000102", Text: "Low tide in four pictures, one every ten minutes, in order. #harbour #tides",
			Lang: "en", Likes: ptr(int64(412)), Reposts: ptr(int64(37)), Replies: ptr(int64(9)), Views: ptr(int64(12880)), Source: "Twitter for Android"},
		media: album}))

	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-05T17:05:44Z", saved: "2026-11-20T09:03:00Z",
		post: xPost{ID: "1999000000000000103", Text: "Timelapse of the tide coming in, two seconds of it. Tap to play.",
			Lang: "en", Likes: ptr(int64(903)), Reposts: ptr(int64(64)), Replies: ptr(int64(12)), Views: ptr(int64(48213)), Source: "Twitter for Android"},
		media:   []capsule.Media{mediaOf("video", "video", "", false, "https://video.twimg.com/ext_tw_video/1999000000000000203/pu/vid/avc1/320x180/demo.mp4")},
		posters: []string{"poster"}}))

	quoted := xPost{ID: "1999000000000000201", URL: "https://x.com/tide_tables_demo/status/1999000000000000201",
		Text: "August tide table for the harbour is out: spring tides on the 9th and the 23rd.", CreatedAt: "2026-11-06T06:00:00Z",
		Lang: "en", Likes: ptr(int64(77)), Reposts: ptr(int64(40)), Replies: ptr(int64(3)), Views: ptr(int64(9100)), Source: "Twitter Web App"}
	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-06T12:30:09Z", saved: "2026-11-20T09:04:00Z",
		post: xPost{ID: "1999000000000000104", Text: "Worth saving: the whole table, archived with its image in case it changes.",
			Lang: "en", Likes: ptr(int64(22)), Reposts: ptr(int64(3)), Replies: ptr(int64(1)), Views: ptr(int64(1877)), Source: "Twitter Web App",
			QuoteID: quoted.ID},
		extra: []capsule.Entity{
			{Key: "post:" + quoted.ID, Type: "x.post", ExternalID: quoted.ID, Data: data(quoted), Resources: []capsule.Resource{res("tide-table", "quoted", "image")}},
			profileEntity(tidesProfile, false),
		},
		relations: []capsule.Relation{
			{From: "post:" + quoted.ID, Relation: "authored_by", To: "profile:" + tidesID},
			{From: "post:1999000000000000104", Relation: "quotes", To: "post:" + quoted.ID},
		}}))

	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-07T08:15:00Z", saved: "2026-11-20T09:05:00Z",
		post: xPost{ID: "1999000000000000105", Text: "@tide_tables_demo Thank you! Is the 23rd the higher of the two?",
			Lang: "en", Likes: ptr(int64(5)), Replies: ptr(int64(1)), Views: ptr(int64(320)), Source: "Twitter Web App",
			ReplyToID: quoted.ID, ReplyToHandle: "tide_tables_demo"}}))

	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-08T10:00:00Z", saved: "2026-11-20T09:06:00Z",
		post: xPost{ID: "1999000000000000106", Text: "Which do you keep of a post you archive?",
			Lang: "en", Likes: ptr(int64(64)), Replies: ptr(int64(18)), Views: ptr(int64(5400)), Source: "Twitter Web App",
			Poll: &xPoll{Choices: []xChoice{
				{Label: "Text and media", Votes: ptr(int64(41)), Percentage: ptr(48.8)},
				{Label: "A screenshot", Votes: ptr(int64(12)), Percentage: ptr(14.3)},
				{Label: "The raw JSON too", Votes: ptr(int64(31)), Percentage: ptr(36.9)},
			}, TotalVotes: ptr(int64(84)), EndsAt: "2026-11-09T10:00:00Z"}}}))

	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-09T02:30:00Z", saved: "2026-11-20T09:07:00Z",
		post: xPost{ID: "1999000000000000107", Text: "今天的大潮把防波堤都淹没了。潮汐表说下一次在二十三号，记得提前存档。 #潮汐",
			Lang: "zh", Likes: ptr(int64(230)), Reposts: ptr(int64(18)), Replies: ptr(int64(6)), Views: ptr(int64(7700)), Source: "Twitter for iPhone"}}))

	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-10T21:45:00Z", saved: "2026-11-20T09:08:00Z",
		post: xPost{ID: "1999000000000000108", Text: "潮の満ち引きを毎日記録しています。今夜の満潮は二十一時四十五分でした。",
			Lang: "ja", Likes: ptr(int64(150)), Reposts: ptr(int64(9)), Replies: ptr(int64(2)), Views: ptr(int64(4300)), Source: "Twitter for iPhone"}}))

	out = append(out, xColl(xItem{author: demoProfile, published: "2026-11-12T19:20:00Z", saved: "2026-11-20T09:09:00Z", sensitive: true,
		post: xPost{ID: "1999000000000000109", Text: "After last night's storm: the damage at the east pier. Not pretty.",
			Lang: "en", Likes: ptr(int64(95)), Reposts: ptr(int64(20)), Replies: ptr(int64(14)), Views: ptr(int64(15000)), Source: "Twitter for iPhone"},
		media: []capsule.Media{mediaOf("sensitive", "image", "Broken planks and debris on a pier after a storm", true, twimg+"DemoStorm.jpg?name=orig")}}))

	// Telegram.
	chanEntity := tgChannelEntity(true)
	out = append(out, &capsule.Collection{
		ID: id("telegram", "telegram.channel", tgChannel), Platform: "telegram", Kind: "telegram.channel", ExternalID: tgChannel,
		URL: "https://t.me/" + tgChannel, Visibility: "public", SavedAt: at("2026-11-21T08:00:00Z"), CapturedAt: at("2026-11-21T08:00:00Z"),
		Author:  capsule.Author{Name: tgTitle},
		Summary: kit.Summary(tgTitle, tgChannelInfo.Description, ""), TextKind: "plain",
		Graph: capsule.Graph{Root: chanEntity.Key, Entities: []capsule.Entity{chanEntity}}, Text: tgChannelInfo.Description,
	})

	albumText := "Spring tide, 9 November: the causeway at 06:10, 06:40 and 07:05."
	var tgAlbum []capsule.Media
	var tgAlbumData []tgMedia
	for i := 1; i <= 3; i++ {
		tgAlbum = append(tgAlbum, mediaOf(fmt.Sprintf("tg-album-%d", i), "image", "", false, fmt.Sprintf("https://cdn4.cdn-telegram.org/file/demoCauseway%d.jpg", i)))
		tgAlbumData = append(tgAlbumData, tgMedia{MessageID: int64(200 + i), Kind: "photo"})
	}
	out = append(out, tgColl(tgItem{published: "2026-11-09T07:35:28Z", saved: "2026-11-21T08:01:00Z", media: tgAlbum,
		msg: tgMessage{ID: 201, Text: &albumText, Views: ptr(int64(12400)), ViewsText: "12.4K", AlbumID: 201, Media: tgAlbumData}}))

	fwdText := "Storm warning for the coast tonight: winds up to 90 km/h after 22:00. Stay off the piers."
	out = append(out, tgColl(tgItem{published: "2026-11-12T15:02:00Z", saved: "2026-11-21T08:02:00Z",
		msg: tgMessage{ID: 202, Text: &fwdText, Views: ptr(int64(5800)), ViewsText: "5.8K",
			ForwardedFrom: &tgForward{Name: "Harbour Radio Demo", URL: "https://t.me/" + radioTG + "/77", Channel: radioTG, MessageID: 77}},
		entities: []capsule.Entity{
			{Key: "channel:" + radioTG, Type: "telegram.channel", ExternalID: radioTG,
				Data: data(tgChannelData{Username: radioTG, URL: "https://t.me/" + radioTG, Title: "Harbour Radio Demo", Preview: true})},
			{Key: "message:" + radioTG + "/77", Type: "telegram.message", ExternalID: radioTG + "/77",
				Data: data(tgMessage{ID: 77, Channel: radioTG, URL: "https://t.me/" + radioTG + "/77", Preview: true})},
		},
		relations: []capsule.Relation{
			{From: "message:" + radioTG + "/77", Relation: "posted_in", To: "channel:" + radioTG},
			{From: "message:" + tgChannel + "/202", Relation: "forwarded_from", To: "message:" + radioTG + "/77"},
		}}))

	linkText := "The harbour office posted the new storm plan: https://harbour.example.org/storm-plan"
	out = append(out, tgColl(tgItem{published: "2026-11-13T09:30:00Z", saved: "2026-11-21T08:03:00Z",
		msg: tgMessage{ID: 203, Text: &linkText, Views: ptr(int64(2100)), ViewsText: "2.1K",
			LinkPreview: &tgLinkPreview{URL: "https://harbour.example.org/storm-plan", SiteName: "Harbour Office", Title: "Storm plan 2026",
				Description: "What closes when, where to moor, and who to call.", ImageURL: "https://cdn4.cdn-telegram.org/file/demoPreview.jpg"}},
		extra: []capsule.Resource{res("link-preview", "link_preview", "image")}}))

	zhText := "今晚满潮 21:45，潮高 4.2 米。港口东侧的步道可能被淹，请绕行。\n\n明早低潮 04:10。"
	out = append(out, tgColl(tgItem{published: "2026-11-14T12:00:00Z", saved: "2026-11-21T08:04:00Z",
		msg: tgMessage{ID: 204, Text: &zhText, Views: ptr(int64(1200000)), ViewsText: "1.2M"}}))

	long := strings.Join([]string{
		"How we keep the tide archive — a long note.",
		"",
		"1. Every morning we save the day's table as it was published, before anyone corrects it.",
		"2. Photos are kept at their original size; the archive stores each file once, named by its SHA-256.",
		"3. Corrections are new versions, never overwrites: the archive keeps every revision with its time.",
		"",
		"What to save:",
		"• the text, exactly as posted",
		"• every photo and video, at the best quality offered",
		"• the raw answer of the platform, so a better renderer can redo the page later",
		"",
		"Why: a post you cannot find again is a post you never had. Links rot, accounts close, and tables get quietly edited.",
		"",
		"Questions? Reply in the comments, or read the guide at https://monitor.invalid/docs/archive",
	}, "\n")
	md := strings.NewReplacer("How we keep the tide archive", "**How we keep the tide archive**", "What to save:", "**What to save:**",
		"https://monitor.invalid/docs/archive", "[https://monitor.invalid/docs/archive](https://monitor.invalid/docs/archive)").Replace(long)
	out = append(out, tgColl(tgItem{published: "2026-11-15T18:00:00Z", saved: "2026-11-21T08:05:00Z",
		msg: tgMessage{ID: 205, Text: &long, TextMarkdown: md, Signature: "Mira", Views: ptr(int64(8900)), ViewsText: "8.9K"}}))

	return out
}
