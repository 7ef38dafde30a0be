package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
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
	var tenant, idemKey, connection string
	var wait, refresh, thread bool
	var limit int
	cmd := &cobra.Command{
		Use:   "capture URL --tenant NAME [--limit N] [--wait]",
		Short: "Archive one link for a tenant, optionally waiting until it is stored",
		Long: `Archive one link (an X post or profile, a Telegram post or channel) for a
tenant through the same service as the REST API. Without --wait the capture
is queued for a running monitor serve; with --wait this command works it
itself and shows its progress.

A profile or channel archives its header and then its posts, one page
(about 100 posts) at a time; --limit N archives up to N posts in one batch
of pages (at most the adapter's batch size, 1,000 for X). --thread
archives a post with the author's thread around it. --connection ID
archives a post, thread or profile through one of the tenant's accounts
(monitor account list): privately, unless the platform shows a post to
everyone, when it joins the post's public archive.

Exit codes with --wait: 0 complete, 1 failed (the reason is printed),
2 partial (some media, or some posts of a profile, could not be stored).
For a profile or channel the worst of its posts decides.`,
		Example: `  monitor capture https://x.com/jack/status/20 --tenant alice --wait
  monitor capture https://x.com/jack --tenant alice --limit 300 --wait
  monitor capture https://t.me/s/durov --tenant alice --wait`,
		Args: exactArgs(1, "the URL to archive"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			if limit < 0 || (cmd.Flags().Changed("limit") && limit == 0) {
				return usageError{fmt.Errorf("--limit must be a positive number of posts, not %d", limit)}
			}
			req := app.SubmitRequest{URL: args[0], IdemKey: idemKey, Refresh: refresh, Limit: limit}
			if connection != "" {
				id, err := uuid.Parse(connection)
				if err != nil {
					return usageError{fmt.Errorf("--connection %q is not a connection id; `monitor account list --tenant NAME` shows them", connection)}
				}
				req.ConnectionID = id
			}
			if thread {
				req.Expand = app.ExpandThread
			}
			return d.capture(cmd.Context(), cfg, req, tenant, wait)
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant that saves the link (required)")
	cmd.Flags().BoolVar(&wait, "wait", false, "work the capture here and wait until it ends")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "capture again even if the link is archived already")
	cmd.Flags().StringVar(&idemKey, "idempotency-key", "", "a key that makes retrying this command safe")
	cmd.Flags().IntVar(&limit, "limit", 0, "for a profile or channel: archive up to N posts in one batch of pages")
	cmd.Flags().BoolVar(&thread, "thread", false, "also archive the author's thread around the post")
	cmd.Flags().StringVar(&connection, "connection", "", "archive the post through this account of the tenant (its connection id), privately")
	_ = cmd.MarkFlagRequired("tenant")
	config.RegisterFlags(cmd.Flags(), "adapters", "fxtwitter-url", "tme-url", "max-media-size")
	return cmd
}

func (d *deps) capture(ctx context.Context, cfg *config.Config, req app.SubmitRequest, tenantName string, wait bool) (err error) {
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
	req.TenantID = t.ID
	res, err := a.Submit(ctx, req)
	if err != nil {
		return err
	}
	d.printf("capture %s of collection %s: %s\n", res.CaptureID, res.CollectionID, res.State)
	sub, err := a.Submission(ctx, t.ID, res.SubmissionID)
	if err != nil {
		return err
	}
	if !wait {
		if sub.Kind != "post" {
			d.printf("submission %s: its posts are archived by monitor serve; follow it with GET /v1/submissions/%s\n", sub.ID, sub.ID)
		}
		return captureOutcome(res.State, "")
	}
	if err := e.Start(ctx); err != nil {
		return err
	}
	if sub.Kind != "post" {
		return d.waitCollection(ctx, a, t.ID, sub.ID)
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

// waitCollection follows a profile's, channel's or thread's pages until
// they end, with a bar over its posts, and exits by the worst of them.
func (d *deps) waitCollection(ctx context.Context, a *app.App, tenantID, id uuid.UUID) error {
	start, last := time.Now(), ""
	b := d.progress("posts")
	tick := time.NewTicker(capturePoll)
	defer tick.Stop()
	for {
		v, err := a.Submission(context.WithoutCancel(ctx), tenantID, id)
		if err != nil {
			return err
		}
		p := v.Progress
		done := p.Complete + p.Partial + p.Failed
		line := fmt.Sprintf("%s: %d of %d posts archived (%d complete, %d partial, %d failed)", v.State, done, p.Total, p.Complete, p.Partial, p.Failed)
		if b.w != nil {
			b.update(done, max(p.Total, 1))
		} else if line != last {
			d.printf("%6.1fs  %s\n", time.Since(start).Seconds(), line)
		}
		last = line
		switch v.State {
		case app.StateComplete, app.StatePartial, app.StateFailed:
			b.finish()
			if b.w != nil {
				d.printf("%s\n", line)
			}
			if v.HasMore {
				d.printf("there is more: archive the next page with POST /v1/submissions/%s/more, or send the link again with --limit\n", lastPage(ctx, a, tenantID, v))
			}
			return collectionOutcome(v)
		}
		select {
		case <-ctx.Done():
			return exitError{code: 1, msg: "interrupted; the remaining posts are archived the next time monitor serve or capture --wait runs"}
		case <-tick.C:
		}
	}
}

// lastPage is the id of the last page of a chain, where "more" goes on.
func lastPage(ctx context.Context, a *app.App, tenantID uuid.UUID, v app.SubmissionView) uuid.UUID {
	for v.NextSubmission != nil {
		next, err := a.Submission(ctx, tenantID, *v.NextSubmission)
		if err != nil {
			break
		}
		v = next
	}
	return v.ID
}

// collectionOutcome maps a collection's end to the exit code: the worst of
// its page and posts.
func collectionOutcome(v app.SubmissionView) error {
	switch {
	case v.State == app.StateFailed:
		return exitError{code: 1, msg: "failed: " + v.Error}
	case v.Progress.Failed > 0:
		return exitError{code: 1, msg: fmt.Sprintf("%d of %d posts failed; %s", v.Progress.Failed, v.Progress.Total, v.Error)}
	case v.State == app.StatePartial:
		return exitError{code: 2, msg: "partial: " + v.Error}
	}
	return nil
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
