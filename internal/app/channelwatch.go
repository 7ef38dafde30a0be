package app

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
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

// ChannelWorkWatch tells a watcher about a run of its watch (digest mode,
// or why the watch paused itself); its progress document starts as
// {"notice": WatchNotice}.
const ChannelWorkWatch = "watch"

// WatchNotice is what a watch work item tells the watcher.
type WatchNotice struct {
	ChatID    int64  `json:"chat_id"`
	SourceURL string `json:"source_url"`
	Notify    string `json:"notify"`
	// Posts are the links of the run's new posts (digest), oldest first.
	Posts []string `json:"posts,omitempty"`
	// Error is what went wrong, e.g. why the watch paused itself.
	Error string `json:"error,omitempty"`
}

// queueWatchNotice hands a run whose watcher is to be told to the
// tenant's chat with the bot, in the transaction that records the run, so
// a crash loses nothing and sends nothing twice: in deliver mode each new
// post becomes a deliver item (it arrives like a capture's result), in
// digest mode the run one watch item; an error (a paused watch) is a
// watch item in any mode. The run is then done for the store. A tenant
// with no identity on a channel (REST only) keeps the run pending.
func (a *App) queueWatchNotice(ctx context.Context, tx *store.Tx, run *store.WatchRun, sourceURL string) error {
	if run.DeliveryState != store.WatchDeliveryPending {
		return nil
	}
	ident, chat, ok, err := privateChat(ctx, tx, run.TenantID)
	if err != nil || !ok {
		return err
	}
	n := WatchNotice{ChatID: chat, SourceURL: sourceURL, Notify: run.Notify, Error: run.Error}
	if run.Notify == NotifyDeliver {
		for _, p := range run.Posts {
			if err := tx.SubmissionSetChat(ctx, p.SubmissionID, ident.ChannelID, ident.ID, ident.ExternalID); err != nil {
				return err
			}
			sub := p.SubmissionID
			if _, err := tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: ident.ChannelID, Kind: store.WorkDeliver,
				SubmissionID: &sub, TenantID: run.TenantID}); err != nil {
				return err
			}
		}
	} else {
		for _, p := range run.Posts {
			n.Posts = append(n.Posts, p.URL)
		}
	}
	if len(n.Posts) > 0 || n.Error != "" {
		doc, err := json.Marshal(map[string]WatchNotice{"notice": n})
		if err != nil {
			return err
		}
		if _, err := tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: ident.ChannelID, Kind: ChannelWorkWatch,
			TenantID: run.TenantID, Progress: doc}); err != nil {
			return err
		}
	}
	run.DeliveryState = store.WatchDeliveryDone
	return nil
}
