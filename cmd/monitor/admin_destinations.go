package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
)

// newDestinationCmd is `monitor admin destination`: the cloud drives,
// reached through rclone, that tenants may push their archive to.
func newDestinationCmd(d *deps) *cobra.Command {
	dest := &cobra.Command{
		Use:   "destination",
		Short: "Cloud destinations through rclone: add, list, allow, remove",
		Long: `A destination is an rclone remote and path (REMOTE:PATH) with the rclone config
that defines the remote. The config is stored encrypted with MONITOR_MASTER_KEY
and is never shown again; pushes run the rclone binary with it in a private
temporary file. A tenant pushes only to destinations it was allowed.`,
		Args: cobra.NoArgs,
	}
	dest.AddCommand(newDestinationAddCmd(d), newDestinationListCmd(d), newDestinationAllowCmd(d), newDestinationRemoveCmd(d))
	return dest
}

func newDestinationAddCmd(d *deps) *cobra.Command {
	var remote, config string
	cmd := &cobra.Command{
		Use:     "add NAME --remote REMOTE:PATH --config FILE",
		Short:   "Add a destination from an rclone config file (stored encrypted)",
		Example: "  monitor admin destination add drive --remote 'gdrive:Monitor' --config ~/.config/rclone/rclone.conf",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if remote == "" || config == "" {
				return usageError{fmt.Errorf("say where: --remote REMOTE:PATH and --config FILE")}
			}
			data, err := os.ReadFile(config)
			if err != nil {
				return fmt.Errorf("reading the rclone config: %w", err)
			}
			return d.withApp(cmd, func(a *app.App) error {
				v, err := a.AddDestination(cmd.Context(), app.ActorCLI, args[0], remote, data)
				if err != nil {
					return err
				}
				d.printf("destination %s added: %s\n", v.Name, v.Remote)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&remote, "remote", "", "rclone's REMOTE:PATH to write under")
	cmd.Flags().StringVar(&config, "config", "", "the rclone config file that defines REMOTE")
	return cmd
}

func newDestinationListCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List destinations (never their configs)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				ds, err := a.Destinations(cmd.Context())
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(ds))
				for _, v := range ds {
					rows = append(rows, []string{v.Name, v.Remote, v.CreatedAt.UTC().Format(time.RFC3339)})
				}
				return d.table("NAME\tREMOTE\tADDED", rows)
			})
		},
	}
}

func newDestinationAllowCmd(d *deps) *cobra.Command {
	var (
		tenant string
		def    bool
	)
	cmd := &cobra.Command{
		Use:     "allow NAME --tenant TENANT [--default]",
		Short:   "Let a tenant push to a destination, as its default with --default",
		Example: "  monitor admin destination allow drive --tenant alice --default",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tenant == "" {
				return usageError{fmt.Errorf("say which tenant: --tenant NAME")}
			}
			return d.withApp(cmd, func(a *app.App) error {
				if err := a.AllowDestination(cmd.Context(), app.ActorCLI, args[0], tenant, def); err != nil {
					return err
				}
				d.printf("tenant %s may push to %s (default: %t)\n", tenant, args[0], def)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "the tenant's name")
	cmd.Flags().BoolVar(&def, "default", false, "make it the tenant's default destination")
	return cmd
}

func newDestinationRemoveCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a destination and its record of pushes",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				if err := a.RemoveDestination(cmd.Context(), app.ActorCLI, args[0]); err != nil {
					return err
				}
				d.printf("destination %s removed\n", args[0])
				return nil
			})
		},
	}
}
