package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Messages of the errors people see.
const (
	msgPostNotFound    = "post not found: it was deleted, or the channel is private or does not exist"
	msgChannelNotFound = "channel not found: @%s is not a public channel or group, or its web preview is disabled"
	msgUnreadablePost  = "could not read this post: t.me's page has an unexpected shape (%s); Telegram may have changed its web preview"
	msgUnreadableChan  = "could not read this channel: t.me's page has an unexpected shape (%s); Telegram may have changed its web preview"
)

// Relation names of the entity graph.
const (
	relPostedIn      = "posted_in"
	relForwardedFrom = "forwarded_from"
	relRepliesTo     = "replies_to"
)

// Purposes of media that are not shown with the post.
const (
	purposeAvatar      = "avatar"
	purposeThumbnail   = "thumbnail"
	purposeLinkPreview = "link_preview"
	// purposeLinkPreviewVideo is the video a link preview plays.
	purposeLinkPreviewVideo = "link_preview_video"
	// purposeStickerPreview is the still image of an animated or video
	// sticker, which is what a browser can show of it.
	purposeStickerPreview = "sticker_preview"
	// purposePoster marks the still frame of a video or GIF that is shown:
	// resources of the message, one per shown video in order, or none.
	purposePoster = "poster"
)

// albumSpan is how far after a message an album it belongs to may reach:
// an album has at most 10 members with consecutive ids.
const albumSpan = 10

// Fetch reads one target through tme-public: a message (an album whole)
// or a channel's header with its posts page by page from page_cursor as
// related targets (none with expand "none"). Failures are answered in
// FetchResponse.error.
func (a *Adapter) Fetch(ctx context.Context, req *adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
	if req.GetProviderId() == ProviderMTProto {
		if resp, err := kit.CheckFetch(req, "Telegram", ProviderMTProto, Platform); resp != nil || err != nil {
			return resp, err
		}
		return a.fetchSession(ctx, req), nil
	}
	if resp, err := kit.CheckFetch(req, "Telegram", ProviderTmePublic, Platform); resp != nil || err != nil {
		return resp, err
	}
	t := req.GetTarget()
	switch t.GetEntityType() {
	case EntityTypeMessage:
		if strings.HasPrefix(t.GetExternalId(), privateScopePrefix) {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT,
				"this post is in a private channel; only a Telegram account that is a member can read it"), nil
		}
		ch, id, ok := splitPost(t.GetExternalId())
		if !ok {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				fmt.Sprintf("message id %s is not <channel>/<id> with a Telegram username and message id", kit.Quote(t.GetExternalId()))), nil
		}
		if scope := t.GetObjectScope(); scope != "" && !strings.EqualFold(scope, ch) {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				fmt.Sprintf("object scope %s does not match the message's channel %q", kit.Quote(scope), ch)), nil
		}
		if e := req.GetExpand(); e != "" && e != adapterv1.ExpandNone {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
				fmt.Sprintf("expand %s is not something the Telegram adapter does for a message", kit.Quote(e))), nil
		}
		return a.fetchMessage(ctx, ch, id), nil
	case EntityTypeChannel:
		ch := t.GetExternalId()
		if !validUsername(ch) {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				fmt.Sprintf("%s is not a valid Telegram username", kit.Quote(ch))), nil
		}
		switch req.GetExpand() {
		case "", adapterv1.ExpandNone:
			return a.fetchChannel(ctx, strings.ToLower(ch), req), nil
		}
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("expand %s is not something the Telegram adapter does for a channel", kit.Quote(req.GetExpand()))), nil
	}
	return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
		fmt.Sprintf("entity type %s is not one the Telegram adapter fetches", kit.Quote(t.GetEntityType()))), nil
}

// fetchMessage reads {base}/<channel>/<id>?embed=1&mode=tme and, when the
// post belongs to an album the embed does not show whole, the album from
// {base}/s/<channel>?before=<id+10>.
func (a *Adapter) fetchMessage(ctx context.Context, ch string, id int64) *adapterv1.FetchResponse {
	resp, e := a.tme.Get(ctx, "/"+ch+"/"+strconv.FormatInt(id, 10)+"?embed=1&mode=tme")
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	if e := a.statusError(resp, msgPostNotFound); e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	pg := parsePage(resp.Body)
	if pg.errorText != "" && len(pg.posts) == 0 {
		return &adapterv1.FetchResponse{Error: notFound(msgPostNotFound, pg.errorText)}
	}
	m, e := embedPost(pg, ch, id)
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	sources := []*adapterv1.SourceResponse{resp.Source()}

	// An album's later member may come alone: data-view says "grouped"
	// but the page has no album. t.me/s shows the album whole.
	if m.view.grouped && (!m.album || !containsMember(m, id)) {
		whole, src, e := a.albumFromChannelPage(ctx, ch, id)
		switch {
		case e != nil:
			return &adapterv1.FetchResponse{Error: e}
		case whole != nil:
			m = whole
			sources = append(sources, src)
		default:
			if src != nil {
				sources = append(sources, src)
			}
			m.media = append(m.media, mediaItem{messageID: id, kind: kindUnsupported, title: "album", unavailable: reasonAlbumRest})
			m.albumIncomplete = true
		}
	}
	out, err := buildMessage(m, id)
	if err != nil {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, "cannot encode the post: "+err.Error())
	}
	out.SourceResponses = sources
	return out
}

// embedPost picks the requested post out of an embed page; anything else
// on the page means it is not the page asked for.
func embedPost(pg *page, ch string, id int64) (*message, *adapterv1.Error) {
	if len(pg.posts) == 0 {
		return nil, unreadable(msgUnreadablePost, "no post in the page")
	}
	m, err := pg.findPost(ch, id)
	if err != nil {
		return nil, unreadable(msgUnreadablePost, shapeDetail(err))
	}
	if m == nil {
		got := pg.posts[0].AttrOr("data-post", "")
		return nil, &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE,
			Message: fmt.Sprintf("could not read this post: t.me answered with post %s instead of %s", kit.Quote(got), messageExternalID(ch, id))}
	}
	return m, nil
}

// albumFromChannelPage looks for the album holding message id on the
// channel's t.me/s page. It returns the album and the page, or (nil, page)
// when the page does not show it (a channel without a web preview), or an
// error that ends the fetch (t.me failing, a page of another shape).
func (a *Adapter) albumFromChannelPage(ctx context.Context, ch string, id int64) (*message, *adapterv1.SourceResponse, *adapterv1.Error) {
	before := id + albumSpan
	if before < id { // overflow
		before = id
	}
	resp, e := a.tme.Get(ctx, "/s/"+ch+"?before="+strconv.FormatInt(before, 10))
	if e != nil {
		return nil, nil, e
	}
	if resp.StatusCode == 404 || resp.StatusCode == 410 {
		return nil, resp.Source(), nil
	}
	if e := a.statusError(resp, msgPostNotFound); e != nil {
		return nil, nil, e
	}
	pg := parsePage(resp.Body)
	m, err := pg.findPost(ch, id)
	if err != nil {
		return nil, nil, unreadable(msgUnreadablePost, shapeDetail(err))
	}
	if m == nil || !m.album || !containsMember(m, id) {
		return nil, resp.Source(), nil
	}
	return m, resp.Source(), nil
}

func containsMember(m *message, id int64) bool {
	for _, it := range m.media {
		if it.messageID == id {
			return true
		}
	}
	return false
}

// fetchChannel reads the channel's t.me/s page at the request's cursor:
// its header is the telegram.channel root, and unless expand is "none"
// its posts, page after page toward older ones, are the related targets.
func (a *Adapter) fetchChannel(ctx context.Context, ch string, req *adapterv1.FetchRequest) *adapterv1.FetchResponse {
	cursor := req.GetPageCursor()
	before, ok := parseCursor(cursor)
	if !ok {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("page cursor %s is not one the Telegram adapter gave (before=<message id>); start from the first page", kit.Quote(cursor)))
	}
	resp, pg, e := a.channelPage(ctx, ch, before)
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	out, err := buildChannel(pg.channel)
	if err != nil {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, "cannot encode the channel: "+err.Error())
	}
	if req.GetExpand() == adapterv1.ExpandNone {
		out.SourceResponses = []*adapterv1.SourceResponse{resp.Source()}
		return out
	}
	first := pagePosts(ch, resp, pg)
	got, e := kit.Collect(ctx, cursor, req.GetPageSize(), 0, func(ctx context.Context, cursor string, _ int) (*kit.UpstreamPage, *adapterv1.Error) {
		if first != nil {
			p := first
			first = nil
			return p, nil
		}
		before, _ := parseCursor(cursor)
		resp, pg, e := a.channelPage(ctx, ch, before)
		if e != nil {
			return nil, e
		}
		return pagePosts(ch, resp, pg), nil
	})
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	out.RelatedTargets = got.Targets
	out.SourceResponses = got.Sources
	out.NextPageCursor = got.Next
	return out
}

// cursorPrefix starts a channel page cursor: "before=<id>" reads the
// posts older than message id, as t.me/s/<channel>?before=<id> does.
const cursorPrefix = "before="

// parseCursor reads a page cursor; "" is the newest page (before 0).
func parseCursor(c string) (int64, bool) {
	if c == "" {
		return 0, true
	}
	rest, ok := strings.CutPrefix(c, cursorPrefix)
	if !ok {
		return 0, false
	}
	return parseID(rest)
}

// channelPage reads {base}/s/<channel>[?before=<id>] and checks that it
// is the channel's page with its header.
func (a *Adapter) channelPage(ctx context.Context, ch string, before int64) (*kit.Response, *page, *adapterv1.Error) {
	p := "/s/" + ch
	if before > 0 {
		p += "?before=" + strconv.FormatInt(before, 10)
	}
	resp, e := a.tme.Get(ctx, p)
	if e != nil {
		return nil, nil, e
	}
	notFoundMsg := fmt.Sprintf(msgChannelNotFound, ch)
	if e := a.statusError(resp, notFoundMsg); e != nil {
		if e.Code == adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE {
			e.Message = strings.Replace(e.Message, "this post", "this channel", 1)
		}
		return nil, nil, e
	}
	pg := parsePage(resp.Body)
	info := pg.channel
	if info == nil {
		if pg.history || len(pg.posts) > 0 {
			return nil, nil, unreadable(msgUnreadableChan, "no channel header")
		}
		// t.me sends users, bots and channels without a web preview to
		// their contact page, which has no channel header.
		return nil, nil, notFound(notFoundMsg, "")
	}
	if info.username == "" {
		return nil, nil, unreadable(msgUnreadableChan, "no username in the channel header")
	}
	if info.username != ch {
		return nil, nil, &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE,
			Message: fmt.Sprintf("could not read this channel: t.me answered with @%s instead of @%s", info.username, ch)}
	}
	return resp, pg, nil
}

// pagePosts lists the channel's posts on a t.me/s page, newest first, as
// related targets: one per post, and one per album (the page shows an
// album as one post under its first member's id). The next page is the
// one before the oldest post, when the page links to older ones.
func pagePosts(ch string, resp *kit.Response, pg *page) *kit.UpstreamPage {
	out := &kit.UpstreamPage{Source: resp.Source()}
	var oldest int64
	for i := len(pg.posts) - 1; i >= 0; i-- {
		pch, id, ok := splitPost(pg.posts[i].AttrOr("data-post", ""))
		if !ok || pch != ch {
			continue
		}
		u := messageURL(ch, id)
		out.URLs = append(out.URLs, u)
		dt := own(pg.posts[i], ".tgme_widget_message_date time").First().AttrOr("datetime", "")
		if at, err := time.Parse(time.RFC3339, strings.TrimSpace(dt)); err == nil {
			if out.Published == nil {
				out.Published = map[string]time.Time{}
			}
			out.Published[u] = at.UTC()
		}
		if oldest == 0 || id < oldest {
			oldest = id
		}
	}
	if pg.older && oldest > 1 {
		out.Next = cursorPrefix + strconv.FormatInt(oldest, 10)
	}
	return out
}

func messageKey(ch string, id int64) string { return "message:" + messageExternalID(ch, id) }
func channelKey(ch string) string           { return "channel:" + ch }

// addChannelStub adds a channel known only by username (and maybe name)
// unless the graph has it.
func addChannelStub(g *kit.Graph, ch, title string) error {
	return g.AddEntity(channelKey(ch), EntityTypeChannel, ch,
		channelData{Username: ch, URL: "https://t.me/" + ch, Title: shortText(title, 500), Preview: true}, nil)
}

// messageData is the data of a telegram.message entity
// (schemas/telegram.message.json).
type messageData struct {
	ID              int64         `json:"id"`
	Channel         string        `json:"channel"`
	URL             string        `json:"url"`
	Preview         bool          `json:"preview,omitempty"`
	Text            *string       `json:"text,omitempty"`
	TextMarkdown    string        `json:"text_markdown,omitempty"`
	PublishedAt     string        `json:"published_at,omitempty"`
	Edited          *bool         `json:"edited,omitempty"`
	Signature       string        `json:"signature,omitempty"`
	AuthorName      string        `json:"author_name,omitempty"`
	AuthorUsername  string        `json:"author_username,omitempty"`
	Views           *int64        `json:"views,omitempty"`
	ViewsText       string        `json:"views_text,omitempty"`
	Service         bool          `json:"service,omitempty"`
	AlbumID         int64         `json:"album_id,omitempty"`
	AlbumIncomplete bool          `json:"album_incomplete,omitempty"`
	Media           []mediaData   `json:"media,omitempty"`
	ForwardedFrom   *forwardData  `json:"forwarded_from,omitempty"`
	ReplyTo         *replyData    `json:"reply_to,omitempty"`
	LinkPreview     *linkPrevData `json:"link_preview,omitempty"`
	Poll            *pollData     `json:"poll,omitempty"`
}

type mediaData struct {
	MessageID         int64  `json:"message_id"`
	Kind              string `json:"kind"`
	DurationMS        uint32 `json:"duration_ms,omitempty"`
	Title             string `json:"title,omitempty"`
	Size              string `json:"size,omitempty"`
	UnavailableReason string `json:"unavailable_reason,omitempty"`
	Format            string `json:"format,omitempty"`
	PreviewDataURL    string `json:"preview_data_url,omitempty"`
}

type forwardData struct {
	Name      string `json:"name,omitempty"`
	Author    string `json:"author,omitempty"`
	URL       string `json:"url,omitempty"`
	Channel   string `json:"channel,omitempty"`
	MessageID int64  `json:"message_id,omitempty"`
}

type replyData struct {
	Channel    string `json:"channel"`
	MessageID  int64  `json:"message_id"`
	URL        string `json:"url,omitempty"`
	AuthorName string `json:"author_name,omitempty"`
	Text       string `json:"text,omitempty"`
}

type linkPrevData struct {
	URL             string `json:"url,omitempty"`
	SiteName        string `json:"site_name,omitempty"`
	Title           string `json:"title,omitempty"`
	Description     string `json:"description,omitempty"`
	ImageURL        string `json:"image_url,omitempty"`
	Video           bool   `json:"video,omitempty"`
	VideoURL        string `json:"video_url,omitempty"`
	VideoDurationMS uint32 `json:"video_duration_ms,omitempty"`
}

type pollData struct {
	Question        string           `json:"question,omitempty"`
	Type            string           `json:"type,omitempty"`
	Voters          string           `json:"voters,omitempty"`
	VotersCount     *int64           `json:"voters_count,omitempty"`
	MultipleAnswers bool             `json:"multiple_answers,omitempty"`
	Options         []pollOptionData `json:"options,omitempty"`
}

type pollOptionData struct {
	Text    string `json:"text"`
	Percent *int64 `json:"percent,omitempty"`
}

// channelData is the data of a telegram.channel entity
// (schemas/telegram.channel.json).
type channelData struct {
	Username            string `json:"username"`
	URL                 string `json:"url"`
	Preview             bool   `json:"preview,omitempty"`
	ID                  int64  `json:"id,omitempty"`
	Title               string `json:"title,omitempty"`
	Description         string `json:"description,omitempty"`
	DescriptionMarkdown string `json:"description_markdown,omitempty"`
	AvatarURL           string `json:"avatar_url,omitempty"`
	Verified            bool   `json:"verified,omitempty"`
	Subscribers         *int64 `json:"subscribers,omitempty"`
	Photos              *int64 `json:"photos,omitempty"`
	Videos              *int64 `json:"videos,omitempty"`
	Files               *int64 `json:"files,omitempty"`
	Links               *int64 `json:"links,omitempty"`
}

// buildMessage turns a parsed post into the FetchResponse's content.
// requested is the id the target named: an album's later member answers
// with the album, whose identity (canonical_target) is its first message.
//
// Media order: the display media (album members in order), then
// thumbnails of videos the preview does not give, still previews of
// animated and video stickers, the link preview's image and its video
// (resources of the message), then the channel's avatar (a resource of the
// channel), then the posters of the videos shown (resources of the
// message).
func buildMessage(m *message, requested int64) (*adapterv1.FetchResponse, error) {
	rootID := m.id
	if m.album {
		rootID = m.media[0].messageID
	}
	ch := m.channel
	rootKey := messageKey(ch, rootID)
	g := &kit.Graph{}

	var (
		resources []uint32
		media     []mediaData
	)
	for _, it := range m.media {
		resources = append(resources, g.AddMedia(displayMedia(it))...)
		media = append(media, mediaData{MessageID: it.messageID, Kind: it.kind, DurationMS: it.durationMS,
			Title: it.title, Size: it.sizeText, UnavailableReason: it.unavailable,
			Format: it.format, PreviewDataURL: it.previewData})
	}
	for _, it := range m.media {
		if it.unavailable != "" && it.thumbURL != "" {
			resources = append(resources, g.AddMedia(imageResource(it.thumbURL, purposeThumbnail))...)
		}
		if it.previewURL != "" {
			resources = append(resources, g.AddMedia(imageResource(it.previewURL, purposeStickerPreview))...)
		}
	}
	if p := m.preview; p != nil {
		if p.imageURL != "" {
			resources = append(resources, g.AddMedia(imageResource(p.imageURL, purposeLinkPreview))...)
		}
		if p.videoURL != "" {
			resources = append(resources, g.AddMedia(&adapterv1.Media{Url: p.videoURL, Kind: adapterv1.MediaKind_MEDIA_KIND_VIDEO,
				Mime: "video/mp4", DurationMs: p.videoDurationMS, Purpose: purposeLinkPreviewVideo})...)
		}
	}

	text := m.text
	edited := m.edited
	d := messageData{
		ID:           rootID,
		Channel:      ch,
		URL:          messageURL(ch, rootID),
		Text:         &text,
		TextMarkdown: m.markdown,
		PublishedAt:  m.published.Format(time.RFC3339),
		Edited:       &edited,
		Signature:    shortText(m.signature, 500),
		AuthorName:   shortText(m.ownerName, 500),
		Views:        m.views,
		ViewsText:    shortText(m.viewsText, 50),
		Service:      m.service,
		Media:        media,
	}
	if m.markdown == m.text {
		d.TextMarkdown = ""
	}
	if !m.ownedByChannel() {
		d.AuthorUsername = m.ownerUsername
	}
	if m.album {
		d.AlbumID = rootID
	}
	d.AlbumIncomplete = m.albumIncomplete
	if f := m.forward; f != nil {
		d.ForwardedFrom = &forwardData{Name: f.name, Author: f.author, URL: f.url, Channel: f.channel, MessageID: f.messageID}
	}
	if r := m.reply; r != nil {
		d.ReplyTo = &replyData{Channel: r.channel, MessageID: r.messageID, URL: r.url, AuthorName: r.authorName, Text: shortText(r.text, 4000)}
	}
	if p := m.preview; p != nil {
		d.LinkPreview = &linkPrevData{URL: p.url, SiteName: p.siteName, Title: p.title, Description: shortText(p.description, 4000), ImageURL: p.imageURL,
			Video: p.videoURL != "" || p.videoDurationMS > 0, VideoURL: p.videoURL, VideoDurationMS: p.videoDurationMS}
	}
	if p := m.poll; p != nil {
		pd := &pollData{Question: shortText(p.question, 1000), Type: shortText(p.kind, 200), Voters: shortText(p.voters, 200),
			VotersCount: p.votersCount, MultipleAnswers: p.multiple}
		for _, o := range p.options {
			pd.Options = append(pd.Options, pollOptionData{Text: shortText(o.text, 1000), Percent: o.percent})
		}
		d.Poll = pd
	}
	if err := g.AddEntity(rootKey, EntityTypeMessage, messageExternalID(ch, rootID), d, resources); err != nil {
		return nil, err
	}

	// The channel: its name and picture when the header is the channel's
	// own (not a group member's).
	cd := channelData{Username: ch, URL: "https://t.me/" + ch, ID: m.view.channelID}
	var chRes []uint32
	if m.ownedByChannel() {
		cd.Title = shortText(m.ownerName, 500)
		if m.avatarURL != "" {
			cd.AvatarURL = m.avatarURL
			chRes = append(chRes, g.AddMedia(imageResource(m.avatarURL, purposeAvatar))...)
		}
	}
	if err := g.AddEntity(channelKey(ch), EntityTypeChannel, ch, cd, chRes); err != nil {
		return nil, err
	}
	g.Relate(rootKey, relPostedIn, channelKey(ch))
	g.AddResources(rootKey, posters(m.media)...)

	if f := m.forward; f != nil && f.channel != "" {
		if err := addChannelStub(g, f.channel, f.name); err != nil {
			return nil, err
		}
		to := channelKey(f.channel)
		if f.messageID > 0 {
			to = messageKey(f.channel, f.messageID)
			if !g.Has(to) {
				if err := g.AddEntity(to, EntityTypeMessage, messageExternalID(f.channel, f.messageID),
					messageData{ID: f.messageID, Channel: f.channel, URL: messageURL(f.channel, f.messageID), Preview: true, Signature: f.author}, nil); err != nil {
					return nil, err
				}
				g.Relate(to, relPostedIn, channelKey(f.channel))
			}
		}
		if to != rootKey {
			g.Relate(rootKey, relForwardedFrom, to)
		}
	}
	if r := m.reply; r != nil {
		to := messageKey(r.channel, r.messageID)
		if to != rootKey {
			if !g.Has(to) {
				replyText := shortText(r.text, 4000)
				if err := g.AddEntity(to, EntityTypeMessage, messageExternalID(r.channel, r.messageID),
					messageData{ID: r.messageID, Channel: r.channel, URL: r.url, Preview: true, Text: &replyText, AuthorName: r.authorName}, nil); err != nil {
					return nil, err
				}
				if err := addChannelStub(g, r.channel, ""); err != nil {
					return nil, err
				}
				g.Relate(to, relPostedIn, channelKey(r.channel))
			}
			g.Relate(rootKey, relRepliesTo, to)
		}
	}

	author := m.ownerName
	if author == "" {
		author = "@" + ch
	}
	// A poll without a caption is known by its question.
	line := m.text
	if line == "" && m.poll != nil {
		line = m.poll.question
	}
	out := &adapterv1.FetchResponse{
		Visibility: adapterv1.Visibility_VISIBILITY_PUBLIC,
		Display: &adapterv1.Display{
			Text:        m.text,
			TextKind:    adapterv1.TextKind_TEXT_KIND_PLAIN,
			Summary:     summary(author, line, m.media),
			AuthorName:  author,
			PublishedAt: timestamppb.New(m.published),
		},
		Media: g.Media,
		Graph: g.Proto(rootKey),
	}
	if rootID != requested {
		out.CanonicalTarget = messageTargetOf(ch, rootID)
	}
	return out, nil
}

// buildChannel turns a t.me/s channel header into the FetchResponse's
// content.
func buildChannel(c *channelInfo) (*adapterv1.FetchResponse, error) {
	g := &kit.Graph{}
	d := channelData{
		Username:            c.username,
		URL:                 "https://t.me/" + c.username,
		ID:                  c.id,
		Title:               shortText(c.title, 500),
		Description:         c.description,
		DescriptionMarkdown: c.descMD,
		AvatarURL:           c.avatarURL,
		Verified:            c.verified,
	}
	if d.DescriptionMarkdown == d.Description {
		d.DescriptionMarkdown = ""
	}
	counts := map[string]**int64{"subscribers": &d.Subscribers, "photos": &d.Photos, "videos": &d.Videos, "files": &d.Files, "links": &d.Links}
	for k, p := range counts {
		if n, ok := c.counters[k]; ok {
			*p = &n
		}
	}
	var res []uint32
	if c.avatarURL != "" {
		res = append(res, g.AddMedia(imageResource(c.avatarURL, purposeAvatar))...)
	}
	key := channelKey(c.username)
	if err := g.AddEntity(key, EntityTypeChannel, c.username, d, res); err != nil {
		return nil, err
	}
	author := c.title
	if author == "" {
		author = "@" + c.username
	}
	return &adapterv1.FetchResponse{
		Visibility: adapterv1.Visibility_VISIBILITY_PUBLIC,
		Display: &adapterv1.Display{
			Text:       c.description,
			TextKind:   adapterv1.TextKind_TEXT_KIND_PLAIN,
			Summary:    summary(author, c.description, nil),
			AuthorName: author,
		},
		Media: g.Media,
		Graph: g.Proto(key),
	}, nil
}

// displayMedia is the Media of one post medium. CDN addresses are signed
// and change, so none is a cache key.
func displayMedia(it mediaItem) *adapterv1.Media {
	md := &adapterv1.Media{Url: it.url, DurationMs: it.durationMS, UnavailableReason: it.unavailable, Alt: it.title}
	switch it.kind {
	case kindPhoto:
		md.Kind, md.Mime = adapterv1.MediaKind_MEDIA_KIND_IMAGE, imageMime(it.url)
	case kindSticker:
		switch it.format {
		case stickerTGS:
			md.Kind, md.Mime = adapterv1.MediaKind_MEDIA_KIND_DOCUMENT, "application/x-tgsticker"
		case stickerWebM:
			md.Kind, md.Mime = adapterv1.MediaKind_MEDIA_KIND_DOCUMENT, "video/webm"
		default:
			md.Kind, md.Mime = adapterv1.MediaKind_MEDIA_KIND_IMAGE, "image/webp"
		}
	case kindVideo, kindRoundVideo:
		md.Kind, md.Mime = adapterv1.MediaKind_MEDIA_KIND_VIDEO, "video/mp4"
	case kindGIF:
		md.Kind, md.Mime = adapterv1.MediaKind_MEDIA_KIND_GIF, "video/mp4"
	case kindVoice:
		md.Kind, md.Mime = adapterv1.MediaKind_MEDIA_KIND_AUDIO, "audio/ogg"
	case kindAudio:
		md.Kind = adapterv1.MediaKind_MEDIA_KIND_AUDIO
	default:
		md.Kind = adapterv1.MediaKind_MEDIA_KIND_DOCUMENT
	}
	if md.Url == "" && md.UnavailableReason == "" {
		md.UnavailableReason = "Telegram's web preview gave no address for this medium"
	}
	return md
}

// posters are the still frames of the videos and GIFs a post shows, in
// their order: one for every shown video, or none when one has no frame,
// so that a reader can pair the n-th poster with the n-th video.
func posters(items []mediaItem) []*adapterv1.Media {
	var out []*adapterv1.Media
	for _, it := range items {
		if (it.kind != kindVideo && it.kind != kindRoundVideo && it.kind != kindGIF) || it.unavailable != "" {
			continue
		}
		if it.thumbURL == "" {
			return nil
		}
		out = append(out, imageResource(it.thumbURL, purposePoster))
	}
	return out
}

func imageResource(u, purpose string) *adapterv1.Media {
	return &adapterv1.Media{Url: u, Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: imageMime(u), Purpose: purpose}
}

// imageMime reads an image's type from its extension; Telegram's CDN
// serves JPEG when there is none.
func imageMime(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "image/jpeg"
	}
	switch strings.ToLower(path.Ext(u.Path)) {
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	}
	return "image/jpeg"
}

// unreadable is the permanent error of a page of another shape.
func unreadable(format, detail string) *adapterv1.Error {
	return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, Message: fmt.Sprintf(format, detail)}
}

// shapeDetail is the part of a shape error a person reads.
func shapeDetail(err error) string {
	if errors.Is(err, errShape) {
		return strings.TrimPrefix(err.Error(), errShape.Error()+": ")
	}
	return err.Error()
}

// notFound is ERROR_CODE_NOT_FOUND with t.me's own words as the reason
// when they are short ("Post not found").
func notFound(msg, upstream string) *adapterv1.Error {
	e := &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: msg}
	if r := shortReason(upstream); r != "" {
		e.Reason = r
	}
	return e
}

// shortReason keeps an upstream reason only if it is a few plain words, so
// no upstream text of any length reaches a person's screen.
func shortReason(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 60 {
		return ""
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ' ' || c == '.' || c == '\'') {
			return ""
		}
	}
	return s
}
