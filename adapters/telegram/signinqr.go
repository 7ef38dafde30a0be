package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gotd/td/session"
	gotd "github.com/gotd/td/telegram"
	"github.com/gotd/td/telegram/auth/qrlogin"
	"github.com/gotd/td/tg"
	"github.com/gotd/td/tgerr"
	"rsc.io/qr"
)

// QR sign-in is the other way Telegram's apps sign a new device in: this
// side asks Telegram for a login token (auth.exportLoginToken) and shows
// it as a tg://login?token=… QR code; the person scans it with a Telegram
// app where the account is signed in (Settings → Devices → Link Desktop
// Device), which accepts it; Telegram then tells this side
// (updateLoginToken) and the next export answers with the authorization.
// A token lives about 30 seconds, so a new one is shown until the person
// scans one or the wait ends. An account with two-step verification asks
// for its password after the scan.

// ShowQR shows a login token's URL to the person signing in, until it
// expires; it is called again with each new token.
type ShowQR func(ctx context.Context, loginURL string, expires time.Time) error

// QRSignIn configures SignInQR.
type QRSignIn struct {
	// Show shows each login token (required).
	Show ShowQR
	// Password asks for the two-step verification password once the code
	// is scanned, when the account has one (nil: such an account fails).
	Password func(ctx context.Context) (string, error)
	// Wait bounds the wait for a scan (0: 5 minutes).
	Wait time.Duration
}

// DefaultQRWait is how long a QR sign-in waits for a scan.
const DefaultQRWait = 5 * time.Minute

// ErrQRNotScanned is the answer of a QR sign-in whose codes all expired
// without a scan.
var ErrQRNotScanned = errors.New("no QR code was scanned in time: open Telegram on a phone where the account is signed in, " +
	"go to Settings → Devices → Link Desktop Device, and scan the code while it is shown; try again")

// SignInQR signs a Telegram account in by QR code and returns the new
// session (gotd's session.json), as SignIn does.
func SignInQR(ctx context.Context, mt MTProto, q QRSignIn) ([]byte, error) {
	if mt.AppID == 0 || mt.AppHash == "" {
		return nil, ErrNoAppCredentials
	}
	if q.Show == nil {
		return nil, errors.New("telegram: a QR sign-in needs a way to show the code")
	}
	wait := q.Wait
	if wait <= 0 {
		wait = DefaultQRWait
	}
	storage := &session.StorageMemory{}
	dispatcher := tg.NewUpdateDispatcher()
	scanned := make(chan struct{}, 1)
	dispatcher.OnLoginToken(func(context.Context, tg.Entities, *tg.UpdateLoginToken) error {
		select {
		case scanned <- struct{}{}:
		default:
		}
		return nil
	})
	opts := mt.clientOptions(storage)
	opts.NoUpdates = false
	opts.UpdateHandler = dispatcher
	client := gotd.NewClient(mt.AppID, mt.AppHash, opts)

	var done bool
	err := client.Run(ctx, func(ctx context.Context) error {
		err := waitForScan(ctx, client.QR(), q.Show, scanned, time.Now().Add(wait))
		if tgerr.Is(err, "SESSION_PASSWORD_NEEDED") {
			if q.Password == nil {
				return errors.New("the account has two-step verification; sign in where its password can be asked")
			}
			pw, perr := q.Password(ctx)
			if perr != nil {
				return perr
			}
			_, err = client.Auth().Password(ctx, pw)
		}
		if err != nil {
			return err
		}
		done = true
		return nil
	})
	if err == nil && !done {
		err = errors.New("the connection to Telegram ended early")
	}
	if err != nil {
		if errors.Is(err, ErrQRNotScanned) {
			return nil, ErrQRNotScanned
		}
		if ctx.Err() != nil && !done {
			return nil, errors.New("the QR sign-in was stopped before a code was scanned; nothing was added")
		}
		return nil, signInError(err)
	}
	return storage.Bytes(nil)
}

// waitForScan shows login tokens until one is accepted (nil), the
// account asks for its 2FA password (SESSION_PASSWORD_NEEDED), or the
// deadline passes (ErrQRNotScanned). An export after the scan
// (updateLoginToken) answers with the authorization; one after a token
// expired gives the next token.
func waitForScan(ctx context.Context, q qrlogin.QR, show ShowQR, scanned <-chan struct{}, deadline time.Time) error {
	for {
		t, err := q.Export(ctx)
		var migrate *qrlogin.MigrationNeededError
		if errors.As(err, &migrate) {
			// The account lives on another data center: Import moves
			// there and imports the token.
			_, err = q.Import(ctx)
			return err
		}
		if err != nil {
			return err
		}
		if t.Empty() {
			return nil // accepted
		}
		if !time.Now().Before(deadline) {
			return ErrQRNotScanned
		}
		if err := show(ctx, t.URL(), t.Expires()); err != nil {
			return err
		}
		next := min(time.Until(t.Expires()), time.Until(deadline))
		timer := time.NewTimer(max(next, time.Second))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-scanned:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// QRCode is a login URL as a QR code (medium error correction).
func QRCode(loginURL string) (*qr.Code, error) {
	c, err := qr.Encode(loginURL, qr.M)
	if err != nil {
		return nil, fmt.Errorf("telegram: make the QR code: %w", err)
	}
	return c, nil
}

// QRPNG is a login URL as a PNG image of its QR code, for a chat.
func QRPNG(loginURL string) ([]byte, error) {
	c, err := QRCode(loginURL)
	if err != nil {
		return nil, err
	}
	c.Scale = 8
	return c.PNG(), nil
}

// QRText draws a login URL's QR code with block characters for a
// terminal: two modules a character (upper and lower half), dark on a
// light quiet zone four modules wide: the blocks are the light modules,
// so it reads as a usual QR code on a dark terminal.
func QRText(loginURL string) (string, error) {
	c, err := QRCode(loginURL)
	if err != nil {
		return "", err
	}
	const quiet = 4
	n := c.Size
	dark := func(x, y int) bool {
		x, y = x-quiet, y-quiet
		return x >= 0 && y >= 0 && x < n && y < n && c.Black(x, y)
	}
	var b []rune
	for y := 0; y < n+2*quiet; y += 2 {
		for x := 0; x < n+2*quiet; x++ {
			// The light modules are drawn, the dark ones are the gaps.
			top, bottom := !dark(x, y), y+1 < n+2*quiet && !dark(x, y+1)
			switch {
			case top && bottom:
				b = append(b, '█')
			case top:
				b = append(b, '▀')
			case bottom:
				b = append(b, '▄')
			default:
				b = append(b, ' ')
			}
		}
		b = append(b, '\n')
	}
	return string(b), nil
}
