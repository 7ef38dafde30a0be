package store

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"

	"github.com/google/uuid"
)

// This file holds the channel plumbing: channel instances, identities, the
// inbox of updates, leased work, the bot messages that carry buttons and
// the channel's media cache.

// ErrLeaseLost is returned when a work item is not leased to the caller any
// more: its lease expired (and perhaps went to another owner) or the item
// ended.
var ErrLeaseLost = errors.New("store: lease lost")

// Channel is a channel instance, such as one Telegram bot, with its
// persisted polling offset. Channels are global configuration, not tenant
// data.
type Channel struct {
	ID         uuid.UUID
	Kind       string
	ExternalID string
	Name       string
	NextOffset int64
	// PollerOwner holds the poll lease until PollerExpiresAt ("" and nil =
	// nobody).
	PollerOwner     string
	PollerExpiresAt *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// PollHeldBy reports whether owner holds the channel's poll lease past now.
func (c Channel) PollHeldBy(owner string, now time.Time) bool {
	return owner != "" && c.PollerOwner == owner && c.PollerExpiresAt != nil && !c.PollerExpiresAt.Before(now)
}

const channelColumns = `id, kind, external_id, name, next_offset, poller_owner, poller_expires_at, created_at, updated_at`

func scanChannel(row interface{ Scan(...any) error }) (Channel, error) {
	var c Channel
	var expires sql.NullTime
	err := row.Scan(&c.ID, &c.Kind, &c.ExternalID, &c.Name, &c.NextOffset, &c.PollerOwner, &expires, &c.CreatedAt, &c.UpdatedAt)
	if expires.Valid {
		c.PollerExpiresAt = &expires.Time
	}
	return c, err
}

// ChannelUpsert registers a channel instance by (kind, external id), or
// updates the name of the one registered before; the offset stays.
func (tx *Tx) ChannelUpsert(ctx context.Context, kind, externalID, name string) (Channel, error) {
	at := tx.now()
	c, err := scanChannel(tx.tx.QueryRowContext(ctx,
		`INSERT INTO channels (id, kind, external_id, name, next_offset, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, 0, $5, $5)
		 ON CONFLICT (kind, external_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
		 RETURNING `+channelColumns, uuid.Must(uuid.NewV7()), kind, externalID, name, at))
	return c, wrap(tx.d, "upsert channel", err)
}

// ChannelGet finds a channel instance.
func (s *Store) ChannelGet(ctx context.Context, id uuid.UUID) (c Channel, err error) {
	err = s.view(ctx, func(q querier) error {
		c, err = scanChannel(q.QueryRowContext(ctx, `SELECT `+channelColumns+` FROM channels WHERE id = $1`, id))
		return err
	})
	return c, wrap(s.d, "get channel", err)
}

// ChannelAdvanceOffset moves a channel's offset forward to next (never
// back) and returns the offset now stored.
func (tx *Tx) ChannelAdvanceOffset(ctx context.Context, id uuid.UUID, next int64) (int64, error) {
	var stored int64
	err := tx.tx.QueryRowContext(ctx,
		`UPDATE channels SET next_offset = CASE WHEN next_offset < $2 THEN $2 ELSE next_offset END, updated_at = $3
		 WHERE id = $1 RETURNING next_offset`, id, next, tx.now()).Scan(&stored)
	return stored, wrap(tx.d, "advance channel offset", err)
}

// PollLease says who polls a channel's platform, until when, and the offset
// polling resumes from. Only one process polls a bot at a time: the
// platform (Telegram's getUpdates) refuses a second one, and two pollers
// would race on the offset.
type PollLease struct {
	// Owner holds the lease ("" = nobody).
	Owner string
	// ExpiresAt is when the lease runs out unless renewed (nil = never
	// held, or released).
	ExpiresAt  *time.Time
	NextOffset int64
}

// ChannelPollLeaseAcquire takes or renews a channel's poll lease for owner
// until expires, in one statement: granted when nobody holds it, when the
// holder's lease ran out before now, or when owner holds it already. The
// lease returned is owner's when granted and the holder's when not. A
// missing channel is ErrNotFound.
func (s *Store) ChannelPollLeaseAcquire(ctx context.Context, id uuid.UUID, owner string, now, expires time.Time) (l PollLease, granted bool, err error) {
	err = s.InTx(ctx, func(tx *Tx) error {
		err := tx.tx.QueryRowContext(ctx,
			`UPDATE channels SET poller_owner = $2, poller_expires_at = $4
			 WHERE id = $1 AND (poller_owner = '' OR poller_owner = $2 OR poller_expires_at IS NULL OR poller_expires_at < $3)
			 RETURNING next_offset`, id, owner, utc(now), utc(expires)).Scan(&l.NextOffset)
		if err == nil {
			granted = true
			at := utc(expires)
			l.Owner, l.ExpiresAt = owner, &at
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var at sql.NullTime
		err = tx.tx.QueryRowContext(ctx, `SELECT poller_owner, poller_expires_at, next_offset FROM channels WHERE id = $1`, id).
			Scan(&l.Owner, &at, &l.NextOffset)
		if at.Valid {
			l.ExpiresAt = &at.Time
		}
		return err
	})
	return l, granted, wrap(s.d, "acquire poll lease", err)
}

// ChannelPollLeaseRelease gives up owner's poll lease so that another
// process may poll at once; a lease owner does not hold is left alone.
func (s *Store) ChannelPollLeaseRelease(ctx context.Context, id uuid.UUID, owner string) error {
	err := s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx,
			`UPDATE channels SET poller_owner = '', poller_expires_at = NULL WHERE id = $1 AND poller_owner = $2`, id, owner)
		return err
	})
	return wrap(s.d, "release poll lease", err)
}

// ChannelPollLeaseCheck is ErrLeaseLost unless owner holds the channel's
// poll lease past now. It writes the row, so on PostgreSQL the row stays
// locked until the transaction ends and nobody takes the lease meanwhile
// (SQLite serializes writers anyway): an offset advanced in the same
// transaction is always the holder's.
func (tx *Tx) ChannelPollLeaseCheck(ctx context.Context, id uuid.UUID, owner string, now time.Time) error {
	res, err := tx.tx.ExecContext(ctx,
		`UPDATE channels SET poller_owner = poller_owner
		 WHERE id = $1 AND poller_owner = $2 AND poller_owner <> '' AND poller_expires_at >= $3`, id, owner, utc(now))
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			err = ErrLeaseLost
		}
	}
	return wrap(tx.d, "check poll lease", err)
}

// Identity binds an external user of a channel instance to a tenant.
type Identity struct {
	ID          uuid.UUID
	ChannelID   uuid.UUID
	ExternalID  string
	TenantID    uuid.UUID
	Username    string
	DisplayName string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// identityColumns is also the column list of monitor_identity_lookup.
const identityColumns = `id, channel_id, external_id, tenant_id, username, display_name, created_at, updated_at`

func scanIdentity(row interface{ Scan(...any) error }) (Identity, error) {
	var i Identity
	err := row.Scan(&i.ID, &i.ChannelID, &i.ExternalID, &i.TenantID, &i.Username, &i.DisplayName, &i.CreatedAt, &i.UpdatedAt)
	return i, err
}

// IdentityLookup finds the identity of an external user on a channel
// instance, whichever tenant it belongs to: it is how an update finds the
// tenant it acts for.
func (s *Store) IdentityLookup(ctx context.Context, channelID uuid.UUID, externalID string) (i Identity, err error) {
	err = s.view(ctx, func(q querier) error {
		i, err = scanIdentity(q.QueryRowContext(ctx, s.d.identityLookupQuery(), channelID, externalID))
		return err
	})
	return i, wrap(s.d, "look up identity", err)
}

// IdentityInsert binds an external user to a tenant; an identity that
// exists already is ErrConflict. Zero ID and times are filled in.
func (tx *Tx) IdentityInsert(ctx context.Context, i Identity) (Identity, error) {
	if i.ID == uuid.Nil {
		i.ID = uuid.Must(uuid.NewV7())
	}
	i.CreatedAt = tx.now()
	i.UpdatedAt = i.CreatedAt
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO identities (id, channel_id, external_id, tenant_id, username, display_name, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
		i.ID, i.ChannelID, i.ExternalID, i.TenantID, i.Username, i.DisplayName, i.CreatedAt)
	return i, wrap(tx.d, "insert identity", err)
}

// IdentityRename records the user's current username and display name
// when they changed.
func (tx *Tx) IdentityRename(ctx context.Context, id uuid.UUID, username, displayName string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE identities SET username = $2, display_name = $3, updated_at = $4
		 WHERE id = $1 AND (username <> $2 OR display_name <> $3)`, id, username, displayName, tx.now())
	return wrap(tx.d, "rename identity", err)
}

// InboxEntry is one stored channel update.
type InboxEntry struct {
	ID         uuid.UUID
	ChannelID  uuid.UUID
	UpdateID   int64
	TenantID   uuid.UUID
	IdentityID uuid.UUID
	Kind       string // message or callback
	Payload    []byte // the normalized update as JSON
	State      string
	// TenantCreated says storing this update created the sender's tenant.
	TenantCreated bool
	CreatedAt     time.Time
}

// Inbox states.
const (
	InboxPending   = "pending"
	InboxProcessed = "processed"
	InboxFailed    = "failed"
)

const inboxColumns = `id, channel_id, update_id, tenant_id, identity_id, kind, payload_json, state, tenant_created, created_at`

func scanInbox(row interface{ Scan(...any) error }) (InboxEntry, error) {
	var e InboxEntry
	var payload string
	err := row.Scan(&e.ID, &e.ChannelID, &e.UpdateID, &e.TenantID, &e.IdentityID, &e.Kind, &payload, &e.State, &e.TenantCreated, &e.CreatedAt)
	e.Payload = []byte(payload)
	return e, err
}

// InboxInsert stores an update unless the channel stored the same update id
// before; created reports whether it is new.
func (tx *Tx) InboxInsert(ctx context.Context, e InboxEntry) (_ InboxEntry, created bool, err error) {
	if e.ID == uuid.Nil {
		e.ID = uuid.Must(uuid.NewV7())
	}
	e.State = InboxPending
	e.CreatedAt = tx.now()
	res, err := tx.tx.ExecContext(ctx,
		`INSERT INTO inbox (id, channel_id, update_id, tenant_id, identity_id, kind, payload_json, state, tenant_created, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		 ON CONFLICT (channel_id, update_id) DO NOTHING`,
		e.ID, e.ChannelID, e.UpdateID, e.TenantID, e.IdentityID, e.Kind, string(e.Payload), e.State, e.TenantCreated, e.CreatedAt)
	if err != nil {
		return e, false, wrap(tx.d, "insert inbox entry", err)
	}
	n, _ := res.RowsAffected()
	return e, n > 0, nil
}

// InboxGet finds a stored update.
func (s *Store) InboxGet(ctx context.Context, id uuid.UUID) (e InboxEntry, err error) {
	err = s.view(ctx, func(q querier) error {
		e, err = scanInbox(q.QueryRowContext(ctx, `SELECT `+inboxColumns+` FROM inbox WHERE id = $1`, id))
		return err
	})
	return e, wrap(s.d, "get inbox entry", err)
}

// InboxLatestOfTenant is the newest update a tenant's people sent
// through any channel, ErrNotFound when none is kept (never sent, or
// purged after channel_retention_days): what tells the language of a
// message core sends them unasked.
func (tx *Tx) InboxLatestOfTenant(ctx context.Context, tenantID uuid.UUID) (InboxEntry, error) {
	e, err := scanInbox(tx.tx.QueryRowContext(ctx,
		`SELECT `+inboxColumns+` FROM inbox WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, tenantID))
	return e, wrap(tx.d, "get latest inbox entry", err)
}

// InboxCount counts the updates a channel stored (visible to the caller).
func (s *Store) InboxCount(ctx context.Context, channelID uuid.UUID) (n int, err error) {
	err = s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT count(*) FROM inbox WHERE channel_id = $1`, channelID).Scan(&n)
	})
	return n, wrap(s.d, "count inbox entries", err)
}

// InboxSetState records how handling an update ended.
func (tx *Tx) InboxSetState(ctx context.Context, id uuid.UUID, state string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE inbox SET state = $2, processed_at = $3 WHERE id = $1`, id, state, tx.now())
	return wrap(tx.d, "set inbox state", err)
}

// Work kinds and states.
const (
	WorkUpdate  = "update"
	WorkDeliver = "deliver"

	WorkPending = "pending"
	WorkLeased  = "leased"
	WorkDone    = "done"
	WorkFailed  = "failed"
)

// ChannelWork is one item of leased work for a channel process: handling
// an update, or delivering a submission's result.
type ChannelWork struct {
	ID             uuid.UUID
	ChannelID      uuid.UUID
	Kind           string
	InboxID        *uuid.UUID
	SubmissionID   *uuid.UUID
	TenantID       uuid.UUID
	State          string
	LeaseOwner     string
	LeaseExpiresAt *time.Time
	Attempts       int
	NotBefore      time.Time
	Progress       []byte // JSON document
	Error          string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// workColumns is also the column list of monitor_channel_work_claim.
const workColumns = `id, channel_id, kind, inbox_id, submission_id, tenant_id, state, lease_owner, lease_expires_at, attempts,
	not_before, progress_json, error, created_at, updated_at`

func scanWork(row interface{ Scan(...any) error }) (ChannelWork, error) {
	var w ChannelWork
	var inbox, sub, tenant uuid.NullUUID
	var expires sql.NullTime
	var progress string
	err := row.Scan(&w.ID, &w.ChannelID, &w.Kind, &inbox, &sub, &tenant, &w.State, &w.LeaseOwner, &expires, &w.Attempts,
		&w.NotBefore, &progress, &w.Error, &w.CreatedAt, &w.UpdatedAt)
	if inbox.Valid {
		w.InboxID = &inbox.UUID
	}
	if sub.Valid {
		w.SubmissionID = &sub.UUID
	}
	w.TenantID = tenant.UUID
	if expires.Valid {
		w.LeaseExpiresAt = &expires.Time
	}
	w.Progress = []byte(progress)
	return w, err
}

// utc is a time as the store writes it.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// ChannelWorkInsert queues a work item, claimable from w.NotBefore (now
// when zero).
func (tx *Tx) ChannelWorkInsert(ctx context.Context, w ChannelWork) (ChannelWork, error) {
	if w.ID == uuid.Nil {
		w.ID = uuid.Must(uuid.NewV7())
	}
	w.State = WorkPending
	w.CreatedAt = tx.now()
	w.UpdatedAt = w.CreatedAt
	if w.NotBefore.IsZero() {
		w.NotBefore = w.CreatedAt
	}
	w.NotBefore = utc(w.NotBefore)
	if len(w.Progress) == 0 {
		w.Progress = []byte("{}")
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO channel_work (id, channel_id, kind, inbox_id, submission_id, tenant_id, state, not_before, progress_json,
			created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
		w.ID, w.ChannelID, w.Kind, nullUUID(w.InboxID), nullUUID(w.SubmissionID), w.TenantID, w.State, w.NotBefore,
		string(w.Progress), w.CreatedAt)
	return w, wrap(tx.d, "insert channel work", err)
}

// ChannelWorkClaim leases up to max items of a channel that are ready at
// now (pending and due, or leased with an expired lease) to owner until
// expires, across tenants, oldest first. Each claim counts an attempt.
func (s *Store) ChannelWorkClaim(ctx context.Context, channelID uuid.UUID, owner string, max int, now, expires time.Time) ([]ChannelWork, error) {
	var out []ChannelWork
	err := s.InTx(ctx, func(tx *Tx) error {
		rows, err := tx.tx.QueryContext(ctx, s.d.claimWorkQuery(), channelID, owner, max, utc(now), utc(expires))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			w, err := scanWork(rows)
			if err != nil {
				return err
			}
			out = append(out, w)
		}
		return rows.Err()
	})
	sort.Slice(out, func(i, j int) bool {
		if !out[i].NotBefore.Equal(out[j].NotBefore) {
			return out[i].NotBefore.Before(out[j].NotBefore)
		}
		return out[i].ID.String() < out[j].ID.String()
	})
	return out, wrap(s.d, "claim channel work", err)
}

// ChannelWorkTenant finds the tenant a work item acts for, across tenants.
func (s *Store) ChannelWorkTenant(ctx context.Context, id uuid.UUID) (tenantID uuid.UUID, err error) {
	var t uuid.NullUUID
	err = s.view(ctx, func(q querier) error { return q.QueryRowContext(ctx, s.d.workTenantQuery(), id).Scan(&t) })
	if err == nil && !t.Valid {
		err = sql.ErrNoRows
	}
	return t.UUID, wrap(s.d, "get channel work tenant", err)
}

// ChannelWorkGet finds a work item.
func (s *Store) ChannelWorkGet(ctx context.Context, id uuid.UUID) (w ChannelWork, err error) {
	err = s.view(ctx, func(q querier) error {
		w, err = scanWork(q.QueryRowContext(ctx, `SELECT `+workColumns+` FROM channel_work WHERE id = $1`, id))
		return err
	})
	return w, wrap(s.d, "get channel work", err)
}

// ChannelWorkForSubmission finds the deliver item of a submission.
func (s *Store) ChannelWorkForSubmission(ctx context.Context, submissionID uuid.UUID) (w ChannelWork, err error) {
	err = s.view(ctx, func(q querier) error {
		w, err = scanWork(q.QueryRowContext(ctx,
			`SELECT `+workColumns+` FROM channel_work WHERE submission_id = $1 AND kind = 'deliver'`, submissionID))
		return err
	})
	return w, wrap(s.d, "get deliver work", err)
}

// CheckLease is ErrLeaseLost unless the item is leased to owner and the
// lease runs past now.
func (w ChannelWork) CheckLease(owner string, now time.Time) error {
	if w.State != WorkLeased || w.LeaseOwner != owner || w.LeaseExpiresAt == nil || w.LeaseExpiresAt.Before(now) {
		return ErrLeaseLost
	}
	return nil
}

// leasedUpdate changes a work item leased to owner whose lease runs past
// now: set is the SET list, whose own arguments start at $4. An item not
// leased so is ErrLeaseLost; a missing one ErrNotFound.
func (tx *Tx) leasedUpdate(ctx context.Context, what string, id uuid.UUID, owner string, now time.Time, set string, args ...any) (ChannelWork, error) {
	all := append([]any{id, owner, utc(now)}, args...)
	w, err := scanWork(tx.tx.QueryRowContext(ctx,
		`UPDATE channel_work SET `+set+`
		 WHERE id = $1 AND state = 'leased' AND lease_owner = $2 AND lease_expires_at >= $3
		 RETURNING `+workColumns, all...))
	if errors.Is(err, sql.ErrNoRows) {
		var n int
		if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM channel_work WHERE id = $1`, id).Scan(&n); err != nil {
			return w, wrap(tx.d, what, err)
		}
		if n > 0 {
			return w, wrap(tx.d, what, ErrLeaseLost)
		}
	}
	return w, wrap(tx.d, what, err)
}

// ChannelWorkRenew extends owner's lease until expires.
func (tx *Tx) ChannelWorkRenew(ctx context.Context, id uuid.UUID, owner string, now, expires time.Time) (ChannelWork, error) {
	return tx.leasedUpdate(ctx, "renew channel work", id, owner, now, `lease_expires_at = $4, updated_at = $3`, utc(expires))
}

// ChannelWorkProgress replaces the item's progress document.
func (tx *Tx) ChannelWorkProgress(ctx context.Context, id uuid.UUID, owner string, now time.Time, progress []byte) (ChannelWork, error) {
	return tx.leasedUpdate(ctx, "record channel work progress", id, owner, now, `progress_json = $4, updated_at = $3`, string(progress))
}

// ChannelWorkFinish ends the item for good: state is WorkDone or
// WorkFailed. The lease and any staged payload go.
func (tx *Tx) ChannelWorkFinish(ctx context.Context, id uuid.UUID, owner string, now time.Time, state, errText string) (ChannelWork, error) {
	return tx.leasedUpdate(ctx, "finish channel work", id, owner, now,
		`state = $4, error = $5, lease_owner = '', lease_expires_at = NULL, payload = NULL, updated_at = $3`, state, errText)
}

// ChannelWorkDefer returns the item to the pool, claimable again from
// notBefore.
func (tx *Tx) ChannelWorkDefer(ctx context.Context, id uuid.UUID, owner string, now, notBefore time.Time, errText string) (ChannelWork, error) {
	return tx.leasedUpdate(ctx, "defer channel work", id, owner, now,
		`state = 'pending', not_before = $4, error = $5, lease_owner = '', lease_expires_at = NULL, updated_at = $3`, utc(notBefore), errText)
}

// ChannelMessage is a bot message with buttons, and the identity whose
// request it answered.
type ChannelMessage struct {
	ChannelID  uuid.UUID
	ChatID     string
	MessageID  string
	TenantID   uuid.UUID
	IdentityID uuid.UUID
	CreatedAt  time.Time
}

// ChannelMessagesInsert records bot messages of a chat that answered an
// identity's request; a message recorded before keeps its first owner.
func (tx *Tx) ChannelMessagesInsert(ctx context.Context, channelID uuid.UUID, chatID string, messageIDs []string, tenantID, identityID uuid.UUID) error {
	at := tx.now()
	for _, m := range messageIDs {
		if _, err := tx.tx.ExecContext(ctx,
			`INSERT INTO channel_messages (channel_id, chat_id, message_id, tenant_id, identity_id, created_at)
			 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (channel_id, chat_id, message_id) DO NOTHING`,
			channelID, chatID, m, tenantID, identityID, at); err != nil {
			return wrap(tx.d, "record channel message", err)
		}
	}
	return nil
}

// ChannelMessageGet finds a recorded bot message (only the caller's own on
// PostgreSQL, where another tenant's is not found).
func (s *Store) ChannelMessageGet(ctx context.Context, channelID uuid.UUID, chatID, messageID string) (m ChannelMessage, err error) {
	err = s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx,
			`SELECT channel_id, chat_id, message_id, tenant_id, identity_id, created_at FROM channel_messages
			 WHERE channel_id = $1 AND chat_id = $2 AND message_id = $3`, channelID, chatID, messageID).
			Scan(&m.ChannelID, &m.ChatID, &m.MessageID, &m.TenantID, &m.IdentityID, &m.CreatedAt)
	})
	return m, wrap(s.d, "get channel message", err)
}

// MediaCacheKey names a media file as sent through one channel account in
// one representation (photo, video, document, ...).
type MediaCacheKey struct {
	ChannelKind    string
	AccountID      string
	SHA256         string
	Representation string
}

// MediaCacheGet finds the remote reference of a media file.
func (s *Store) MediaCacheGet(ctx context.Context, k MediaCacheKey) (remoteID string, err error) {
	err = s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx,
			`SELECT remote_id FROM channel_media_cache
			 WHERE channel_kind = $1 AND account_id = $2 AND hash = $3 AND representation = $4`,
			k.ChannelKind, k.AccountID, k.SHA256, k.Representation).Scan(&remoteID)
	})
	return remoteID, wrap(s.d, "get media cache entry", err)
}

// MediaCachePut stores (or replaces) the remote reference of a media file.
func (tx *Tx) MediaCachePut(ctx context.Context, k MediaCacheKey, remoteID string) error {
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO channel_media_cache (channel_kind, account_id, hash, representation, remote_id, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6)
		 ON CONFLICT (channel_kind, account_id, hash, representation)
		 DO UPDATE SET remote_id = excluded.remote_id, created_at = excluded.created_at`,
		k.ChannelKind, k.AccountID, k.SHA256, k.Representation, remoteID, tx.now())
	return wrap(tx.d, "put media cache entry", err)
}

// MediaCacheDrop removes the remote reference of a media file if it is
// still remoteID, so that a reference stored meanwhile by another sender
// survives; dropped reports whether it did.
func (tx *Tx) MediaCacheDrop(ctx context.Context, k MediaCacheKey, remoteID string) (dropped bool, err error) {
	res, err := tx.tx.ExecContext(ctx,
		`DELETE FROM channel_media_cache
		 WHERE channel_kind = $1 AND account_id = $2 AND hash = $3 AND representation = $4 AND remote_id = $5`,
		k.ChannelKind, k.AccountID, k.SHA256, k.Representation, remoteID)
	if err != nil {
		return false, wrap(tx.d, "drop media cache entry", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// TenantLock holds the tenant's row lock until the transaction ends, so
// saves and quota checks of one tenant take turns.
func (tx *Tx) TenantLock(ctx context.Context, id uuid.UUID) error {
	q := tx.d.lockTenantQuery()
	if q == "" {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, q, id)
	return wrap(tx.d, "lock tenant", err)
}

// CollectionLock holds a collection's row lock until the transaction ends,
// the lock retention's purge takes too.
func (tx *Tx) CollectionLock(ctx context.Context, id uuid.UUID) error {
	q := tx.d.lockCollectionQuery()
	if q == "" {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, q, id)
	return wrap(tx.d, "lock collection", err)
}

// BlobForRevision finds the blob of some content that a revision shows.
func (s *Store) BlobForRevision(ctx context.Context, revisionID uuid.UUID, sha256 string) (b Blob, err error) {
	err = s.view(ctx, func(q querier) error {
		b, err = scanBlob(q.QueryRowContext(ctx,
			`SELECT `+blobColumns+` FROM blobs b
			 WHERE b.sha256 = $2 AND EXISTS (
				SELECT 1 FROM assets a JOIN revisions r ON r.capture_id = a.capture_id
				WHERE r.id = $1 AND a.blob_id = b.id)
			 LIMIT 1`, revisionID, sha256))
		return err
	})
	return b, wrap(s.d, "get blob of revision", err)
}

// SavedCollectionIDsByPrefix lists up to limit ids of the tenant's saved
// collections whose canonical text form starts with prefix.
func (s *Store) SavedCollectionIDsByPrefix(ctx context.Context, tenantID uuid.UUID, prefix string, limit int) ([]uuid.UUID, error) {
	return s.idsByPrefix(ctx, "find saved collections by prefix",
		`SELECT collection_id FROM tenant_collections
		 WHERE tenant_id = $1 AND CAST(collection_id AS TEXT) LIKE $2
		 ORDER BY collection_id LIMIT `+itoa(limit), tenantID, prefix+"%")
}

// PublicCollectionIDsByPrefix lists up to limit ids of public collections
// whose canonical text form starts with prefix.
func (s *Store) PublicCollectionIDsByPrefix(ctx context.Context, prefix string, limit int) ([]uuid.UUID, error) {
	return s.idsByPrefix(ctx, "find public collections by prefix",
		`SELECT id FROM collections
		 WHERE data_scope = $1 AND CAST(id AS TEXT) LIKE $2
		 ORDER BY id LIMIT `+itoa(limit), PublicScope, prefix+"%")
}

func (s *Store) idsByPrefix(ctx context.Context, what, query string, args ...any) ([]uuid.UUID, error) {
	var out []uuid.UUID
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rows.Err()
	})
	return out, wrap(s.d, what, err)
}

// TenantCollectionCount counts the collections a tenant saved.
func (s *Store) TenantCollectionCount(ctx context.Context, tenantID uuid.UUID) (n int, err error) {
	err = s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT count(*) FROM tenant_collections WHERE tenant_id = $1`, tenantID).Scan(&n)
	})
	return n, wrap(s.d, "count saved collections", err)
}

// UsageDayRead reads a tenant's use on a day (zero when none).
func (s *Store) UsageDayRead(ctx context.Context, tenantID uuid.UUID, day string) (UsageDay, error) {
	u := UsageDay{Day: day}
	err := s.view(ctx, func(q querier) error {
		err := q.QueryRowContext(ctx, `SELECT used, reset_count FROM usage_daily WHERE tenant_id = $1 AND day = $2`, tenantID, day).
			Scan(&u.Used, &u.ResetCount)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	return u, wrap(s.d, "read daily usage", err)
}

// IdentitiesOfTenant lists the identities bound to the tenant, oldest
// first (a watch's notices go to the chat of the first).
func (tx *Tx) IdentitiesOfTenant(ctx context.Context, tenantID uuid.UUID) ([]Identity, error) {
	rows, err := tx.tx.QueryContext(ctx, `SELECT `+identityColumns+` FROM identities WHERE tenant_id = $1 ORDER BY created_at, id`, tenantID)
	if err != nil {
		return nil, wrap(tx.d, "list identities", err)
	}
	defer rows.Close()
	var out []Identity
	for rows.Next() {
		i, err := scanIdentity(rows)
		if err != nil {
			return nil, wrap(tx.d, "list identities", err)
		}
		out = append(out, i)
	}
	return out, wrap(tx.d, "list identities", rows.Err())
}

// SubmissionSetChat sends a submission's result to a chat of a channel
// (a watch's new post to its watcher) and marks its delivery pending.
func (tx *Tx) SubmissionSetChat(ctx context.Context, id, channelID, identityID uuid.UUID, chatID string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE submissions SET channel_id = $2, identity_id = $3, chat_id = $4, delivery_state = $5, updated_at = $6 WHERE id = $1`,
		id, channelID, identityID, chatID, DeliveryPending, tx.now())
	return wrap(tx.d, "set submission chat", err)
}
