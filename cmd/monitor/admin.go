package main

import (
	"fmt"

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
		newTenantSetQuotaCmd(d), newTenantSetLimitsCmd(d), newTenantResetDayCmd(d))
	token := &cobra.Command{Use: "token", Short: "Manage REST API tokens", Args: cobra.NoArgs}
	token.AddCommand(newTokenCreateCmd(d), newTokenListCmd(d), newTokenRevokeCmd(d))
	admin.AddCommand(tenant, token, newUsageCmd(d), newAuditCmd(d))
	admin.AddCommand(newAdminOpsCmds(d)...)
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
