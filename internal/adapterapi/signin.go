package adapterapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// SignInSession is a running interactive sign-in (SignIn, capability
// credential.interactive): Next gives the adapter's steps, Password
// answers a password step, Close ends it. The adapter keeps its app
// credentials; what comes back at the end is an input for
// PrepareCredential, as a pasted session would be.
type SignInSession struct {
	adapter *Adapter
	stream  adapterv1.Adapter_SignInClient
	cancel  context.CancelFunc
	ended   bool
}

// CanSignIn says whether an adapter's account provider signs accounts in
// interactively.
func (r *Registry) CanSignIn(adapterID, provider string) bool {
	p, err := r.AccountProvider(adapterID, provider)
	return err == nil && hasCapability(p, adapterv1.CapCredentialInteractive, 0)
}

// SignIn opens an interactive sign-in with method (adapterv1.SignInMethodQR)
// on an account provider ("" the default); wait bounds the wait for a
// scan (0: the adapter's default). The stream lives until ctx ends or
// Close.
func (r *Registry) SignIn(ctx context.Context, adapterID, provider, method string, wait time.Duration) (*SignInSession, error) {
	p, err := r.AccountProvider(adapterID, provider)
	if err != nil {
		return nil, err
	}
	a, _ := r.Get(adapterID)
	if !hasCapability(p, adapterv1.CapCredentialInteractive, 0) {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			Message: fmt.Sprintf("provider %s cannot sign accounts in here (no %s capability); paste a session instead", p.GetId(), adapterv1.CapCredentialInteractive)}
	}
	sctx, cancel := context.WithCancel(ctx)
	st, err := a.client.SignIn(sctx)
	if err == nil {
		err = st.Send(&adapterv1.SignInInput{ProviderId: p.GetId(), Method: method, WaitSeconds: uint32(wait / time.Second)})
		if errors.Is(err, io.EOF) {
			// The adapter ended the stream already; what it sent, and
			// how it ended, are for Next to read (gRPC's rule for Send).
			err = nil
		}
	}
	if err != nil {
		cancel()
		return nil, a.callError("sign in", adapterv1.CapCredentialInteractive, err)
	}
	return &SignInSession{adapter: a, stream: st, cancel: cancel}, nil
}

// Next is the adapter's next step: a QR code, a password question or
// done. An error step comes back as *Error; after done or an error Next
// answers io.EOF.
func (s *SignInSession) Next() (*adapterv1.SignInStep, error) {
	if s.ended {
		return nil, io.EOF
	}
	step, err := s.stream.Recv()
	if errors.Is(err, io.EOF) {
		s.ended = true
		return nil, contractError(s.adapter.ID(), "sign in ended without done or error")
	}
	if err != nil {
		s.ended = true
		return nil, s.adapter.callError("sign in", adapterv1.CapCredentialInteractive, err)
	}
	switch st := step.GetStep().(type) {
	case *adapterv1.SignInStep_Error:
		s.ended = true
		return nil, fromProto(s.adapter.ID(), st.Error)
	case *adapterv1.SignInStep_Done:
		s.ended = true
		if len(st.Done.GetInput()) == 0 {
			return nil, contractError(s.adapter.ID(), "sign in was done without an input")
		}
	case *adapterv1.SignInStep_Qr:
		if st.Qr.GetLoginUrl() == "" || len(st.Qr.GetPng()) == 0 || st.Qr.GetExpiresAt() == nil {
			s.ended = true
			return nil, contractError(s.adapter.ID(), "sign in sent a QR step without its URL, image or expiry")
		}
	case *adapterv1.SignInStep_Password:
	default:
		s.ended = true
		return nil, contractError(s.adapter.ID(), "sign in sent an empty step")
	}
	return step, nil
}

// Password answers a password step.
func (s *SignInSession) Password(pw string) error {
	if err := s.stream.Send(&adapterv1.SignInInput{Password: pw}); err != nil {
		return s.adapter.callError("sign in", adapterv1.CapCredentialInteractive, err)
	}
	return nil
}

// Close ends the sign-in (the adapter stops waiting).
func (s *SignInSession) Close() {
	_ = s.stream.CloseSend()
	s.cancel()
}
