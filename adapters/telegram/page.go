package telegram

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/monitorhq/monitor/adapters/kit"
)

// The t.me markup, as documented in internal/testkit/testdata/tme/STRUCTURE.md. Telegram
// changes it without notice: everything here reads defensively, and a page
// that lacks what a post must have (its data-post, its time) is refused as a
// whole rather than saved in part.
//
// Shapes beyond that document, read from the real samples
// (shared/fixtures/real/tme/any2feed) and later markup; what each class
// becomes is the field table in real_test.go (tmeClasses):
//   - a round video is a .tgme_widget_message_roundvideo_player holding
//     the circle (.tgme_widget_message_roundvideo_wrap: thumb and <video>)
//     and, beside it, the duration;
//   - an animated sticker is a picture.tgme_widget_message_tgsticker with a
//     <source type=application/x-tgsticker> (.tgs) and image sources (the
//     sample's is an inline data:image/svg+xml outline); a video sticker a
//     .tgme_widget_message_videosticker with a WebM <video> holding an
//     <img> preview;
//   - a poll's voters are in the footer (.tgme_widget_message_voters), not
//     in the poll; class multiple marks a poll that takes several answers;
//   - a link preview may hold a .link_preview_video_player (thumb, <video>,
//     duration);
//   - since 2024 media and text may sit in .media_supported_cont >
//     .tgme_widget_message_one_media > .media_supported_cont, which only
//     descendant selectors (as here) reach;
//   - saved pages may be re-indented: text white space is collapsed as a
//     browser does (text.go).

// Media kinds as the telegram.message schema names them.
const (
	kindPhoto       = "photo"
	kindVideo       = "video"
	kindGIF         = "gif"
	kindRoundVideo  = "round_video"
	kindVoice       = "voice"
	kindAudio       = "audio"
	kindDocument    = "document"
	kindSticker     = "sticker"
	kindUnsupported = "unsupported"
)

// Reasons given for media the web preview does not hand out.
const (
	reasonTooBig    = "media is too big for Telegram's web preview; open the post in Telegram"
	reasonNoURL     = "Telegram's web preview gave no address for this %s"
	reasonFile      = "Telegram's web preview does not offer files for download; this one (%s) needs a Telegram account connection"
	reasonNotShown  = "Telegram's web preview does not show this %s; open the post in Telegram"
	reasonAlbumRest = "the other members of this album could not be read from Telegram's web preview"
)

// errShape is a page that is not shaped like a t.me post page.
var errShape = errors.New("unexpected page shape")

// shapeError says what a page lacks.
func shapeError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errShape, fmt.Sprintf(format, args...))
}

// page is one parsed t.me page: a post embed or a t.me/s channel page.
type page struct {
	// posts are the elements of the posts with a data-post, in page order.
	posts []*goquery.Selection
	// errorText is the embed's error widget ("Post not found"), if any.
	errorText string
	// channel is the t.me/s page's channel header, nil if absent.
	channel *channelInfo
	// history: the page has a channel history section (t.me/s).
	history bool
	// noPosts: the history says "No posts found".
	noPosts bool
	// older: the history links to older posts (data-before).
	older bool
}

// parsePage reads an HTML page. It never fails: the HTML parser accepts any
// input, and what a page lacks shows when it is used.
func parsePage(body []byte) *page {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	p := &page{}
	if err != nil {
		return p // only a failing reader errors; a byte slice does not
	}
	doc.Find(".tgme_widget_message").Each(func(_ int, s *goquery.Selection) {
		if _, ok := s.Attr("data-post"); ok {
			p.posts = append(p.posts, s)
		}
	})
	if e := doc.Find(".tgme_widget_message_error").First(); e.Length() > 0 {
		p.errorText = strings.TrimSpace(plainOf(e, nil))
		if p.errorText == "" {
			p.errorText = "error"
		}
	}
	p.history = doc.Find(".tgme_channel_history").Length() > 0
	p.noPosts = doc.Find(".tme_no_messages_found").Length() > 0
	p.older = doc.Find(".tgme_channel_history .js-messages_more[data-before]").Length() > 0
	if info := doc.Find(".tgme_channel_info").First(); info.Length() > 0 {
		p.channel = parseChannelInfo(info)
		// The history's posts carry the channel's numeric id.
		for _, s := range p.posts {
			if v := parseView(s.AttrOr("data-view", "")); v.channelID != 0 {
				p.channel.id = v.channelID
				break
			}
		}
	}
	return p
}

// splitPost reads data-post="<channel>/<id>"; the channel comes back
// lowercase.
func splitPost(post string) (string, int64, bool) {
	ch, idText, ok := strings.Cut(strings.TrimSpace(post), "/")
	if !ok || !validUsername(ch) {
		return "", 0, false
	}
	id, ok := parseID(idText)
	if !ok {
		return "", 0, false
	}
	return strings.ToLower(ch), id, true
}

// findPost returns the post of channel that is message id or an album
// holding it, parsed; nil when the page has none.
func (p *page) findPost(channel string, id int64) (*message, error) {
	for _, s := range p.posts {
		ch, pid, ok := splitPost(s.AttrOr("data-post", ""))
		if !ok || ch != channel {
			continue
		}
		if pid == id || slices.Contains(albumMemberIDs(s), id) {
			return parseMessage(s)
		}
	}
	return nil, nil
}

// albumMemberIDs lists the message ids of a post's album members, read
// from their ?single links; unreadable ones are skipped.
func albumMemberIDs(s *goquery.Selection) []int64 {
	var ids []int64
	own(s, ".tgme_widget_message_grouped_wrap .grouped_media_wrap").Each(func(_ int, m *goquery.Selection) {
		if _, id, ok := tmeLink(m.AttrOr("href", "")); ok && id > 0 {
			ids = append(ids, id)
		}
	})
	return ids
}

// message is one post as the page shows it.
type message struct {
	channel string // lowercase username, from data-post
	id      int64
	view    viewInfo
	service bool

	// ownerName is the name in the post's header: the channel's title in
	// a channel, the sender in a group. ownerUsername is the username its
	// link names ("" when there is none).
	ownerName     string
	ownerUsername string
	avatarURL     string

	text      string
	markdown  string
	published time.Time
	edited    bool
	signature string
	views     *int64
	viewsText string

	media []mediaItem
	album bool
	// albumIncomplete: the post is an album member whose album the web
	// preview did not show.
	albumIncomplete bool

	forward *forward
	reply   *reply
	preview *linkPreview
	poll    *poll
}

// ownedByChannel reports whether the header names the channel itself (a
// channel post) rather than a sender (a group message).
func (m *message) ownedByChannel() bool {
	return m.ownerUsername == "" || m.ownerUsername == m.channel
}

// viewInfo is what data-view says: the channel's numeric id and whether
// the post is an album ("p":"101g").
type viewInfo struct {
	channelID int64 // marked id (-100...), 0 when unknown
	grouped   bool
}

// mediaItem is one media of a post.
type mediaItem struct {
	messageID   int64
	kind        string
	url         string
	thumbURL    string
	durationMS  uint32
	title       string
	sizeText    string
	unavailable string
	// format is a sticker's: stickerWebP, stickerTGS or stickerWebM.
	format string
	// previewURL is the still image of an animated or video sticker;
	// previewData the inline (data:) image the page shows instead when it
	// links none.
	previewURL  string
	previewData string
}

// Sticker formats: a still WebP image, an animated Lottie sticker (.tgs,
// gzipped JSON that browsers do not play) or a WebM video sticker.
const (
	stickerWebP = "webp"
	stickerTGS  = "tgs"
	stickerWebM = "webm"
)

type forward struct {
	name      string
	author    string
	url       string
	channel   string
	messageID int64
}

type reply struct {
	channel    string
	messageID  int64
	url        string
	authorName string
	text       string
}

type linkPreview struct {
	url, siteName, title, description, imageURL string
	// A preview with a video player (a t.me post's video, a clip): its
	// address when the player gives one, and its length.
	videoURL        string
	videoDurationMS uint32
}

type poll struct {
	question string
	kind     string
	options  []pollOption
	// voters is the count as the footer prints it ("222", "1.2K"),
	// votersCount the number read from it.
	voters      string
	votersCount *int64
	// multiple: the poll takes several answers (t.me marks it so), and
	// its percentages may add up to more than 100.
	multiple bool
}

type pollOption struct {
	text    string
	percent *int64
}

// parseMessage reads one .tgme_widget_message element. It fails when the
// element lacks what every post has: a data-post, a bubble, its time.
func parseMessage(s *goquery.Selection) (*message, error) {
	post, ok := s.Attr("data-post")
	if !ok {
		return nil, shapeError("the post has no data-post")
	}
	ch, id, ok := splitPost(post)
	if !ok {
		return nil, shapeError("data-post %s is not <channel>/<id>", kit.Quote(post))
	}
	m := &message{channel: ch, id: id, view: parseView(s.AttrOr("data-view", "")), service: s.HasClass("service_message")}
	bubble := s.Find(".tgme_widget_message_bubble").First()
	if bubble.Length() == 0 {
		return nil, shapeError("the post has no message bubble")
	}
	base := &url.URL{Scheme: "https", Host: "t.me", Path: "/s/" + ch}

	if owner := own(s, ".tgme_widget_message_owner_name").First(); owner.Length() > 0 {
		m.ownerName = strings.TrimSpace(plainOf(owner, base))
		if ownerCh, ownerID, ok := tmeLink(owner.AttrOr("href", "")); ok && ownerID == 0 {
			m.ownerUsername = ownerCh
		}
	}
	if img := s.Find(".tgme_widget_message_user_photo img").First(); img.Length() > 0 {
		m.avatarURL = mediaURL(img.AttrOr("src", ""))
	}

	if t := own(s, ".tgme_widget_message_text").First(); t.Length() > 0 {
		m.text, m.markdown = renderText(t, base)
	}

	date := own(s, ".tgme_widget_message_date time").First()
	dt, ok := date.Attr("datetime")
	if !ok {
		return nil, shapeError("the post has no time[datetime]")
	}
	published, err := time.Parse(time.RFC3339, strings.TrimSpace(dt))
	if err != nil {
		return nil, shapeError("the post's time %s is not a date", kit.Quote(dt))
	}
	m.published = published.UTC()

	if meta := own(s, ".tgme_widget_message_meta").First(); meta.Length() > 0 {
		m.signature = strings.TrimSpace(plainOf(meta.Find(".tgme_widget_message_from_author").First(), base))
		meta.Contents().Each(func(_ int, c *goquery.Selection) {
			if goquery.NodeName(c) == "#text" && strings.Contains(strings.ToLower(c.Text()), "edited") {
				m.edited = true
			}
		})
	}
	if v := own(s, ".tgme_widget_message_views").First(); v.Length() > 0 {
		m.viewsText = strings.ToValidUTF8(strings.TrimSpace(v.Text()), "\uFFFD")
		if n, ok := parseCount(m.viewsText); ok {
			m.views = &n
		}
	}

	if grouped := own(s, ".tgme_widget_message_grouped_wrap").First(); grouped.Length() > 0 {
		items, err := albumMedia(grouped)
		if err != nil {
			return nil, err
		}
		m.media, m.album = items, len(items) > 0
	} else {
		m.media = singleMedia(s, id)
	}
	if pl := own(s, ".tgme_widget_message_poll").First(); pl.Length() > 0 {
		m.poll = parsePoll(pl, base)
		// The voters are printed in the footer, beside the views.
		if v := own(s, ".tgme_widget_message_voters").First(); v.Length() > 0 && m.poll.voters == "" {
			m.poll.voters = strings.TrimSpace(plainOf(v, base))
		}
		if n, ok := parseCount(m.poll.voters); ok {
			m.poll.votersCount = &n
		}
	}
	m.forward = parseForward(own(s, ".tgme_widget_message_forwarded_from").First(), base)
	m.reply = parseReply(s.Find(".tgme_widget_message_reply").First(), base)
	m.preview = parsePreview(s.Find(".tgme_widget_message_link_preview").First(), base)
	return m, nil
}

// notNested is what own leaves out: what belongs to a reply header or a
// link preview rather than to the post itself.
const notNested = ".tgme_widget_message_reply, .tgme_widget_message_link_preview"

// own finds selector inside the post s, leaving out the reply header and
// the link preview.
func own(s *goquery.Selection, selector string) *goquery.Selection {
	return s.Find(selector).FilterFunction(func(_ int, x *goquery.Selection) bool {
		return x.ParentsFiltered(notNested).Length() == 0
	})
}

// albumMedia reads an album's members in order, each with the message id
// of its ?single link. A member without one makes the page unreadable:
// an album is saved whole or not at all.
func albumMedia(grouped *goquery.Selection) ([]mediaItem, error) {
	var (
		items []mediaItem
		err   error
		seen  = map[int64]bool{}
	)
	grouped.Find(".grouped_media_wrap").EachWithBreak(func(i int, m *goquery.Selection) bool {
		_, id, ok := tmeLink(m.AttrOr("href", ""))
		if !ok || id == 0 {
			err = shapeError("album member %d has no message link", i+1)
			return false
		}
		if seen[id] {
			err = shapeError("album member %d repeats message %d", i+1, id)
			return false
		}
		seen[id] = true
		switch {
		case m.HasClass("tgme_widget_message_photo_wrap"):
			items = append(items, photoItem(m, id))
		case m.HasClass("tgme_widget_message_video_player"):
			items = append(items, videoItem(m, id))
		default:
			items = append(items, mediaItem{messageID: id, kind: kindUnsupported, unavailable: fmt.Sprintf(reasonNotShown, "album member")})
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, shapeError("the album has no members")
	}
	return items, nil
}

// mediaSelector matches the media of a post that is not an album.
// A round video's player holds its wrap (the circle) and, beside it, the
// duration; older pages have the wrap alone. Animated and video stickers
// sit in a sticker wrap of their own or in the common one.
const mediaSelector = ".tgme_widget_message_photo_wrap, .tgme_widget_message_video_player, " +
	".tgme_widget_message_roundvideo_player, .tgme_widget_message_roundvideo_wrap, " +
	".tgme_widget_message_voice_player, .tgme_widget_message_document_wrap, " +
	".tgme_widget_message_sticker_wrap, .tgme_widget_message_tgsticker_wrap, .tgme_widget_message_videosticker_wrap, " +
	".tgme_widget_message_location_wrap, .tgme_widget_message_contact"

// singleMedia reads the media of a post that is not an album, in page
// order; a post the web preview cannot show gets one unsupported item.
func singleMedia(s *goquery.Selection, id int64) []mediaItem {
	var items []mediaItem
	own(s, mediaSelector).Each(func(_ int, m *goquery.Selection) {
		if m.ParentsFiltered(mediaSelector).Length() > 0 {
			return // part of a medium already read
		}
		switch {
		case m.HasClass("tgme_widget_message_photo_wrap"):
			items = append(items, photoItem(m, id))
		case m.HasClass("tgme_widget_message_video_player"):
			items = append(items, videoItem(m, id))
		case m.HasClass("tgme_widget_message_roundvideo_player"), m.HasClass("tgme_widget_message_roundvideo_wrap"):
			it := videoItem(m, id)
			it.kind = kindRoundVideo
			items = append(items, it)
		case m.HasClass("tgme_widget_message_voice_player"):
			it := mediaItem{messageID: id, kind: kindVoice,
				durationMS: parseDuration(m.Find(".tgme_widget_message_voice_duration").First().Text())}
			if it.url = mediaURL(m.Find("audio").First().AttrOr("src", "")); it.url == "" {
				it.unavailable = fmt.Sprintf(reasonNoURL, "voice message")
			}
			items = append(items, it)
		case m.HasClass("tgme_widget_message_document_wrap"):
			items = append(items, documentItem(m, id))
		case m.HasClass("tgme_widget_message_sticker_wrap"), m.HasClass("tgme_widget_message_tgsticker_wrap"),
			m.HasClass("tgme_widget_message_videosticker_wrap"):
			items = append(items, stickerItem(m, id))
		case m.HasClass("tgme_widget_message_location_wrap"):
			items = append(items, mediaItem{messageID: id, kind: kindUnsupported, title: "location", unavailable: fmt.Sprintf(reasonNotShown, "location")})
		case m.HasClass("tgme_widget_message_contact"):
			items = append(items, mediaItem{messageID: id, kind: kindUnsupported, title: "contact", unavailable: fmt.Sprintf(reasonNotShown, "contact")})
		}
	})
	if len(items) > 0 {
		return items
	}
	// A medium the page cannot render at all shows only the "not
	// supported" notice (the notice inside a video player is hidden
	// unless that video is not supported).
	notice := own(s, ".message_media_not_supported").FilterFunction(func(_ int, x *goquery.Selection) bool {
		return x.ParentsFiltered(mediaSelector).Length() == 0
	}).First()
	if notice.Length() > 0 {
		label := strings.TrimSpace(plainOf(notice.Find(".message_media_not_supported_label").First(), nil))
		reason := fmt.Sprintf(reasonNotShown, "media")
		if strings.Contains(strings.ToLower(label), "too big") {
			reason = reasonTooBig
		}
		items = append(items, mediaItem{messageID: id, kind: kindUnsupported, title: shortText(label, 200), unavailable: reason})
	}
	return items
}

// photoItem reads a photo: its address is the background-image of the wrap.
func photoItem(m *goquery.Selection, id int64) mediaItem {
	it := mediaItem{messageID: id, kind: kindPhoto, url: mediaURL(styleURL(m.AttrOr("style", "")))}
	if it.url == "" {
		it.unavailable = fmt.Sprintf(reasonNoURL, "photo")
	}
	return it
}

// videoItem reads a video player: <video src>, a GIF when the player has
// no play button, too big when marked not_supported or without a source.
func videoItem(m *goquery.Selection, id int64) mediaItem {
	it := mediaItem{
		messageID:  id,
		kind:       kindVideo,
		thumbURL:   mediaURL(styleURL(m.Find(".tgme_widget_message_video_thumb, .tgme_widget_message_roundvideo_thumb").First().AttrOr("style", ""))),
		durationMS: parseDuration(m.Find(".message_video_duration, .tgme_widget_message_roundvideo_duration").First().Text()),
	}
	src := mediaURL(m.Find("video").First().AttrOr("src", ""))
	if m.HasClass("not_supported") || src == "" {
		label := strings.ToLower(plainOf(m.Find(".message_media_not_supported_label").First(), nil))
		it.unavailable = reasonTooBig
		if label != "" && !strings.Contains(label, "too big") {
			it.unavailable = fmt.Sprintf(reasonNotShown, "video")
		}
		return it
	}
	it.url = src
	if m.Find(".message_video_play").Length() == 0 && m.HasClass("tgme_widget_message_video_player") {
		it.kind = kindGIF
	}
	return it
}

// documentItem reads a file: the page names it but never links the bytes.
func documentItem(m *goquery.Selection, id int64) mediaItem {
	it := mediaItem{
		messageID: id,
		kind:      kindDocument,
		title:     shortText(strings.TrimSpace(plainOf(m.Find(".tgme_widget_message_document_title").First(), nil)), 500),
		sizeText:  shortText(strings.TrimSpace(plainOf(m.Find(".tgme_widget_message_document_extra").First(), nil)), 100),
	}
	if m.Find(".tgme_widget_message_document_icon.audio").Length() > 0 {
		it.kind = kindAudio
	}
	name := it.title
	if name == "" {
		name = "a file"
	}
	it.unavailable = fmt.Sprintf(reasonFile, name)
	return it
}

// stickerItem reads a sticker: a still WebP image (data-webp), an
// animated sticker (<picture class=tgme_widget_message_tgsticker> with a
// .tgs <source>) or a video sticker (<video> of WebM). The animated and
// video ones are kept as files with their still preview, since a browser
// shows only the preview of a .tgs.
func stickerItem(m *goquery.Selection, id int64) mediaItem {
	it := mediaItem{messageID: id, kind: kindSticker}
	if u := mediaURL(m.Find(".tgme_widget_message_sticker").First().AttrOr("data-webp", "")); u != "" {
		it.url, it.format = u, stickerWebP
		return it
	}
	if pic := m.Find(".tgme_widget_message_tgsticker").First(); pic.Length() > 0 {
		it.format = stickerTGS
		pic.Find("source").Each(func(_ int, src *goquery.Selection) {
			typ := strings.ToLower(strings.TrimSpace(src.AttrOr("type", "")))
			set := srcsetURL(src.AttrOr("srcset", ""))
			switch {
			case typ == "application/x-tgsticker" && it.url == "":
				it.url = mediaURL(set)
			case strings.HasPrefix(typ, "image/"):
				it.setPreview(set)
			}
		})
		it.setPreview(pic.Find("img").First().AttrOr("src", ""))
	} else if v := m.Find(".tgme_widget_message_videosticker video, video.js-videosticker_video").First(); v.Length() > 0 {
		it.format = stickerWebM
		it.url = mediaURL(v.AttrOr("src", ""))
		it.setPreview(v.Find("img").First().AttrOr("src", ""))
		it.setPreview(m.Find(".tgme_widget_message_videosticker img").First().AttrOr("src", ""))
	}
	if it.url == "" {
		it.unavailable = fmt.Sprintf(reasonNotShown, "sticker")
	}
	return it
}

// setPreview keeps the first preview image of a sticker: an address to
// download, or else an inline image.
func (it *mediaItem) setPreview(raw string) {
	if it.previewURL != "" {
		return
	}
	if u := mediaURL(raw); u != "" {
		it.previewURL, it.previewData = u, ""
		return
	}
	if it.previewData == "" {
		it.previewData = inlineImage(raw)
	}
}

// maxInlineImage bounds the inline preview of a sticker kept in the
// entity; Telegram's outlines are a few kilobytes.
const maxInlineImage = 16 << 10

// inlineImage accepts a base64 data: URL of a still image (SVG, WebP,
// PNG, JPEG) no longer than maxInlineImage; anything else gives "".
func inlineImage(raw string) string {
	raw = strings.TrimSpace(raw)
	if len(raw) > maxInlineImage {
		return ""
	}
	head, data, ok := strings.Cut(raw, ",")
	if !ok || data == "" {
		return ""
	}
	head = strings.ToLower(head)
	switch head {
	case "data:image/svg+xml;base64", "data:image/webp;base64", "data:image/png;base64", "data:image/jpeg;base64":
	default:
		return ""
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return ""
	}
	return head + "," + data
}

// srcsetURL is the first address of a srcset ("a.webp 1x, b.webp 2x").
func srcsetURL(set string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(set), ",")
	if strings.HasPrefix(asciiLower(strings.TrimSpace(first)), "data:") {
		// A data: URL holds commas of its own and no descriptor.
		return strings.TrimSpace(set)
	}
	f := strings.Fields(first)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func parsePoll(pl *goquery.Selection, base *url.URL) *poll {
	p := &poll{
		question: strings.TrimSpace(plainOf(pl.Find(".tgme_widget_message_poll_question").First(), base)),
		kind:     strings.TrimSpace(plainOf(pl.Find(".tgme_widget_message_poll_type").First(), base)),
		voters:   strings.TrimSpace(plainOf(pl.Find(".tgme_widget_message_voters").First(), base)),
		multiple: pl.HasClass("multiple"),
	}
	pl.Find(".tgme_widget_message_poll_option").Each(func(_ int, o *goquery.Selection) {
		opt := pollOption{text: strings.TrimSpace(plainOf(o.Find(".tgme_widget_message_poll_option_text").First(), base))}
		pct := strings.TrimSuffix(strings.TrimSpace(o.Find(".tgme_widget_message_poll_option_percent").First().Text()), "%")
		if n, err := strconv.ParseInt(pct, 10, 64); err == nil && n >= 0 && n <= 100 {
			opt.percent = &n
		}
		p.options = append(p.options, opt)
	})
	return p
}

// parseForward reads the "Forwarded from" header.
func parseForward(h *goquery.Selection, base *url.URL) *forward {
	if h.Length() == 0 {
		return nil
	}
	f := &forward{}
	name := h.Find(".tgme_widget_message_forwarded_from_name").First()
	if name.Length() > 0 {
		f.name = strings.TrimSpace(plainOf(name, base))
		if ch, id, ok := tmeLink(name.AttrOr("href", "")); ok {
			f.channel, f.messageID = ch, id
			f.url = "https://t.me/" + ch
			if id > 0 {
				f.url = messageURL(ch, id)
			}
		}
	} else {
		f.name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(plainOf(h, base)), "Forwarded from"))
	}
	if a := h.Find(".tgme_widget_message_forwarded_from_author").First(); a.Length() > 0 {
		f.author = strings.TrimSpace(plainOf(a, base))
		f.author = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(f.author, "("), ")"))
		if f.name == "" {
			f.name = f.author
		} else if name.Length() == 0 {
			f.name = strings.TrimSpace(strings.TrimSuffix(f.name, plainOf(a, base)))
		}
	}
	f.name = shortText(f.name, 500)
	f.author = shortText(f.author, 500)
	return f
}

// parseReply reads the header of the message a post replies to.
func parseReply(h *goquery.Selection, base *url.URL) *reply {
	if h.Length() == 0 {
		return nil
	}
	ch, id, ok := tmeLink(h.AttrOr("href", ""))
	if !ok || id == 0 {
		return nil
	}
	r := &reply{channel: ch, messageID: id, url: messageURL(ch, id),
		authorName: shortText(strings.TrimSpace(plainOf(h.Find(".tgme_widget_message_author_name").First(), base)), 500)}
	t := h.Find(".tgme_widget_message_text").First()
	if t.Length() == 0 {
		t = h.Find(".tgme_widget_message_metatext").First()
	}
	r.text, _ = renderText(t, base)
	return r
}

// parsePreview reads a link preview card.
func parsePreview(h *goquery.Selection, base *url.URL) *linkPreview {
	if h.Length() == 0 {
		return nil
	}
	lp := &linkPreview{
		url:      linkURL(h.AttrOr("href", ""), base),
		siteName: shortText(strings.TrimSpace(plainOf(h.Find(".link_preview_site_name").First(), base)), 500),
		title:    shortText(strings.TrimSpace(plainOf(h.Find(".link_preview_title").First(), base)), 1000),
		imageURL: mediaURL(styleURL(h.Find(".link_preview_image, .link_preview_right_image").First().AttrOr("style", ""))),
	}
	if v := h.Find(".link_preview_video_player").First(); v.Length() > 0 {
		if lp.imageURL == "" {
			lp.imageURL = mediaURL(styleURL(v.Find(".link_preview_video_thumb").First().AttrOr("style", "")))
		}
		lp.videoURL = mediaURL(v.Find("video").First().AttrOr("src", ""))
		lp.videoDurationMS = parseDuration(v.Find(".message_video_duration").First().Text())
	}
	lp.description, _ = renderText(h.Find(".link_preview_description").First(), base)
	if lp.url == "" && lp.title == "" && lp.description == "" {
		return nil
	}
	return lp
}

// channelInfo is the channel header of a t.me/s page.
type channelInfo struct {
	username    string
	title       string
	avatarURL   string
	description string
	descMD      string
	verified    bool
	id          int64
	counters    map[string]int64
}

func parseChannelInfo(s *goquery.Selection) *channelInfo {
	c := &channelInfo{
		title:     strings.TrimSpace(plainOf(s.Find(".tgme_channel_info_header_title").First(), nil)),
		avatarURL: mediaURL(s.Find(".tgme_page_photo_image img").First().AttrOr("src", "")),
		verified:  s.Find(".verified-icon").Length() > 0,
		counters:  map[string]int64{},
	}
	if u := s.Find(".tgme_channel_info_header_username a").First(); u.Length() > 0 {
		name := strings.TrimPrefix(strings.TrimSpace(u.Text()), "@")
		if !validUsername(name) {
			if ch, id, ok := tmeLink(u.AttrOr("href", "")); ok && id == 0 {
				name = ch
			}
		}
		if validUsername(name) {
			c.username = strings.ToLower(name)
		}
	}
	base := &url.URL{Scheme: "https", Host: "t.me", Path: "/s/" + c.username}
	c.description, c.descMD = renderText(s.Find(".tgme_channel_info_description").First(), base)
	s.Find(".tgme_channel_info_counter").Each(func(_ int, x *goquery.Selection) {
		typ := strings.ToLower(strings.TrimSpace(x.Find(".counter_type").First().Text()))
		if n, ok := parseCount(x.Find(".counter_value").First().Text()); ok {
			switch typ {
			case "subscriber", "subscribers", "member", "members":
				c.counters["subscribers"] = n
			case "photo", "photos", "video", "videos", "file", "files", "link", "links":
				c.counters[strings.TrimSuffix(typ, "s")+"s"] = n
			}
		}
	})
	return c
}

// parseView decodes data-view: base64url JSON such as
// {"c":-1591537674,"p":16,"t":1677228733} or, for albums, "p":"84g".
// Anything unreadable yields the zero value: the field is a hint.
func parseView(v string) viewInfo {
	v = strings.TrimRight(strings.TrimSpace(v), "=")
	if v == "" || len(v) > 4096 {
		return viewInfo{}
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(v); err != nil {
			return viewInfo{}
		}
	}
	var d struct {
		C json.Number     `json:"c"`
		P json.RawMessage `json:"p"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&d) != nil {
		return viewInfo{}
	}
	var out viewInfo
	// "c" is the channel's bare id, negative; its marked id is -100<c>.
	if c, err := strconv.ParseInt(d.C.String(), 10, 64); err == nil && c < 0 && c > -1_000_000_000_000 {
		out.channelID = -1_000_000_000_000 + c
	}
	var p string
	if json.Unmarshal(d.P, &p) == nil && strings.HasSuffix(p, "g") {
		out.grouped = true
	}
	return out
}

// tmeLink reads a t.me link: "https://t.me/<channel>" gives the channel
// and id 0, "https://t.me/<channel>/<id>" (any query) the message.
func tmeLink(raw string) (string, int64, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !isHost(strings.ToLower(u.Hostname())) {
		return "", 0, false
	}
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	if len(segs) > 0 && strings.EqualFold(segs[0], "s") {
		segs = segs[1:]
	}
	if len(segs) == 0 || !validUsername(segs[0]) || len(segs) > 2 {
		return "", 0, false
	}
	ch := strings.ToLower(segs[0])
	if len(segs) == 1 {
		return ch, 0, true
	}
	id, ok := parseID(segs[1])
	if !ok {
		return "", 0, false
	}
	return ch, id, true
}

// styleURL returns the url(...) of a style's background-image, unquoted.
func styleURL(style string) string {
	lower := asciiLower(style)
	i := strings.Index(lower, "background-image")
	if i < 0 {
		return ""
	}
	j := strings.Index(lower[i:], "url(")
	if j < 0 {
		return ""
	}
	rest := style[i+j+len("url("):]
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return ""
	}
	v := strings.TrimSpace(rest[:end])
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return strings.TrimSpace(v)
}

// asciiLower lowercases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mediaURL accepts an absolute http(s) URL or a protocol-relative one
// (//cdn...), the forms t.me writes; anything else is not an address core
// should download.
func mediaURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "//") {
		raw = "https:" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(raw) > 4096 || !utf8.ValidString(u.Host) {
		return ""
	}
	return strings.ToValidUTF8(u.String(), "\uFFFD")
}

// linkURL resolves a link of the page (hashtag links are relative, e.g.
// ?q=%23tag) against base; only http(s) links are kept.
func linkURL(raw string, base *url.URL) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > 4096 {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !utf8.ValidString(u.Host) {
		return ""
	}
	return strings.ToValidUTF8(u.String(), "\uFFFD")
}

// parseCount reads a count as t.me prints it: "2", "1,234", "1.2K",
// "436.6K", "3.1M".
func parseCount(s string) (int64, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	s = strings.ReplaceAll(s, "\u00a0", "")
	s = strings.ReplaceAll(s, " ", "")
	if s == "" {
		return 0, false
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'K', 'k':
		mult, s = 1e3, s[:len(s)-1]
	case 'M', 'm':
		mult, s = 1e6, s[:len(s)-1]
	case 'B', 'b':
		mult, s = 1e9, s[:len(s)-1]
	}
	if s == "" || strings.ContainsAny(s, "+-eEnNiIxXpP_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	n := math.Round(f * mult)
	if n > 1e15 {
		return 0, false
	}
	return int64(n), true
}

// parseDuration reads "0:06", "12:41" or "1:02:03" as milliseconds.
func parseDuration(s string) uint32 {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0
	}
	var secs int64
	for _, p := range parts {
		if p == "" || len(p) > 4 {
			return 0
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0
		}
		secs = secs*60 + n
	}
	return uint32(min(secs*1000, math.MaxUint32))
}

// shortText cuts s to at most limit runes, so no upstream text of any
// length becomes one field.
func shortText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	return strings.TrimRightFunc(string(r[:limit]), unicode.IsSpace) + "…"
}
