package testkit

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// TmeChannel is a synthetic channel the fake serves: its t.me/s pages
// (perPage posts before ?before=<id>, oldest first, with the link to older
// posts while there are some, as t.me pages) and each post's embed page,
// a photo post written from the photo fixture.
type TmeChannel struct {
	Name string
	// URL is the channel's link; Posts are its posts' links, newest
	// first, as its pages list them.
	URL   string
	Posts []string
}

type tmeChannel struct {
	name    string
	perPage int
	ids     []int // oldest first
	// fail: ?before value → status, once.
	fail map[int]int
	// albums: an album's first message id → its members' ids; albumOf:
	// a member's id → the album's first id.
	albums  map[int][]int
	albumOf map[int]int
}

// AddChannel serves a channel of n photo posts with ids 1..n over pages of
// perPage posts.
func (f *Tme) AddChannel(name string, n, perPage int) TmeChannel {
	f.t.Helper()
	c := &tmeChannel{name: name, perPage: perPage, fail: map[int]int{}, albums: map[int][]int{}, albumOf: map[int]int{}}
	out := TmeChannel{Name: name, URL: "https://t.me/" + name}
	for id := 1; id <= n; id++ {
		c.ids = append(c.ids, id)
	}
	for i := n - 1; i >= 0; i-- {
		out.Posts = append(out.Posts, fmt.Sprintf("https://t.me/%s/%d", name, c.ids[i]))
	}
	f.mu.Lock()
	if f.channels == nil {
		f.channels = map[string]*tmeChannel{}
	}
	f.channels[strings.ToLower(name)] = c
	f.mu.Unlock()
	return out
}

// GrowChannel publishes n new posts in a synthetic channel (AddChannel),
// with the next ids, and returns their links, newest first: a watch of
// the channel should find them.
func (f *Tme) GrowChannel(name string, n int) []string {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.channels[strings.ToLower(name)]
	if c == nil {
		f.t.Fatalf("testkit: no synthetic channel %s", name)
	}
	urls := make([]string, 0, n)
	for i := 0; i < n; i++ {
		id := len(c.ids) + 1
		c.ids = append(c.ids, id)
		urls = append([]string{fmt.Sprintf("https://t.me/%s/%d", c.name, id)}, urls...)
	}
	return urls
}

// GrowChannelAlbum publishes an album of n photos in a synthetic channel
// (AddChannel), as n messages with the next ids, and returns the links of
// its messages, first first. As on t.me, the album is one post: the
// channel's pages list only its first message, and the embed page of any
// member shows all n photos under the first message's id.
func (f *Tme) GrowChannelAlbum(name string, n int) []string {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.channels[strings.ToLower(name)]
	if c == nil {
		f.t.Fatalf("testkit: no synthetic channel %s", name)
	}
	first := len(c.ids) + 1
	urls := make([]string, 0, n)
	for i := range n {
		id := first + i
		c.ids = append(c.ids, id)
		c.albums[first] = append(c.albums[first], id)
		c.albumOf[id] = first
		urls = append(urls, fmt.Sprintf("https://t.me/%s/%d", c.name, id))
	}
	return urls
}

// FailChannelPage makes the next request for the page before id of a
// synthetic channel answer status (before 0: the newest page).
func (f *Tme) FailChannelPage(name string, before, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.channels[strings.ToLower(name)]; c != nil {
		c.fail[before] = status
	}
}

// serveChannel answers a synthetic channel's page or post; ok is false for
// anything else.
func (f *Tme) serveChannel(w http.ResponseWriter, r *http.Request, segs []string) bool {
	if len(segs) != 2 {
		return false
	}
	listing := segs[0] == "s"
	name := strings.ToLower(segs[1])
	if !listing {
		name = strings.ToLower(segs[0])
	}
	f.mu.Lock()
	c := f.channels[name]
	f.mu.Unlock()
	if c == nil {
		return false
	}
	if !listing {
		id, err := strconv.Atoi(segs[1])
		if err != nil || id < 1 || id > len(c.ids) || r.URL.Query().Get("embed") != "1" {
			return false
		}
		f.mu.Lock()
		first, inAlbum := c.albumOf[id]
		members := c.albums[first]
		f.mu.Unlock()
		if inAlbum {
			f.writeSynthetic(w, f.syntheticAlbum(c.name, first, members))
			return true
		}
		f.writeSynthetic(w, f.syntheticEmbed(c.name, id))
		return true
	}
	before, _ := strconv.Atoi(r.URL.Query().Get("before"))
	f.mu.Lock()
	status, fail := c.fail[before]
	delete(c.fail, before)
	f.mu.Unlock()
	if fail {
		writeBody(w, status, map[string]string{"Content-Type": htmlType},
			[]byte("<html><body><h1>"+strconv.Itoa(status)+"</h1></body></html>"))
		return true
	}
	end := len(c.ids)
	if before > 0 {
		end = min(before-1, len(c.ids))
	}
	start := max(end-c.perPage, 0)
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>%[1]s – Telegram</title></head>`+
		`<body class="widget_frame_base tgme_webpreview"><header class="tgme_header"><div class="tgme_channel_info">`+
		`<div class="tgme_channel_info_header"><div class="tgme_channel_info_header_title"><span dir="auto">Synthetic %[1]s</span></div>`+
		`<div class="tgme_channel_info_header_username"><a href="https://t.me/%[1]s">@%[1]s</a></div></div>`+
		`<div class="tgme_channel_info_counters"><div class="tgme_channel_info_counter"><span class="counter_value">%[2]d</span> <span class="counter_type">photos</span></div></div>`+
		`<div class="tgme_channel_info_description">A generated channel.</div></div></header>`+
		`<main class="tgme_main" data-url="/%[1]s"><div class="tgme_container"><section class="tgme_channel_history js-message_history">`, c.name, len(c.ids))
	if start > 0 {
		fmt.Fprintf(&b, `<div class="tgme_widget_message_centered js-messages_more_wrap"><a href="/s/%s?before=%d" class="tme_messages_more js-messages_more" data-before="%[2]d"></a></div>`,
			c.name, c.ids[start])
	}
	for _, id := range c.ids[start:end] {
		if first, ok := c.albumOf[id]; ok && first != id {
			continue // the album is listed as its first message
		}
		fmt.Fprintf(&b, `<div class="tgme_widget_message_wrap js-widget_message_wrap"><div class="tgme_widget_message text_not_supported_wrap js-widget_message" data-post="%s/%d"><div class="tgme_widget_message_bubble">`+
			`<div class="tgme_widget_message_text js-message_text" dir="auto">Synthetic post %[2]d</div>`+
			`<div class="tgme_widget_message_footer compact js-message_footer"><div class="tgme_widget_message_info short js-message_info"><span class="tgme_widget_message_meta">`+
			`<a class="tgme_widget_message_date" href="https://t.me/%[1]s/%[2]d"><time datetime="%[3]s" class="time">%[4]s</time></a></span></div></div></div></div></div>`,
			c.name, id, SyntheticTime(id).Format(time.RFC3339), SyntheticTime(id).Format("15:04"))
	}
	b.WriteString(`</section></div></main></body></html>`)
	f.writeSynthetic(w, []byte(b.String()))
	return true
}

// syntheticEmbed is the embed page of post id of a synthetic channel: the
// photo fixture under the post's own channel, id, text and photo.
func (f *Tme) syntheticEmbed(name string, id int) []byte {
	s := string(f.pages["embed-photo.html"])
	s = strings.ReplaceAll(s, "tidewatch_demo/120", fmt.Sprintf("%s/%d", name, id))
	s = strings.ReplaceAll(s, "tidewatch_demo", name)
	s = strings.Replace(s, "Fog over the north pier at 07:40", fmt.Sprintf("Synthetic post %d of %s at 07:40", id, name), 1)
	s = strings.ReplaceAll(s, "file/Vq3yJ0bXcN4m8T2kLr7uWpZs5AeHdGfQ1iOo9BnCx6Yt0MvKjS3lRw8PaUe4DhIgz", fmt.Sprintf("file/S%s%d", name, id))
	return []byte(s)
}

// syntheticAlbum is the embed page of an album of a synthetic channel:
// one post under its first message's id, a photo per member, each with its
// own ?single link, in t.me's markup (STRUCTURE.md).
func (f *Tme) syntheticAlbum(name string, first int, members []int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Telegram Widget</title></head>`+
		`<body class="widget_frame_base tgme_widget body_widget_post emoji_image nodark"><div class="tgme_widget_message_wrap js-widget_message_wrap">`+
		`<div class="tgme_widget_message text_not_supported_wrap js-widget_message" data-post="%[1]s/%[2]d"><div class="tgme_widget_message_bubble">`+
		`<div class="tgme_widget_message_author accent_color"><a class="tgme_widget_message_owner_name" href="https://t.me/%[1]s"><span dir="auto">Synthetic %[1]s</span></a></div>`+
		`<div class="tgme_widget_message_grouped_wrap js-message_grouped_wrap" data-margin-w="2" data-margin-h="2" style="width:453px;">`+
		`<div class="tgme_widget_message_grouped js-message_grouped" style="padding-top:93.8%%"><div class="tgme_widget_message_grouped_layer js-message_grouped_layer">`,
		name, first)
	for i, id := range members {
		fmt.Fprintf(&b, `<a class="tgme_widget_message_photo_wrap grouped_media_wrap blured js-message_photo" href="https://t.me/%[1]s/%[2]d?single" data-ratio="1.33" `+
			`style="left:%[3]dpx;top:0px;width:150px;height:112px;background-image:url('https://cdn4.cdn-telegram.org/file/A%[1]s%[2]d.jpg')">`+
			`<div class="grouped_media_helper"><div class="tgme_widget_message_photo grouped_media"></div></div></a>`, name, id, i*152)
	}
	fmt.Fprintf(&b, `</div></div></div><div class="tgme_widget_message_text js-message_text" dir="auto">Synthetic album %[2]d of %[1]s</div>`+
		`<div class="tgme_widget_message_footer compact js-message_footer"><div class="tgme_widget_message_info short js-message_info"><span class="tgme_widget_message_meta">`+
		`<a class="tgme_widget_message_date" href="https://t.me/%[1]s/%[2]d"><time datetime="2026-01-02T03:04:05+00:00" class="time">03:04</time></a></span></div></div>`+
		`</div></div></div></body></html>`, name, first)
	return rewriteTmeMedia([]byte(b.String()), f.srv.URL)
}

func (f *Tme) writeSynthetic(w http.ResponseWriter, body []byte) {
	writeBody(w, http.StatusOK, map[string]string{"Content-Type": htmlType, "Cache-Control": "no-store"}, body)
}
