package telegram_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"rsc.io/qr"

	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// scanner plays the person with a phone: it records each login URL shown
// and scans the n-th one (from 1; 0: none).
type scanner struct {
	fake   *testkit.Telegram
	scanAt int
	mu     sync.Mutex
	shown  []string
	errs   chan error
}

func (s *scanner) show(_ context.Context, url string, expires time.Time) error {
	s.mu.Lock()
	s.shown = append(s.shown, url)
	n := len(s.shown)
	s.mu.Unlock()
	if !strings.HasPrefix(url, "tg://login?token=") || !expires.After(time.Now().Add(-time.Second)) {
		return errors.New("not a live login URL: " + url)
	}
	if n == s.scanAt {
		go func() { s.errs <- s.fake.ScanQR(url) }() // the phone answers while the code is shown
	}
	return nil
}

// QR sign-in: the login URL is shown, a Telegram app scans it, and the
// session it makes is one PrepareCredential takes; with two-step
// verification the password is asked after the scan; an expired code is
// replaced by a new one; a wait without a scan ends with a clear error.
func TestMTProtoSignInQR(t *testing.T) {
	h := newMTHarness(t)
	mt := telegram.MTProto{AppID: 1, AppHash: "test-hash", DCList: h.fake.DCList(), Resolver: h.fake.Resolver(), PublicKeys: h.fake.PublicKeys()}
	ctx := context.Background()
	prepare := func(t *testing.T, sess []byte) {
		t.Helper()
		resp, err := h.client.PrepareCredential(ctx, &adapterv1.PrepareCredentialRequest{ProviderId: telegram.ProviderMTProto, Input: sess})
		require.NoError(t, err)
		require.Nil(t, resp.GetError())
		require.Equal(t, "5001", resp.GetAccountId())
	}

	t.Run("scan", func(t *testing.T) {
		h.fake.SetSignIn(t, "", "", "")
		h.fake.SetQRLogin(0)
		s := &scanner{fake: h.fake, scanAt: 1, errs: make(chan error, 1)}
		start := time.Now()
		sess, err := telegram.SignInQR(ctx, mt, telegram.QRSignIn{Show: s.show, Wait: time.Minute})
		require.NoError(t, err)
		require.NoError(t, <-s.errs)
		require.Len(t, s.shown, 1)
		require.Less(t, time.Since(start), 20*time.Second, "the scan is noticed by updateLoginToken, not the token's expiry")
		prepare(t, sess)
	})

	t.Run("scan and password", func(t *testing.T) {
		h.fake.SetSignIn(t, "", "", "correct horse battery staple")
		h.fake.SetQRLogin(0)
		s := &scanner{fake: h.fake, scanAt: 1, errs: make(chan error, 1)}
		asked := 0
		sess, err := telegram.SignInQR(ctx, mt, telegram.QRSignIn{Show: s.show, Wait: time.Minute,
			Password: func(context.Context) (string, error) { asked++; return "correct horse battery staple", nil }})
		require.NoError(t, err)
		require.NoError(t, <-s.errs)
		require.Equal(t, 1, asked)
		prepare(t, sess)

		// A wrong password is refused in people's words, without it.
		h.fake.SetQRLogin(0)
		s = &scanner{fake: h.fake, scanAt: 1, errs: make(chan error, 1)}
		_, err = telegram.SignInQR(ctx, mt, telegram.QRSignIn{Show: s.show, Wait: time.Minute,
			Password: func(context.Context) (string, error) { return "tr0ub4dor", nil }})
		require.ErrorContains(t, err, "two-step verification password")
		require.NotContains(t, err.Error(), "tr0ub4dor")
	})

	t.Run("expired code replaced", func(t *testing.T) {
		h.fake.SetSignIn(t, "", "", "")
		h.fake.SetQRLogin(2 * time.Second)
		s := &scanner{fake: h.fake, scanAt: 2, errs: make(chan error, 1)}
		sess, err := telegram.SignInQR(ctx, mt, telegram.QRSignIn{Show: s.show, Wait: time.Minute})
		require.NoError(t, err)
		require.NoError(t, <-s.errs)
		require.Len(t, s.shown, 2)
		require.NotEqual(t, s.shown[0], s.shown[1], "a new token once the first expired")
		require.ErrorContains(t, h.fake.ScanQR(s.shown[0]), "not the login token shown now")
		prepare(t, sess)
	})

	t.Run("not scanned", func(t *testing.T) {
		h.fake.SetSignIn(t, "", "", "")
		h.fake.SetQRLogin(2 * time.Second)
		s := &scanner{fake: h.fake}
		start := time.Now()
		_, err := telegram.SignInQR(ctx, mt, telegram.QRSignIn{Show: s.show, Wait: 3 * time.Second})
		require.ErrorIs(t, err, telegram.ErrQRNotScanned)
		require.Contains(t, err.Error(), "Link Desktop Device")
		require.GreaterOrEqual(t, len(s.shown), 2, "the expired code was replaced while waiting")
		require.Less(t, time.Since(start), 15*time.Second)
	})

	_, err := telegram.SignInQR(ctx, telegram.MTProto{}, telegram.QRSignIn{Show: (&scanner{}).show})
	require.ErrorIs(t, err, telegram.ErrNoAppCredentials)
	require.Contains(t, err.Error(), "MONITOR_TELEGRAM_APP_ID")
}

// The QR code drawn for a terminal and the PNG for a chat carry the login
// URL.
func TestQRCode(t *testing.T) {
	const url = "tg://login?token=AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
	text, err := telegram.QRText(url)
	require.NoError(t, err)
	c, err := qr.Encode(url, qr.M)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	require.Len(t, lines, (c.Size+8+1)/2)
	for _, l := range lines {
		require.Equal(t, c.Size+8, len([]rune(l)))
	}
	// Module (0,0) is dark (a finder pattern): row 2 (modules y=4,5),
	// column 4 is a gap.
	require.Equal(t, ' ', []rune(lines[2])[4])
	require.Equal(t, '█', []rune(lines[0])[0], "the quiet zone is light")

	png, err := telegram.QRPNG(url)
	require.NoError(t, err)
	require.Equal(t, "\x89PNG", string(png[:4]))
}
