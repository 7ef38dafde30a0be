package telegram_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// SignIn over adapter.v1: the adapter sends each QR code (URL and PNG),
// asks for the password after the scan when the account has one, and
// ends with a session PrepareCredential takes; a wait without a scan, a
// wrong provider or method end with an error step.
func TestMTProtoSignInStream(t *testing.T) {
	h := newMTHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	open := func(t *testing.T, in *adapterv1.SignInInput) adapterv1.Adapter_SignInClient {
		t.Helper()
		st, err := h.client.SignIn(ctx)
		require.NoError(t, err)
		require.NoError(t, st.Send(in))
		return st
	}
	recv := func(t *testing.T, st adapterv1.Adapter_SignInClient) *adapterv1.SignInStep {
		t.Helper()
		s, err := st.Recv()
		require.NoError(t, err)
		return s
	}
	qrIn := &adapterv1.SignInInput{ProviderId: telegram.ProviderMTProto, Method: adapterv1.SignInMethodQR, WaitSeconds: 60}

	t.Run("scan, password, done", func(t *testing.T) {
		h.fake.SetSignIn(t, "", "", "correct horse battery staple")
		h.fake.SetQRLogin(0)
		st := open(t, qrIn)
		q := recv(t, st).GetQr()
		require.NotNil(t, q)
		require.Contains(t, q.GetLoginUrl(), "tg://login?token=")
		require.Equal(t, "\x89PNG", string(q.GetPng()[:4]))
		require.True(t, q.GetExpiresAt().AsTime().After(time.Now()))
		require.NoError(t, h.fake.ScanQR(q.GetLoginUrl()))
		require.NotNil(t, recv(t, st).GetPassword(), "the password is asked after the scan")
		require.NoError(t, st.Send(&adapterv1.SignInInput{Password: "correct horse battery staple"}))
		done := recv(t, st).GetDone()
		require.NotNil(t, done)
		resp, err := h.client.PrepareCredential(ctx, &adapterv1.PrepareCredentialRequest{ProviderId: telegram.ProviderMTProto, Input: done.GetInput()})
		require.NoError(t, err)
		require.Nil(t, resp.GetError())
		require.Equal(t, "5001", resp.GetAccountId())
	})

	t.Run("expired code replaced", func(t *testing.T) {
		h.fake.SetSignIn(t, "", "", "")
		h.fake.SetQRLogin(2 * time.Second)
		st := open(t, qrIn)
		first := recv(t, st).GetQr()
		second := recv(t, st).GetQr()
		require.NotNil(t, second)
		require.NotEqual(t, first.GetLoginUrl(), second.GetLoginUrl())
		require.NoError(t, h.fake.ScanQR(second.GetLoginUrl()))
		require.NotEmpty(t, recv(t, st).GetDone().GetInput())
	})

	t.Run("not scanned", func(t *testing.T) {
		h.fake.SetSignIn(t, "", "", "")
		h.fake.SetQRLogin(2 * time.Second)
		st := open(t, &adapterv1.SignInInput{ProviderId: telegram.ProviderMTProto, Method: adapterv1.SignInMethodQR, WaitSeconds: 3})
		var e *adapterv1.Error
		for e == nil {
			s := recv(t, st)
			require.Nil(t, s.GetDone())
			e = s.GetError()
		}
		require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, e.GetCode())
		require.Contains(t, e.GetMessage(), "no QR code was scanned in time")
		require.Equal(t, adapterv1.ReasonQRNotScanned, e.GetReason())
	})

	for name, in := range map[string]*adapterv1.SignInInput{
		"provider": {ProviderId: "tme", Method: adapterv1.SignInMethodQR},
		"method":   {ProviderId: telegram.ProviderMTProto, Method: "sms"},
		"wait":     {ProviderId: telegram.ProviderMTProto, Method: adapterv1.SignInMethodQR, WaitSeconds: 3600},
	} {
		t.Run("bad "+name, func(t *testing.T) {
			e := recv(t, open(t, in)).GetError()
			require.NotNil(t, e)
			require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, e.GetCode())
			require.NotEmpty(t, e.GetMessage())
		})
	}
}
