package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

func newAdminCmd(d *deps) *cobra.Command {
	admin := &cobra.Command{
		Use:   "admin",
		Short: "Operator tasks: tenants, tokens, usage, settings, audit log, events, errors",
		Args:  cobra.NoArgs,
	}
	tenant := &cobra.Command{Use: "tenant", Short: "Manage tenants", Args: cobra.NoArgs}
	tenant.AddCommand(newTenantCreateCmd(d), newTenantListCmd(d), newTenantShowCmd(d),
		newTenantStatusCmd(d, "approve", "Approve a pending tenant (or enable a disabled one)", "enabled"),
		newTenantStatusCmd(d, "disable", "Disable a tenant: its tokens and channels stop working", "disabled"),
		newTenantStatusCmd(d, "archive", "Archive a tenant", "archived"),
		newTenantSetQuotaCmd(d), newTenantSetLimitsCmd(d), newTenantSetCmd(d), newTenantResetDayCmd(d))
	token := &cobra.Command{Use: "token", Short: "Manage REST API tokens", Args: cobra.NoArgs}
	token.AddCommand(newTokenCreateCmd(d), newTokenListCmd(d), newTokenRevokeCmd(d))
	admin.AddCommand(tenant, token, newLoginLinkCmd(d), newUsageCmd(d), newAuditCmd(d))
	admin.AddCommand(newAdminOpsCmds(d)...)
	admin.AddCommand(newWatchCmd(d), newDestinationCmd(d), newAdminJoinCmd(d))
	return admin
}

// withApp runs fn with the business layer over this instance's database,
// opened the way serve opens it.
func (d *deps) withApp(cmd *cobra.Command, fn func(a *app.App) error) error {
	return d.withOffline(cmd, runtime.OfflineOptions{}, fn)
}

// withOffline asks runtime for the business layer that opts describe and
// runs fn with it.
func (d *deps) withOffline(cmd *cobra.Command, opts runtime.OfflineOptions, fn func(a *app.App) error) error {
	cfg, err := d.loadConfig(cmd)
	if err != nil {
		return err
	}
	o, err := runtime.OpenOffline(cmd.Context(), cfg, d.logger(cfg), opts)
	if err != nil {
		return err
	}
	defer o.Close()
	return fn(o.App())
}

func newTenantCreateCmd(d *deps) *cobra.Command {
	var quota string
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a tenant and print its id",
		Long: `Create a tenant, enabled at once, and print its id. NAME is 1–64 letters,
digits, '.', '_' or '-', unique on this instance.`,
		Example: `  monitor admin tenant create alice
  monitor admin tenant create team-news --quota 50GiB`,
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var quotaBytes *int64
			if cmd.Flags().Changed("quota") {
				n, err := config.ParseBytes(quota)
				if err != nil {
					return usageError{fmt.Errorf("--quota %q: %w", quota, err)}
				}
				quotaBytes = &n
			}
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.CreateTenant(cmd.Context(), app.ActorCLI, args[0], quotaBytes)
				if err != nil {
					return err
				}
				d.printf("%s\n", t.ID)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&quota, "quota", "", "storage quota in bytes, or with a unit: 500MiB, 10GiB, 1TB (default: unlimited)")
	return cmd
}

func newTokenCreateCmd(d *deps) *cobra.Command {
	var tenant, name string
	var adminToken bool
	cmd := &cobra.Command{
		Use:   "create --tenant NAME",
		Short: "Create a REST API token for a tenant and print it (shown only once)",
		Long: `Create a REST API token for a tenant and print it. Only its SHA-256 digest is
stored, so it cannot be shown again: keep it somewhere safe.`,
		Example: `  monitor admin token create --tenant alice
  monitor admin token create --tenant alice --name laptop`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				token, _, err := a.CreateToken(cmd.Context(), app.ActorCLI, tenant, name, adminToken)
				if err != nil {
					return err
				}
				d.printf("%s\n", token)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant the token acts for (required)")
	cmd.Flags().StringVar(&name, "name", "", "a label to recognise the token by")
	cmd.Flags().BoolVar(&adminToken, "admin", false, "the token may also call the operator API (/v1/admin/...)")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

func newLoginLinkCmd(d *deps) *cobra.Command {
	var tenant, ttl string
	var adminLink bool
	cmd := &cobra.Command{
		Use:   "login-link --tenant NAME [--admin] [--ttl 15m]",
		Short: "Print a one-use link that signs a browser in to the web library",
		Long: `Print a link that signs a browser in to the tenant's web library.

The link works once: opening it starts a session (30 days) in that browser, and
opening it again, in any browser, is refused. It expires after --ttl (15 minutes
by default; 1 minute to 7 days) even if nobody opened it. Only its SHA-256 is
stored, so it cannot be shown again; treat it like a password until it is used.

The link starts with the web_base_url setting (e.g. https://monitor.example.org;
set it with ` + "`monitor admin config set web_base_url URL`" + `), else http:// and
MONITOR_HTTP_ADDR.`,
		Example: `  monitor admin login-link --tenant alice
  monitor admin login-link --tenant alice --ttl 2h
  monitor admin login-link --tenant ops --admin --ttl 10m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lifetime, err := parseTTL(ttl)
			if err != nil {
				return usageError{fmt.Errorf("--ttl %q: %w", ttl, err)}
			}
			return d.withApp(cmd, func(a *app.App) error {
				url, _, err := a.CreateLoginLink(cmd.Context(), app.ActorCLI, tenant, adminLink, lifetime)
				if err != nil {
					return err
				}
				d.printf("%s\n", url)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant the link signs in as (required)")
	cmd.Flags().BoolVar(&adminLink, "admin", false, "the session may also open the operator console (/admin)")
	cmd.Flags().StringVar(&ttl, "ttl", app.DefaultLoginLinkTTL.String(), "how long the link works: 1m to 7d, e.g. 15m, 2h, 3d")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

// parseTTL reads a Go duration (15m, 2h30m) or a number of days (3d).
func parseTTL(v string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("not a duration; use e.g. 15m, 2h or 3d")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	t, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("not a duration; use e.g. 15m, 2h or 3d")
	}
	return t, nil
}

func (d *deps) printf(format string, args ...any) {
	fmt.Fprintf(d.stdout, format, args...)
}

// exactArgs is cobra.ExactArgs with a message that names the argument.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s needs %s (see `%s --help`)", cmd.CommandPath(), names, cmd.CommandPath())}
		}
		return nil
	}
}
