package telegram

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gotd/td/telegram/query/dialogs"
	"github.com/gotd/td/tg"
	"github.com/gotd/td/tgerr"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// maxDialogs bounds the chats searched for a private channel's access
// hash: a t.me/c/ link names the channel by id only, and Telegram tells
// an account its channels' access hashes in its chat list.
const maxDialogs = 2000

// sessionPost is a message target read through a session: a public
// channel by username, or a private one by its internal id.
type sessionPost struct {
	scope    string // "<username>" or "c/<internal id>"
	username string
	internal int64
	id       int
}

// splitSessionPost reads "<channel>/<id>" or "c/<internal id>/<id>".
func splitSessionPost(ext string) (sessionPost, bool) {
	if rest, ok := strings.CutPrefix(ext, privateScopePrefix); ok {
		chText, idText, ok := strings.Cut(rest, "/")
		ch, ok1 := parseID(chText)
		id, ok2 := parseID(idText)
		if !ok || !ok1 || !ok2 || id > 1<<31-1 {
			return sessionPost{}, false
		}
		return sessionPost{scope: privateScopePrefix + strconv.FormatInt(ch, 10), internal: ch, id: int(id)}, true
	}
	ch, id, ok := splitPost(ext)
	if !ok || id > 1<<31-1 {
		return sessionPost{}, false
	}
	return sessionPost{scope: ch, username: ch, id: int(id)}, true
}

// fetchSession reads one message (an album whole), or a channel with a
// page of its posts, through the session in the request's credential.
func (a *Adapter) fetchSession(ctx context.Context, req *adapterv1.FetchRequest) *adapterv1.FetchResponse {
	t := req.GetTarget()
	switch t.GetEntityType() {
	case EntityTypeChannel:
		return a.fetchSessionChannel(ctx, req)
	case EntityTypeMessage:
	default:
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("entity type %s is not one the Telegram adapter fetches", kit.Quote(t.GetEntityType())))
	}
	p, ok := splitSessionPost(t.GetExternalId())
	if !ok {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("message id %s is not <channel>/<id> or c/<channel id>/<id>", kit.Quote(t.GetExternalId())))
	}
	if e := req.GetExpand(); e != "" && e != adapterv1.ExpandNone {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("expand %s is not something the Telegram adapter does for a message", kit.Quote(e)))
	}
	var out *adapterv1.FetchResponse
	e := a.withSession(ctx, req.GetCredential(), func(ctx context.Context, api *tg.Client) error {
		ch, err := findChannel(ctx, api, p, req.GetScopeCache())
		if err != nil {
			return err
		}
		members, err := albumAround(ctx, api, ch, p.id)
		if err != nil {
			return err
		}
		out, err = buildSessionMessage(p.scope, ch, members, p.id)
		if out != nil && p.internal != 0 {
			out.ScopeCache = scopeCacheOf(ch)
		}
		return err
	})
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	return out
}

// scopeCachePrefix versions what the provider asks core to keep for a
// private channel's scope: its access hash.
const scopeCachePrefix = "access_hash:"

// scopeCacheOf is what core keeps for a private channel through the
// connection.
func scopeCacheOf(ch *tg.Channel) string {
	return scopeCachePrefix + strconv.FormatInt(ch.AccessHash, 10)
}

// cachedChannel reads a private channel with the access hash core kept
// for it (channels.getChannels); nil when the hash is missing or stale.
func cachedChannel(ctx context.Context, api *tg.Client, id int64, cache string) (*tg.Channel, error) {
	hash, err := strconv.ParseInt(strings.TrimPrefix(cache, scopeCachePrefix), 10, 64)
	if !strings.HasPrefix(cache, scopeCachePrefix) || err != nil {
		return nil, nil
	}
	res, err := api.ChannelsGetChannels(ctx, []tg.InputChannelClass{&tg.InputChannel{ChannelID: id, AccessHash: hash}})
	if tgerr.Is(err, "CHANNEL_INVALID") {
		return nil, nil // stale: look again
	}
	if err != nil {
		return nil, err
	}
	for _, c := range res.GetChats() {
		switch c := c.(type) {
		case *tg.Channel:
			if c.ID == id {
				return c, nil
			}
		case *tg.ChannelForbidden:
			return nil, answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_PRIVATE, "this account cannot read the channel: it was banned from it"))
		}
	}
	return nil, nil
}

// findChannel finds the channel of a post with its access hash: by
// username, or for a private channel with the access hash core kept
// (cache), else among the account's chats.
func findChannel(ctx context.Context, api *tg.Client, p sessionPost, cache string) (*tg.Channel, error) {
	if p.username != "" {
		res, err := api.ContactsResolveUsername(ctx, &tg.ContactsResolveUsernameRequest{Username: p.username})
		if err != nil {
			return nil, err
		}
		for _, c := range res.Chats {
			if ch, ok := c.(*tg.Channel); ok {
				return ch, nil
			}
			if _, ok := c.(*tg.ChannelForbidden); ok {
				return nil, answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_PRIVATE, "this account cannot read the channel: it was banned from it"))
			}
		}
		return nil, answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, fmt.Sprintf(msgChannelNotFound, p.username)))
	}
	if cache != "" {
		if ch, err := cachedChannel(ctx, api, p.internal, cache); ch != nil || err != nil {
			return ch, err
		}
	}
	it := dialogs.NewQueryBuilder(api).GetDialogs().BatchSize(100).Iter()
	for n := 0; n < maxDialogs && it.Next(ctx); n++ {
		if ch, ok := it.Value().Entities.Channel(p.internal); ok {
			return ch, nil
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return nil, answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_PRIVATE,
		"this account is not a member of the channel; join it with the account (or add an account that is a member) and capture again"))
}

// inputChannel is the channel as requests name it.
func inputChannel(ch *tg.Channel) *tg.InputChannel {
	return &tg.InputChannel{ChannelID: ch.ID, AccessHash: ch.AccessHash}
}

// channelMessages reads messages of a channel by id; missing ones are
// left out.
func channelMessages(ctx context.Context, api *tg.Client, ch *tg.Channel, ids ...int) ([]*tg.Message, error) {
	in := make([]tg.InputMessageClass, 0, len(ids))
	for _, id := range ids {
		in = append(in, &tg.InputMessageID{ID: id})
	}
	res, err := api.ChannelsGetMessages(ctx, &tg.ChannelsGetMessagesRequest{Channel: inputChannel(ch), ID: in})
	if err != nil {
		return nil, err
	}
	mod, ok := res.AsModified()
	if !ok {
		return nil, answer(kit.BadResponse("Telegram answered channels.getMessages without messages"))
	}
	var out []*tg.Message
	for _, m := range mod.GetMessages() {
		if m, ok := m.(*tg.Message); ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// albumAround reads message id and, when it belongs to an album, the
// album's other members (albums have at most 10 members with close ids),
// in order.
func albumAround(ctx context.Context, api *tg.Client, ch *tg.Channel, id int) ([]*tg.Message, error) {
	var ids []int
	for i := max(1, id-(albumSpan-1)); i <= id+albumSpan-1; i++ {
		ids = append(ids, i)
	}
	msgs, err := channelMessages(ctx, api, ch, ids...)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(msgs, func(m *tg.Message) bool { return m.ID == id })
	if i < 0 {
		return nil, answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, msgPostNotFound))
	}
	target := msgs[i]
	if target.GroupedID == 0 {
		return []*tg.Message{target}, nil
	}
	var members []*tg.Message
	for _, m := range msgs {
		if m.GroupedID == target.GroupedID {
			members = append(members, m)
		}
	}
	slices.SortFunc(members, func(a, b *tg.Message) int { return a.ID - b.ID })
	return members, nil
}

// sessionMedia is one medium of a message read through a session.
type sessionMedia struct {
	media *adapterv1.Media
	data  mediaData
}

// mediaOfMessage is the medium a message carries, if it is one Monitor
// downloads (photos and documents: videos, GIFs, voice, files).
func mediaOfMessage(ch *tg.Channel, m *tg.Message) (sessionMedia, bool) {
	ref := mediaRef{V: 1, Channel: ch.ID, ChannelHash: ch.AccessHash, Msg: m.ID}
	switch md := m.Media.(type) {
	case *tg.MessageMediaPhoto:
		photo, ok := md.Photo.(*tg.Photo)
		if !ok {
			return sessionMedia{}, false
		}
		size, w, h := largestSize(photo.Sizes)
		if size == "" {
			return sessionMedia{}, false
		}
		ref.Photo, ref.ID, ref.Hash, ref.FileRef, ref.Thumb, ref.Mime = true, photo.ID, photo.AccessHash, photo.FileReference, size, "image/jpeg"
		return sessionMedia{
			media: &adapterv1.Media{Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: "image/jpeg", Width: uint32(w), Height: uint32(h),
				CacheKey: "telegram:photo:" + strconv.FormatInt(photo.ID, 10) + ":" + size, StreamRef: ref.String()},
			data: mediaData{MessageID: int64(m.ID), Kind: kindPhoto},
		}, true
	case *tg.MessageMediaDocument:
		doc, ok := md.Document.(*tg.Document)
		if !ok {
			return sessionMedia{}, false
		}
		ref.ID, ref.Hash, ref.FileRef, ref.Size, ref.Mime = doc.ID, doc.AccessHash, doc.FileReference, doc.Size, doc.MimeType
		out := sessionMedia{
			media: &adapterv1.Media{Kind: adapterv1.MediaKind_MEDIA_KIND_DOCUMENT, Mime: doc.MimeType,
				CacheKey: "telegram:document:" + strconv.FormatInt(doc.ID, 10)},
			data: mediaData{MessageID: int64(m.ID), Kind: kindDocument, Size: sizeText(doc.Size)},
		}
		for _, at := range doc.Attributes {
			switch at := at.(type) {
			case *tg.DocumentAttributeFilename:
				out.data.Title, out.media.Alt = shortText(at.FileName, 500), shortText(at.FileName, 500)
			case *tg.DocumentAttributeVideo:
				out.media.Width, out.media.Height = uint32(at.W), uint32(at.H)
				out.media.DurationMs = uint32(at.Duration * 1000)
				out.data.DurationMS = out.media.DurationMs
				if out.data.Kind != kindGIF {
					out.media.Kind, out.data.Kind = adapterv1.MediaKind_MEDIA_KIND_VIDEO, kindVideo
					if at.RoundMessage {
						out.data.Kind = kindRoundVideo
					}
				}
			case *tg.DocumentAttributeAnimated:
				out.media.Kind, out.data.Kind = adapterv1.MediaKind_MEDIA_KIND_GIF, kindGIF
			case *tg.DocumentAttributeAudio:
				out.media.Kind, out.data.Kind = adapterv1.MediaKind_MEDIA_KIND_AUDIO, kindAudio
				if at.Voice {
					out.data.Kind = kindVoice
				}
				out.media.DurationMs = uint32(at.Duration * 1000)
				out.data.DurationMS = out.media.DurationMs
			case *tg.DocumentAttributeSticker:
				out.data.Kind = kindSticker
			}
		}
		out.media.StreamRef = ref.String()
		return out, true
	}
	return sessionMedia{}, false
}

// largestSize is the biggest of a photo's sizes: its type, width and
// height ("" when the photo has none Monitor can download).
func largestSize(sizes []tg.PhotoSizeClass) (string, int, int) {
	var (
		best string
		w, h int
	)
	for _, s := range sizes {
		var t string
		var sw, sh int
		switch s := s.(type) {
		case *tg.PhotoSize:
			t, sw, sh = s.Type, s.W, s.H
		case *tg.PhotoSizeProgressive:
			t, sw, sh = s.Type, s.W, s.H
		case *tg.PhotoCachedSize:
			t, sw, sh = s.Type, s.W, s.H
		default:
			continue
		}
		if best == "" || sw*sh > w*h {
			best, w, h = t, sw, sh
		}
	}
	return best, w, h
}

// sizeText writes a file size the way Telegram's apps show it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// publicThroughSession reports whether a post read through a session is
// public: its channel has a username and neither the channel nor any of
// the messages forbids forwarding and saving (protected content).
func publicThroughSession(ch *tg.Channel, members []*tg.Message) bool {
	if channelUsername(ch) == "" || ch.Noforwards {
		return false
	}
	for _, m := range members {
		if m.Noforwards {
			return false
		}
	}
	return true
}

// channelUsername is a channel's public username, lowercase ("": none).
func channelUsername(ch *tg.Channel) string {
	if ch.Username != "" {
		return strings.ToLower(ch.Username)
	}
	for _, u := range ch.Usernames {
		if u.Active {
			return strings.ToLower(u.Username)
		}
	}
	return ""
}

// buildSessionMessage turns the members of a post (one message, or an
// album in order) into the FetchResponse's content, with the same
// telegram.message entity the public provider returns. scope is the
// channel part of the target ("<username>" or "c/<internal id>").
func buildSessionMessage(scope string, ch *tg.Channel, members []*tg.Message, requested int) (*adapterv1.FetchResponse, error) {
	root := members[0]
	rootID := int64(root.ID)
	rootKey := messageKey(scope, rootID)
	g := &kit.Graph{}

	var (
		resources []uint32
		media     []mediaData
		kinds     []mediaItem
		captioned = root
	)
	for _, m := range members {
		if captioned.Message == "" && m.Message != "" {
			captioned = m
		}
		sm, ok := mediaOfMessage(ch, m)
		if !ok {
			continue
		}
		resources = append(resources, g.AddMedia(sm.media)...)
		media = append(media, sm.data)
		kinds = append(kinds, mediaItem{kind: sm.data.Kind})
	}
	text := tidy(captioned.Message)
	markdown := tidy(entitiesMarkdown(captioned.Message, captioned.Entities))
	published := time.Unix(int64(root.Date), 0).UTC()
	edited := captioned.EditDate != 0 && !captioned.EditHide
	d := messageData{
		ID:           rootID,
		Channel:      scope,
		URL:          messageURL(scope, rootID),
		Text:         &text,
		TextMarkdown: markdown,
		PublishedAt:  published.Format(time.RFC3339),
		Edited:       &edited,
		Signature:    shortText(root.PostAuthor, 500),
		AuthorName:   shortText(ch.Title, 500),
		Media:        media,
	}
	if markdown == text {
		d.TextMarkdown = ""
	}
	if v, ok := root.GetViews(); ok {
		n := int64(v)
		d.Views = &n
	}
	if len(members) > 1 {
		d.AlbumID = rootID
	}
	if f, ok := root.GetFwdFrom(); ok {
		fd := &forwardData{Name: shortText(f.FromName, 500), Author: shortText(f.PostAuthor, 500)}
		if *fd != (forwardData{}) {
			d.ForwardedFrom = fd
		}
	}
	if err := g.AddEntity(rootKey, EntityTypeMessage, messageExternalID(scope, rootID), d, resources); err != nil {
		return nil, err
	}
	cd := channelData{Username: scope, URL: "https://t.me/" + scope, ID: -(1_000_000_000_000 + ch.ID), Title: shortText(ch.Title, 500), Verified: ch.Verified}
	if err := g.AddEntity(channelKey(scope), EntityTypeChannel, scope, cd, nil); err != nil {
		return nil, err
	}
	g.Relate(rootKey, relPostedIn, channelKey(scope))

	author := ch.Title
	if author == "" {
		author = "@" + scope
	}
	// A t.me/c/ link names even a public channel by its internal id; its
	// posts are public under the channel's username only, so one read by
	// id stays private.
	vis := adapterv1.Visibility_VISIBILITY_PRIVATE
	if !strings.HasPrefix(scope, privateScopePrefix) && publicThroughSession(ch, members) {
		vis = adapterv1.Visibility_VISIBILITY_PUBLIC
	}
	out := &adapterv1.FetchResponse{
		Visibility: vis,
		Display: &adapterv1.Display{
			Text:        text,
			TextKind:    adapterv1.TextKind_TEXT_KIND_PLAIN,
			Summary:     summary(author, text, kinds),
			AuthorName:  author,
			PublishedAt: timestamppb.New(published),
		},
		Media: g.Media,
		Graph: g.Proto(rootKey),
	}
	if rootID != int64(requested) {
		out.CanonicalTarget = messageTargetOf(scope, rootID)
	}
	return out, nil
}
