package channelserver

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// routes registers the route table: every path of the protocol
// (channelapi.Path*), what it decodes, the business action it calls and
// what it answers.
func (s *server) routes(mux *http.ServeMux) {
	post := func(path string, h http.HandlerFunc) { mux.HandleFunc("POST "+path, h) }

	post(channelapi.PathHello, call(s, func(ctx context.Context, _ uuid.UUID, in channelapi.Hello) (channelapi.HelloReply, error) {
		r, err := s.svc.ChannelHello(ctx, instanceOf(in))
		return helloReply(r), err
	}))
	post(channelapi.PathPollLease, call(s, func(ctx context.Context, _ uuid.UUID, in channelapi.PollLeaseRequest) (channelapi.PollLeaseReply, error) {
		r, err := s.svc.ChannelPollLease(ctx, pollLeaseRequest(in))
		return pollLeaseReply(r), err
	}))
	post(channelapi.PathUpdates, call(s, func(ctx context.Context, _ uuid.UUID, in channelapi.UpdatesRequest) (channelapi.UpdatesReply, error) {
		r, err := s.svc.ChannelAcceptUpdates(ctx, updatesRequest(in))
		return updatesReply(r), err
	}))
	post(channelapi.PathClaim, call(s, func(ctx context.Context, _ uuid.UUID, in channelapi.ClaimRequest) (channelapi.ClaimReply, error) {
		w, err := s.svc.ChannelClaim(ctx, claimRequest(in))
		return channelapi.ClaimReply{Work: worksOf(w)}, err
	}))
	post(channelapi.PathRenew, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.LeaseReply, error) {
		expires, err := s.svc.ChannelRenew(ctx, id, in.Owner)
		return channelapi.LeaseReply{LeaseExpiresAt: expires}, err
	}))
	post(channelapi.PathProgress, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.ProgressRequest) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelProgress(ctx, id, in.Owner, in.Progress)
	}))
	post(channelapi.PathDone, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelDone(ctx, id, in.Owner)
	}))
	post(channelapi.PathDefer, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.DeferRequest) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelDefer(ctx, id, in.Owner, in.AfterSeconds, in.Error)
	}))
	post(channelapi.PathFail, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.FailRequest) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelFail(ctx, id, in.Owner, in.Error)
	}))
	post(channelapi.PathMessages, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.MessagesRequest) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelMessages(ctx, id, in.Owner, in.ChatID, in.MessageIDs)
	}))
	post(channelapi.PathCapture, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.CaptureRequest) (channelapi.CaptureReply, error) {
		r, err := s.svc.ChannelCapture(ctx, id, captureRequest(in))
		return captureReply(r), err
	}))
	post(channelapi.PathList, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.ListRequest) (channelapi.ListReply, error) {
		p, err := s.svc.ChannelList(ctx, id, in.Owner, in.After, in.Limit)
		return listReply(p), err
	}))
	post(channelapi.PathSearch, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.SearchRequest) (channelapi.SearchReply, error) {
		p, err := s.svc.ChannelSearch(ctx, id, in.Owner, in.Query, in.Page, in.After, in.Limit)
		return searchReply(p), err
	}))
	post(channelapi.PathGet, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.ItemRequest) (channelapi.Item, error) {
		v, err := s.svc.ChannelGet(ctx, id, in.Owner, in.ID)
		return itemOf(v), err
	}))
	post(channelapi.PathDelete, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.ItemRequest) (channelapi.DeleteReply, error) {
		deleted, err := s.svc.ChannelDelete(ctx, id, in.Owner, in.ID)
		return channelapi.DeleteReply{ID: deleted}, err
	}))
	post(channelapi.PathSave, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.ItemRequest) (channelapi.SaveReply, error) {
		r, err := s.svc.ChannelSave(ctx, id, in.Owner, in.ID)
		return saveReply(r), err
	}))
	post(channelapi.PathUsage, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.UsageReply, error) {
		r, err := s.svc.ChannelUsage(ctx, id, in.Owner)
		return usageReply(r), err
	}))
	post(channelapi.PathToken, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.TokenReply, error) {
		r, err := s.svc.ChannelToken(ctx, id, in.Owner)
		return tokenReply(r), err
	}))
	post(channelapi.PathLoginLink, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.LoginLinkRequest) (channelapi.LoginLinkReply, error) {
		r, err := s.svc.ChannelLoginLink(ctx, id, in.Owner, in.Console)
		return loginLinkReply(r), err
	}))
	post(channelapi.PathDelivery, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.Delivery, error) {
		d, err := s.svc.ChannelDelivery(ctx, id, in.Owner)
		return deliveryOf(d), err
	}))
	post(channelapi.PathMore, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.MoreRequest) (channelapi.Collection, error) {
		c, err := s.svc.ChannelMore(ctx, id, moreRequest(in))
		return collectionOf(c), err
	}))
	post(channelapi.PathStop, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.StopRequest) (channelapi.Collection, error) {
		c, err := s.svc.ChannelStop(ctx, id, in.Owner, in.SubmissionID)
		return collectionOf(c), err
	}))
	post(channelapi.PathWatch, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.WatchRequest) (channelapi.Watch, error) {
		w, err := s.svc.ChannelWatch(ctx, id, in.Owner, in.URL, in.IntervalSeconds)
		return watchOf(w), err
	}))
	post(channelapi.PathWatches, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.WatchesReply, error) {
		ws, err := s.svc.ChannelWatches(ctx, id, in.Owner)
		return watchesReply(ws), err
	}))
	post(channelapi.PathUnwatch, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.UnwatchRequest) (channelapi.Watch, error) {
		w, err := s.svc.ChannelUnwatch(ctx, id, in.Owner, in.Ref)
		return watchOf(w), err
	}))
	post(channelapi.PathBind, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.BindRequest) (channelapi.BindReply, error) {
		r, err := s.svc.ChannelBind(ctx, id, bindRequest(in))
		return channelapi.BindReply{Binding: bindingOf(r.Binding), Already: r.Already, Limit: r.Limit}, err
	}))
	post(channelapi.PathBindings, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.BindingsReply, error) {
		bs, err := s.svc.ChannelBindings(ctx, id, in.Owner)
		return bindingsReply(bs), err
	}))
	post(channelapi.PathUnbind, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.UnbindRequest) (channelapi.Binding, error) {
		b, err := s.svc.ChannelUnbind(ctx, id, in.Owner, in.Ref)
		return bindingOf(b), err
	}))
	post(channelapi.PathCopyGone, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.CopyGoneRequest) (channelapi.CopyGoneReply, error) {
		b, changed, err := s.svc.ChannelCopyGone(ctx, id, in.Owner, in.Error)
		out := bindingOf(b)
		out.OwnerChatID = b.OwnerChatID
		return channelapi.CopyGoneReply{Binding: out, Changed: changed}, err
	}))
	post(channelapi.PathSent, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.SentRequest) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelSent(ctx, id, in.Owner, in.ChatID, in.MessageIDs, in.Kind)
	}))
	post(channelapi.PathCancel, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.ReplyRequest) (channelapi.CancelReply, error) {
		r, err := s.svc.ChannelCancel(ctx, id, in.Owner, in.ReplyToMessageID, in.URL)
		return channelapi.CancelReply{Cancelled: r.Cancelled, URL: r.URL}, err
	}))
	post(channelapi.PathPin, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.ReplyRequest) (channelapi.PinReply, error) {
		ts, err := s.svc.ChannelPin(ctx, id, in.Owner, in.ReplyToMessageID, in.URL)
		return pinReply(ts), err
	}))
	post(channelapi.PathDownload, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.DownloadRequest) (channelapi.Push, error) {
		v, err := s.svc.ChannelDownload(ctx, id, in.Owner, in.URL, in.Destination)
		return channelapi.Push{ID: v.ID, Destination: v.Destination, State: v.State}, err
	}))
	post(channelapi.PathAccounts, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.AccountsReply, error) {
		v, err := s.svc.ChannelAccounts(ctx, id, in.Owner)
		return accountsReply(v), err
	}))
	post(channelapi.PathAccountStart, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.AccountStartRequest) (channelapi.AccountDialog, error) {
		d, err := s.svc.ChannelAccountStart(ctx, id, in.Owner, in.Adapter)
		return accountDialogOf(d), err
	}))
	post(channelapi.PathAccountCancel, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelAccountCancel(ctx, id, in.Owner)
	}))
	post(channelapi.PathAccountRemove, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.AccountRemoveRequest) (channelapi.Connection, error) {
		c, err := s.svc.ChannelAccountRemove(ctx, id, in.Owner, in.ConnectionID)
		return connectionOf(c), err
	}))
	post(channelapi.PathJoin, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.JoinRequest) (channelapi.Join, error) {
		r, err := s.svc.ChannelJoin(ctx, id, in.Owner, in.Invite)
		return channelapi.Join{ID: r.ID, Title: r.Title, State: r.State, ChannelURL: r.ChannelURL}, err
	}))
	post(channelapi.PathAccountQR, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.AccountStartRequest) (channelapi.AccountDialog, error) {
		d, err := s.svc.ChannelAccountQR(ctx, id, in.Owner, in.Adapter)
		return accountDialogOf(d), err
	}))
	post(channelapi.PathAccountQRNext, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.AccountQRStep, error) {
		st, err := s.svc.ChannelAccountQRNext(ctx, id, in.Owner)
		return channelapi.AccountQRStep{Kind: st.Kind, PNG: st.PNG, ExpiresAt: st.ExpiresAt, Hint: st.Hint}, err
	}))
	post(channelapi.PathAccountFinish, workCall(s, func(ctx context.Context, id uuid.UUID, in channelapi.Lease) (channelapi.AccountResult, error) {
		r, err := s.svc.ChannelAccountFinish(ctx, id, in.Owner)
		return accountResultOf(r), err
	}))
	mux.HandleFunc("GET "+channelapi.PathMedia, s.media)
	post(channelapi.PathCacheGet, call(s, func(ctx context.Context, _ uuid.UUID, in channelapi.CacheKey) (channelapi.CacheEntry, error) {
		remote, err := s.svc.ChannelCacheGet(ctx, cacheKey(in))
		return channelapi.CacheEntry{CacheKey: in, RemoteID: remote}, err
	}))
	post(channelapi.PathCachePut, call(s, func(ctx context.Context, _ uuid.UUID, in channelapi.CacheEntry) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelCachePut(ctx, cacheKey(in.CacheKey), in.RemoteID)
	}))
	post(channelapi.PathCacheDrop, call(s, func(ctx context.Context, _ uuid.UUID, in channelapi.CacheEntry) (channelapi.Empty, error) {
		return channelapi.Empty{}, s.svc.ChannelCacheDrop(ctx, cacheKey(in.CacheKey), in.RemoteID)
	}))
}
