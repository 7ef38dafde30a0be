package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// SignIn over adapter.v1 (protocol 1.3, capability
// credential.interactive): core opens the stream with the mtproto
// provider and method "qr"; this side runs SignInQR with the adapter's own
// app credentials and sends each login token as a QR step (its PNG too),
// a password step when the account has two-step verification, and done
// with the new session, which PrepareCredential takes as it takes a
// pasted one. Neither the password nor the session is logged.

// maxSignInWait bounds what a caller may ask to wait for a scan.
const maxSignInWait = 15 * time.Minute

// SignIn runs an interactive sign-in for core.
func (a *Adapter) SignIn(stream adapterv1.Adapter_SignInServer) error {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	fail := func(code adapterv1.ErrorCode, msg string) error {
		return stream.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Error{Error: kit.Err(code, msg)}})
	}
	if first.GetProviderId() != ProviderMTProto {
		return fail(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s signs nothing in; signing in takes a Telegram account (provider %s)", kit.Quote(first.GetProviderId()), ProviderMTProto))
	}
	if first.GetMethod() != adapterv1.SignInMethodQR {
		return fail(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("sign-in method %s is not one Telegram's provider knows; use %q", kit.Quote(first.GetMethod()), adapterv1.SignInMethodQR))
	}
	wait := time.Duration(first.GetWaitSeconds()) * time.Second
	if wait > maxSignInWait {
		return fail(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("a sign-in waits at most %s for a scan", maxSignInWait))
	}
	// Core's later messages (a password) arrive on answers; a closed or
	// broken stream ends the sign-in.
	answers := make(chan *adapterv1.SignInInput, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(answers)
		for {
			in, err := stream.Recv()
			if err != nil {
				return
			}
			select {
			case answers <- in:
			case <-ctx.Done():
				return
			}
		}
	}()
	sess, err := SignInQR(ctx, a.mt, QRSignIn{
		Wait: wait,
		Show: func(_ context.Context, loginURL string, expires time.Time) error {
			png, err := QRPNG(loginURL)
			if err != nil {
				return err
			}
			return stream.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Qr{Qr: &adapterv1.SignInQR{
				LoginUrl: loginURL, Png: png, ExpiresAt: timestamppb.New(expires)}}})
		},
		Password: func(ctx context.Context) (string, error) {
			if err := stream.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Password{Password: &adapterv1.SignInPassword{}}}); err != nil {
				return "", err
			}
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case in, ok := <-answers:
				if !ok {
					return "", io.ErrUnexpectedEOF
				}
				if in.GetPassword() == "" {
					return "", errors.New("the two-step verification password was empty; sign in again")
				}
				return in.GetPassword(), nil
			}
		},
	})
	if err != nil {
		if stream.Context().Err() != nil {
			return stream.Context().Err() // core went away; nobody reads an answer
		}
		e := kit.Err(adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, err.Error())
		switch {
		case errors.Is(err, ErrNoAppCredentials):
			e.Code = adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE
		case errors.Is(err, ErrQRNotScanned):
			e.Reason = adapterv1.ReasonQRNotScanned
		}
		return stream.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Error{Error: e}})
	}
	return stream.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Done{Done: &adapterv1.SignInDone{Input: sess}}})
}
