package app

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// The bot's /watch, /watches and /unwatch: the watches of the work item's
// tenant, under the same rules as REST (watches.go).

// ChannelWatch makes a watch of a profile or channel for the item's
// tenant; intervalSeconds 0 is the default.
func (a *App) ChannelWatch(ctx context.Context, id uuid.UUID, owner, url string, intervalSeconds int) (WatchView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return WatchView{}, err
	}
	return a.CreateWatch(j.ctx, WatchRequest{TenantID: j.tenantID, URL: url, IntervalSeconds: intervalSeconds})
}

// ChannelWatches lists the item's tenant's watches, oldest first: the
// numbers /unwatch N counts by.
func (a *App) ChannelWatches(ctx context.Context, id uuid.UUID, owner string) ([]WatchView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return nil, err
	}
	return a.Watches(j.ctx, j.tenantID)
}

// ChannelUnwatch removes the tenant's watch named by ref: its id, or its
// number (from 1) in ChannelWatches' list. It answers the removed watch.
func (a *App) ChannelUnwatch(ctx context.Context, id uuid.UUID, owner, ref string) (WatchView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return WatchView{}, err
	}
	ref = strings.TrimSpace(ref)
	list, err := a.Watches(j.ctx, j.tenantID)
	if err != nil {
		return WatchView{}, err
	}
	var w *WatchView
	if n, err := strconv.Atoi(ref); err == nil {
		if n < 1 || n > len(list) {
			if len(list) == 0 {
				return WatchView{}, errorf(ErrNotFound, "you watch nothing; start with /watch and a link")
			}
			return WatchView{}, errorf(ErrNotFound, "there is no watch number %d; /watches lists %d", n, len(list))
		}
		w = &list[n-1]
	} else if wid, err := uuid.Parse(ref); err == nil && len(ref) == 36 {
		for i := range list {
			if list[i].ID == wid {
				w = &list[i]
			}
		}
		if w == nil {
			return WatchView{}, errorf(ErrNotFound, "this watch is gone already")
		}
	} else {
		return WatchView{}, errorf(ErrInvalid, "%q is not a watch: send its number in /watches", clip(ref, 40))
	}
	if err := a.DeleteWatch(j.ctx, j.tenantID, w.ID); err != nil {
		return WatchView{}, err
	}
	return *w, nil
}
