package channelserver

import (
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
)

// This file is the one place that converts between the wire's types
// (channelapi) and the business layer's (app). Where the two are the same
// struct, a Go conversion keeps them in step: a field added to one side
// and not the other stops the build here.

func instanceOf(h channelapi.Hello) app.ChannelInstance { return app.ChannelInstance(h) }

func helloReply(r app.ChannelHelloReply) channelapi.HelloReply { return channelapi.HelloReply(r) }

func pollLeaseRequest(r channelapi.PollLeaseRequest) app.ChannelPollLeaseRequest {
	return app.ChannelPollLeaseRequest(r)
}

func pollLeaseReply(r app.ChannelPollLeaseReply) channelapi.PollLeaseReply {
	return channelapi.PollLeaseReply(r)
}

func updatesRequest(r channelapi.UpdatesRequest) app.ChannelUpdatesRequest {
	us := make([]app.ChannelUpdate, 0, len(r.Updates))
	for _, u := range r.Updates {
		us = append(us, updateOf(u))
	}
	return app.ChannelUpdatesRequest{ChannelID: r.ChannelID, Owner: r.Owner, Updates: us, NextOffset: r.NextOffset}
}

func updatesReply(r app.ChannelUpdatesReply) channelapi.UpdatesReply {
	return channelapi.UpdatesReply(r)
}

// updateOf is an update as the channel posted it.
func updateOf(u channelapi.Update) app.ChannelUpdate {
	var es []app.ChannelEntity
	for _, e := range u.Entities {
		es = append(es, app.ChannelEntity(e))
	}
	return app.ChannelUpdate{UpdateID: u.UpdateID, Kind: u.Kind, From: app.ChannelUser(u.From), ChatID: u.ChatID,
		ChatType: u.ChatType, ChatUsername: u.ChatUsername, MediaGroupID: u.MediaGroupID, MessageID: u.MessageID, Text: u.Text,
		Entities: es, ReplyToMessageID: u.ReplyToMessageID, CallbackID: u.CallbackID, CallbackData: u.CallbackData}
}

// connectionOf is a connection on the wire.
func connectionOf(c app.ConnectionView) channelapi.Connection {
	return channelapi.Connection{ID: c.ID, Adapter: c.Adapter, Provider: c.Provider, AccountID: c.AccountID, Handle: c.Handle,
		Status: c.Status, CredentialRevision: c.CredentialRevision, CheckedAt: c.CheckedAt}
}

func accountsReply(v app.ChannelAccountsView) channelapi.AccountsReply {
	r := channelapi.AccountsReply{Adapters: []channelapi.AccountAdapter{}, Connections: []channelapi.Connection{}}
	for _, a := range v.Adapters {
		r.Adapters = append(r.Adapters, channelapi.AccountAdapter(a))
	}
	for _, c := range v.Connections {
		r.Connections = append(r.Connections, connectionOf(c))
	}
	return r
}

func accountDialogOf(d app.AccountDialogView) channelapi.AccountDialog {
	return channelapi.AccountDialog{Adapter: channelapi.AccountAdapter(d.Adapter), ChatID: d.ChatID, ExpiresAt: d.ExpiresAt}
}

func accountResultOf(r app.ChannelAccountResult) channelapi.AccountResult {
	out := channelapi.AccountResult{Dialog: accountDialogOf(r.Dialog), Expired: r.Expired, Problem: r.Problem, Replaced: r.Replaced,
		NotScanned: r.NotScanned}
	if r.Connection != nil {
		c := connectionOf(*r.Connection)
		out.Connection = &c
	}
	return out
}

// wireUpdate is a stored update as a claimed item carries it.
func wireUpdate(u app.ChannelUpdate) channelapi.Update {
	var es []channelapi.Entity
	for _, e := range u.Entities {
		es = append(es, channelapi.Entity(e))
	}
	return channelapi.Update{UpdateID: u.UpdateID, Kind: u.Kind, From: channelapi.User(u.From), ChatID: u.ChatID,
		ChatType: u.ChatType, ChatUsername: u.ChatUsername, MediaGroupID: u.MediaGroupID, MessageID: u.MessageID, Text: u.Text,
		Entities: es, ReplyToMessageID: u.ReplyToMessageID, CallbackID: u.CallbackID, CallbackData: u.CallbackData, Staged: u.Staged}
}

func claimRequest(r channelapi.ClaimRequest) app.ChannelClaimRequest {
	return app.ChannelClaimRequest(r)
}

// worksOf lists claimed items; none is an empty list, never null.
func worksOf(ws []app.ChannelWork) []channelapi.Work {
	out := make([]channelapi.Work, 0, len(ws))
	for _, w := range ws {
		v := channelapi.Work{ID: w.ID, Kind: w.Kind, Attempts: w.Attempts, SubmissionID: w.SubmissionID,
			Progress: w.Progress, LeaseExpiresAt: w.LeaseExpiresAt, Tenant: channelapi.Tenant(w.Tenant), Language: w.Language}
		if w.Update != nil {
			u := wireUpdate(*w.Update)
			v.Update = &u
		}
		out = append(out, v)
	}
	return out
}

func captureRequest(r channelapi.CaptureRequest) app.ChannelCaptureRequest {
	return app.ChannelCaptureRequest(r)
}

func captureReply(r app.SubmitResult) channelapi.CaptureReply {
	return channelapi.CaptureReply{SubmissionID: r.SubmissionID, CollectionID: r.CollectionID, State: r.State}
}

// listReply is one page; no items is an empty list, never null.
func listReply(p app.ChannelPage) channelapi.ListReply {
	r := channelapi.ListReply{Items: make([]channelapi.Item, 0, len(p.Items)), More: p.More}
	for _, v := range p.Items {
		r.Items = append(r.Items, itemOf(v))
	}
	return r
}

// searchReply is one page of results; none is an empty list, never null.
func searchReply(p app.ChannelSearchPage) channelapi.SearchReply {
	r := channelapi.SearchReply{Items: make([]channelapi.SearchItem, 0, len(p.Items)), More: p.More}
	for _, v := range p.Items {
		r.Items = append(r.Items, channelapi.SearchItem{Item: itemOf(v.CollectionView), Snippet: v.Snippet})
	}
	return r
}

// queryProblem is where and why a search query is wrong, in both
// languages.
func queryProblem(e *app.QueryError) *channelapi.QueryProblem {
	return &channelapi.QueryProblem{Position: e.Pos, Message: e.Msg, Expected: e.Expected, MessageZH: e.MsgZH, ExpectedZH: e.ExpectedZH}
}

// itemOf is a saved collection as a channel shows it.
func itemOf(v app.CollectionView) channelapi.Item {
	return channelapi.Item{ID: v.ID, SourceURL: v.SourceURL, Platform: v.Platform, Visibility: v.Visibility,
		AuthorName: v.AuthorName, Summary: v.Summary, Text: v.Text, PublishedAt: v.PublishedAt, SavedAt: v.SavedAt,
		Media: mediaOf(v.Media), State: v.State}
}

// mediaOf lists an item's media, their durations in whole seconds; none is
// an empty list, never null.
func mediaOf(ms []app.MediaView) []channelapi.Media {
	out := make([]channelapi.Media, 0, len(ms))
	for _, m := range ms {
		out = append(out, channelapi.Media{SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size, Width: m.Width,
			Height: m.Height, Duration: (m.DurationMS + 500) / 1000, Alt: m.Alt, Sensitive: m.Sensitive})
	}
	return out
}

func saveReply(r app.SaveReply) channelapi.SaveReply { return channelapi.SaveReply(r) }

func usageReply(r app.ChannelUsageReply) channelapi.UsageReply { return channelapi.UsageReply(r) }

func tokenReply(t app.ChannelToken) channelapi.TokenReply { return channelapi.TokenReply(t) }

func loginLinkReply(r app.ChannelLoginLink) channelapi.LoginLinkReply {
	return channelapi.LoginLinkReply(r)
}

func deliveryOf(d app.Delivery) channelapi.Delivery {
	w := channelapi.Delivery{State: d.State, Progress: d.Progress, Stage: d.Stage, MediaIndex: d.MediaIndex,
		MediaTotal: d.MediaTotal, SubmissionID: d.SubmissionID, ChatID: d.ChatID,
		StatusMessageID: d.StatusMessageID, ReplyToMessageID: d.ReplyToMessageID, InputURL: d.InputURL,
		CaptureState: d.CaptureState, Error: d.Error, Public: d.Public, WebURL: d.WebURL}
	if d.Item != nil {
		item := itemOf(*d.Item)
		w.Item = &item
	}
	if d.Collection != nil {
		c := collectionOf(*d.Collection)
		w.Collection = &c
	}
	if d.Copy != nil {
		b := bindingOf(d.Copy.Binding)
		b.OwnerChatID = d.Copy.Binding.OwnerChatID
		w.Copy = &b
	}
	return w
}

func bindRequest(r channelapi.BindRequest) app.ChannelBindRequest {
	return app.ChannelBindRequest{Owner: r.Owner, ChatID: r.ChatID, ChatType: r.ChatType, Username: r.Username, Title: r.Title}
}

// bindingOf is a binding on the wire, without the chat of its owner.
func bindingOf(b app.ChannelBindingView) channelapi.Binding {
	return channelapi.Binding{ID: b.ID, ChatID: b.ChatID, ChatType: b.ChatType, Username: b.Username, Title: b.Title,
		State: b.State, UnbindReason: b.UnbindReason, BoundAt: b.BoundAt}
}

func bindingsReply(bs []app.ChannelBindingView) channelapi.BindingsReply {
	out := make([]channelapi.Binding, 0, len(bs))
	for _, b := range bs {
		out = append(out, bindingOf(b))
	}
	return channelapi.BindingsReply{Bindings: out}
}

func moreRequest(r channelapi.MoreRequest) app.ChannelMoreRequest { return app.ChannelMoreRequest(r) }

func collectionOf(c app.ChannelCollection) channelapi.Collection { return channelapi.Collection(c) }

func cacheKey(k channelapi.CacheKey) app.ChannelCacheKey { return app.ChannelCacheKey(k) }

func watchOf(w app.WatchView) channelapi.Watch {
	return channelapi.Watch{ID: w.ID, URL: w.URL, SourceURL: w.SourceURL, State: w.State, PausedReason: w.PausedReason,
		IntervalSeconds: w.IntervalSeconds, Notify: w.Notify, LastRunAt: w.LastRunAt, NextRunAt: w.NextRunAt,
		NewPosts: w.NewPosts, LastError: w.LastError}
}

func watchesReply(ws []app.WatchView) channelapi.WatchesReply {
	out := make([]channelapi.Watch, 0, len(ws))
	for _, w := range ws {
		out = append(out, watchOf(w))
	}
	return channelapi.WatchesReply{Watches: out}
}

func pinReply(ts []app.ChannelPinTarget) channelapi.PinReply {
	out := make([]channelapi.PinTarget, 0, len(ts))
	for _, t := range ts {
		out = append(out, channelapi.PinTarget{Binding: bindingOf(t.Binding), MessageID: t.MessageID})
	}
	return channelapi.PinReply{Targets: out}
}
