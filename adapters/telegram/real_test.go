package telegram_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// The real-sample suite: t.me pages saved from real public channels
// (shared/fixtures/real/tme, provenance in its SOURCES.md), which may not
// be copied into this repository. testkit.RealFixturesDir skips it when
// they are absent and fails it then on CI.

// dataPost finds the post a whole message block is.
var dataPost = regexp.MustCompile(`data-post="([^"/]+)/(\d+)"`)

// fragmentPost wraps an inner fragment (a medium, a link preview, a poll)
// in the least a message block needs, so it reaches Fetch as a post; the
// markup around it is ours, the fragment is the sample's.
const fragmentPost = `<div class="tgme_widget_message_wrap"><div class="tgme_widget_message" data-post="any2feed_demo/%d">` +
	`<div class="tgme_widget_message_bubble">%s<div class="tgme_widget_message_footer"><div class="tgme_widget_message_info">` +
	`<span class="tgme_widget_message_meta"><a class="tgme_widget_message_date" href="https://t.me/any2feed_demo/%[1]d">` +
	`<time datetime="2023-02-28T08:48:01+00:00" class="time">08:48</time></a></span></div></div></div></div></div>`

// collapse folds runs of white space the way a browser shows them (the
// samples were re-indented by an editor).
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestRealPages serves every saved t.me page as the embed page of its
// post and fetches it: each must parse without error into a graph the
// declared schemas accept.
func TestRealPages(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "tme/any2feed")
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	h := newHarness(t, nil)
	got := map[string]*adapterv1.FetchResponse{}
	for i, f := range files {
		name := filepath.Base(f)
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		ch, id := "any2feed_demo", 1000+i
		if m := dataPost.FindSubmatch(b); m != nil {
			ch = string(m[1])
			_, err := fmt.Sscan(string(m[2]), &id)
			require.NoError(t, err)
		} else {
			b = []byte(fmt.Sprintf(fragmentPost, id, b))
		}
		h.fake.SetOverride(fmt.Sprintf("/%s/%d", ch, id), 200, "text/html; charset=utf-8", b)
		resp := h.fetchMessage(t, strings.ToLower(ch), id)
		require.Nil(t, resp.GetError(), "%s: %s", name, resp.GetError().GetMessage())
		kittest.CheckGraph(t, h.schemas, resp)
		require.NotEmpty(t, resp.GetSourceResponses(), name)
		got[name] = resp
	}

	// Expectations read from the samples by hand.
	text := got["message_text.html"].GetDisplay()
	require.True(t, strings.HasPrefix(collapse(text.GetText()),
		"Неопознанный летающий объект замечен в 160 – 200 км от Петербурга По данным «Фонтанки»"), text.GetText())

	// anna_news/46908 is an album: a video, then two photos.
	album := got["message_media_photo_and_video.html"]
	var kinds []adapterv1.MediaKind
	for _, m := range album.GetMedia() {
		if m.GetPurpose() == "" {
			kinds = append(kinds, m.GetKind())
		}
	}
	require.Equal(t, []adapterv1.MediaKind{video, image, image}, kinds)
	require.True(t, strings.HasSuffix(album.GetDisplay().GetSummary(), "⟦video⟧⟦image⟧⟦image⟧"), album.GetDisplay().GetSummary())

	// oper_goblin/939 is a voice note of 27:40.
	voice := got["message_voice.html"]
	require.Equal(t, uint32((27*60+40)*1000), voice.GetMedia()[0].GetDurationMs())
	require.True(t, strings.HasSuffix(voice.GetDisplay().GetSummary(), "⟦audio⟧"), voice.GetDisplay().GetSummary())
}

// channelPage wraps real message blocks in a t.me/s page of channel; the
// header, the history section and its link to older posts are ours.
func channelPage(channel string, older int64, blocks ...[]byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<html><body><section class="tgme_channel_info"><div class="tgme_channel_info_header_title"><span dir="auto">%s</span></div>`+
		`<div class="tgme_channel_info_header_username"><a href="https://t.me/%[1]s">@%[1]s</a></div></section>`+
		`<main class="tgme_main"><section class="tgme_channel_history js-message_history">`, channel)
	if older > 0 {
		fmt.Fprintf(&b, `<div class="tgme_widget_message_centered js-messages_more_wrap"><a href="/s/%s?before=%d" class="tme_messages_more js-messages_more" data-before="%[2]d"></a></div>`, channel, older)
	}
	for _, bl := range blocks {
		b.Write(bl)
	}
	b.WriteString(`</section></main></body></html>`)
	return []byte(b.String())
}

// TestRealChannelPages lists the real posts of oper_goblin, put on one
// t.me/s page in their order, newest first; the real album of anna_news
// is one post, never its members.
func TestRealChannelPages(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "tme/any2feed")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return b
	}
	h := newHarness(t, nil)
	h.fake.SetOverride("/s/oper_goblin", 200, "text/html; charset=utf-8", channelPage("oper_goblin", 939,
		read("message_voice.html"), read("message_media_file.html"), read("message_media_forwarded_from.html"),
		read("message_link_preview.html"), read("message_link_preview_text_only.html")))
	h.fake.SetOverride("/s/anna_news", 200, "text/html; charset=utf-8", channelPage("anna_news", 0, read("message_media_photo_and_video.html")))

	resp := h.fetchChannel(t, "oper_goblin")
	require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
	kittest.CheckGraph(t, h.schemas, resp)
	var got []string
	for _, rt := range resp.GetRelatedTargets() {
		got = append(got, rt.GetUrl())
	}
	require.Equal(t, []string{
		"https://t.me/oper_goblin/22368", "https://t.me/oper_goblin/22360", "https://t.me/oper_goblin/22358",
		"https://t.me/oper_goblin/16936", "https://t.me/oper_goblin/939",
	}, got)
	require.Equal(t, h.fake.URL()+"/s/oper_goblin?before=939", resp.GetSourceResponses()[1].GetRequestUrl(), "older posts are asked for")

	resp = h.fetchChannel(t, "anna_news")
	require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
	require.Len(t, resp.GetRelatedTargets(), 1)
	require.Equal(t, "https://t.me/anna_news/46908", resp.GetRelatedTargets()[0].GetUrl())
	require.Empty(t, resp.GetNextPageCursor())
}
