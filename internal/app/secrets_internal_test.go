package app

import (
	"github.com/google/uuid"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSecretBox(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("k", 32)
	box, err := newSecretBox(key, settingsPurpose)
	require.NoError(t, err)

	a, b := box.seal("s3cret", "telegram_token"), box.seal("s3cret", "telegram_token")
	require.NotEqual(t, a, b, "a random nonce each time")
	require.True(t, strings.HasPrefix(a, "v1:"))
	plain, err := box.open(a, "telegram_token")
	require.NoError(t, err)
	require.Equal(t, "s3cret", plain)

	_, err = box.open(a, "other_key")
	require.Error(t, err, "bound to its key name")

	other, err := newSecretBox(key, "monitor credentials v1")
	require.NoError(t, err)
	_, err = other.open(a, "telegram_token")
	require.Error(t, err, "each purpose has its own key")

	wrong, err := newSecretBox(strings.Repeat("w", 32), settingsPurpose)
	require.NoError(t, err)
	_, err = wrong.open(a, "telegram_token")
	require.ErrorContains(t, err, "MONITOR_MASTER_KEY")

	_, err = box.open("v1:AAAA", "telegram_token")
	require.ErrorContains(t, err, "damaged")
	_, err = box.open("plain", "telegram_token")
	require.Error(t, err)
	_, err = box.open(a[:len(a)-4]+"AAAA", "telegram_token")
	require.Error(t, err)

	_, err = newSecretBox("", settingsPurpose)
	require.ErrorIs(t, err, errNoMasterKey)
	_, err = newSecretBox("short", settingsPurpose)
	require.ErrorContains(t, err, "at least 16")
}

func TestCutDetailAndScrub(t *testing.T) {
	t.Parallel()
	require.Equal(t, "short", cutDetail("short"))
	exact := strings.Repeat("a", maxErrorDetail)
	require.Equal(t, exact, cutDetail(exact))
	require.Equal(t, exact+"…", cutDetail(exact+"b"))
	require.Equal(t, `media address "<url>" is not usable`, scrubURLs(`media address "https://pbs.twimg.com/media/a.jpg?name=orig" is not usable`))
	require.Equal(t, "<url> and <url>", scrubURLs("http://a/b and https://c/d"))
	require.Equal(t, "no links", scrubURLs("no links"))
}

func TestCredentialSealing(t *testing.T) {
	t.Parallel()
	tenant, record := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	a := &App{masterKey: strings.Repeat("m", 32)}
	secret := []byte("auth_token=abc; ct0=def")
	nonce, ct, err := a.sealCredential(tenant, record, secret)
	require.NoError(t, err)
	require.Len(t, nonce, 12)
	require.NotContains(t, string(ct), "auth_token", "sealed")
	nonce2, ct2, err := a.sealCredential(tenant, record, secret)
	require.NoError(t, err)
	require.NotEqual(t, nonce, nonce2, "a fresh nonce each time")
	require.NotEqual(t, ct, ct2)

	plain, err := a.openCredential(tenant, record, nonce, ct)
	require.NoError(t, err)
	require.Equal(t, secret, plain)

	_, err = a.openCredential(uuid.Must(uuid.NewV7()), record, nonce, ct)
	require.ErrorContains(t, err, "does not open", "bound to its tenant")
	_, err = a.openCredential(tenant, uuid.Must(uuid.NewV7()), nonce, ct)
	require.ErrorContains(t, err, "does not open", "bound to its record")

	settings, err := newSecretBox(a.masterKey, settingsPurpose)
	require.NoError(t, err)
	_, err = settings.openBytes(nonce, ct, credentialAAD(tenant, record))
	require.Error(t, err, "the settings key does not open credentials")

	wrong := &App{masterKey: strings.Repeat("w", 32)}
	_, err = wrong.openCredential(tenant, record, nonce, ct)
	require.ErrorContains(t, err, "MONITOR_MASTER_KEY")
	none := &App{}
	_, _, err = none.sealCredential(tenant, record, secret)
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorContains(t, err, "MONITOR_MASTER_KEY is not set")
	_, err = none.openCredential(tenant, record, nonce, ct)
	require.ErrorContains(t, err, "MONITOR_MASTER_KEY is not set")
	short := &App{masterKey: "k3y"}
	_, _, err = short.sealCredential(tenant, record, secret)
	require.ErrorContains(t, err, "at least 16")
	_, err = a.openCredential(tenant, record, nonce[:4], ct)
	require.ErrorContains(t, err, "damaged")
}
