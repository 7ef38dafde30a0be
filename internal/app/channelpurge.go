package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// ChannelPurged counts the channel rows one PurgeChannelRows deleted.
type ChannelPurged struct {
	// Work is finished (done or failed) work items.
	Work int64
	// Replies is replies to commands.
	Replies int64
	// Inbox is stored updates nothing referred to any more.
	Inbox int64
	// Messages is recorded bot messages with buttons.
	Messages int64
}

// Total is every row deleted.
func (p ChannelPurged) Total() int64 { return p.Work + p.Replies + p.Inbox + p.Messages }

// PurgeChannelRows deletes the channel plumbing older than the
// channel_retention_days setting, across tenants, in batches of one
// transaction each: work items that ended (pending and leased ones stay,
// and submissions keep their delivery progress), replies, then the updates
// no remaining work item or reply refers to, and the bot messages with
// buttons, whose buttons then answer that they are too old.
func (a *App) PurgeChannelRows(ctx context.Context) (ChannelPurged, error) {
	var p ChannelPurged
	s, err := a.Settings(ctx)
	if err != nil {
		return p, err
	}
	cutoff := a.now().Add(-s.ChannelRetention)
	// Work and replies go before the updates they refer to.
	for _, step := range []struct {
		n   *int64
		del func(*store.Tx, context.Context, time.Time, int) (int64, error)
	}{
		{&p.Work, (*store.Tx).ChannelWorkDeleteBefore},
		{&p.Replies, (*store.Tx).ReplyDeleteBefore},
		{&p.Inbox, (*store.Tx).InboxDeleteBefore},
		{&p.Messages, (*store.Tx).ChannelMessageDeleteBefore},
	} {
		for {
			var n int64
			err := a.store.InTx(ctx, func(tx *store.Tx) error {
				var err error
				n, err = step.del(tx, ctx, cutoff, purgeBatch)
				return err
			})
			*step.n += n
			if err != nil {
				return p, err
			}
			if n < purgeBatch {
				break
			}
		}
	}
	return p, nil
}

// purgeChannelRowsWorker runs PurgeChannelRows for the periodic job
// (queue.Schedule: hourly and at start).
type purgeChannelRowsWorker struct {
	river.WorkerDefaults[queue.PurgeChannelRowsArgs]
	app *App
}

// Timeout bounds one run: a first run on a large backlog may need more
// than River's default minute; the next run takes what is left.
func (w *purgeChannelRowsWorker) Timeout(*river.Job[queue.PurgeChannelRowsArgs]) time.Duration {
	return 10 * time.Minute
}

func (w *purgeChannelRowsWorker) Work(ctx context.Context, _ *river.Job[queue.PurgeChannelRowsArgs]) error {
	p, err := w.app.PurgeChannelRows(ctx)
	if p.Total() > 0 {
		w.app.log.InfoContext(ctx, "purged old channel rows", slog.Int64("work", p.Work), slog.Int64("replies", p.Replies),
			slog.Int64("inbox", p.Inbox), slog.Int64("messages", p.Messages))
	}
	return err
}
