package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
)

// table writes aligned columns to stdout.
func (d *deps) table(header string, rows [][]string) error {
	w := tabwriter.NewWriter(d.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, header)
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				fmt.Fprint(w, "\t")
			}
			fmt.Fprint(w, c)
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

func bytesText(n *int64) string {
	if n == nil {
		return "unlimited"
	}
	return strconv.FormatInt(*n, 10)
}

func limitsText(l app.TenantLimits) string {
	part := func(n int, unit string) string {
		if n == 0 {
			return "-"
		}
		return strconv.Itoa(n) + unit
	}
	return fmt.Sprintf("interval %s, daily %s, concurrent %s", part(l.IntervalSeconds, "s"), part(l.Daily, ""), part(l.Concurrent, ""))
}

func newTenantListCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List tenants with their status, quota and limits",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				ts, err := a.Tenants(cmd.Context())
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(ts))
				for _, t := range ts {
					rows = append(rows, []string{t.Name, t.Status, t.Kind, bytesText(t.QuotaBytes), limitsText(t.Limits), t.ID.String()})
				}
				return d.table("NAME\tSTATUS\tKIND\tQUOTA\tLIMITS\tID", rows)
			})
		},
	}
}

func newTenantShowCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Show a tenant: status, quota and use, limits, last refusal",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.TenantShow(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				denied := "never"
				if t.LastDeniedAt != nil {
					denied = t.LastDeniedAt.UTC().Format(time.RFC3339) + " (" + t.LastDeniedReason + ")"
				}
				d.printf("name:       %s\nid:         %s\nstatus:     %s\nkind:       %s\nadmin:      %t\nquota:      %s\nused:       %d bytes (%d reserved)\ntoday:      %d captures\nlimits:     %s\nlast denied: %s\ncreated:    %s\n",
					t.Name, t.ID, t.Status, t.Kind, t.Admin, bytesText(t.QuotaBytes), *t.UsedBytes, t.ReservedBytes, *t.UsedToday,
					limitsText(t.Limits), denied, t.CreatedAt.UTC().Format(time.RFC3339))
				return nil
			})
		},
	}
}

func newTenantStatusCmd(d *deps, verb, short, status string) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.UpdateTenant(cmd.Context(), app.ActorCLI, args[0], app.TenantChange{Status: &status})
				if err != nil {
					return err
				}
				d.printf("tenant %s is %s\n", t.Name, t.Status)
				return nil
			})
		},
	}
}

func newTenantSetQuotaCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:     "set-quota NAME BYTES|unlimited",
		Short:   "Set a tenant's storage quota (bytes or with a unit: 500MiB, 10GiB; unlimited)",
		Example: "  monitor admin tenant set-quota alice 10GiB\n  monitor admin tenant set-quota alice unlimited",
		Args:    exactArgs(2, "NAME and the quota"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ch := app.TenantChange{QuotaSet: true}
			if args[1] != "unlimited" {
				n, err := config.ParseBytes(args[1])
				if err != nil {
					return usageError{fmt.Errorf("quota %q: %w", args[1], err)}
				}
				ch.QuotaBytes = &n
			}
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.UpdateTenant(cmd.Context(), app.ActorCLI, args[0], ch)
				if err != nil {
					return err
				}
				d.printf("tenant %s quota: %s\n", t.Name, bytesText(t.QuotaBytes))
				return nil
			})
		},
	}
}

func newTenantSetLimitsCmd(d *deps) *cobra.Command {
	var interval time.Duration
	var daily, concurrent, channels int
	cmd := &cobra.Command{
		Use:     "set-limits NAME [--interval 10s] [--daily 50] [--concurrent 2] [--channels 1]",
		Short:   "Set a tenant's submit interval, daily captures and captures at once (0 = no limit), and how many channels it may bind",
		Example: "  monitor admin tenant set-limits alice --interval 10s --daily 50 --concurrent 2\n  monitor admin tenant set-limits alice --channels 3",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if interval < 0 || interval%time.Second != 0 || daily < 0 || concurrent < 0 {
				return usageError{fmt.Errorf("limits must be 0 (no limit) or more; --interval in whole seconds, e.g. 10s")}
			}
			return d.withApp(cmd, func(a *app.App) error {
				cur, err := a.TenantShow(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				l := cur.Limits
				if cmd.Flags().Changed("interval") {
					l.IntervalSeconds = int(interval / time.Second)
				}
				if cmd.Flags().Changed("daily") {
					l.Daily = daily
				}
				if cmd.Flags().Changed("concurrent") {
					l.Concurrent = concurrent
				}
				change := app.TenantChange{Limits: &l}
				if cmd.Flags().Changed("channels") {
					change.ChannelLimit = &channels
				}
				t, err := a.UpdateTenant(cmd.Context(), app.ActorCLI, args[0], change)
				if err != nil {
					return err
				}
				d.printf("tenant %s limits: %s, channels %d\n", t.Name, limitsText(t.Limits), t.ChannelLimit)
				return nil
			})
		},
	}
	cmd.Flags().DurationVar(&interval, "interval", 0, "least time between two submits, e.g. 10s (0: no limit)")
	cmd.Flags().IntVar(&daily, "daily", 0, "captures per operating day (0: no limit)")
	cmd.Flags().IntVar(&concurrent, "concurrent", 0, "unfinished captures at once (0: no limit)")
	cmd.Flags().IntVar(&channels, "channels", 1, "channels the tenant may bind with the bot's /bind (0: none)")
	return cmd
}

func newTenantSetCmd(d *deps) *cobra.Command {
	var admin bool
	cmd := &cobra.Command{
		Use:   "set NAME --admin[=false]",
		Short: "Mark a tenant as an operator, or no longer one",
		Long: `Mark a tenant as an operator (--admin) or take the mark away (--admin=false).
An operator's sign-in links through the bot (/web, /admin) open sessions with
admin rights, which may use the operator console at /admin.`,
		Example: "  monitor admin tenant set tg1001 --admin\n  monitor admin tenant set tg1001 --admin=false",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("admin") {
				return usageError{fmt.Errorf("say what to set: --admin or --admin=false")}
			}
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.UpdateTenant(cmd.Context(), app.ActorCLI, args[0], app.TenantChange{Admin: &admin})
				if err != nil {
					return err
				}
				d.printf("tenant %s admin: %t\n", t.Name, t.Admin)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&admin, "admin", false, "the tenant is an operator")
	return cmd
}

func newTenantResetDayCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "reset-day NAME",
		Short: "Give a tenant today's daily captures back",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				if err := a.ResetTenantDay(cmd.Context(), app.ActorCLI, args[0]); err != nil {
					return err
				}
				d.printf("tenant %s: today's captures reset\n", args[0])
				return nil
			})
		},
	}
}

func newTokenListCmd(d *deps) *cobra.Command {
	var tenant string
	cmd := &cobra.Command{
		Use:   "list --tenant NAME",
		Short: "List a tenant's tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				toks, err := a.Tokens(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(toks))
				for _, t := range toks {
					state := "active"
					if t.RevokedAt != nil {
						state = "revoked " + t.RevokedAt.UTC().Format(time.RFC3339)
					}
					rows = append(rows, []string{t.ID.String(), t.Name, strconv.FormatBool(t.Admin), t.CreatedAt.UTC().Format(time.RFC3339), state})
				}
				return d.table("ID\tNAME\tADMIN\tCREATED\tSTATE", rows)
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "the tenant (required)")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

func newTokenRevokeCmd(d *deps) *cobra.Command {
	var tenant string
	cmd := &cobra.Command{
		Use:   "revoke ID --tenant NAME",
		Short: "Revoke a token at once",
		Args:  exactArgs(1, "the token ID (see monitor admin token list)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := uuid.Parse(args[0])
			if err != nil {
				return usageError{fmt.Errorf("token id %q is not a UUID; see monitor admin token list", args[0])}
			}
			return d.withApp(cmd, func(a *app.App) error {
				if err := a.RevokeToken(cmd.Context(), app.ActorCLI, tenant, id); err != nil {
					return err
				}
				d.printf("token %s revoked\n", id)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "the token's tenant (required)")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

func newUsageCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "usage",
		Short: "Storage and today's captures of every tenant",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				us, err := a.UsageAll(cmd.Context())
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(us))
				for _, u := range us {
					rows = append(rows, []string{u.Tenant, strconv.FormatInt(u.UsedBytes, 10), strconv.FormatInt(u.ReservedBytes, 10),
						bytesText(u.QuotaBytes), strconv.Itoa(u.UsedToday)})
				}
				return d.table("TENANT\tUSED\tRESERVED\tQUOTA\tTODAY", rows)
			})
		},
	}
}

func newAuditCmd(d *deps) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "audit [--limit N]",
		Short: "The audit log of operator actions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				entries, err := a.Audit(cmd.Context(), limit)
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(entries))
				for _, e := range entries {
					rows = append(rows, []string{e.At.UTC().Format(time.RFC3339), e.Actor, e.Action, e.Target, string(e.After)})
				}
				return d.table("AT\tACTOR\tACTION\tTARGET\tAFTER", rows)
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "how many entries")
	return cmd
}
