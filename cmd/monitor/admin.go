package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/runtime"
)

func newAdminCmd(d *deps) *cobra.Command {
	admin := &cobra.Command{
		Use:   "admin",
		Short: "Operator tasks: tenants and API tokens",
		Args:  cobra.NoArgs,
	}
	tenant := &cobra.Command{Use: "tenant", Short: "Manage tenants", Args: cobra.NoArgs}
	tenant.AddCommand(newTenantCreateCmd(d))
	token := &cobra.Command{Use: "token", Short: "Manage REST API tokens", Args: cobra.NoArgs}
	token.AddCommand(newTokenCreateCmd(d))
	admin.AddCommand(tenant, token)
	return admin
}

// withApp opens the store the way serve does and runs fn with the business
// layer.
func (d *deps) withApp(cmd *cobra.Command, fn func(a *app.App) error) error {
	cfg, err := d.loadConfig(cmd)
	if err != nil {
		return err
	}
	log := d.logger(cfg)
	st, err := runtime.OpenStore(cmd.Context(), cfg, log)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(app.New(st, log))
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
				n, err := parseBytes(quota)
				if err != nil {
					return usageError{fmt.Errorf("--quota %q: %w", quota, err)}
				}
				quotaBytes = &n
			}
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.CreateTenant(cmd.Context(), args[0], quotaBytes)
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
				token, _, err := a.CreateToken(cmd.Context(), tenant, name)
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

// byteUnits are the suffixes parseBytes accepts, longest first.
var byteUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1},
}

// parseBytes reads a byte count: a whole number, optionally with a unit.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, factor = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("must be a whole number of bytes, optionally with a unit (KiB, MiB, GiB, TiB, KB, MB, GB, TB)")
	}
	if n > (1<<63-1)/factor {
		return 0, errors.New("is too large")
	}
	return n * factor, nil
}
