package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gotd/td/session"
	gotd "github.com/gotd/td/telegram"
	"github.com/gotd/td/telegram/auth"
	"github.com/gotd/td/tg"
	"github.com/gotd/td/tgerr"
)

// Sign-in makes a new Telegram session the way Telegram's apps do: the
// phone number, the login code Telegram sends, and the two-step
// verification password when the account has one. It runs where a person
// answers (the terminal of `monitor account add`), and its result is a
// session as gotd's session.json holds it: what PrepareCredential takes,
// so core keeps handling the session as opaque bytes.

// Ask puts one question to the person signing in and returns the
// answer; secret answers (the password) should not be echoed.
type Ask func(ctx context.Context, question string, secret bool) (string, error)

// ErrNoAppCredentials is the refusal of a sign-in without the instance's
// Telegram app credentials.
var ErrNoAppCredentials = errors.New(msgNoAppCredentials)

// SignIn signs a Telegram account in with the answers ask gets and returns
// the new session (gotd's session.json). Nothing it asks is kept.
func SignIn(ctx context.Context, mt MTProto, ask Ask) ([]byte, error) {
	if mt.AppID == 0 || mt.AppHash == "" {
		return nil, ErrNoAppCredentials
	}
	storage := &session.StorageMemory{}
	client := gotd.NewClient(mt.AppID, mt.AppHash, mt.clientOptions(storage))
	var done bool
	err := client.Run(ctx, func(ctx context.Context) error {
		flow := auth.NewFlow(terminalAuth{ask: ask}, auth.SendCodeOptions{})
		if err := client.Auth().IfNecessary(ctx, flow); err != nil {
			return err
		}
		done = true
		return nil
	})
	if err == nil && !done {
		err = errors.New("the connection to Telegram ended early")
	}
	if err != nil {
		return nil, signInError(err)
	}
	return storage.Bytes(nil)
}

// signInError says in people's words why a sign-in failed.
func signInError(err error) error {
	switch {
	case errors.Is(err, auth.ErrPasswordInvalid), tgerr.Is(err, "PASSWORD_HASH_INVALID"):
		return errors.New("the two-step verification password is not the account's (Telegram refused it); try again")
	case tgerr.Is(err, "PHONE_CODE_INVALID", "PHONE_CODE_EMPTY"):
		return errors.New("the login code is not the one Telegram sent; try again and type the newest code")
	case tgerr.Is(err, "PHONE_CODE_EXPIRED"):
		return errors.New("the login code expired; try again")
	case tgerr.Is(err, "PHONE_NUMBER_INVALID", "PHONE_NUMBER_BANNED"):
		return errors.New("the phone number is not one Telegram accepts; give it in international form, e.g. +15551234567")
	}
	var signUp *auth.SignUpRequired
	if errors.As(err, &signUp) {
		return errors.New("this phone number has no Telegram account; sign up in a Telegram app first")
	}
	if d, ok := tgerr.AsFloodWait(err); ok {
		return fmt.Errorf("too many sign-in attempts: Telegram asks to wait %s before the next", d)
	}
	return fmt.Errorf("sign in to Telegram: %w", err)
}

// terminalAuth answers gotd's sign-in flow with a person's answers.
type terminalAuth struct{ ask Ask }

func (t terminalAuth) answer(ctx context.Context, q string, secret bool) (string, error) {
	s, err := t.ask(ctx, q, secret)
	return strings.TrimSpace(s), err
}

func (t terminalAuth) Phone(ctx context.Context) (string, error) {
	return t.answer(ctx, "Phone number of the Telegram account (international form, e.g. +15551234567): ", false)
}

func (t terminalAuth) Code(ctx context.Context, _ *tg.AuthSentCode) (string, error) {
	return t.answer(ctx, "Login code Telegram sent: ", false)
}

func (t terminalAuth) Password(ctx context.Context) (string, error) {
	return t.ask(ctx, "Two-step verification password: ", true)
}

func (t terminalAuth) AcceptTermsOfService(_ context.Context, tos tg.HelpTermsOfService) error {
	return &auth.SignUpRequired{TermsOfService: tos}
}

func (t terminalAuth) SignUp(context.Context) (auth.UserInfo, error) {
	return auth.UserInfo{}, errors.New("this phone number has no Telegram account; sign up in a Telegram app first")
}
