package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
)

func newVerifyCmd(d *deps) *cobra.Command {
	var tenant string
	var sample int
	cmd := &cobra.Command{
		Use:   "verify [--tenant NAME] [--sample N]",
		Short: "Re-read and re-hash the archive: every revision, raw response and media file against its hash chain",
		Long: `Check that nothing in this instance's archive changed since it was captured
(docs/verify.md): every revision's content is re-hashed and its link in the
collection's hash chain recomputed, every raw upstream response and every media
file is read back from the database and the media store and re-hashed.

Each mismatch is printed as "path: field: message" and the exit code is 1.
--tenant checks only what that tenant saved; --sample N checks N collections
picked at random, for a fast look at a large archive.`,
		Example: `  monitor verify
  monitor verify --tenant alice --sample 100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sample < 0 {
				return usageError{fmt.Errorf("--sample must be 0 (everything) or more, not %d", sample)}
			}
			return d.withArchive(cmd, func(a *app.App) error {
				opts := app.VerifyOptions{Sample: sample}
				if tenant != "" {
					t, err := a.TenantByName(cmd.Context(), tenant)
					if err != nil {
						return err
					}
					opts.TenantID = &t.ID
				}
				bar := d.progress("verifying")
				opts.Progress = bar.update
				rep, err := a.Verify(cmd.Context(), opts)
				bar.finish()
				if err != nil {
					return err
				}
				for _, p := range rep.Problems {
					d.printf("%s\n", p)
				}
				d.printf("verified %d collection(s): %d revision(s), %d raw response(s), %d media file(s), %s re-hashed: %d mismatch(es)\n",
					rep.Collections, rep.Revisions, rep.RawResponses, rep.Blobs, config.FormatBytes(rep.Bytes), len(rep.Problems))
				if n := len(rep.Problems); n > 0 {
					return exitError{code: 1, msg: fmt.Sprintf("the archive has %d mismatch(es)", n)}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "check only what this tenant saved")
	cmd.Flags().IntVar(&sample, "sample", 0, "check this many collections picked at random (0: all)")
	return cmd
}
