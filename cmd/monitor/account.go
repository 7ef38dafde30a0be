package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

// maxSecretRead bounds what account add reads; app refuses more than
// 64 KiB with the reason, so one byte past it is enough to tell.
const maxSecretRead = 64<<10 + 1

// newAccountCmd is `monitor account`: a tenant's own accounts on upstream
// platforms.
func newAccountCmd(d *deps) *cobra.Command {
	account := &cobra.Command{
		Use:   "account",
		Short: "A tenant's own accounts on platforms: add, list, check, revoke, join channels",
		Long: `A tenant connects its own account on a platform so that what only that account
can see is archived, privately. The adapter's account provider turns what the
platform's sign-in gave you (e.g. cookies) into its credential and checks it;
Monitor stores it encrypted with MONITOR_MASTER_KEY and never shows it again.

Adding needs MONITOR_MASTER_KEY (at least 16 random characters, e.g. from
` + "`openssl rand -base64 32`" + `), the same key every later use of the account needs.`,
		Args: cobra.NoArgs,
	}
	account.AddCommand(newAccountAddCmd(d), newAccountListCmd(d), newAccountCheckCmd(d), newAccountRevokeCmd(d),
		newAccountJoinCmd(d), newAccountJoinsCmd(d))
	return account
}

func newAccountAddCmd(d *deps) *cobra.Command {
	var tenant, adapter, provider, secretFile string
	var signIn, qrSignIn bool
	var qrWait time.Duration
	cmd := &cobra.Command{
		Use:   "add --tenant NAME --adapter ID [--provider P] [--secret-file PATH]",
		Short: "Connect an account: the secret is read from standard input or a file",
		Long: `Connect one of the tenant's accounts. The secret (what the platform's sign-in
gave you) is read from standard input, or from --secret-file, and never from an
argument, so it stays out of shell history and process lists. The adapter
checks it with the platform before anything is stored; a refusal says which
part is missing or wrong and leaves an existing credential as it was.

Adding the same account again replaces its credential: the connection keeps
its id and its credential revision goes up by one. The tenant's first account
of an adapter becomes its default one.

Telegram (--adapter telegram) signs in here, in the terminal: it asks for the
phone number, the login code Telegram sends and the two-step verification
password if the account has one (--sign-in asks on standard input even when it
is not a terminal). It needs MONITOR_TELEGRAM_APP_ID and MONITOR_TELEGRAM_APP_HASH
from https://my.telegram.org. A session made elsewhere (gotd's session.json, a
Telethon string session) can be given on standard input or with --secret-file.

--qr signs in by QR code instead of the phone number: it prints a QR code here
(and its tg://login?token=… link); scan it with a Telegram app where the
account is signed in (Settings → Devices → Link Desktop Device). Telegram's
codes live about 30 seconds, so a new one is printed when the old one expires,
until one is scanned, Ctrl-C, or --qr-wait passes. An account with two-step
verification is asked for its password after the scan.`,
		Example: `  monitor account add --tenant alice --adapter x < cookies.txt
  monitor account add --tenant alice --adapter x --secret-file ~/x-cookies.txt
  monitor account add --tenant alice --adapter telegram
  monitor account add --tenant alice --adapter telegram --qr
  monitor account add --tenant alice --adapter telegram --secret-file session.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var (
				secret []byte
				err    error
			)
			switch {
			case signIn && adapter != telegram.AdapterID:
				return usageError{fmt.Errorf("--sign-in is for --adapter %s; other adapters read the secret from standard input or --secret-file", telegram.AdapterID)}
			case (signIn || qrSignIn) && secretFile != "":
				return usageError{errors.New("--sign-in and --qr make a new session; leave out --secret-file")}
			case qrSignIn && adapter != telegram.AdapterID:
				return usageError{fmt.Errorf("--qr is for --adapter %s", telegram.AdapterID)}
			case qrSignIn:
				secret, err = d.telegramSignInQR(cmd, qrWait)
			case signIn || (adapter == telegram.AdapterID && secretFile == "" && d.stdinTerminal()):
				secret, err = d.telegramSignIn(cmd)
			default:
				secret, err = d.readSecret(secretFile)
			}
			if err != nil {
				return err
			}
			return d.withEngine(cmd, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				res, err := a.AddConnection(cmd.Context(), app.AddConnectionRequest{TenantID: t.ID, Adapter: adapter, Provider: provider,
					Secret: secret, Actor: app.ActorCLI})
				if err != nil {
					return err
				}
				how := "added"
				if res.Replaced {
					how = "credential replaced"
				}
				c := res.Connection
				d.printf("connection %s: %s/%s account %s %s, %s, credential revision %d (%s)\n",
					c.ID, c.Adapter, c.Provider, c.AccountID, handleOf(c.Handle), c.Status, c.CredentialRevision, how)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant whose account it is (required)")
	cmd.Flags().StringVar(&adapter, "adapter", "", "the adapter's id, e.g. x (required)")
	cmd.Flags().StringVar(&provider, "provider", "", "one of the adapter's account providers (default: its default one)")
	cmd.Flags().StringVar(&secretFile, "secret-file", "", "read the secret from this file instead of standard input")
	cmd.Flags().BoolVar(&signIn, "sign-in", false, "Telegram: sign in asking on standard input, even when it is not a terminal")
	cmd.Flags().BoolVar(&qrSignIn, "qr", false, "Telegram: sign in by scanning a QR code with a Telegram app where the account is signed in")
	cmd.Flags().DurationVar(&qrWait, "qr-wait", telegram.DefaultQRWait, "Telegram --qr: how long to wait for a scan")
	_ = cmd.MarkFlagRequired("tenant")
	_ = cmd.MarkFlagRequired("adapter")
	config.RegisterFlags(cmd.Flags(), "adapters", "fxtwitter-url", "tme-url")
	return cmd
}

// stdinTerminal reports whether standard input is a terminal.
func (d *deps) stdinTerminal() bool {
	f, ok := d.stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// telegramSignIn signs a Telegram account in, asking on the terminal, and
// returns the new session: the secret, as if it had been pasted.
func (d *deps) telegramSignIn(cmd *cobra.Command) ([]byte, error) {
	cfg, err := d.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	mt, err := runtime.TelegramMTProto(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), signInTimeout)
	defer cancel()
	return telegram.SignIn(ctx, mt, d.terminalAsk())
}

// terminalAsk asks on standard error and reads the answer from standard
// input; a secret answer is not echoed on a terminal.
func (d *deps) terminalAsk() telegram.Ask {
	in := bufio.NewReader(d.stdin)
	return func(ctx context.Context, question string, secret bool) (string, error) {
		fmt.Fprint(d.stderr, question)
		if f, ok := d.stdin.(*os.File); ok && secret && term.IsTerminal(int(f.Fd())) {
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(d.stderr)
			return string(b), err
		}
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return "", fmt.Errorf("no answer to %q on standard input", strings.TrimSpace(question))
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
}

// telegramSignInQR signs a Telegram account in by QR code: each login
// token is printed as a QR code on standard error until one is scanned;
// the 2FA password, when the account has one, is asked after.
func (d *deps) telegramSignInQR(cmd *cobra.Command, wait time.Duration) ([]byte, error) {
	if wait <= 0 {
		return nil, usageError{errors.New("--qr-wait must be more than 0, e.g. 5m")}
	}
	cfg, err := d.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	mt, err := runtime.TelegramMTProto(cfg)
	if err != nil {
		return nil, err
	}
	ask := d.terminalAsk()
	show := func(_ context.Context, loginURL string, expires time.Time) error {
		code, err := telegram.QRText(loginURL)
		if err != nil {
			return err
		}
		fmt.Fprintf(d.stderr, "\nScan this QR code with Telegram on a phone where the account is signed in\n"+
			"(Settings → Devices → Link Desktop Device). It expires at %s; a new one follows.\n\n%s\n%s\n",
			expires.Local().Format("15:04:05"), code, loginURL)
		return nil
	}
	password := func(ctx context.Context) (string, error) {
		return ask(ctx, "Two-step verification password: ", true)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), wait+signInTimeout)
	defer cancel()
	return telegram.SignInQR(ctx, mt, telegram.QRSignIn{Show: show, Password: password, Wait: wait})
}

// signInTimeout bounds a terminal sign-in, answers included.
const signInTimeout = 10 * time.Minute

// readSecret reads the secret from a file, or from standard input (with a
// prompt on the terminal).
func (d *deps) readSecret(file string) ([]byte, error) {
	var r io.Reader = d.stdin
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, usageError{fmt.Errorf("--secret-file: %w", err)}
		}
		defer f.Close()
		r = f
	} else if f, ok := d.stdin.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintln(d.stderr, "Paste the secret, then press Enter and Ctrl-D:")
		}
	}
	b, err := io.ReadAll(io.LimitReader(r, maxSecretRead))
	if err != nil {
		return nil, fmt.Errorf("read the secret: %w", err)
	}
	// A trailing newline is the shell's or the editor's, not the secret's.
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b, nil
}

// withEngine runs fn with a business layer that reaches the adapters (the
// built-in ones and MONITOR_ADAPTERS), without working the queue.
func (d *deps) withEngine(cmd *cobra.Command, fn func(a *app.App) error) error {
	cfg, err := d.loadConfig(cmd)
	if err != nil {
		return err
	}
	e, err := runtime.OpenEngine(cmd.Context(), cfg, d.logger(cfg))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), runtime.StopTimeout)
		defer cancel()
		_ = e.Stop(sctx)
	}()
	return fn(e.App())
}

func handleOf(h string) string {
	if h == "" {
		return "(no handle)"
	}
	return "@" + h
}

func newAccountListCmd(d *deps) *cobra.Command {
	var tenant, adapter string
	cmd := &cobra.Command{
		Use:     "list --tenant NAME [--adapter ID]",
		Short:   "List a tenant's accounts, revoked ones included",
		Example: `  monitor account list --tenant alice`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				list, err := a.Connections(cmd.Context(), t.ID)
				if err != nil {
					return err
				}
				rows := [][]string{}
				for _, c := range list {
					if adapter != "" && c.Adapter != adapter {
						continue
					}
					checked := "-"
					if c.CheckedAt != nil {
						checked = c.CheckedAt.UTC().Format(time.RFC3339)
					}
					def := ""
					if c.Default {
						def = "yes"
					}
					rows = append(rows, []string{c.ID.String(), c.Adapter, c.Provider, c.AccountID, orDash(c.Handle), c.Status,
						strconv.Itoa(c.CredentialRevision), orDash(def), checked})
				}
				return d.table("ID\tADAPTER\tPROVIDER\tACCOUNT\tHANDLE\tSTATUS\tREVISION\tDEFAULT\tCHECKED", rows)
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant (required)")
	cmd.Flags().StringVar(&adapter, "adapter", "", "only accounts of this adapter")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}

// connectionArg is the connection id argument.
func connectionArg(cmd *cobra.Command, arg string) (uuid.UUID, error) {
	id, err := uuid.Parse(arg)
	if err != nil {
		return uuid.Nil, usageError{fmt.Errorf("%s: %q is not a connection id; `monitor account list --tenant NAME` shows them", cmd.CommandPath(), arg)}
	}
	return id, nil
}

func newAccountCheckCmd(d *deps) *cobra.Command {
	var tenant string
	cmd := &cobra.Command{
		Use:   "check ID --tenant NAME",
		Short: "Ask the platform whether an account's credential still works",
		Long: `Ask the platform whether the account's stored credential still works. A
refusal marks the account reauth_required (exit code 1): add it again with
monitor account add. A rate limit or a fault of the platform changes nothing.`,
		Example: `  monitor account check 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e --tenant alice`,
		Args:    exactArgs(1, "the connection ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := connectionArg(cmd, args[0])
			if err != nil {
				return err
			}
			return d.withEngine(cmd, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				res, err := a.CheckConnection(cmd.Context(), t.ID, id)
				if err != nil {
					return err
				}
				c := res.Connection
				d.printf("connection %s: %s/%s account %s %s, %s\n", c.ID, c.Adapter, c.Provider, c.AccountID, handleOf(c.Handle), c.Status)
				if !res.OK {
					return exitError{code: 1, msg: "the platform refused the credential: " + res.Message + "; add the account again"}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant (required)")
	_ = cmd.MarkFlagRequired("tenant")
	config.RegisterFlags(cmd.Flags(), "adapters", "fxtwitter-url", "tme-url")
	return cmd
}

func newAccountRevokeCmd(d *deps) *cobra.Command {
	var tenant string
	cmd := &cobra.Command{
		Use:   "revoke ID --tenant NAME",
		Short: "Delete an account's credential; the account stays listed as revoked",
		Long: `Delete the account's stored credential. The connection stays, revoked, so the
captures made with it keep their trail; adding the account again brings it
back.`,
		Example: `  monitor account revoke 0193f6c2-7d1e-7b2a-9c3e-5f4a1b2c3d4e --tenant alice`,
		Args:    exactArgs(1, "the connection ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := connectionArg(cmd, args[0])
			if err != nil {
				return err
			}
			return d.withApp(cmd, func(a *app.App) error {
				t, err := a.TenantByName(cmd.Context(), tenant)
				if err != nil {
					return err
				}
				c, err := a.RevokeConnection(cmd.Context(), t.ID, id, app.ActorCLI)
				if errors.Is(err, app.ErrNotFound) {
					return fmt.Errorf("tenant %s has no connection %s", tenant, id)
				}
				if err != nil {
					return err
				}
				d.printf("connection %s: %s/%s account %s, revoked; its credential is deleted\n", c.ID, c.Adapter, c.Provider, c.AccountID)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "name of the tenant (required)")
	_ = cmd.MarkFlagRequired("tenant")
	return cmd
}
