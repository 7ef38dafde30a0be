package queue

import (
	"context"

	"github.com/google/uuid"

	"github.com/riverqueue/river"
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
	AssetID uuid.UUID `json:"asset_id"`
	// TenantID is the capture's executing tenant.
	TenantID uuid.UUID `json:"tenant_id"`
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
