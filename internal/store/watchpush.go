package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// Pushed posts of watched channels (migrations sqlite 0016 / postgres
// 0018_watch_push.sql): what the bot received from a channel it sits in,
// kept until a watch_push job has archived it for every watcher, and a
// while after, so the pull knows it has them.

// Push states.
const (
	WatchPushPending = "pending"
	WatchPushDone    = "done"
)

// WatchPush is one pushed post (or one part of a pushed album) of a
// watched source.
type WatchPush struct {
	ID        uuid.UUID
	SourceID  uuid.UUID
	MessageID int64
	// GroupKey gathers an album's parts: its media_group_id, or the
	// message's own key for a post on its own.
	GroupKey   string
	URL        string
	State      string
	ReceivedAt time.Time
	DoneAt     *time.Time
}

const watchPushColumns = `id, source_id, message_id, group_key, url, state, received_at, done_at`

// WatchSourceByURL reads the source whose canonical link is url and that
// has watchers (ErrNotFound: no one watches it).
func (tx *Tx) WatchSourceByURL(ctx context.Context, url string) (WatchSource, error) {
	s, err := scanWatchSource(tx.tx.QueryRowContext(ctx, `SELECT `+watchSourceColumns+` FROM watch_sources
		WHERE url = $1 AND watchers > 0`, url))
	return s, wrap(tx.d, "find watch source by link", err)
}

// WatchPushInsert stores a pushed post, unless the source has that
// message already (created false: Telegram sent the update again).
func (tx *Tx) WatchPushInsert(ctx context.Context, p WatchPush) (bool, error) {
	if p.ID == uuid.Nil {
		p.ID = uuid.Must(uuid.NewV7())
	}
	res, err := tx.tx.ExecContext(ctx, `INSERT INTO watch_pushes (`+watchPushColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
		ON CONFLICT (source_id, message_id) DO NOTHING`,
		p.ID, p.SourceID, p.MessageID, p.GroupKey, p.URL, WatchPushPending, utc(p.ReceivedAt))
	if err != nil {
		return false, wrap(tx.d, "insert pushed post", err)
	}
	n, err := res.RowsAffected()
	return n > 0, wrap(tx.d, "insert pushed post", err)
}

// WatchPushGroup lists the parts of a pushed post (one, or an album's),
// lowest message id first.
func (s *Store) WatchPushGroup(ctx context.Context, sourceID uuid.UUID, groupKey string) ([]WatchPush, error) {
	var out []WatchPush
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+watchPushColumns+` FROM watch_pushes WHERE source_id = $1 AND group_key = $2
			ORDER BY message_id`, sourceID, groupKey)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				p    WatchPush
				done sql.NullTime
			)
			if err := rows.Scan(&p.ID, &p.SourceID, &p.MessageID, &p.GroupKey, &p.URL, &p.State, &p.ReceivedAt, &done); err != nil {
				return err
			}
			p.ReceivedAt, p.DoneAt = p.ReceivedAt.UTC(), nullTime(done)
			out = append(out, p)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list pushed post parts", err)
}

// WatchPushedURLs lists the links of the source's pushed posts that were
// archived, at most limit, newest first: the pull does not read them
// again (one still pending, or whose job gave up, it archives itself).
func (s *Store) WatchPushedURLs(ctx context.Context, sourceID uuid.UUID, limit int) ([]string, error) {
	var out []string
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT url FROM watch_pushes WHERE source_id = $1 AND state = $3
			ORDER BY received_at DESC, message_id DESC LIMIT $2`, sourceID, limit, WatchPushDone)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				return err
			}
			out = append(out, u)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list pushed links", err)
}

// WatchPushesDone marks the parts of a pushed post archived at at, and
// forgets the source's pushes archived before forgetBefore.
func (tx *Tx) WatchPushesDone(ctx context.Context, sourceID uuid.UUID, groupKey string, at, forgetBefore time.Time) error {
	if _, err := tx.tx.ExecContext(ctx, `UPDATE watch_pushes SET state = $3, done_at = $4
		WHERE source_id = $1 AND group_key = $2 AND state = $5`, sourceID, groupKey, WatchPushDone, utc(at), WatchPushPending); err != nil {
		return wrap(tx.d, "mark pushed post archived", err)
	}
	_, err := tx.tx.ExecContext(ctx, `DELETE FROM watch_pushes WHERE source_id = $1 AND state = $2 AND done_at < $3`,
		sourceID, WatchPushDone, utc(forgetBefore))
	return wrap(tx.d, "forget old pushed posts", err)
}
