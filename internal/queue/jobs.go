package queue

import (
	"context"

	"github.com/riverqueue/river"
)

// This file lists every job kind Monitor runs, so the pipeline can be read
// in one place.

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
