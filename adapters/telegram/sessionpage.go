package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gotd/td/tg"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// A channel through a session is a collection like the preview provider's
// channel pages: the channel is the root, and its posts, newest first,
// are the related targets, page by page (messages.getHistory with the
// cursor "before=<message id>", the same one t.me/s pages use). An album
// is one post under its first member's link. core captures each post
// through the same account, so a private channel's posts stay the
// tenant's.

// historyLimit is the most messages one messages.getHistory returns.
const historyLimit = 100

// sessionChannel is a channel target read through a session: a public
// channel by username, or a private one by its internal id ("c/<id>").
func sessionChannel(ext string) (sessionPost, bool) {
	if rest, ok := strings.CutPrefix(ext, privateScopePrefix); ok {
		id, ok := parseID(rest)
		if !ok {
			return sessionPost{}, false
		}
		return sessionPost{scope: privateScopePrefix + strconv.FormatInt(id, 10), internal: id}, true
	}
	if !validUsername(ext) {
		return sessionPost{}, false
	}
	name := strings.ToLower(ext)
	return sessionPost{scope: name, username: name}, true
}

// fetchSessionChannel reads a channel through the session: its header,
// and unless expand is "none" a page of its posts from the cursor.
func (a *Adapter) fetchSessionChannel(ctx context.Context, req *adapterv1.FetchRequest) *adapterv1.FetchResponse {
	t := req.GetTarget()
	p, ok := sessionChannel(t.GetExternalId())
	if !ok {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("channel id %s is not a Telegram username or c/<channel id>", kit.Quote(t.GetExternalId())))
	}
	switch req.GetExpand() {
	case "", adapterv1.ExpandNone:
	default:
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("expand %s is not something the Telegram adapter does for a channel", kit.Quote(req.GetExpand())))
	}
	cursor := req.GetPageCursor()
	if _, ok := parseCursor(cursor); !ok {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("page cursor %s is not one the Telegram adapter gave (before=<message id>); start from the first page", kit.Quote(cursor)))
	}
	var out *adapterv1.FetchResponse
	e := a.withSession(ctx, req.GetCredential(), func(ctx context.Context, api *tg.Client) error {
		ch, err := findChannel(ctx, api, p, req.GetScopeCache())
		if err != nil {
			return err
		}
		if out, err = buildSessionChannel(p.scope, ch); err != nil {
			return err
		}
		if p.internal != 0 {
			out.ScopeCache = scopeCacheOf(ch)
		}
		if req.GetExpand() == adapterv1.ExpandNone {
			return nil
		}
		got, e := kit.Collect(ctx, cursor, req.GetPageSize(), 0, func(ctx context.Context, cursor string, want int) (*kit.UpstreamPage, *adapterv1.Error) {
			before, _ := parseCursor(cursor)
			pg, err := historyPage(ctx, api, ch, p.scope, int(before), want)
			if err != nil {
				return nil, sessionError(ctx, err)
			}
			return pg, nil
		})
		if e != nil {
			return answer(e)
		}
		out.RelatedTargets, out.NextPageCursor = got.Targets, got.Next
		return nil
	})
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	return out
}

// historyPage reads up to want posts of a channel older than message
// before (0: the newest), newest first: one link per message, one per
// album (its first member). It asks for albumSpan-1 messages more than
// wanted, so an album at the page's end is seen whole; one that may go
// on past what was read is left for the next page.
func historyPage(ctx context.Context, api *tg.Client, ch *tg.Channel, scope string, before, want int) (*kit.UpstreamPage, error) {
	want = max(want, 1)
	limit := min(want+albumSpan-1, historyLimit)
	res, err := api.MessagesGetHistory(ctx, &tg.MessagesGetHistoryRequest{
		Peer: &tg.InputPeerChannel{ChannelID: ch.ID, AccessHash: ch.AccessHash}, OffsetID: before, Limit: limit})
	if err != nil {
		return nil, err
	}
	mod, ok := res.AsModified()
	if !ok {
		return nil, answer(kit.BadResponse("Telegram answered messages.getHistory without messages"))
	}
	raw := mod.GetMessages()
	full := len(raw) >= limit // older messages may follow
	// The posts in the order Telegram gave (newest first), an album as
	// its members together.
	type post struct {
		grouped int64
		members []*tg.Message
	}
	var (
		posts  []*post
		albums = map[int64]*post{}
		oldest int // the oldest message id read, of any kind
	)
	for _, m := range raw {
		if id := m.GetID(); oldest == 0 || id < oldest {
			oldest = id
		}
		msg, ok := m.(*tg.Message) // service messages (pins, joins) are not posts
		if !ok {
			continue
		}
		if msg.GroupedID != 0 {
			if p, ok := albums[msg.GroupedID]; ok {
				p.members = append(p.members, msg)
				continue
			}
		}
		p := &post{grouped: msg.GroupedID, members: []*tg.Message{msg}}
		posts = append(posts, p)
		if msg.GroupedID != 0 {
			albums[msg.GroupedID] = p
		}
	}
	out := &kit.UpstreamPage{Published: map[string]time.Time{}}
	next := 0 // the cursor's message id: the oldest one taken
	for i, p := range posts {
		first := p.members[0]
		for _, m := range p.members {
			if m.ID < first.ID {
				first = m
			}
		}
		// An album reaching the oldest message read may have older
		// members on the next page: it is read whole there.
		if full && i > 0 && p.grouped != 0 && first.ID == oldest && len(p.members) < albumSpan {
			break
		}
		if len(out.URLs) == want {
			break
		}
		u := messageURL(scope, int64(first.ID))
		out.URLs = append(out.URLs, u)
		out.Published[u] = time.Unix(int64(first.Date), 0).UTC()
		next = first.ID
	}
	if next > 1 && (len(out.URLs) < len(posts) || full) {
		out.Next = cursorPrefix + strconv.Itoa(next)
	}
	return out, nil
}

// buildSessionChannel is a channel's header as read through a session:
// the telegram.channel root, public for a channel with a username that
// does not protect its content and is named by it.
func buildSessionChannel(scope string, ch *tg.Channel) (*adapterv1.FetchResponse, error) {
	g := &kit.Graph{}
	cd := channelData{Username: scope, URL: "https://t.me/" + scope, ID: -(1_000_000_000_000 + ch.ID),
		Title: shortText(ch.Title, 500), Verified: ch.Verified}
	if n, ok := ch.GetParticipantsCount(); ok {
		c := int64(n)
		cd.Subscribers = &c
	}
	key := channelKey(scope)
	if err := g.AddEntity(key, EntityTypeChannel, scope, cd, nil); err != nil {
		return nil, err
	}
	author := ch.Title
	if author == "" {
		author = "@" + scope
	}
	vis := adapterv1.Visibility_VISIBILITY_PRIVATE
	if !strings.HasPrefix(scope, privateScopePrefix) && channelUsername(ch) == scope && !ch.Noforwards {
		vis = adapterv1.Visibility_VISIBILITY_PUBLIC
	}
	return &adapterv1.FetchResponse{
		Visibility: vis,
		Display: &adapterv1.Display{
			Text:        ch.Title,
			TextKind:    adapterv1.TextKind_TEXT_KIND_PLAIN,
			Summary:     summary(author, "", nil),
			AuthorName:  author,
			PublishedAt: timestamppb.New(time.Unix(int64(ch.Date), 0).UTC()),
		},
		Graph: g.Proto(key),
	}, nil
}
