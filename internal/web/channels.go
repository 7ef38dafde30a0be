package web

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// The Channels page: where results go besides the chat they were asked
// from. It lists the channels the person bound with the bot's /bind (and
// those unbound, with why) and the cloud destinations the operator lets
// them push to. Binding happens in the bot, where Telegram can check the
// rights; this page only shows.

// channelService is what the Channels page needs.
type channelService interface {
	TenantBindings(ctx context.Context, tenantID uuid.UUID) ([]app.ChannelBindingView, error)
	TenantDestinations(ctx context.Context, tenantID uuid.UUID) ([]app.DestinationView, error)
}

// channelsView is the Channels page's Data.
type channelsView struct {
	Active, Unbound []app.ChannelBindingView
	Destinations    []app.DestinationView
}

func (s *server) channelRoutes() []route {
	return []route{{http.MethodGet, "/channels", signedIn, s.channels}}
}

// channels serves GET /channels.
func (s *server) channels(w http.ResponseWriter, r *http.Request, rq *request) {
	v, err := bindingsOf(r.Context(), s.d.App, rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	s.page(w, r, rq, http.StatusOK, "channels.html", &Page{Title: s.t(rq, "channels.title"), Nav: "channels", Data: v})
}

// bindingsOf reads a tenant's bindings and destinations for a page.
func bindingsOf(ctx context.Context, svc channelService, tenantID uuid.UUID) (*channelsView, error) {
	bs, err := svc.TenantBindings(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	v := &channelsView{}
	for _, b := range bs {
		if b.State == "active" {
			v.Active = append(v.Active, b)
		} else {
			v.Unbound = append(v.Unbound, b)
		}
	}
	v.Destinations, err = svc.TenantDestinations(ctx, tenantID)
	return v, err
}

// channelMessages are the Channels page's texts (the admin tenant page
// shares them).
func channelMessages() catalog {
	return catalog{
		"nav.channels":     {"Channels", "频道"},
		"channels.title":   {"Channels and drives", "频道与云盘"},
		"channels.heading": {"Where your archive goes", "你的存档会发送到哪里"},
		"channels.explain": {"Each post you archive is also copied into the channels you bound: make the bot an administrator of your channel with the right to post, then send it /bind @channel. /unbind stops it.",
			"你存档的每条帖子也会复制到你绑定的频道：先把机器人设为你频道的管理员并授予发布消息的权限，然后向它发送 /bind @频道名。发送 /unbind 即可停止。"},
		"channels.bound":         {"Bound channels", "已绑定的频道"},
		"channels.none":          {"No channel is bound.", "还没有绑定频道。"},
		"channels.since":         {"bound %s", "绑定于 %s"},
		"channels.unbound":       {"Unbound", "已解绑"},
		"channels.reason.manual": {"unbound by you", "由你解绑"},
		"channels.reason.channel_gone": {"the channel is gone, or the bot may no longer post there",
			"频道已不存在，或机器人已无权在那里发布"},
		"channels.type.channel":    {"channel", "频道"},
		"channels.type.supergroup": {"group", "群组"},
		"channels.drives":          {"Cloud drives", "云盘"},
		"channels.drives.explain": {"Send /download LINK to the bot, or POST /v1/collections/{id}/push, to upload a post and its media to one of these.",
			"向机器人发送 /download 链接，或调用 POST /v1/collections/{id}/push，即可把帖子及其媒体上传到其中之一。"},
		"channels.drives.none": {"The operator has not given you a cloud drive.", "管理员还没有为你开通云盘。"},
		"channels.default":     {"default", "默认"},
	}
}
