package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
)

// newWatchCmd is `monitor admin watch`: every tenant's watched profiles and
// channels, and the operator's side of them.
func newWatchCmd(d *deps) *cobra.Command {
	watch := &cobra.Command{
		Use:   "watch",
		Short: "Watched profiles and channels: list, approve, reject, pause, resume",
		Long: `A watch reads a public X profile or Telegram channel on a schedule and archives
its new posts in the watcher's tenant. With the watch_require_approval setting,
new watches are pending until an admin approves them here. Limits come from the
watch_per_user_limit and watch_max_sources settings (monitor admin config).`,
		Args: cobra.NoArgs,
	}
	watch.AddCommand(newWatchListCmd(d))
	for _, a := range []struct{ action, short, example string }{
		{"approve", "Approve a pending watch; it is read at once", "monitor admin watch approve 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e"},
		{"reject", "Reject a pending watch", "monitor admin watch reject 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e"},
		{"pause", "Pause an active watch of any tenant", "monitor admin watch pause 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e"},
		{"resume", "Resume a paused watch; it is read at once", "monitor admin watch resume 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e"},
	} {
		watch.AddCommand(newWatchActionCmd(d, a.action, a.short, a.example))
	}
	return watch
}

func newWatchListCmd(d *deps) *cobra.Command {
	var (
		state string
		limit int
	)
	cmd := &cobra.Command{
		Use:   "list [--state pending|active|paused|rejected]",
		Short: "List every tenant's watches, oldest first",
		Example: `  monitor admin watch list
  monitor admin watch list --state pending`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				views, err := a.AdminWatches(cmd.Context(), state, limit)
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(views))
				for _, v := range views {
					tenant := "-"
					if v.TenantID != nil {
						tenant = v.TenantID.String()
					}
					last := "-"
					if v.LastRunAt != nil {
						last = v.LastRunAt.UTC().Format(time.RFC3339)
					}
					note := v.LastError
					if v.PausedReason != "" {
						note = v.PausedReason
					}
					rows = append(rows, []string{v.ID.String(), tenant, v.State, v.SourceURL, strconv.Itoa(v.IntervalSeconds),
						v.Notify, strconv.Itoa(v.NewPosts), last, orDash(note)})
				}
				return d.table("ID\tTENANT\tSTATE\tSOURCE\tINTERVAL\tNOTIFY\tNEW\tLAST RUN\tNOTE", rows)
			})
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "only watches in this state: pending, active, paused or rejected")
	cmd.Flags().IntVar(&limit, "limit", 100, "how many watches, 1 to 1000")
	return cmd
}

func newWatchActionCmd(d *deps, action, short, example string) *cobra.Command {
	return &cobra.Command{
		Use:     action + " ID",
		Short:   short,
		Example: "  " + example,
		Args:    exactArgs(1, "the watch ID (monitor admin watch list)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := uuid.Parse(args[0])
			if err != nil {
				return usageError{fmt.Errorf("watch id %q is not a UUID; see monitor admin watch list", args[0])}
			}
			return d.withApp(cmd, func(a *app.App) error {
				v, err := a.AdminWatchAction(cmd.Context(), app.ActorCLI, id, action)
				if err != nil {
					return err
				}
				d.printf("%s %s\n", v.ID, v.State)
				return nil
			})
		},
	}
}
