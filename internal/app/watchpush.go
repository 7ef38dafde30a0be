package app

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// The push: when the bot is an admin of a public channel (or sits in a
// public supergroup with privacy off), Telegram sends it each post. A post
// of a channel someone watches is stored with a watch_push job in the
// transaction that accepts the update, before the channel confirms it to
// Telegram, so a crash loses nothing. The job waits until the post's album
// is complete (no new part for WatchPushQuiet), then archives the album's
// first message link, as one capture, for every active watcher, exactly as
// the pull's fan-out does: the same idempotency key per watch and post, so
// a pull that lists the post later does not archive it again, and the pull
// reads pushed links as known, so it does not capture them again either.

// WatchPushQuiet is how long an album's parts are gathered: it is complete
// when no new part came for this long.
const WatchPushQuiet = 1500 * time.Millisecond

// watchPushKeep is how long an archived push is remembered, so the pull
// knows the post; older ones are on pages the pull has read since.
const watchPushKeep = 7 * 24 * time.Hour

// albumGroup starts the group key of an album's parts; a post on its own
// has "m" and its message id.
const albumGroup = "g"

// tmeChannelURL is a public Telegram channel's link as the Telegram
// adapter gives it as a watched source's canonical URL.
func tmeChannelURL(username string) string {
	return "https://t.me/" + strings.ToLower(username)
}

// storeChannelPost stores a post of a watched channel with the job that
// archives it; created is false for a channel no one watches (ignored: it
// is recorded nowhere), a private one, or a post stored before.
func (a *App) storeChannelPost(ctx context.Context, ch store.Channel, u ChannelUpdate) (created bool, err error) {
	if u.ChatUsername == "" {
		a.log.InfoContext(ctx, "a post of a private channel or group (no username) is ignored: only public channels can be watched",
			slog.String("channel", ch.ID.String()), slog.Int64("chat", u.ChatID), slog.Int64("message", u.MessageID))
		return false, nil
	}
	if a.queue == nil {
		return false, fmt.Errorf("app: no queue attached; cannot archive pushed posts")
	}
	source := tmeChannelURL(u.ChatUsername)
	group := "m" + strconv.FormatInt(u.MessageID, 10)
	if u.MediaGroupID != "" {
		group = albumGroup + u.MediaGroupID
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		src, err := tx.WatchSourceByURL(ctx, source)
		if isNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		created, err = tx.WatchPushInsert(ctx, store.WatchPush{SourceID: src.ID, MessageID: u.MessageID, GroupKey: group,
			URL: source + "/" + strconv.FormatInt(u.MessageID, 10), ReceivedAt: a.now()})
		if err != nil || !created {
			return err
		}
		opts := &river.InsertOpts{}
		if u.MediaGroupID != "" {
			// River's own time: the job checks the quiet time again by the
			// business clock and waits more when parts still come.
			opts.ScheduledAt = time.Now().Add(WatchPushQuiet)
		}
		_, err = a.queue.InsertTx(ctx, tx, queue.WatchPushArgs{SourceID: src.ID, GroupKey: group}, opts)
		return err
	})
	return created, err
}

type watchPushWorker struct {
	river.WorkerDefaults[queue.WatchPushArgs]
	app *App
}

func (w *watchPushWorker) Work(ctx context.Context, job *river.Job[queue.WatchPushArgs]) error {
	return w.app.runWatchPush(ctx, job.Args.SourceID, job.Args.GroupKey)
}

// runWatchPush archives a pushed post (an album: once complete) for every
// active watcher of its source. Run again, it gives no watcher anything
// twice.
func (a *App) runWatchPush(ctx context.Context, sourceID uuid.UUID, group string) error {
	parts, err := a.store.WatchPushGroup(ctx, sourceID, group)
	if err != nil {
		return err
	}
	pending := false
	var latest time.Time
	for _, p := range parts {
		pending = pending || p.State == store.WatchPushPending
		if p.ReceivedAt.After(latest) {
			latest = p.ReceivedAt
		}
	}
	if !pending {
		return nil // archived by the job of another part
	}
	now := a.now()
	if wait := latest.Add(WatchPushQuiet).Sub(now); wait > 0 && strings.HasPrefix(group, albumGroup) {
		return river.JobSnooze(min(wait, WatchPushQuiet))
	}
	// The album is one post: its first message's link, as t.me lists it.
	post := parts[0].URL
	resolved, err := a.adapters.Resolve(ctx, post)
	if err != nil {
		return fmt.Errorf("app: resolve pushed post %s: %w", clip(post, 120), err)
	}
	watchers, err := a.store.WatchesOfSource(ctx, sourceID, store.WatchActive)
	if err != nil {
		return err
	}
	given := 0
	for _, w := range watchers {
		if w.SinceAt != nil && w.SinceAt.After(now) {
			continue // starts later
		}
		if err := a.fanOut(ctx, w, []string{post}, map[string]adapterapi.Resolved{post: resolved}, now, "", true); err != nil {
			return err
		}
		given++
	}
	if err := a.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.WatchPushesDone(ctx, sourceID, group, now, now.Add(-watchPushKeep))
	}); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "pushed post archived", slog.String("source", sourceID.String()), slog.Int("parts", len(parts)),
		slog.Int("watchers", given))
	return nil
}
