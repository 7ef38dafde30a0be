package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

func newExportSnapshotCmd(d *deps) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "snapshot -o FILE.zip",
		Short: "Back up this whole instance (database and media) into one zip file",
		Long: `Write a snapshot of this instance: a consistent copy of the SQLite database
(VACUUM INTO, safe while monitor serve runs) and every media file it records,
in one zip file. monitor import snapshot restores it. Snapshots are for the
embedded default; PostgreSQL and S3 have their own backup tools.`,
		Example: `  monitor export snapshot -o backup-2026-05-01.zip`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError{errors.New("monitor export snapshot needs -o FILE.zip (see `monitor export snapshot --help`)")}
			}
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			v, _ := buildVersion()
			res, err := runtime.ExportSnapshot(cmd.Context(), cfg, d.logger(cfg), out, "monitor "+v)
			if err != nil {
				return err
			}
			d.printf("wrote snapshot %s: database and %d media file(s), %s\n", out, res.Objects, config.FormatBytes(res.Bytes))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "zip file to write (required)")
	return cmd
}

func newImportSnapshotCmd(d *deps) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "snapshot FILE.zip --yes",
		Short: "Replace this instance's database and media with a snapshot, at the next start",
		Long: `Replace this whole instance with a snapshot made by monitor export snapshot.
Everything archived since the snapshot is lost, so --yes is required.

The snapshot is verified first: its database passes SQLite's integrity check,
its schema is not newer than this binary and holds exactly the tables,
columns, indexes, views and triggers its migrations create (a trigger or view
added by hand is refused, named), and every stored media file is present. A
snapshot that fails is refused and nothing is replaced. A good one is staged in the data directory and swapped in the next
time monitor starts (stop monitor serve, import, start it again); the previous
database and media are kept as rollback-<time> in the data directory.`,
		Example: `  monitor import snapshot backup-2026-05-01.zip --yes`,
		Args:    exactArgs(1, "the snapshot zip file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes {
				return usageError{errors.New("monitor import snapshot replaces this instance's whole archive; add --yes if that is what you want")}
			}
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			staged, err := runtime.StageSnapshot(cmd.Context(), cfg, args[0])
			if err != nil {
				return err
			}
			d.printf("snapshot of %s verified (%d media file(s)) and staged; it replaces this instance the next time monitor starts\n",
				staged.Manifest.CreatedAt.Format("2006-01-02 15:04:05Z"), staged.Objects)
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm that the instance's current archive is to be replaced")
	return cmd
}
