package queue

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// This file lists every job kind Monitor runs, so the pipeline can be read
// in one place.

// CaptureArgs asks the capture worker to fetch one capture through its
// adapter and stage what came back.
type CaptureArgs struct {
	CaptureID uuid.UUID `json:"capture_id"`
	// TenantID is the executing tenant, whose rights the worker acts with.
	TenantID uuid.UUID `json:"tenant_id"`
}

// Kind is the job kind stored in River.
func (CaptureArgs) Kind() string { return "capture" }

// InsertOpts puts captures on the capture queue, one job per capture.
func (CaptureArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Capture, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// DownloadArgs asks the download worker to store one asset's media.
type DownloadArgs struct {
	AssetID uuid.UUID `json:"asset_id" river:"unique"`
	// TenantID is the capture's executing tenant.
	TenantID uuid.UUID `json:"tenant_id" river:"unique"`
	// NotBefore, when set, is the earliest the download may start: a
	// retry of a download the capture job tried first waits out the
	// host's Retry-After (or the doubling delay) as a retried job would.
	NotBefore time.Time `json:"not_before,omitzero"`
}

// Kind is the job kind stored in River.
func (DownloadArgs) Kind() string { return "download" }

// InsertOpts puts downloads on the download queue, one job per asset.
func (DownloadArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Download, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// FinalizeArgs asks the control worker to finish a capture whose assets
// are all terminal: revision, state, reservations, deliveries.
type FinalizeArgs struct {
	CaptureID uuid.UUID `json:"capture_id"`
	// TenantID is the capture's executing tenant.
	TenantID uuid.UUID `json:"tenant_id"`
}

// Kind is the job kind stored in River.
func (FinalizeArgs) Kind() string { return "finalize" }

// InsertOpts puts finalizing on the control queue, one job per capture.
func (FinalizeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RelatedArgs asks the control worker to expand a collection page once its
// capture has ended: one automatic child submission per related target,
// then, for a batch, the next page.
type RelatedArgs struct {
	SubmissionID uuid.UUID `json:"submission_id"`
	// TenantID is the submitter's tenant.
	TenantID uuid.UUID `json:"tenant_id"`
}

// Kind is the job kind stored in River.
func (RelatedArgs) Kind() string { return "related" }

// InsertOpts puts the expansion on the control queue, one job per page.
func (RelatedArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// PushArgs asks the control worker to upload a collection's current
// revision (its media and its Markdown file) to a cloud destination with
// rclone; a failed attempt is retried.
type PushArgs struct {
	PushID uuid.UUID `json:"push_id"`
	// TenantID is the pushing tenant.
	TenantID uuid.UUID `json:"tenant_id"`
}

// Kind is the job kind stored in River.
func (PushArgs) Kind() string { return "cloud_push" }

// PushAttempts is how often a push is tried before it fails for good.
const PushAttempts = 3

// InsertOpts puts pushes on the control queue, one job per push.
func (PushArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: PushAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// PurgeErrorLogsArgs asks the control worker to delete error log rows older
// than the error_log_retention_days setting.
type PurgeErrorLogsArgs struct{}

// Kind is the job kind stored in River.
func (PurgeErrorLogsArgs) Kind() string { return "purge_error_logs" }

// InsertOpts puts the purge on the control queue.
func (PurgeErrorLogsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 3}
}

// PurgeChannelRowsArgs asks the control worker to delete the channel
// plumbing older than the channel_retention_days setting: finished work
// items, replies, the updates nothing refers to any more and the bot
// messages that carry buttons.
type PurgeChannelRowsArgs struct{}

// Kind is the job kind stored in River.
func (PurgeChannelRowsArgs) Kind() string { return "purge_channel_rows" }

// InsertOpts puts the purge on the control queue.
func (PurgeChannelRowsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 3}
}

// PurgeWebSessionsArgs asks the control worker to delete expired web
// sessions and expired login links.
type PurgeWebSessionsArgs struct{}

// Kind is the job kind stored in River.
func (PurgeWebSessionsArgs) Kind() string { return "purge_web_sessions" }

// InsertOpts puts the purge on the control queue.
func (PurgeWebSessionsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 3}
}

// PurgeCollectionsArgs asks the control worker to purge the content of
// collections nobody has saved for collection_retention_days.
type PurgeCollectionsArgs struct{}

// Kind is the job kind stored in River.
func (PurgeCollectionsArgs) Kind() string { return "purge_collections" }

// InsertOpts puts the purge on the control queue.
func (PurgeCollectionsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 3}
}

// CollectGarbageArgs asks the control worker to delete garbage objects and
// pending ones past object_gc_grace_hours from the blob store.
type CollectGarbageArgs struct{}

// Kind is the job kind stored in River.
func (CollectGarbageArgs) Kind() string { return "collect_garbage" }

// InsertOpts puts object GC on the control queue.
func (CollectGarbageArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 3}
}

// InterruptStaleArgs asks the control worker to end captures that stopped
// making progress as failed with code INTERRUPTED.
type InterruptStaleArgs struct{}

// Kind is the job kind stored in River.
func (InterruptStaleArgs) Kind() string { return "interrupt_stale" }

// InsertOpts puts the check on the control queue.
func (InterruptStaleArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 3}
}

// NotifyArgs asks the control worker to tell operators about an event
// through one notification channel (telegram or webhook). It carries the
// event as it was when the notification was decided.
type NotifyArgs struct {
	// Channel is "telegram" or "webhook".
	Channel string `json:"channel"`
	// Type is "event" (it happened) or "recovery" (it was resolved).
	Type     string    `json:"type"`
	Key      string    `json:"key"`
	Severity string    `json:"severity"`
	Message  string    `json:"message"`
	Count    int64     `json:"count"`
	At       time.Time `json:"at"`
}

// Kind is the job kind stored in River.
func (NotifyArgs) Kind() string { return "notify" }

// InsertOpts puts notifications on the control queue; a channel that
// fails is tried again a few times.
func (NotifyArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 5}
}

// ScheduledSnapshotArgs asks the control worker to write a snapshot when
// the newest one is older than backup_interval_hours (0: never), and to
// delete the snapshots beyond backup_keep_count.
type ScheduledSnapshotArgs struct{}

// Kind is the job kind stored in River.
func (ScheduledSnapshotArgs) Kind() string { return "scheduled_snapshot" }

// InsertOpts puts the check on the control queue, one at a time.
func (ScheduledSnapshotArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateScheduled, rivertype.JobStateRetryable}}}
}

// WatchTickArgs asks the control worker to find the watched sources that
// are due and start one WatchSourceArgs run for each.
type WatchTickArgs struct{}

// Kind is the job kind stored in River.
func (WatchTickArgs) Kind() string { return "watch_tick" }

// InsertOpts puts the tick on the control queue.
func (WatchTickArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 3}
}

// WatchSourceArgs asks the control worker to read one watched source's
// newest pages and fan its new posts out to every watcher. Owner is the
// lease the tick took on the source: a run whose lease was lost does
// nothing.
type WatchSourceArgs struct {
	SourceID uuid.UUID `json:"source_id"`
	Owner    string    `json:"owner"`
}

// Kind is the job kind stored in River.
func (WatchSourceArgs) Kind() string { return "watch_source" }

// InsertOpts puts source runs on the control queue, one job per lease.
func (WatchSourceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// WatchPushArgs asks the control worker to archive a post the bot
// received from a watched channel for every active watcher, once the
// album it belongs to is complete (GroupKey gathers the parts). Each part
// of an album inserts one; the first to find the album quiet archives it,
// the others find nothing left to do.
type WatchPushArgs struct {
	SourceID uuid.UUID `json:"source_id"`
	GroupKey string    `json:"group_key"`
}

// Kind is the job kind stored in River.
func (WatchPushArgs) Kind() string { return "watch_push" }

// InsertOpts puts pushed posts on the control queue.
func (WatchPushArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Control, MaxAttempts: 10}
}

// Schedule lists the jobs inserted on a schedule, for Queue.AddPeriodic:
// each once when the queue starts, then every interval. On PostgreSQL only
// the elected leader among the processes inserts them, so each runs once
// per period however many replicas serve. Their workers must be
// registered wherever the schedule is added. Each entry has a unique ID.
func Schedule() []Periodic {
	return []Periodic{
		// Hourly, and once at start (seed 003: error_logs retention).
		{ID: PurgeErrorLogsArgs{}.Kind(), Interval: time.Hour, Args: PurgeErrorLogsArgs{}},
		// Hourly, and once at start: the channel plumbing of handled updates.
		{ID: PurgeChannelRowsArgs{}.Kind(), Interval: time.Hour, Args: PurgeChannelRowsArgs{}},
		// Hourly, and once at start: expired web sessions and login links.
		{ID: PurgeWebSessionsArgs{}.Kind(), Interval: time.Hour, Args: PurgeWebSessionsArgs{}},
		// Retention and object GC (seed 000), hourly.
		{ID: PurgeCollectionsArgs{}.Kind(), Interval: time.Hour, Args: PurgeCollectionsArgs{}},
		{ID: CollectGarbageArgs{}.Kind(), Interval: time.Hour, Args: CollectGarbageArgs{}},
		// Work lost in a crash ends INTERRUPTED instead of staying in flight.
		{ID: InterruptStaleArgs{}.Kind(), Interval: 15 * time.Minute, Args: InterruptStaleArgs{}},
		// Scheduled snapshots: the interval is a runtime setting (hours), so
		// the check runs every 15 minutes and is a no-op while it is 0.
		{ID: ScheduledSnapshotArgs{}.Kind(), Interval: 15 * time.Minute, Args: ScheduledSnapshotArgs{}},
		// Watched sources: every minute, the due ones are read.
		{ID: WatchTickArgs{}.Kind(), Interval: time.Minute, Args: WatchTickArgs{}},
	}
}

// NoopArgs is a job that does nothing. It proves the queue end to end
// (insert, fetch, work, complete) in tests and operations checks.
type NoopArgs struct {
	// Note is free text for whoever inserted it.
	Note string `json:"note,omitempty"`
}

// Kind is the job kind stored in River.
func (NoopArgs) Kind() string { return "noop" }

// InsertOpts puts no-op jobs on the control queue.
func (NoopArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: Control} }

type noopWorker struct {
	river.WorkerDefaults[NoopArgs]
}

func (*noopWorker) Work(context.Context, *river.Job[NoopArgs]) error { return nil }
