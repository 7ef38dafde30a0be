package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

// exitError ends a command with a given exit code after printing msg
// (when not empty) as its one-line error.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// capturePoll is how often `monitor capture --wait` looks at the capture.
const capturePoll = 100 * time.Millisecond

func newCaptureCmd(d *deps) *cobra.Command {
	var tenant, idemKey string
	var wait, refresh bool
	cmd := &cobra.Command{
		Use:   "capture URL --tenant NAME [--wait]",
		Short: "Archive one link for a tenant, optionally waiting until it is stored",
		Long: `Archive one link (an X post) for a tenant through the same service as the
REST API. Without --wait the capture is queued for a running monitor serve;
with --wait this command works it itself and shows its progress.

Exit codes with --wait: 0 complete, 1 failed (the reason is printed),
2 partial (some media could not be stored; the reason is printed).`,
		Example: `  monitor capture https://x.com/jack/status/20 --tenant alice --wait`,
		Args:    exactArgs(1, "the URL to archive"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			return d.capture(cmd.Context(), cfg, args[0], tenant, idemKey, refresh, wait)
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant that saves the link (required)")
	cmd.Flags().BoolVar(&wait, "wait", false, "work the capture here and wait until it ends")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "capture again even if the link is archived already")
	cmd.Flags().StringVar(&idemKey, "idempotency-key", "", "a key that makes retrying this command safe")
	_ = cmd.MarkFlagRequired("tenant")
	config.RegisterFlags(cmd.Flags(), "adapters", "fxtwitter-url", "tme-url", "max-media-size")
	return cmd
}

func (d *deps) capture(ctx context.Context, cfg *config.Config, url, tenantName, idemKey string, refresh, wait bool) (err error) {
	e, err := runtime.OpenEngine(ctx, cfg, d.logger(cfg))
	if err != nil {
		return err
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runtime.StopTimeout)
			defer cancel()
			_ = e.Stop(sctx)
		}
	}
	defer stop()
	a := e.App()
	t, err := a.TenantByName(ctx, tenantName)
	if err != nil {
		return err
	}
	res, err := a.Submit(ctx, app.SubmitRequest{TenantID: t.ID, URL: url, IdemKey: idemKey, Refresh: refresh})
	if err != nil {
		return err
	}
	d.printf("capture %s of collection %s: %s\n", res.CaptureID, res.CollectionID, res.State)
	if !wait {
		return captureOutcome(res.State, "")
	}
	if err := e.Start(ctx); err != nil {
		return err
	}
	start, last := time.Now(), res.State
	tick := time.NewTicker(capturePoll)
	defer tick.Stop()
	for {
		c, err := a.Capture(context.WithoutCancel(ctx), t.ID, res.CaptureID)
		if err != nil {
			return err
		}
		if c.State != last {
			d.printf("%6.1fs  %s\n", time.Since(start).Seconds(), c.State)
			last = c.State
		}
		switch c.State {
		case app.StateComplete, app.StatePartial, app.StateFailed:
			return captureOutcome(c.State, c.Error)
		}
		select {
		case <-ctx.Done():
			return exitError{code: 1, msg: "interrupted; the capture goes on the next time monitor serve or capture --wait runs"}
		case <-tick.C:
		}
	}
}

// captureOutcome maps a capture's end to the command's exit code.
func captureOutcome(state, reason string) error {
	switch state {
	case app.StateFailed:
		return exitError{code: 1, msg: "capture failed: " + reason}
	case app.StatePartial:
		return exitError{code: 2, msg: "capture partial: " + reason}
	}
	return nil
}
