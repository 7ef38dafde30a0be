package main

import (
	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

func newServeCmd(d *deps) *cobra.Command {
	var printConfig, demo bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run Monitor: HTTP API, workers and built-in adapters (migrates the embedded database itself)",
		Long: `Run Monitor's core: the HTTP server (/healthz, /readyz), the job workers and,
on the embedded default, the SQLite database and media files in the data dir,
migrated automatically. Stops gracefully on SIGINT or SIGTERM within 10 s.

With --demo on an empty data dir, serve first creates the tenant demo and
imports a sample archive shipped in the binary into it (no network needed),
then prints a one-use sign-in link for it. On a data dir that has the demo
tenant it prints a fresh link; on one with other tenants it refuses.`,
		Example: `  monitor serve
  MONITOR_DATA_DIR=./demo-data monitor serve --demo
  MONITOR_DATA_DIR=/var/lib/monitor monitor serve --http-addr 0.0.0.0:8080
  monitor serve --print-config`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			if printConfig {
				return cfg.PrintTo(d.stdout)
			}
			log := d.logger(cfg)
			if demo {
				core, dm, err := runtime.OpenDemo(cmd.Context(), cfg, log)
				if err != nil {
					return err
				}
				d.printf("Open %s\n", dm.LoginURL)
				return core.Run(cmd.Context())
			}
			core, err := runtime.Open(cmd.Context(), cfg, log)
			if err != nil {
				return err
			}
			return core.Run(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&printConfig, "print-config", false, "print the effective configuration (secrets redacted) and exit")
	cmd.Flags().BoolVar(&demo, "demo", false, "on an empty data dir, import a built-in sample archive into tenant demo and print a sign-in link")
	config.RegisterFlags(cmd.Flags(), "http-addr", "channel-addr", "fxtwitter-url", "tme-url", "telegram-api-url",
		"adapters", "capture-workers", "download-workers", "control-workers")
	return cmd
}

func newMigrateCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations (Monitor's and the job queue's) and exit",
		Long: `Apply every pending database migration, each file with its record in one
transaction, then the job queue's migrations. Refuses a database migrated by a
newer monitor, or one whose applied migration files have changed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			applied, err := runtime.Migrate(cmd.Context(), cfg, d.logger(cfg))
			for _, name := range applied {
				d.printf("applied %s\n", name)
			}
			if err != nil {
				return err
			}
			d.printf("database is up to date\n")
			return nil
		},
	}
}
