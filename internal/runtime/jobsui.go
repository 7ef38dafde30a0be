package runtime

import (
	"log/slog"

	"riverqueue.com/riverui"

	"github.com/monitorhq/monitor/internal/queue"
)

// jobsUIPrefix is where the operator console mounts River's job UI.
const jobsUIPrefix = "/admin/river"

// newJobsUI builds River's job UI over the queue's client, for the
// operator console to mount behind its admin check. Start it with the
// server; it serves nothing of its own.
func newJobsUI(q *queue.Queue, log *slog.Logger) (*riverui.Handler, error) {
	return riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(q.Client(), nil),
		Logger:    log,
		Prefix:    jobsUIPrefix,
		// Job arguments hold ids only, but stay folded until asked for.
		JobListHideArgsByDefault: true,
	})
}
