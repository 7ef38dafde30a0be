package main

import (
	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/capsule/tgexport"
	"github.com/monitorhq/monitor/internal/capsule/xarchive"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

// This file holds the imports of other formats: an X account archive and a
// Telegram Desktop export (an Ech0 capsule goes through import capsule).

func newImportXArchiveCmd(d *deps) *cobra.Command {
	var tenant string
	var dryRun, retweets, deleted bool
	cmd := &cobra.Command{
		Use:   "x-archive ZIP|DIR --tenant NAME [--dry-run] [--include-retweets] [--include-deleted]",
		Short: "Add the posts of an X (Twitter) account archive to a tenant's archive (safe to repeat)",
		Long: `Add the posts of the archive X lets you download (Settings → Your account →
Download an archive of your data) to a tenant's archive: the zip as it
came, or the folder it unpacks to. Both layouts are read (tweet.js and
tweet_media/ of 2019–2022, tweets.js and tweets_media/ since); the old
"Grailbird" archives from before 2019 are refused.

Each post becomes the same collection a capture of its link makes, so
capturing or refreshing the post later finds it. Everything imported is
private to the tenant (an archive is no proof that a post is public);
capturing a post's link later archives the public post, which then takes
the imported copy's place. Long posts are joined from note-tweet.js; media
are taken from the archive's media folder, and a media file the archive
lacks is listed as unavailable. Retweets are skipped unless
--include-retweets; deleted-tweets.js is read only with --include-deleted.

The import is all or nothing: it is checked whole (and against the
tenant's quota) before anything is stored, and a second run imports
nothing new. --dry-run reports what would happen, sizes included, and
writes nothing.`,
		Example: `  monitor import x-archive twitter-2026-03-06.zip --tenant alice --dry-run
  monitor import x-archive twitter-2026-03-06.zip --tenant alice --include-retweets`,
		Args: exactArgs(1, "the archive's zip file or folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withOffline(cmd, runtime.OfflineOptions{Media: true, Exclusive: !dryRun}, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				src, err := xarchive.Open(args[0])
				if err != nil {
					return err
				}
				defer src.Close()
				bar := d.progress("importing")
				rep, err := xarchive.Import(cmd.Context(), a, src, xarchive.Options{
					ForeignOptions:  importer.ForeignOptions{TenantID: t.ID, DryRun: dryRun, Progress: bar.update},
					IncludeRetweets: retweets, IncludeDeleted: deleted,
				})
				bar.finish()
				if err != nil {
					return err
				}
				d.printForeignReport(rep)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant that receives the posts (required)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would be imported and write nothing")
	cmd.Flags().BoolVar(&retweets, "include-retweets", false, "also import your retweets")
	cmd.Flags().BoolVar(&deleted, "include-deleted", false, "also import the recently deleted posts of deleted-tweets.js")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

// printForeignReport prints what an import of another format did: the
// counts, the skips by reason and every media file left unavailable.
func (d *deps) printForeignReport(rep importer.ForeignReport) {
	for _, s := range rep.Skips {
		d.printf("skipped  %d  %s\n", s.Count, s.Reason)
	}
	for _, u := range rep.Unavailable {
		d.printf("unavailable  %s  %s: %s\n", u.Post, u.Media, u.Reason)
	}
	for _, n := range rep.Notes {
		d.printf("note  %s\n", n)
	}
	skipped := 0
	for _, s := range rep.Skips {
		skipped += s.Count
	}
	verb := "imported"
	if rep.DryRun {
		verb = "dry run, nothing written; would import"
	}
	d.printf("%s: %s: %d post(s) read, %d new, %d already in the archive, %d relinked; %d skipped; %d media file(s) in the archive for them (%s), %d unavailable; %s of text\n",
		verb, rep.Format, rep.Read, len(rep.Created), len(rep.Skipped), len(rep.Linked), skipped, rep.MediaFiles, config.FormatBytes(rep.MediaBytes),
		len(rep.Unavailable), config.FormatBytes(rep.ContentBytes))
	switch {
	case rep.Read > 0 && len(rep.Created)+len(rep.Linked) == 0:
		d.printf("nothing new: every post of this %s is in the archive already\n", rep.Format)
	case !rep.DryRun && rep.UploadedFiles+rep.ReusedFiles > 0:
		d.printf("media: %d file(s) stored (%s), %d already here\n", rep.UploadedFiles, config.FormatBytes(rep.UploadedBytes), rep.ReusedFiles)
	}
}

func newImportTelegramExportCmd(d *deps) *cobra.Command {
	var tenant, username string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "telegram-export DIR|ZIP --tenant NAME [--dry-run] [--username NAME]",
		Short: "Add the messages of a Telegram Desktop export to a tenant's archive (safe to repeat)",
		Long: `Add the messages of a Telegram Desktop export to a tenant's archive: the
folder with result.json that "Export chat history" (one chat) or "Export
Telegram data" (a whole account) writes with the format "Machine-readable
JSON", or a zip of it.

Each message becomes a collection; consecutive photos and videos sent
together (of one date and sender, with at most one caption) become one
album, as the export does not mark albums. Service messages (joins, pins,
title changes) are skipped and counted. Files are read from beside
result.json; a file the export left out ("File not included…") is listed
as unavailable.

Everything imported is private to the tenant. The export does not carry a
public channel's username: give it with --username and the channel's posts
get their t.me/<username>/<id> identity, so capturing a post's link later
archives the public post, which then takes the imported copy's place.

The import is all or nothing, checked against the tenant's quota first; a
second run imports nothing new. --dry-run reports what would happen, sizes
included, and writes nothing.`,
		Example: `  monitor import telegram-export ChatExport_2025-03-29 --tenant alice --dry-run
  monitor import telegram-export channel-export.zip --tenant alice --username harbour_news`,
		Args: exactArgs(1, "the export's folder or zip file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withOffline(cmd, runtime.OfflineOptions{Media: true, Exclusive: !dryRun}, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				src, err := tgexport.Open(args[0])
				if err != nil {
					return err
				}
				defer src.Close()
				bar := d.progress("importing")
				rep, err := tgexport.Import(cmd.Context(), a, src, tgexport.Options{
					ForeignOptions: importer.ForeignOptions{TenantID: t.ID, DryRun: dryRun, Progress: bar.update},
					Username:       username,
				})
				bar.finish()
				if err != nil {
					return err
				}
				d.printForeignReport(rep)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant that receives the messages (required)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would be imported and write nothing")
	cmd.Flags().StringVar(&username, "username", "", "the public username of the exported channel, for its posts' t.me links")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}
