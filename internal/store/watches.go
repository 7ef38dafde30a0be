package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Watched sources (migrations sqlite 0014 / postgres 0015_watches.sql): a
// WatchSource is a public profile or channel the pull reads, shared by
// every Watch on it; a Watch is one tenant's; a WatchRun is what one run
// of the source found for one watch.

// Watch states.
const (
	WatchPending  = "pending"
	WatchActive   = "active"
	WatchPaused   = "paused"
	WatchRejected = "rejected"
)

// Delivery states of a watch run.
const (
	WatchDeliveryNone    = "none"
	WatchDeliveryPending = "pending"
	WatchDeliveryDone    = "done"
)

// WatchSource is a watched public source and the pull's state of it.
type WatchSource struct {
	// ID is the source's public collection id.
	ID          uuid.UUID
	AdapterID   string
	Provider    string
	Platform    string
	EntityType  string
	ObjectScope string
	ExternalID  string
	URL         string
	// Seen are the links of the newest posts the pull has met, newest
	// first.
	Seen      []string
	Baselined bool
	Watchers  int
	NextRunAt time.Time
	LastRunAt *time.Time
	Failures  int
	LastError string
	// LeaseUntil is when the lease of the run that holds the source
	// ends, nil when none does.
	LeaseUntil *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

const watchSourceColumns = `id, adapter_id, provider_id, platform, entity_type, object_scope, external_id, url, seen, baselined,
	watchers, next_run_at, last_run_at, failures, last_error, lease_until, created_at, updated_at`

func scanWatchSource(row interface{ Scan(...any) error }) (WatchSource, error) {
	var (
		s       WatchSource
		seen    string
		lastRun sql.NullTime
		lease   sql.NullTime
	)
	if err := row.Scan(&s.ID, &s.AdapterID, &s.Provider, &s.Platform, &s.EntityType, &s.ObjectScope, &s.ExternalID, &s.URL,
		&seen, &s.Baselined, &s.Watchers, &s.NextRunAt, &lastRun, &s.Failures, &s.LastError, &lease, &s.CreatedAt, &s.UpdatedAt); err != nil {
		return WatchSource{}, err
	}
	if err := json.Unmarshal([]byte(seen), &s.Seen); err != nil {
		return WatchSource{}, fmt.Errorf("seen links: %w", err)
	}
	s.NextRunAt, s.CreatedAt, s.UpdatedAt = s.NextRunAt.UTC(), s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	s.LastRunAt, s.LeaseUntil = nullTime(lastRun), nullTime(lease)
	return s, nil
}

func nullTime(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}

// WatchSourceAdd finds the source s.ID or creates it, and counts one more
// watcher on it. A source that had no watchers runs at nextRun (or
// earlier, when it was due sooner).
func (tx *Tx) WatchSourceAdd(ctx context.Context, s WatchSource, nextRun time.Time) (WatchSource, error) {
	now := tx.now()
	nextRun = utc(nextRun)
	out, err := scanWatchSource(tx.tx.QueryRowContext(ctx, `INSERT INTO watch_sources (id, adapter_id, provider_id, platform,
			entity_type, object_scope, external_id, url, watchers, next_run_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $10)
		ON CONFLICT (id) DO UPDATE SET watchers = watch_sources.watchers + 1,
			next_run_at = CASE WHEN watch_sources.next_run_at > excluded.next_run_at THEN excluded.next_run_at ELSE watch_sources.next_run_at END,
			updated_at = excluded.updated_at
		RETURNING `+watchSourceColumns,
		s.ID, s.AdapterID, s.Provider, s.Platform, s.EntityType, s.ObjectScope, s.ExternalID, s.URL, nextRun, now))
	return out, wrap(tx.d, "add watch source", err)
}

// WatchSourceRelease counts one watcher less on source id.
func (tx *Tx) WatchSourceRelease(ctx context.Context, id uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE watch_sources SET watchers = watchers - 1, updated_at = $2 WHERE id = $1 AND watchers > 0`,
		id, tx.now())
	return wrap(tx.d, "release watch source", err)
}

// WatchSourceWake makes source id due at at, unless it is due sooner.
func (tx *Tx) WatchSourceWake(ctx context.Context, id uuid.UUID, at time.Time) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE watch_sources SET next_run_at = $2, updated_at = $3 WHERE id = $1 AND next_run_at > $2`,
		id, utc(at), tx.now())
	return wrap(tx.d, "wake watch source", err)
}

// WatchSourceCount is how many sources have at least one watcher.
func (tx *Tx) WatchSourceCount(ctx context.Context) (int, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM watch_sources WHERE watchers > 0`).Scan(&n)
	return n, wrap(tx.d, "count watch sources", err)
}

// WatchSourceGet reads one source.
func (s *Store) WatchSourceGet(ctx context.Context, id uuid.UUID) (ws WatchSource, err error) {
	err = s.view(ctx, func(q querier) error {
		ws, err = scanWatchSource(q.QueryRowContext(ctx, `SELECT `+watchSourceColumns+` FROM watch_sources WHERE id = $1`, id))
		return err
	})
	return ws, wrap(s.d, "get watch source", err)
}

// WatchSourcesClaimDue leases up to limit sources with watchers that are
// due at now and not held by another run, to owner until leaseUntil, and
// returns them. A run whose process died loses its lease when it
// expires. A leased source is due next at the lease's end, so a wake
// during the run (WatchSourceWake, a new watcher) shows as an earlier
// next run, which WatchSourceRunEnd keeps.
func (tx *Tx) WatchSourcesClaimDue(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]WatchSource, error) {
	now, leaseUntil = utc(now), utc(leaseUntil)
	// The lease condition is checked again outside the subquery, so a
	// source another tick leased meanwhile is not taken twice.
	rows, err := tx.tx.QueryContext(ctx, `UPDATE watch_sources SET lease_owner = $2, lease_until = $3, next_run_at = $3
		WHERE (lease_until IS NULL OR lease_until < $1) AND id IN (
			SELECT id FROM watch_sources
			WHERE watchers > 0 AND next_run_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
			ORDER BY next_run_at, id LIMIT $4)
		RETURNING `+watchSourceColumns, now, owner, leaseUntil, limit)
	if err != nil {
		return nil, wrap(tx.d, "lease due watch sources", err)
	}
	defer rows.Close()
	var out []WatchSource
	for rows.Next() {
		ws, err := scanWatchSource(rows)
		if err != nil {
			return nil, wrap(tx.d, "lease due watch sources", err)
		}
		out = append(out, ws)
	}
	return out, wrap(tx.d, "lease due watch sources", rows.Err())
}

// WatchSourceHeld reports whether owner still holds source id's lease at
// now.
func (tx *Tx) WatchSourceHeld(ctx context.Context, id uuid.UUID, owner string, now time.Time) (bool, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM watch_sources WHERE id = $1 AND lease_owner = $2 AND lease_until >= $3`,
		id, owner, utc(now)).Scan(&n)
	return n > 0, wrap(tx.d, "check watch source lease", err)
}

// WatchSourceRunEnd records the end of a run of source id that owner held
// and frees the lease: seen, baselined and failures as given, the next
// run at next, or sooner when the source was woken during the run: a
// watch made or resumed then was not in the run, and runs at the next
// tick.
func (tx *Tx) WatchSourceRunEnd(ctx context.Context, id uuid.UUID, owner string, seen []string, baselined bool, failures int,
	lastError string, next time.Time) error {
	if seen == nil {
		seen = []string{}
	}
	body, err := json.Marshal(seen)
	if err != nil {
		return fmt.Errorf("store: end watch run: %w", err)
	}
	now := tx.now()
	_, err = tx.tx.ExecContext(ctx, `UPDATE watch_sources SET seen = $3, baselined = $4, failures = $5, last_error = $6,
			next_run_at = CASE WHEN next_run_at < lease_until AND next_run_at < $7 THEN next_run_at ELSE $7 END, last_run_at = $8, updated_at = $8, lease_owner = NULL, lease_until = NULL
		WHERE id = $1 AND lease_owner = $2`, id, owner, string(body), baselined, failures, lastError, utc(next), now)
	return wrap(tx.d, "end watch run", err)
}

// Watch is a tenant's watch of a source.
type Watch struct {
	ID              uuid.UUID
	TenantID        uuid.UUID
	SourceID        uuid.UUID
	URL             string
	IntervalSeconds int
	Notify          string
	SinceAt         *time.Time
	Backfill        bool
	State           string
	PausedReason    string
	Started         bool
	NewPosts        int
	LastRunAt       *time.Time
	LastError       string
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

const watchColumns = `id, tenant_id, source_id, url, interval_seconds, notify, since_at, backfill, state, paused_reason, started,
	new_posts, last_run_at, last_error, created_at, updated_at`

func scanWatch(row interface{ Scan(...any) error }) (Watch, error) {
	var (
		w              Watch
		since, lastRun sql.NullTime
	)
	if err := row.Scan(&w.ID, &w.TenantID, &w.SourceID, &w.URL, &w.IntervalSeconds, &w.Notify, &since, &w.Backfill, &w.State,
		&w.PausedReason, &w.Started, &w.NewPosts, &lastRun, &w.LastError, &w.CreatedAt, &w.UpdatedAt); err != nil {
		return Watch{}, err
	}
	w.SinceAt, w.LastRunAt = nullTime(since), nullTime(lastRun)
	w.CreatedAt, w.UpdatedAt = w.CreatedAt.UTC(), w.UpdatedAt.UTC()
	return w, nil
}

func scanWatches(rows *sql.Rows, err error) ([]Watch, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Watch
	for rows.Next() {
		w, err := scanWatch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// WatchInsert stores a new watch; a second watch of the same source by
// the tenant is ErrConflict. Zero ID and times are filled in.
func (tx *Tx) WatchInsert(ctx context.Context, w Watch) (Watch, error) {
	if w.ID == uuid.Nil {
		w.ID = uuid.Must(uuid.NewV7())
	}
	w.CreatedAt = tx.now()
	w.UpdatedAt = w.CreatedAt
	var since any
	if w.SinceAt != nil {
		since = utc(*w.SinceAt)
	}
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO watches (id, tenant_id, source_id, url, interval_seconds, notify, since_at,
			backfill, state, paused_reason, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
		w.ID, w.TenantID, w.SourceID, w.URL, w.IntervalSeconds, w.Notify, since, w.Backfill, w.State, w.PausedReason, w.CreatedAt)
	return w, wrap(tx.d, "insert watch", err)
}

// WatchGet reads the tenant's watch id (ErrNotFound: none, or another
// tenant's).
func (tx *Tx) WatchGet(ctx context.Context, tenantID, id uuid.UUID) (Watch, error) {
	w, err := scanWatch(tx.tx.QueryRowContext(ctx, `SELECT `+watchColumns+` FROM watches WHERE id = $1 AND tenant_id = $2`, id, tenantID))
	return w, wrap(tx.d, "get watch", err)
}

// WatchList lists the tenant's watches, oldest first.
func (s *Store) WatchList(ctx context.Context, tenantID uuid.UUID) ([]Watch, error) {
	var out []Watch
	err := s.view(ctx, func(q querier) error {
		var err error
		out, err = scanWatches(q.QueryContext(ctx, `SELECT `+watchColumns+` FROM watches WHERE tenant_id = $1 ORDER BY created_at, id`, tenantID))
		return err
	})
	return out, wrap(s.d, "list watches", err)
}

// WatchCount is how many watches the tenant has that are pending, active
// or paused (a rejected one does not count).
func (tx *Tx) WatchCount(ctx context.Context, tenantID uuid.UUID) (int, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM watches WHERE tenant_id = $1 AND state <> 'rejected'`, tenantID).Scan(&n)
	return n, wrap(tx.d, "count watches", err)
}

// WatchUpdate writes a watch's interval, notify mode, state and reason.
func (tx *Tx) WatchUpdate(ctx context.Context, w Watch) (Watch, error) {
	out, err := scanWatch(tx.tx.QueryRowContext(ctx, `UPDATE watches SET interval_seconds = $3, notify = $4, state = $5,
			paused_reason = $6, updated_at = $7
		WHERE id = $1 AND tenant_id = $2 RETURNING `+watchColumns,
		w.ID, w.TenantID, w.IntervalSeconds, w.Notify, w.State, w.PausedReason, tx.now()))
	return out, wrap(tx.d, "update watch", err)
}

// WatchRanFor records a run's outcome on the watch: n more posts, the
// error ("" = none), started.
func (tx *Tx) WatchRanFor(ctx context.Context, tenantID, id uuid.UUID, n int, errText string) error {
	now := tx.now()
	_, err := tx.tx.ExecContext(ctx, `UPDATE watches SET new_posts = new_posts + $3, last_error = $4, last_run_at = $5, started = $6,
			updated_at = $5 WHERE id = $1 AND tenant_id = $2`, id, tenantID, n, errText, now, true)
	return wrap(tx.d, "record watch run", err)
}

// WatchPushedFor counts n more posts on the watch that came by push; it is
// not a run, so the watch's last run, error and start stay.
func (tx *Tx) WatchPushedFor(ctx context.Context, tenantID, id uuid.UUID, n int) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE watches SET new_posts = new_posts + $3, updated_at = $4 WHERE id = $1 AND tenant_id = $2`,
		id, tenantID, n, tx.now())
	return wrap(tx.d, "record pushed posts", err)
}

// WatchDelete removes the tenant's watch and its runs. Its source counts
// one watcher less unless the watch was rejected (a trigger of migration
// 0016/0018, which also counts the watches a deleted tenant takes along).
func (tx *Tx) WatchDelete(ctx context.Context, tenantID, id uuid.UUID) (Watch, error) {
	if _, err := tx.tx.ExecContext(ctx, `DELETE FROM watch_runs WHERE watch_id = $1 AND tenant_id = $2`, id, tenantID); err != nil {
		return Watch{}, wrap(tx.d, "delete watch runs", err)
	}
	w, err := scanWatch(tx.tx.QueryRowContext(ctx, `DELETE FROM watches WHERE id = $1 AND tenant_id = $2 RETURNING `+watchColumns, id, tenantID))
	return w, wrap(tx.d, "delete watch", err)
}

// WatchesOfSource lists the watches of a source in a state ("" = any),
// whoever's they are, oldest first: the pull fans a run out to them.
func (s *Store) WatchesOfSource(ctx context.Context, sourceID uuid.UUID, state string) ([]Watch, error) {
	q := `SELECT ` + watchColumns + ` FROM watches WHERE source_id = $1 AND ($2 = '' OR state = $2) ORDER BY created_at, id`
	if s.d.name() == "postgres" {
		q = `SELECT ` + watchColumns + ` FROM monitor_watches_of_source($1, $2)`
	}
	var out []Watch
	err := s.view(ctx, func(qr querier) error {
		var err error
		out, err = scanWatches(qr.QueryContext(ctx, q, sourceID, state))
		return err
	})
	return out, wrap(s.d, "list watches of source", err)
}

// WatchListAll lists every tenant's watches in a state ("" = any), oldest
// first, at most limit: for operators.
func (s *Store) WatchListAll(ctx context.Context, state string, limit int) ([]Watch, error) {
	q := `SELECT ` + watchColumns + ` FROM watches WHERE ($1 = '' OR state = $1) ORDER BY created_at, id LIMIT $2`
	if s.d.name() == "postgres" {
		q = `SELECT ` + watchColumns + ` FROM monitor_watch_list_all($1, $2)`
	}
	var out []Watch
	err := s.view(ctx, func(qr querier) error {
		var err error
		out, err = scanWatches(qr.QueryContext(ctx, q, state, limit))
		return err
	})
	return out, wrap(s.d, "list all watches", err)
}

// WatchTenant finds whose watch id is, across tenants (ErrNotFound: no
// such watch).
func (s *Store) WatchTenant(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	q := `SELECT tenant_id FROM watches WHERE id = $1`
	if s.d.name() == "postgres" {
		q = `SELECT monitor_watch_tenant($1)`
	}
	var tenant uuid.NullUUID
	err := s.view(ctx, func(qr querier) error { return qr.QueryRowContext(ctx, q, id).Scan(&tenant) })
	if err == nil && !tenant.Valid {
		err = sql.ErrNoRows
	}
	return tenant.UUID, wrap(s.d, "find the tenant of a watch", err)
}

// WatchRunPost is one new post a run gave a watcher.
type WatchRunPost struct {
	SubmissionID uuid.UUID `json:"submission_id"`
	CaptureID    uuid.UUID `json:"capture_id"`
	CollectionID uuid.UUID `json:"collection_id"`
	URL          string    `json:"url"`
}

// WatchRun is what one run of a source found for one watch.
type WatchRun struct {
	ID        uuid.UUID
	WatchID   uuid.UUID
	TenantID  uuid.UUID
	StartedAt time.Time
	EndedAt   time.Time
	NewPosts  int
	// Posts are the new posts, oldest first.
	Posts         []WatchRunPost
	Error         string
	Notify        string
	DeliveryState string
}

const watchRunColumns = `id, watch_id, tenant_id, started_at, ended_at, new_posts, posts, error, notify, delivery_state`

func scanWatchRun(row interface{ Scan(...any) error }) (WatchRun, error) {
	var (
		r     WatchRun
		posts string
	)
	if err := row.Scan(&r.ID, &r.WatchID, &r.TenantID, &r.StartedAt, &r.EndedAt, &r.NewPosts, &posts, &r.Error, &r.Notify,
		&r.DeliveryState); err != nil {
		return WatchRun{}, err
	}
	if err := json.Unmarshal([]byte(posts), &r.Posts); err != nil {
		return WatchRun{}, fmt.Errorf("run posts: %w", err)
	}
	r.StartedAt, r.EndedAt = r.StartedAt.UTC(), r.EndedAt.UTC()
	return r, nil
}

// WatchRunInsert records a run of a watch.
func (tx *Tx) WatchRunInsert(ctx context.Context, r WatchRun) (WatchRun, error) {
	if r.ID == uuid.Nil {
		r.ID = uuid.Must(uuid.NewV7())
	}
	if r.Posts == nil {
		r.Posts = []WatchRunPost{}
	}
	body, err := json.Marshal(r.Posts)
	if err != nil {
		return WatchRun{}, fmt.Errorf("store: insert watch run: %w", err)
	}
	r.StartedAt, r.EndedAt = utc(r.StartedAt), tx.now()
	_, err = tx.tx.ExecContext(ctx, `INSERT INTO watch_runs (`+watchRunColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		r.ID, r.WatchID, r.TenantID, r.StartedAt, r.EndedAt, r.NewPosts, string(body), r.Error, r.Notify, r.DeliveryState)
	return r, wrap(tx.d, "insert watch run", err)
}

// WatchRunList lists the runs of the tenant's watch, newest first, at most
// limit.
func (s *Store) WatchRunList(ctx context.Context, tenantID, watchID uuid.UUID, limit int) ([]WatchRun, error) {
	out, err := s.watchRuns(ctx, `WHERE tenant_id = $1 AND watch_id = $2 ORDER BY started_at DESC, id DESC LIMIT $3`, tenantID, watchID, limit)
	return out, wrap(s.d, "list watch runs", err)
}

// WatchRunsPending lists the tenant's runs whose posts wait to be
// delivered or digested, oldest first, at most limit.
func (s *Store) WatchRunsPending(ctx context.Context, tenantID uuid.UUID, limit int) ([]WatchRun, error) {
	out, err := s.watchRuns(ctx, `WHERE tenant_id = $1 AND delivery_state = 'pending' ORDER BY started_at, id LIMIT $2`, tenantID, limit)
	return out, wrap(s.d, "list pending watch runs", err)
}

// watchRuns reads the runs a WHERE ... ORDER BY ... LIMIT clause selects.
func (s *Store) watchRuns(ctx context.Context, clause string, args ...any) ([]WatchRun, error) {
	var out []WatchRun
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+watchRunColumns+` FROM watch_runs `+clause, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanWatchRun(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// WatchRunDelivered marks the tenant's run delivered (ErrNotFound: no
// such run pending).
func (tx *Tx) WatchRunDelivered(ctx context.Context, tenantID, id uuid.UUID) error {
	res, err := tx.tx.ExecContext(ctx, `UPDATE watch_runs SET delivery_state = 'done' WHERE id = $1 AND tenant_id = $2
		AND delivery_state = 'pending'`, id, tenantID)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = sql.ErrNoRows
		}
	}
	return wrap(tx.d, "mark watch run delivered", err)
}

// WatchSourcesLock makes transactions that count or add watched sources
// take turns, across tenants.
func (tx *Tx) WatchSourcesLock(ctx context.Context) error {
	q := tx.d.lockKeyQuery()
	if q == "" {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, q, "watch_sources")
	return wrap(tx.d, "lock watch sources", err)
}

// WatchSourceExists reports whether source id is known.
func (tx *Tx) WatchSourceExists(ctx context.Context, id uuid.UUID) (bool, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM watch_sources WHERE id = $1`, id).Scan(&n)
	return n > 0, wrap(tx.d, "find watch source", err)
}

// WatchSourceResume makes source id due at at and forgets its failures:
// a watch resumed after the source failed tries again at once.
func (tx *Tx) WatchSourceResume(ctx context.Context, id uuid.UUID, at time.Time) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE watch_sources SET next_run_at = $2, failures = 0, updated_at = $3 WHERE id = $1`,
		id, utc(at), tx.now())
	return wrap(tx.d, "resume watch source", err)
}
