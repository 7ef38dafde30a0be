package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/ech0"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/capsule/verify"
	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

// This file holds the capsule commands: export, import, check and build
// (docs/capsule.md describes the format).

func newExportCmd(d *deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the archive out: a capsule (portable folder) or a snapshot (backup of this instance)",
		Long: `Write the archive out, as one of:

  capsule   a tenant's collections as a human-readable folder (or zip) that
            another Monitor imports and monitor build turns into a website
  snapshot  a consistent copy of this instance's database and media files,
            for restoring it whole (embedded default only)`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newExportCapsuleCmd(d), newExportSnapshotCmd(d))
	return cmd
}

func newImportCmd(d *deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Read an archive in: a capsule (adds collections) or a snapshot (replaces this instance)",
		Long: `Read an archive in, from one of:

  capsule          adds a capsule's collections to a tenant (a Monitor or
                   an Ech0 capsule); safe to repeat
  x-archive        adds the posts of an X account archive to a tenant
  telegram-export  adds the messages of a Telegram Desktop export to a tenant
  snapshot         replaces this instance's database and media at the next start`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newImportCapsuleCmd(d), newImportXArchiveCmd(d), newImportTelegramExportCmd(d), newImportSnapshotCmd(d))
	return cmd
}

func newExportCapsuleCmd(d *deps) *cobra.Command {
	var tenant, out, query, flavor, to string
	var includePrivate, zip, history bool
	cmd := &cobra.Command{
		Use:   "capsule --tenant NAME [-o DIR] [--include-private] [--zip] [--history] [--query Q]",
		Short: "Write a tenant's collections as a capsule folder or zip",
		Long: `Write a tenant's collections as a capsule: monitor.yaml, one Markdown file
with YAML frontmatter per collection, and the media files named by SHA-256.
The format is described in docs/capsule.md.

The capsule is staged beside the output and moved into place only when every
file was written; an output that exists must be an empty folder. Private
collections are left out unless --include-private is given. No credentials,
tokens, emails or operator settings are ever written.

--query exports only the collections a search finds, in the search language
of the web library and GET /v1/search: words, "phrases", -exclusions, OR,
( ) groups, from:, platform:, kind:, has:, is:, #tag, after:, before: and
saved:>7d. It combines with the other flags (--include-private still decides
about private collections). A bad query stops the export before anything is
written, naming the character where it went wrong; so does a query that
leaves nothing to export: no empty capsule is written.

--flavor ech0 writes the capsule Ech0 imports instead (ech0.yaml, one
echoes/<YYYY>/<date>-<id>.md per post, files/images|videos|… named by
key), by the rules of Ech0's own checker: the tenant's name as
owner.username, the collection ids as echo ids, each post's link as a
WEBSITE card. The default flavor, monitor, is also what Hugo builds as it
is (docs/capsule.md).

--to DESTINATION[:PATH] copies the capsule to a cloud destination (monitor
admin destination) with rclone, under PATH there, once it is written; the
local copy is staged in a temporary folder and removed afterwards.`,
		Example: `  monitor export capsule --tenant alice -o alice-capsule
  monitor export capsule --tenant alice --zip -o alice.zip --history
  monitor export capsule --tenant alice -o harbour --query '#harbour OR "storm plan" -has:video'
  monitor export capsule --tenant alice -o alice-ech0 --flavor ech0
  monitor export capsule --tenant alice --to drive:exports/alice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A bad query is refused before the archive is even opened.
			if _, err := app.ParseQuery(query, time.Now()); err != nil {
				return fmt.Errorf("--query: %w", err)
			}
			if out == "" {
				out = "capsule"
				if zip {
					out = "capsule.zip"
				}
			}
			destination, sub, toCloud := strings.Cut(to, ":")
			if to != "" {
				if cmd.Flags().Changed("output") {
					return usageError{fmt.Errorf("--to and -o do not go together: the capsule goes to the destination")}
				}
				toCloud = true
				stage, err := os.MkdirTemp("", "monitor-export-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(stage)
				out = filepath.Join(stage, filepath.Base(out))
			}
			return d.withArchive(cmd, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				bar := d.progress("exporting")
				v, _ := buildVersion()
				res, err := export.Export(cmd.Context(), a, export.Options{
					TenantID: t.ID, TenantName: t.Name, Out: out, Zip: zip, IncludePrivate: includePrivate, History: history, Query: query, Flavor: flavor,
					Generator: "monitor " + v, Progress: bar.update,
				})
				bar.finish()
				var me *export.MediaError
				if errors.As(err, &me) {
					for _, m := range me.Missing {
						fmt.Fprintf(d.stderr, "%s: media %s: %v\n", m.Path, m.SHA256, m.Err)
					}
				}
				if err != nil {
					return err
				}
				where := res.Path
				if toCloud {
					src := out
					if zip {
						src = filepath.Dir(out)
					}
					if where, err = a.UploadFolder(cmd.Context(), app.ActorCLI, destination, sub, src); err != nil {
						return err
					}
				}
				d.printf("exported %d collection(s) to %s: %d files, %s", res.Collections, where, res.Files, config.FormatBytes(res.Bytes))
				if res.Skipped > 0 {
					d.printf("; %d left out (private without --include-private, or not captured yet)", res.Skipped)
				}
				d.printf("\n")
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant whose collections to export (required)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "capsule folder to create, or zip file with --zip (default ./capsule or ./capsule.zip)")
	cmd.Flags().BoolVar(&includePrivate, "include-private", false, "also export private collections")
	cmd.Flags().BoolVar(&zip, "zip", false, "write one zip file instead of a folder")
	cmd.Flags().BoolVar(&history, "history", false, "also export every earlier version of each collection")
	cmd.Flags().StringVar(&query, "query", "", `export only the collections this search matches, e.g. '#harbour -has:video'`)
	cmd.Flags().StringVar(&flavor, "flavor", "monitor", "the capsule's format: monitor, or ech0 for a capsule Ech0 imports")
	cmd.Flags().StringVar(&to, "to", "", "copy the capsule to a cloud destination, DESTINATION[:PATH] (monitor admin destination list)")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

func newImportCapsuleCmd(d *deps) *cobra.Command {
	var tenant string
	var dryRun, includePrivate bool
	cmd := &cobra.Command{
		Use:   "capsule DIR|ZIP --tenant NAME [--dry-run] [--include-private]",
		Short: "Add a capsule's collections to a tenant's archive (safe to repeat)",
		Long: `Add a capsule's collections to a tenant's archive. The capsule is checked first
(see monitor check) and refused whole when it has errors.

Everything imported is private to the tenant, whatever the capsule claims: an
import is no proof of what a public post says, so nothing is shared with other
tenants and nothing they hold is linked or changed. A collection gets the id
of its private identity here (the report says when that differs from the
file); sending the post's link later archives the public post, which then
takes the copy's place. Import is idempotent: a post the tenant saved already
is skipped. Media are verified by SHA-256. The tenant's quota applies, checked
from the capsule's stated sizes before anything is stored: when the import
does not fit, nothing is imported. --dry-run reports what would happen and
writes nothing. Collections marked private are left out unless
--include-private is given.

An Ech0 capsule (ech0.yaml, echoes/, files/) is recognised and checked by
the rules of Ech0's own checker; its echoes become posts of platform ech0
with their text, tags, files and time, private to the tenant. Its comments
are skipped and counted.`,
		Example: `  monitor import capsule alice-capsule --tenant alice --dry-run
  monitor import capsule alice.zip --tenant alice`,
		Args: exactArgs(1, "the capsule folder or zip file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withOffline(cmd, runtime.OfflineOptions{Media: true, Exclusive: !dryRun}, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				if done, err := d.importEch0(cmd, a, t.ID, args[0], dryRun, includePrivate); done || err != nil {
					return err
				}
				src, res, err := d.openChecked(cmd, args[0])
				if err != nil {
					return err
				}
				defer src.Close()
				bar := d.progress("storing media")
				rep, err := importer.Import(cmd.Context(), a, src, res, importer.Options{
					TenantID: t.ID, DryRun: dryRun, IncludePrivate: includePrivate, Progress: bar.update,
				})
				bar.finish()
				if err != nil {
					return err
				}
				d.printImportReport(rep)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant that receives the collections (required)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would be imported and write nothing")
	cmd.Flags().BoolVar(&includePrivate, "include-private", false, "also import collections marked private")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

func (d *deps) printImportReport(rep importer.Report) {
	for _, o := range rep.Created {
		if o.Reason == "" {
			d.printf("created  %s  %s\n", o.ID, o.Label)
		} else {
			d.printf("created  %s  %s  (%s)\n", o.ID, o.Label, o.Reason)
		}
	}
	for _, o := range rep.Linked {
		d.printf("linked   %s  %s  (%s)\n", o.ID, o.Label, o.Reason)
	}
	for _, o := range rep.Skipped {
		d.printf("skipped  %s  %s  (%s)\n", o.ID, o.Label, o.Reason)
	}
	for _, o := range rep.Private {
		d.printf("left out %s  %s  (%s)\n", o.ID, o.Label, o.Reason)
	}
	verb := "imported"
	if rep.DryRun {
		verb = "dry run, nothing written; would import"
	}
	d.printf("%s: %d created, %d linked, %d skipped, %d private left out; %d media file(s) stored (%s), %d already here\n",
		verb, len(rep.Created), len(rep.Linked), len(rep.Skipped), len(rep.Private), rep.UploadedFiles, config.FormatBytes(rep.UploadedBytes), rep.ReusedFiles)
}

func newCheckCmd(d *deps) *cobra.Command {
	var fix, verifyFlag bool
	var key string
	cmd := &cobra.Command{
		Use:   "check [DIR|ZIP] [--fix] [--verify [--key PUBKEY]]",
		Short: "Check a capsule against the capsule v1 format and report every problem",
		Long: `Check a capsule (default ./capsule): the manifest, every collection file, the
media each one names (present, inside the capsule, with the SHA-256 and size
it claims) and ids across files. Every problem is printed on its own line as

  path: field: message

errors first, then warnings (unknown fields, which are ignored). The exit code
is 1 when there is any error; import and build refuse such a capsule.

--fix writes a new id (UUIDv7) into every collection file that has none, the
only repair it makes. It changes files in place, so it refuses a zip.

--verify also proves the capsule was not changed since its export
(docs/verify.md): every file is re-hashed against monitor.sum, monitor.sum's
Ed25519 signature is checked, and every collection's hash chain is recomputed
from the files. Each mismatch is a "path: field: message" line and the exit
code is 1. --key is the public key the capsule must be signed with (base64, as
"monitor version --key" prints it, or a file holding it); without it the
check names the key that signed the capsule, to compare with its instance's.`,
		Example: `  monitor check alice-capsule
  monitor check alice-capsule --fix
  monitor check --verify alice.zip --key 'k1o0…='`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := "capsule"
			if len(args) == 1 {
				p = args[0]
			}
			src, err := capsule.Open(p)
			if err != nil {
				return err
			}
			defer src.Close()
			if ech0.Is(src) {
				// An Ech0 capsule, checked by the rules of Ech0's checker.
				l, err := ech0.Load(src)
				if err != nil {
					return err
				}
				for _, p := range l.Problems {
					d.printf("%s\n", p)
				}
				d.printf("Ech0 capsule, %d echo file(s): %d error(s), %d warning(s)\n", len(l.Echoes), l.Errors(), len(l.Problems)-l.Errors())
				if n := l.Errors(); n > 0 {
					return exitError{code: 1, msg: fmt.Sprintf("the Ech0 capsule has %d error(s)", n)}
				}
				return nil
			}
			if fix && src.IsZip() {
				return check.ErrFixZip
			}
			var pub ed25519.PublicKey
			if key != "" {
				if !verifyFlag {
					return usageError{errors.New("--key goes with --verify")}
				}
				if pub, err = readPublicKey(key); err != nil {
					return usageError{fmt.Errorf("--key: %w", err)}
				}
			}
			res, err := check.Run(cmd.Context(), src, check.Options{})
			if err != nil {
				return err
			}
			if fix {
				fixed, err := check.Fix(src, res)
				for _, f := range fixed {
					d.printf("%s: id: fixed, a new id was written\n", f)
				}
				if err != nil {
					return err
				}
				if len(fixed) > 0 {
					if res, err = check.Run(cmd.Context(), src, check.Options{}); err != nil {
						return err
					}
				}
			}
			for _, p := range res.Problems {
				d.printf("%s\n", p)
			}
			d.printf("%d collection file(s): %d error(s), %d warning(s)\n", len(res.Entries), res.Errors(), res.Warnings())
			bad := res.Errors()
			if verifyFlag {
				vr, err := verify.Run(cmd.Context(), src, res, verify.Options{Key: pub})
				if err != nil {
					return err
				}
				for _, p := range vr.Problems {
					d.printf("%s\n", p)
				}
				bad += len(vr.Problems)
				switch {
				case vr.Signer == nil:
					d.printf("not signed\n")
				case !vr.SignatureOK:
					d.printf("signature by key %s (%s) does not verify\n", chain.Fingerprint(vr.Signer), chain.EncodeKey(vr.Signer))
				case pub != nil && vr.Signer.Equal(pub):
					d.printf("signed by the key given, %s\n", chain.Fingerprint(vr.Signer))
				default:
					d.printf("signed by key %s (%s); compare it with its instance's: monitor version --key, or GET /v1/instance\n",
						chain.Fingerprint(vr.Signer), chain.EncodeKey(vr.Signer))
				}
				d.printf("verified %d file(s) (%s) and %d chain(s) of %d revision(s): %d mismatch(es)\n",
					vr.Files, config.FormatBytes(vr.Bytes), vr.Collections, vr.Revisions, len(vr.Problems))
			}
			if bad > 0 {
				return exitError{code: 1, msg: fmt.Sprintf("the capsule has %d error(s)", bad)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "write a new id into collection files that have none")
	cmd.Flags().BoolVar(&verifyFlag, "verify", false, "also check monitor.sum, its signature and every hash chain")
	cmd.Flags().StringVar(&key, "key", "", "with --verify: the public key the capsule must be signed with (base64, or a file holding it)")
	return cmd
}

func newBuildCmd(d *deps) *cobra.Command {
	var out, baseURL string
	cmd := &cobra.Command{
		Use:   "build DIR|ZIP [-o DIST] [--base-url https://example.org/]",
		Short: "Turn a capsule into a static website",
		Long: `Turn a capsule into a static website: one page per collection, indexes
newest first, a page per author and per tag, the media, robots.txt, 404.html
and a small search. The site works without JavaScript (except search), works
opened from disk (file://), loads nothing from other hosts, and blurs
sensitive media until clicked.

The site is staged beside DIST and moved into place when complete; DIST may be
empty, missing, or an earlier build. --base-url is where the site will be
served: with the full address (https://example.org/archive/) the build also
writes an Atom feed and sitemap.xml, which need absolute links; with a path
or nothing it leaves them out and says so.`,
		Example: `  monitor build alice-capsule -o site
  monitor build alice.zip -o site --base-url https://archive.example.org/`,
		Args: exactArgs(1, "the capsule folder or zip file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, res, err := d.openChecked(cmd, args[0])
			if err != nil {
				return err
			}
			defer src.Close()
			bar := d.progress("building")
			st, err := build.Build(cmd.Context(), src, res, build.Options{Out: out, BaseURL: baseURL, Progress: bar.update})
			bar.finish()
			if err != nil {
				return err
			}
			for _, w := range st.Warnings {
				fmt.Fprintf(d.stderr, "warning: %s\n", w)
			}
			d.printf("built %d page(s) for %d collection(s) into %s\n", st.Pages, st.Collections, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "dist", "folder to write the site into")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "where the site is served: a path (default /), or a full address, which also writes the feed and sitemap")
	return cmd
}

// importEch0 imports p when it is an Ech0 capsule, printing what Ech0's
// checker would say first; done is false for any other input.
func (d *deps) importEch0(cmd *cobra.Command, a *app.App, tenantID uuid.UUID, p string, dryRun, includePrivate bool) (done bool, err error) {
	src, err := capsule.Open(p)
	if err != nil {
		return false, nil // openChecked reports it
	}
	defer src.Close()
	if !ech0.Is(src) {
		return false, nil
	}
	l, err := ech0.Load(src)
	if err != nil {
		return true, err
	}
	for _, pr := range l.Problems {
		fmt.Fprintf(d.stderr, "%s\n", pr)
	}
	bar := d.progress("importing")
	rep, err := ech0.Import(cmd.Context(), a, src, l, ech0.Options{
		ForeignOptions: importer.ForeignOptions{TenantID: tenantID, DryRun: dryRun, Progress: bar.update}, IncludePrivate: includePrivate,
	})
	bar.finish()
	if err != nil {
		return true, err
	}
	d.printForeignReport(rep)
	return true, nil
}

// readPublicKey reads --key: the key itself, or a file holding it.
func readPublicKey(s string) (ed25519.PublicKey, error) {
	if k, err := chain.ParseKey(s); err == nil {
		return k, nil
	}
	data, err := os.ReadFile(s)
	if err != nil {
		return nil, errors.New("is neither a base64 Ed25519 public key (as `monitor version --key` prints it) nor a file holding one")
	}
	return chain.ParseKey(string(data))
}

// openChecked opens a capsule and checks it; a capsule with errors is
// refused, its errors printed on stderr first.
func (d *deps) openChecked(cmd *cobra.Command, p string) (*capsule.Source, *check.Result, error) {
	src, err := capsule.Open(p)
	if err != nil {
		return nil, nil, err
	}
	res, err := check.Run(cmd.Context(), src, check.Options{})
	if err != nil {
		_ = src.Close()
		return nil, nil, err
	}
	if n := res.Errors(); n > 0 {
		for _, pr := range res.Problems {
			if !pr.Warning {
				fmt.Fprintf(d.stderr, "%s\n", pr)
			}
		}
		_ = src.Close()
		return nil, nil, fmt.Errorf("the capsule %s has %d error(s), listed above; fix them (monitor check) and try again", p, n)
	}
	return src, res, nil
}

// withArchive runs fn with a business layer that can read and write both
// the database and the media store, opened the way serve opens them.
func (d *deps) withArchive(cmd *cobra.Command, fn func(a *app.App) error) error {
	return d.withOffline(cmd, runtime.OfflineOptions{Media: true}, fn)
}

// bar is a progress bar on stderr when it is a terminal, and nothing
// otherwise.
type bar struct {
	w     io.Writer
	label string
	pb    *progressbar.ProgressBar
}

func (d *deps) progress(label string) *bar {
	f, ok := d.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &bar{}
	}
	return &bar{w: f, label: label}
}

func (b *bar) update(done, total int) {
	if b.w == nil {
		return
	}
	if b.pb == nil {
		b.pb = progressbar.NewOptions(total, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(b.label),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("it"),
			progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
	}
	if b.pb.GetMax() != total {
		b.pb.ChangeMax(total) // a collection's pages list more posts as they go
	}
	_ = b.pb.Set(done)
}

func (b *bar) finish() {
	if b.pb != nil {
		_ = b.pb.Finish()
	}
}
