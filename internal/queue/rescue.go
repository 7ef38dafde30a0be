package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/monitorhq/monitor/internal/store"
)

// River rescues a job left running by a process that died only an hour
// after it started (its rescuer's default, which must exceed the longest
// job). On the embedded default one process owns the data dir (runtime's
// lock), so when it starts, every job still marked running belongs to a
// process that is gone: RescueOrphans hands them back at once, the way
// River's rescuer does (retried while attempts remain, else discarded),
// through River's own driver queries.

// rescueBatch is how many orphans one round hands back.
const rescueBatch = 500

// RescueOrphans makes every job marked running available again (or
// discards one that has used its attempts) and returns how many. Call it
// only before the queue starts and when no other process can be working
// jobs of this database.
func RescueOrphans(ctx context.Context, st *store.Store) (int, error) {
	driver, err := driverFor(st)
	if err != nil {
		return 0, err
	}
	exec := driver.GetExecutor()
	// Everything that started before now is stuck; the horizon is a little
	// ahead, so a job started this very second is included.
	now := time.Now().UTC()
	horizon := now.Add(time.Second)
	n := 0
	var after int64
	for {
		jobs, err := exec.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{AfterID: after, Max: rescueBatch, StuckHorizon: horizon})
		if err != nil {
			return n, fmt.Errorf("queue: find jobs left running: %w", err)
		}
		if len(jobs) == 0 {
			return n, nil
		}
		p := riverdriver.JobRescueManyParams{StuckHorizon: horizon}
		for _, j := range jobs {
			msg, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: max(j.Attempt, 0),
				Error: "the process working this job stopped without finishing it; handed back when monitor started again"})
			if err != nil {
				return n, err
			}
			state, finalized, scheduled := rivertype.JobStateAvailable, (*time.Time)(nil), now
			if j.Attempt >= j.MaxAttempts {
				state, finalized, scheduled = rivertype.JobStateDiscarded, &now, j.ScheduledAt
			}
			p.ID = append(p.ID, j.ID)
			p.Error = append(p.Error, msg)
			p.FinalizedAt = append(p.FinalizedAt, finalized)
			p.ScheduledAt = append(p.ScheduledAt, scheduled)
			p.State = append(p.State, string(state))
		}
		if _, err := exec.JobRescueMany(ctx, &p); err != nil {
			return n, fmt.Errorf("queue: hand back jobs left running: %w", err)
		}
		n += len(jobs)
		after = jobs[len(jobs)-1].ID
		if len(jobs) < rescueBatch {
			return n, nil
		}
	}
}
