package adapterapi_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/timestamppb"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
)

// signInAdapter is a fake adapter whose account provider signs in by
// sending steps; script plays the adapter's side of the stream.
type signInAdapter struct {
	fakeAdapter
	script func(adapterv1.Adapter_SignInServer) error
}

func (f *signInAdapter) SignIn(st adapterv1.Adapter_SignInServer) error { return f.script(st) }

func accountDescribe(interactive bool) *adapterv1.DescribeResponse {
	d := describe("demo", "demo.example")
	caps := []*adapterv1.Capability{adapterv1.Cap1(adapterv1.CapCaptureFetch), adapterv1.Cap1(adapterv1.CapEntityGraph),
		adapterv1.Cap1(adapterv1.CapCredentialPrepare), adapterv1.Cap1(adapterv1.CapConnectionCheck)}
	if interactive {
		caps = append(caps, adapterv1.Cap1(adapterv1.CapCredentialInteractive))
	}
	d.Providers = append(d.Providers, &adapterv1.Provider{Id: "session", AuthMode: adapterv1.AuthMode_AUTH_MODE_ACCOUNT,
		DefaultProvider: true, Visibilities: []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PRIVATE},
		Capabilities: caps, EntityTypes: []string{"demo.post"}})
	return d
}

func serveSignIn(t *testing.T, interactive bool, script func(adapterv1.Adapter_SignInServer) error) *adapterapi.Registry {
	t.Helper()
	f := &signInAdapter{fakeAdapter: fakeAdapter{desc: accountDescribe(interactive)}, script: script}
	lis := listen(t)
	serveOn(t, lis, f)
	r, err := dial(t, lis.Addr().String())
	require.NoError(t, err)
	return r
}

// The registry's side of SignIn: steps pass through, the password goes
// back, an error step is *Error, and steps that break the contract are
// refused; a provider without the capability is refused before calling.
func TestSignIn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	qr := &adapterv1.SignInStep{Step: &adapterv1.SignInStep_Qr{Qr: &adapterv1.SignInQR{LoginUrl: "demo://login?t=1", Png: []byte("\x89PNG"),
		ExpiresAt: timestamppb.New(time.Now().Add(time.Minute))}}}

	t.Run("qr, password, done", func(t *testing.T) {
		got := make(chan *adapterv1.SignInInput, 2)
		r := serveSignIn(t, true, func(st adapterv1.Adapter_SignInServer) error {
			in, err := st.Recv()
			if err != nil {
				return err
			}
			got <- in
			if err := st.Send(qr); err != nil {
				return err
			}
			if err := st.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Password{Password: &adapterv1.SignInPassword{}}}); err != nil {
				return err
			}
			in, err = st.Recv()
			if err != nil {
				return err
			}
			got <- in
			return st.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Done{Done: &adapterv1.SignInDone{Input: []byte("session")}}})
		})
		require.True(t, r.CanSignIn("demo", ""))
		s, err := r.SignIn(ctx, "demo", "", adapterv1.SignInMethodQR, 2*time.Minute)
		require.NoError(t, err)
		defer s.Close()
		step, err := s.Next()
		require.NoError(t, err)
		require.Equal(t, "demo://login?t=1", step.GetQr().GetLoginUrl())
		first := <-got
		require.Equal(t, "session", first.GetProviderId())
		require.Equal(t, "qr", first.GetMethod())
		require.EqualValues(t, 120, first.GetWaitSeconds())
		step, err = s.Next()
		require.NoError(t, err)
		require.NotNil(t, step.GetPassword())
		require.NoError(t, s.Password("hunter2"))
		require.Equal(t, "hunter2", (<-got).GetPassword())
		step, err = s.Next()
		require.NoError(t, err)
		require.Equal(t, "session", string(step.GetDone().GetInput()))
		_, err = s.Next()
		require.ErrorIs(t, err, io.EOF)
	})

	t.Run("error step", func(t *testing.T) {
		r := serveSignIn(t, true, func(st adapterv1.Adapter_SignInServer) error {
			return st.Send(&adapterv1.SignInStep{Step: &adapterv1.SignInStep_Error{Error: &adapterv1.Error{
				Code: adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, Message: "no QR code was scanned in time"}}})
		})
		s, err := r.SignIn(ctx, "demo", "", adapterv1.SignInMethodQR, 0)
		require.NoError(t, err)
		defer s.Close()
		_, err = s.Next()
		var e *adapterapi.Error
		require.True(t, errors.As(err, &e), "%v", err)
		require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, e.Code)
		require.Contains(t, e.Error(), "no QR code was scanned in time")
	})

	for name, bad := range map[string]*adapterv1.SignInStep{
		"empty step":  {},
		"qr, no png":  {Step: &adapterv1.SignInStep_Qr{Qr: &adapterv1.SignInQR{LoginUrl: "demo://x", ExpiresAt: timestamppb.Now()}}},
		"done, empty": {Step: &adapterv1.SignInStep_Done{Done: &adapterv1.SignInDone{}}},
		"no end":      nil,
	} {
		t.Run(name, func(t *testing.T) {
			r := serveSignIn(t, true, func(st adapterv1.Adapter_SignInServer) error {
				if bad == nil {
					return nil
				}
				return st.Send(bad)
			})
			s, err := r.SignIn(ctx, "demo", "", adapterv1.SignInMethodQR, 0)
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Next()
			require.ErrorIs(t, err, adapterapi.ErrContract)
		})
	}

	t.Run("no capability", func(t *testing.T) {
		r := serveSignIn(t, false, func(adapterv1.Adapter_SignInServer) error { panic("called") })
		require.False(t, r.CanSignIn("demo", ""))
		_, err := r.SignIn(ctx, "demo", "", adapterv1.SignInMethodQR, 0)
		var e *adapterapi.Error
		require.True(t, errors.As(err, &e), "%v", err)
		require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, e.Code)
		require.Contains(t, e.Error(), "paste a session instead")
	})
}
