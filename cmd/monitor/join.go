package main

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
)

// Joining channels by invite link (Spore's /join): `monitor account join`
// asks, `monitor admin join` decides. Off until an operator sets
// account_join_enabled.

func newAccountJoinCmd(d *deps) *cobra.Command {
	var tenant, connection string
	cmd := &cobra.Command{
		Use:   "join --tenant NAME --connection ID LINK",
		Short: "Ask that one of the tenant's accounts join a channel by its invite link",
		Long: `Ask that one of the tenant's Telegram accounts join the channel an invite link
(https://t.me/+… or https://t.me/joinchat/…) leads to, so that the channel's
posts can be archived through the account. The account reads the invite first,
joining nothing: a link that is not an invite, or one that expired, is refused
here. The request then waits for an operator (monitor admin join approve|deny).
An account that is a member already is joined at once.

Joining is off until an operator turns it on:
  monitor admin config set account_join_enabled true`,
		Example: `  monitor account join --tenant alice --connection 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e https://t.me/+AbCdEf012345`,
		Args:    exactArgs(1, "the invite LINK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := connectionArg(cmd, connection)
			if err != nil {
				return err
			}
			return d.withEngine(cmd, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				r, err := a.AskJoin(cmd.Context(), app.AskJoinRequest{TenantID: t.ID, ConnectionID: id, Invite: args[0], Actor: app.ActorCLI})
				if err != nil {
					return err
				}
				if r.State == "joined" {
					d.printf("join request %s: %s, joined already; archive it with the connection: %s\n", r.ID, orDash(r.Title), r.ChannelURL)
					return nil
				}
				d.printf("join request %s: %s, pending; an operator decides with monitor admin join approve|deny %s\n", r.ID, orDash(r.Title), r.ID)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant (required)")
	cmd.Flags().StringVar(&connection, "connection", "", "the id of the tenant's Telegram account that joins (required; monitor account list)")
	_ = cmd.MarkFlagRequired("tenant")
	_ = cmd.MarkFlagRequired("connection")
	config.RegisterFlags(cmd.Flags(), "adapters", "fxtwitter-url", "tme-url")
	return cmd
}

func newAccountJoinsCmd(d *deps) *cobra.Command {
	var tenant string
	cmd := &cobra.Command{
		Use:     "joins --tenant NAME",
		Short:   "List the tenant's requests to join channels, newest first",
		Example: `  monitor account joins --tenant alice`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				list, err := a.JoinRequests(cmd.Context(), t.ID)
				if err != nil {
					return err
				}
				return d.table("ID\tCONNECTION\tTITLE\tSTATE\tCHANNEL\tASKED\tNOTE", joinRows(list, false))
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant (required)")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

// joinRows are requests as table rows, with their tenant for operators.
func joinRows(list []app.JoinRequestView, withTenant bool) [][]string {
	rows := make([][]string, 0, len(list))
	for _, r := range list {
		row := []string{r.ID.String()}
		if withTenant {
			row = append(row, r.TenantID.String())
		}
		row = append(row, r.ConnectionID.String(), orDash(r.Title), r.State, orDash(r.ChannelURL),
			r.CreatedAt.UTC().Format(time.RFC3339), orDash(r.Reason))
		rows = append(rows, row)
	}
	return rows
}

// newAdminJoinCmd is `monitor admin join`: the operator's side of join
// requests.
func newAdminJoinCmd(d *deps) *cobra.Command {
	join := &cobra.Command{
		Use:   "join",
		Short: "Tenants' requests to join channels by invite link: list, approve, deny",
		Long: `A tenant asks that one of its Telegram accounts join a channel by invite link
(monitor account join); the request waits here. Approving makes the account
join: the request becomes joined (with the channel's link, which the tenant
archives through the account), requested (the channel's admins accept members
themselves) or failed with Telegram's reason. When Telegram asks the account to
wait, the request stays pending: approve it again later.

Joining is off until turned on: monitor admin config set account_join_enabled true`,
		Args: cobra.NoArgs,
	}
	join.AddCommand(newAdminJoinListCmd(d), newAdminJoinDecideCmd(d, true), newAdminJoinDecideCmd(d, false))
	return join
}

func newAdminJoinListCmd(d *deps) *cobra.Command {
	var (
		state string
		limit int
	)
	cmd := &cobra.Command{
		Use:   "list [--state pending|joined|requested|failed|denied]",
		Short: "List every tenant's join requests, oldest first",
		Example: `  monitor admin join list
  monitor admin join list --state pending`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				list, err := a.AdminJoinRequests(cmd.Context(), state, limit)
				if err != nil {
					return err
				}
				return d.table("ID\tTENANT\tCONNECTION\tTITLE\tSTATE\tCHANNEL\tASKED\tNOTE", joinRows(list, true))
			})
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "only requests in this state: pending, joined, requested, failed or denied")
	cmd.Flags().IntVar(&limit, "limit", 100, "how many requests, 1 to 1000")
	return cmd
}

func newAdminJoinDecideCmd(d *deps, approve bool) *cobra.Command {
	var reason string
	use, short, example := "approve ID", "Approve a pending join request: the account joins now",
		"  monitor admin join approve 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e"
	if !approve {
		use, short, example = "deny ID [--reason TEXT]", "Deny a pending join request; the tenant sees the reason",
			"  monitor admin join deny 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e --reason \"not a source we archive\""
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args:    exactArgs(1, "the join request ID (monitor admin join list)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := uuid.Parse(args[0])
			if err != nil {
				return usageError{fmt.Errorf("join request id %q is not a UUID; see monitor admin join list", args[0])}
			}
			return d.withEngine(cmd, func(a *app.App) error {
				r, err := a.AdminDecideJoin(cmd.Context(), app.DecideJoin{ID: id, Approve: approve, Reason: reason, Actor: app.ActorCLI})
				if err != nil {
					return err
				}
				switch r.State {
				case "joined":
					d.printf("join request %s: joined %s; the tenant archives %s through connection %s\n", r.ID, orDash(r.Title), r.ChannelURL, r.ConnectionID)
				case "failed":
					d.printf("join request %s: failed: %s\n", r.ID, r.Reason)
					return exitError{code: 1, msg: "the account did not join: " + r.Reason}
				default:
					d.printf("join request %s: %s: %s\n", r.ID, r.State, r.Reason)
				}
				return nil
			})
		},
	}
	if !approve {
		cmd.Flags().StringVar(&reason, "reason", "", "why, for the tenant (up to 500 characters)")
	}
	config.RegisterFlags(cmd.Flags(), "adapters", "fxtwitter-url", "tme-url")
	return cmd
}
