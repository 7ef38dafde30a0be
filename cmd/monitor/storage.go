package main

import (
	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/runtime"
)

func newStorageInitCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "storage-init",
		Short: "Create the media bucket (or directory) if missing and prove it works, then exit",
		Long: `Prepare the media store named by MONITOR_BLOB_URL: create the S3 bucket when it
does not exist (or the objects directory on the embedded default), then write,
read back and delete a probe object. Run it once before the first monitor serve
in scale mode; it is safe to run again.`,
		Example: `  MONITOR_BLOB_URL='s3://monitor-media?endpoint=http://127.0.0.1:8333' \
  MONITOR_S3_ACCESS_KEY_ID=… MONITOR_S3_SECRET_ACCESS_KEY=… monitor storage-init`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			msg, err := runtime.InitStorage(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			d.printf("%s\n", msg)
			return nil
		},
	}
}
