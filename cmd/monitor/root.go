package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

// version and commit are set at build time with
// -ldflags "-X main.version=… -X main.commit=…".
var (
	version string
	commit  string
)

// usageError marks a command used wrongly (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// deps is what every command needs: where to read settings and input, and
// where to write output.
type deps struct {
	env    config.Env
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func newRootCmd(env config.Env, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	d := &deps{env: env, stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "monitor",
		Short: "Monitor archives social-media posts: text, best-quality media and an entity graph, every version kept",
		Long: `Monitor is a self-hosted, multi-tenant archive for social-media posts.

Send it a link (an X post or profile, a Telegram channel post) and it keeps the
text, the media in its best quality and a structured entity graph, with every
version and each media file stored once.

Every flag can also be set through its MONITOR_* environment variable. Secrets
are read from the environment only, or from a file named by NAME_FILE:
MONITOR_DATABASE_URL, MONITOR_APP_PASSWORD, MONITOR_S3_ACCESS_KEY_ID,
MONITOR_S3_SECRET_ACCESS_KEY, MONITOR_CHANNEL_SECRET, MONITOR_TELEGRAM_TOKEN,
MONITOR_MASTER_KEY, MONITOR_SIGNING_KEY. Scale mode (PostgreSQL, S3, several processes) is described
in docs/deploy.md.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see `%s --help`)", err, c.CommandPath())}
	})
	config.RegisterFlags(root.PersistentFlags(), "data-dir", "database-url", "blob-url", "log-level")

	root.AddCommand(
		newServeCmd(d),
		newMigrateCmd(d),
		newStorageInitCmd(d),
		newAdapterCmd(d),
		newTelegramCmd(d),
		newCaptureCmd(d),
		newAdminCmd(d),
		newAccountCmd(d),
		newVersionCmd(d),
		newExportCmd(d),
		newImportCmd(d),
		newCheckCmd(d),
		newVerifyCmd(d),
		newBuildCmd(d),
	)
	return root
}

// execute runs the command and prints a failure as one line on stderr.
func execute(ctx context.Context, cmd *cobra.Command, stderr io.Writer) int {
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	var ee exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "monitor: %s\n", msg)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "monitor: %s\n", msg)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsageError(err) {
		return 2
	}
	return 1
}

// isCobraUsageError recognises the argument errors cobra produces itself.
func isCobraUsageError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "accepts ") ||
		strings.HasPrefix(s, "requires at least") || strings.HasPrefix(s, "required flag")
}

// loadConfig reads the configuration for a command: its flags, then the
// environment, then defaults.
func (d *deps) loadConfig(cmd *cobra.Command) (*config.Config, error) {
	return config.Load(d.env, cmd.Flags())
}

// logger writes JSON logs to stderr at the configured level.
func (d *deps) logger(cfg *config.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	return slog.New(slog.NewJSONHandler(d.stderr, &slog.HandlerOptions{Level: level}))
}

func newVersionCmd(d *deps) *cobra.Command {
	var key bool
	cmd := &cobra.Command{
		Use:   "version [--key]",
		Short: "Print the version and commit of this binary, and with --key the instance's public key",
		Long: `Print the version and commit of this binary.

--key also prints the public half of the instance key that signs exports and
proofs (MONITOR_SIGNING_KEY, or $MONITOR_DATA_DIR/instance.key, made at first
start): base64 of the Ed25519 key, as "monitor check --verify --key" takes it,
and its fingerprint.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, c := buildVersion()
			if _, err := fmt.Fprintf(d.stdout, "monitor %s (commit %s)\n", v, c); err != nil || !key {
				return err
			}
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			k, err := runtime.InstanceKey(cfg)
			if err != nil {
				return err
			}
			pub := k.Public().(ed25519.PublicKey)
			_, err = fmt.Fprintf(d.stdout, "signing key: %s\nfingerprint: %s\n", chain.EncodeKey(pub), chain.Fingerprint(pub))
			return err
		},
	}
	cmd.Flags().BoolVar(&key, "key", false, "also print the instance's public signing key")
	return cmd
}

// buildVersion prefers what the build stamped in, then what Go recorded.
func buildVersion() (v, c string) {
	v, c = version, commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && c == "" {
				c = s.Value
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	return v, c
}
