package store

import (
	"context"
	"time"
)

// This file holds the retention purge of the channel plumbing: handled
// updates (inbox), their work items, replies and the bot messages that
// carry buttons. These rows belong to tenants (row-level security on
// PostgreSQL) while the purge acts for none, so on PostgreSQL each step is a
// SECURITY DEFINER function of migrations/postgres/0007_channel_retention.sql
// and on SQLite the statement below it mirrors. Each step deletes at most
// limit rows, oldest first, and reports how many it deleted; callers repeat
// a step until it deletes fewer than limit, so no transaction holds the
// write lock long.

// channelPurgeStep is one step of the channel purge: what it deletes, the
// SQLite statement (cutoff $1, limit $2) and the PostgreSQL function of the
// same meaning.
type channelPurgeStep struct {
	what     string
	sqlite   string
	function string
}

var (
	// Finished work only: pending and leased items stay whatever their age.
	purgeChannelWork = channelPurgeStep{what: "purge old channel work", function: "monitor_channel_work_purge",
		sqlite: `DELETE FROM channel_work WHERE id IN (
			SELECT id FROM channel_work WHERE state IN ('done', 'failed') AND updated_at < $1
			ORDER BY updated_at LIMIT $2)`}
	// A reply stays while its update still has work pending or leased.
	purgeReplies = channelPurgeStep{what: "purge old replies", function: "monitor_replies_purge",
		sqlite: `DELETE FROM replies WHERE id IN (
			SELECT r.id FROM replies r
			WHERE r.created_at < $1
			  AND NOT EXISTS (SELECT 1 FROM channel_work w WHERE w.inbox_id = r.inbox_id AND w.state IN ('pending', 'leased'))
			ORDER BY r.created_at LIMIT $2)`}
	// An update goes only when nothing refers to it any more.
	purgeInbox = channelPurgeStep{what: "purge old inbox entries", function: "monitor_inbox_purge",
		sqlite: `DELETE FROM inbox WHERE id IN (
			SELECT b.id FROM inbox b
			WHERE b.created_at < $1
			  AND NOT EXISTS (SELECT 1 FROM channel_work w WHERE w.inbox_id = b.id)
			  AND NOT EXISTS (SELECT 1 FROM replies r WHERE r.inbox_id = b.id)
			ORDER BY b.created_at LIMIT $2)`}
	purgeChannelMessages = channelPurgeStep{what: "purge old channel messages", function: "monitor_channel_messages_purge",
		sqlite: `DELETE FROM channel_messages WHERE rowid IN (
			SELECT rowid FROM channel_messages WHERE created_at < $1 ORDER BY created_at LIMIT $2)`}
)

// run deletes one batch of the step's rows older than cutoff.
func (p channelPurgeStep) run(ctx context.Context, tx *Tx, cutoff time.Time, limit int) (int64, error) {
	n, err := tx.d.channelPurge(ctx, tx.tx, p, utc(cutoff), limit)
	return n, wrap(tx.d, p.what, err)
}

// runSQLite runs the step's statement: SQLite has no row-level security to
// step past.
func (p channelPurgeStep) runSQLite(ctx context.Context, q querier, cutoff time.Time, limit int) (int64, error) {
	res, err := q.ExecContext(ctx, p.sqlite, cutoff, limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ChannelWorkDeleteBefore deletes up to limit work items that ended (done
// or failed) before cutoff, across tenants, oldest first, and reports how
// many it deleted. Pending and leased items are never deleted; a deliver
// item's submission keeps its delivery progress.
func (tx *Tx) ChannelWorkDeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	return purgeChannelWork.run(ctx, tx, cutoff, limit)
}

// ReplyDeleteBefore deletes up to limit replies written before cutoff,
// across tenants, except those whose update still has work pending or
// leased, and reports how many it deleted.
func (tx *Tx) ReplyDeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	return purgeReplies.run(ctx, tx, cutoff, limit)
}

// InboxDeleteBefore deletes up to limit updates stored before cutoff that
// no work item or reply refers to any more, across tenants, and reports how
// many it deleted. Run it after ChannelWorkDeleteBefore and
// ReplyDeleteBefore, which free the old updates.
func (tx *Tx) InboxDeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	return purgeInbox.run(ctx, tx, cutoff, limit)
}

// ChannelMessageDeleteBefore deletes up to limit bot messages recorded
// before cutoff, across tenants, and reports how many it deleted. A button
// on such a message no longer acts for anyone.
func (tx *Tx) ChannelMessageDeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	return purgeChannelMessages.run(ctx, tx, cutoff, limit)
}
