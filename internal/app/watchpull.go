package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// The pull: every minute the watch_tick job leases the sources that are
// due (never one another run holds) and starts a watch_source job for
// each. The run reads the source's newest page through its adapter, and
// older pages until it meets a post it has seen, then gives the new posts,
// oldest first, to every active watcher as automatic captures in the
// watcher's tenant, each under an idempotency key of the watch and the
// post, so a repeated run never archives a post twice.

// Pull bounds.
const (
	// watchLease is how long a run holds its source; a run whose process
	// died frees it when it expires.
	watchLease = 10 * time.Minute
	// watchClaimBatch is how many sources one transaction of a tick
	// leases, and maxWatchBatches how many such transactions a tick runs.
	watchClaimBatch = 200
	maxWatchBatches = 25
	// watchPageSize is how many posts one page read asks for: one upstream
	// page of X or t.me.
	watchPageSize = 20
	// maxWatchPages is how many pages a run reads to reach the last post
	// it saw; posts older than that are not archived.
	maxWatchPages = 5
	// watchSeenKeep is how many of the newest links a source remembers.
	watchSeenKeep = 500
	// maxWatchJitter bounds how much sooner than its interval a source
	// runs, so sources made together spread out.
	maxWatchJitter = time.Minute
)

// SourceWatch is the error log source of the pull.
const SourceWatch = "watch"

// EventWatchPausedPrefix + source id: a watched source failed
// WatchFailuresToPause runs in a row and its watches paused themselves.
const EventWatchPausedPrefix = "watch.paused."

type watchTickWorker struct {
	river.WorkerDefaults[queue.WatchTickArgs]
	app *App
}

func (w *watchTickWorker) Work(ctx context.Context, _ *river.Job[queue.WatchTickArgs]) error {
	_, err := w.app.WatchTick(ctx)
	return err
}

type watchSourceWorker struct {
	river.WorkerDefaults[queue.WatchSourceArgs]
	app *App
}

// Timeout ends a run well before its lease does.
func (w *watchSourceWorker) Timeout(*river.Job[queue.WatchSourceArgs]) time.Duration {
	return watchLease / 2
}

func (w *watchSourceWorker) Work(ctx context.Context, job *river.Job[queue.WatchSourceArgs]) error {
	return w.app.runWatchSource(ctx, job.Args.SourceID, job.Args.Owner)
}

// WatchTick leases the watched sources that are due and starts a run of
// each, watchClaimBatch sources a transaction, at most maxWatchBatches
// batches a tick; it returns how many it started. The periodic watch_tick
// job calls it; tests call it after moving the clock.
func (a *App) WatchTick(ctx context.Context) (int, error) {
	now := a.now()
	owner := uuid.NewString()
	total := 0
	for range maxWatchBatches {
		n := 0
		err := a.store.InTx(ctx, func(tx *store.Tx) error {
			due, err := tx.WatchSourcesClaimDue(ctx, owner, now, now.Add(watchLease), watchClaimBatch)
			if err != nil {
				return err
			}
			if n = len(due); n == 0 {
				return nil
			}
			jobs := make([]river.JobArgs, len(due))
			for i, s := range due {
				jobs[i] = queue.WatchSourceArgs{SourceID: s.ID, Owner: owner}
			}
			return a.insertJobs(ctx, tx, jobs)
		})
		total += n
		if err != nil || n < watchClaimBatch {
			return total, err
		}
	}
	return total, nil
}

// watchKey is the idempotency key of the submission a watch makes for a
// post.
func watchKey(watchID uuid.UUID, url string) string {
	sum := sha256.Sum256([]byte(url))
	return "watch:" + watchID.String() + ":" + hex.EncodeToString(sum[:12])
}

// sourceRead is what one run read of a source.
type sourceRead struct {
	// first is the newest page's links, newest first.
	first []string
	// fresh are the links not seen before, newest first.
	fresh []string
	// gap: the run read maxWatchPages without meeting a seen post.
	gap bool
	// listed are every link read, newest first, and published when each
	// was published, where the adapter said (a watch that starts at a
	// past date takes those after it).
	listed    []string
	published map[string]time.Time
	// backGap: the run read maxWatchPages and still found posts after
	// the backfill date.
	backGap bool
}

// readSource reads a source's newest pages until it meets a post it has
// seen, and, when backTo is set, on until a post published before backTo:
// one adapter Fetch per page, outside any transaction, at most
// maxWatchPages.
func (a *App) readSource(ctx context.Context, src store.WatchSource, backTo time.Time) (sourceRead, error) {
	seen := make(map[string]bool, len(src.Seen))
	for _, u := range src.Seen {
		seen[u] = true
	}
	// Posts that came by push are archived already: skipped, but not a
	// place to stop, since older posts may not have come that way.
	pushedURLs, err := a.store.WatchPushedURLs(ctx, src.ID, watchSeenKeep)
	if err != nil {
		return sourceRead{}, err
	}
	pushed := make(map[string]bool, len(pushedURLs))
	for _, u := range pushedURLs {
		pushed[u] = true
	}
	out := sourceRead{published: map[string]time.Time{}}
	cursor := ""
	met := false            // a seen post: what is older is known
	back := backTo.IsZero() // a post from before backTo, or none asked
	for page := 0; page < maxWatchPages; page++ {
		resp, err := a.adapters.Fetch(ctx, src.AdapterID, &adapterv1.FetchRequest{
			ProviderId: src.Provider,
			Target: &adapterv1.Target{Platform: src.Platform, EntityType: src.EntityType, ObjectScope: src.ObjectScope,
				ExternalId: src.ExternalID, CanonicalUrl: src.URL},
			PageCursor: cursor,
			PageSize:   watchPageSize,
		})
		if err != nil {
			if page > 0 {
				// What was read is kept; the rest waits for the next run.
				out.gap = !met
				out.backGap = !back
				return out, nil
			}
			return sourceRead{}, err
		}
		for _, rt := range resp.GetRelatedTargets() {
			u := rt.GetUrl()
			if page == 0 {
				out.first = append(out.first, u)
			}
			if !slices.Contains(out.listed, u) {
				out.listed = append(out.listed, u)
			}
			if at := rt.GetPublishedAt(); at != nil && at.IsValid() {
				out.published[u] = at.AsTime().UTC()
				if at.AsTime().Before(backTo) {
					back = true
				}
			} else {
				back = true // no dates: the newest page is all it takes
			}
			if met {
				continue
			}
			if seen[u] {
				met = true
				continue
			}
			if pushed[u] || slices.Contains(out.fresh, u) {
				continue
			}
			out.fresh = append(out.fresh, u)
		}
		done := (met || !src.Baselined) && back
		if done || resp.GetNextPageCursor() == "" {
			return out, nil
		}
		cursor = resp.GetNextPageCursor()
	}
	out.gap = !met && src.Baselined
	out.backGap = !back
	return out, nil
}

// runWatchSource is one run of a source, if owner still holds its lease.
func (a *App) runWatchSource(ctx context.Context, sourceID uuid.UUID, owner string) error {
	started := a.now()
	held := false
	if err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		held, err = tx.WatchSourceHeld(ctx, sourceID, owner, started)
		return err
	}); err != nil || !held {
		return err
	}
	src, err := a.store.WatchSourceGet(ctx, sourceID)
	if err != nil {
		return err
	}
	watchers, err := a.store.WatchesOfSource(ctx, sourceID, store.WatchActive)
	if err != nil {
		return err
	}
	interval := DefaultWatchInterval
	for i, w := range watchers {
		if d := time.Duration(w.IntervalSeconds) * time.Second; i == 0 || d < interval {
			interval = d
		}
	}
	end := func(seen []string, baselined bool, failures int, errText string, next time.Time) error {
		return a.store.InTx(ctx, func(tx *store.Tx) error {
			return tx.WatchSourceRunEnd(ctx, sourceID, owner, seen, baselined, failures, errText, next)
		})
	}
	if len(watchers) == 0 {
		// Only pending or paused watches: look again later.
		return end(src.Seen, src.Baselined, src.Failures, src.LastError, started.Add(interval))
	}
	// A watch that starts at a past date reads back to it on its first run.
	var backTo time.Time
	for _, w := range watchers {
		if w.Backfill && !w.Started && w.SinceAt != nil && (backTo.IsZero() || w.SinceAt.Before(backTo)) {
			backTo = *w.SinceAt
		}
	}
	read, err := a.readSource(ctx, src, backTo)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return a.watchFailed(ctx, src, owner, watchers, interval, started, err)
	}

	// What each watcher gets, newest first.
	wants := make(map[uuid.UUID][]string, len(watchers))
	for _, w := range watchers {
		if w.SinceAt != nil && w.SinceAt.After(started) {
			continue // starts later
		}
		switch {
		case w.Backfill && !w.Started && w.SinceAt != nil:
			wants[w.ID] = backfill(read, *w.SinceAt)
		case !w.Started || !src.Baselined:
			// The first run of a watch learns what is there.
		default:
			wants[w.ID] = read.fresh
		}
	}
	// Resolve each link once, outside the transactions.
	var links []string
	for _, want := range wants {
		for _, u := range want {
			if !slices.Contains(links, u) {
				links = append(links, u)
			}
		}
	}
	resolved := map[string]adapterapi.Resolved{}
	var problems []string
	for _, u := range links {
		r, err := a.adapters.Resolve(ctx, u)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			problems = append(problems, clip(u, 120)+": "+err.Error())
			continue
		}
		resolved[u] = r
	}
	note := ""
	if read.gap {
		note = fmt.Sprintf("more than %d pages of new posts since the last run; the older ones were not archived", maxWatchPages)
	}
	if len(problems) > 0 {
		note = joinNote(note, fmt.Sprintf("%d links could not be read: %s", len(problems), problems[0]))
	}
	for _, w := range watchers {
		if w.SinceAt != nil && w.SinceAt.After(started) {
			continue // starts later
		}
		want := wants[w.ID]
		runNote := note
		if w.Backfill && !w.Started && w.SinceAt != nil && read.backGap {
			runNote = joinNote(runNote, fmt.Sprintf("more than %d pages of posts since %s; the older ones were not archived", maxWatchPages,
				w.SinceAt.Format("2006-01-02 15:04 MST")))
		}
		// Oldest first.
		ordered := make([]string, 0, len(want))
		for i := len(want) - 1; i >= 0; i-- {
			if _, ok := resolved[want[i]]; ok {
				ordered = append(ordered, want[i])
			}
		}
		if err := a.fanOut(ctx, w, ordered, resolved, started, runNote, false); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			a.log.WarnContext(ctx, "watch run could not give posts to a watcher", slog.String("watch", w.ID.String()), slog.Any("err", err))
		}
	}
	// The newest page is known now, pushed posts on it too.
	seen := append(append(append([]string{}, read.fresh...), read.first...), src.Seen...)
	seen = slices.Compact(dedupe(seen))
	if len(seen) > watchSeenKeep {
		seen = seen[:watchSeenKeep]
	}
	if src.Failures > 0 {
		_ = a.store.InTx(ctx, func(tx *store.Tx) error {
			_, _, err := tx.EventResolve(ctx, EventWatchPausedPrefix+src.ID.String(), a.now())
			if isNotFound(err) {
				return nil
			}
			return err
		})
	}
	a.log.InfoContext(ctx, "watch run", slog.String("source", src.ID.String()), slog.Int("new", len(read.fresh)),
		slog.Int("watchers", len(watchers)))
	return end(seen, true, 0, "", nextWatchRun(started, interval))
}

// backfill is what a watch that starts at since takes on its first run:
// the posts read that were published after since, newest first. Posts
// whose date the adapter did not give count when they are on the newest
// page.
func backfill(read sourceRead, since time.Time) []string {
	var out []string
	for _, u := range read.listed {
		at, dated := read.published[u]
		if dated && at.After(since) || !dated && slices.Contains(read.first, u) {
			out = append(out, u)
		}
	}
	return out
}

// fanOut gives one watcher the posts of a run, in order, in its tenant:
// one automatic capture each (charged to the tenant as any save), and the
// run's record. pushed: the posts came by push, which is no run of the
// watch (its last run, error and first run stay as they were).
func (a *App) fanOut(ctx context.Context, w store.Watch, links []string, resolved map[string]adapterapi.Resolved, started time.Time,
	note string, pushed bool) error {
	ctx = store.WithTenant(ctx, w.TenantID)
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.TenantLock(ctx, w.TenantID); err != nil {
			return err
		}
		cur, err := tx.WatchGet(ctx, w.TenantID, w.ID)
		if isNotFound(err) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if cur.State != store.WatchActive {
			return nil
		}
		tenant, err := tx.TenantGetByID(ctx, w.TenantID)
		if err != nil {
			return err
		}
		errText := note
		posts := make([]store.WatchRunPost, 0, len(links))
		for _, u := range links {
			key := watchKey(w.ID, u)
			if _, err := tx.SubmissionGetByIdemKey(ctx, w.TenantID, key); err == nil {
				continue // given by a run that did not get to record its end
			} else if !isNotFound(err) {
				return err
			}
			sub, err := a.createChild(ctx, tx, tenant, key, nil, stagedTarget{URL: u}, resolved[u], nil)
			var qe *QuotaError
			if errors.As(err, &qe) {
				errText = joinNote(errText, fmt.Sprintf("%d new posts were not archived: %s", len(links)-len(posts), qe.Error()))
				break
			}
			if err != nil {
				return err
			}
			posts = append(posts, store.WatchRunPost{SubmissionID: sub.ID, CaptureID: sub.CaptureID, CollectionID: sub.CollectionID, URL: u})
		}
		if pushed && len(posts) == 0 {
			return nil // given already, by another part's job or a pull
		}
		delivery := store.WatchDeliveryNone
		if len(posts) > 0 && cur.Notify != NotifyNone {
			delivery = store.WatchDeliveryPending
		}
		run := store.WatchRun{WatchID: w.ID, TenantID: w.TenantID, StartedAt: started, NewPosts: len(posts),
			Posts: posts, Error: errText, Notify: cur.Notify, DeliveryState: delivery}
		if err := a.queueWatchNotice(ctx, tx, &run, cur.URL); err != nil {
			return err
		}
		if _, err := tx.WatchRunInsert(ctx, run); err != nil {
			return err
		}
		if pushed {
			return tx.WatchPushedFor(ctx, w.TenantID, w.ID, len(posts))
		}
		return tx.WatchRanFor(ctx, w.TenantID, w.ID, len(posts), errText)
	})
}

// watchFailed records a run whose first read failed: the source waits
// twice as long after each failure in a row (at most MaxWatchBackoff), and
// after WatchFailuresToPause its watches pause themselves, with an event
// for operators and a run that tells each watcher why.
func (a *App) watchFailed(ctx context.Context, src store.WatchSource, owner string, watchers []store.Watch, interval time.Duration,
	started time.Time, ferr error) error {
	failures := src.Failures + 1
	msg := watchErrorText(src, ferr)
	wait := MaxWatchBackoff
	if failures < 20 {
		wait = min(interval<<failures, MaxWatchBackoff)
	}
	pause := failures >= WatchFailuresToPause
	reason := fmt.Sprintf("paused by itself after %d failed runs in a row: %s", failures, msg)
	for _, w := range watchers {
		wctx := store.WithTenant(ctx, w.TenantID)
		err := a.store.InTx(wctx, func(tx *store.Tx) error {
			cur, err := tx.WatchGet(wctx, w.TenantID, w.ID)
			if isNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			run := store.WatchRun{WatchID: w.ID, TenantID: w.TenantID, StartedAt: started, Error: msg, Notify: cur.Notify,
				DeliveryState: store.WatchDeliveryNone}
			if pause && cur.State == store.WatchActive {
				cur.State, cur.PausedReason = store.WatchPaused, reason
				if _, err := tx.WatchUpdate(wctx, cur); err != nil {
					return err
				}
				// The watcher is told, whatever its notify mode.
				run.Error, run.DeliveryState = reason, store.WatchDeliveryPending
				if err := audit(wctx, tx, "system", "watch.pause", w.ID.String(), map[string]any{"state": store.WatchActive},
					map[string]any{"state": store.WatchPaused, "reason": reason}); err != nil {
					return err
				}
			}
			if err := a.queueWatchNotice(wctx, tx, &run, cur.URL); err != nil {
				return err
			}
			if _, err := tx.WatchRunInsert(wctx, run); err != nil {
				return err
			}
			return tx.WatchRanFor(wctx, w.TenantID, w.ID, 0, msg)
		})
		if err != nil {
			return err
		}
	}
	a.log.InfoContext(ctx, "watch run failed", slog.String("source", src.ID.String()), slog.Int("failures", failures), slog.String("err", msg))
	a.LogError(ctx, ErrorRecord{Source: SourceWatch, Code: adapterCode(ferr), Stage: "pull", Message: "watched source could not be read",
		Detail: msg, Context: map[string]string{"adapter": src.AdapterID, "source_id": src.ID.String()}})
	if pause {
		if err := a.RecordEvent(ctx, EventWatchPausedPrefix+src.ID.String(), SeverityWarn,
			fmt.Sprintf("the watches of %s paused themselves after %d failed runs in a row: %s", src.URL, failures, msg)); err != nil {
			return err
		}
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.WatchSourceRunEnd(ctx, src.ID, owner, src.Seen, src.Baselined, failures, msg, started.Add(wait))
	})
}

// watchErrorText says why a source could not be read, for people.
func watchErrorText(src store.WatchSource, err error) string {
	var ae *adapterapi.Error
	if errors.As(err, &ae) {
		switch ae.Code {
		case adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND:
			return fmt.Sprintf("%s is gone: it was deleted or renamed (%s); watch its new link instead", src.URL, ae.Message)
		case adapterv1.ErrorCode_ERROR_CODE_PRIVATE, adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT:
			return fmt.Sprintf("%s is not public any more (%s); only public sources can be watched", src.URL, ae.Message)
		}
	}
	return fmt.Sprintf("%s could not be read: %s", src.URL, err.Error())
}

// nextWatchRun is when a source runs next: one interval on, a little
// sooner by chance so sources made together spread out, never later.
func nextWatchRun(from time.Time, interval time.Duration) time.Time {
	jitter := min(interval/10, maxWatchJitter)
	if jitter > 0 {
		jitter = time.Duration(rand.Int64N(int64(jitter)))
	}
	return from.Add(interval - jitter)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// dedupe keeps the first of each link, in order.
func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, u := range in {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
