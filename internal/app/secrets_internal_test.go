package app

import (
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
