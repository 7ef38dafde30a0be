package main

import (
	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

func newServeCmd(d *deps) *cobra.Command {
	var printConfig bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run Monitor: HTTP API, workers and built-in adapters (migrates the embedded database itself)",
		Long: `Run Monitor's core: the HTTP server (/healthz, /readyz), the job workers and,
on the embedded default, the SQLite database and media files in the data dir,
migrated automatically. Stops gracefully on SIGINT or SIGTERM within 10 s.`,
		Example: `  monitor serve
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
			core, err := runtime.Open(cmd.Context(), cfg, log)
			if err != nil {
				return err
			}
			return core.Run(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&printConfig, "print-config", false, "print the effective configuration (secrets redacted) and exit")
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
