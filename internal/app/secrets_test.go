package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

const (
	testMasterKey = "0123456789abcdef0123456789abcdef"
	botToken      = "123456789:AAEhBOweik9ad9r3uWk_6gSqYvLmC8T1aHk"
)

func TestSecretSetting(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t), MasterKey: testMasterKey})

		v, err := a.SetSetting(ctx, "admin-alice", "telegram_token", botToken)
		require.NoError(t, err)
		require.Equal(t, "<redacted>", v.Value)
		require.True(t, v.Secret)
		require.True(t, v.Set)
		require.True(t, v.Restart)

		// Stored encrypted: the raw value is not the token.
		stored, err := st.SettingList(ctx)
		require.NoError(t, err)
		var raw store.Setting
		for _, s := range stored {
			if s.Key == "telegram_token" {
				raw = s
			}
		}
		require.True(t, raw.Secret)
		require.True(t, strings.HasPrefix(raw.Value, "v1:"), raw.Value)
		require.NotContains(t, raw.Value, botToken)
		require.NotContains(t, raw.Value, botToken[10:])

		// Never shown, only decrypted for the component that uses it.
		list, err := a.SettingsList(ctx)
		require.NoError(t, err)
		for _, s := range list {
			require.NotContains(t, s.Value, botToken[10:])
			if s.Key == "telegram_token" {
				require.Equal(t, "<redacted>", s.Value)
			}
		}
		got, err := a.Setting(ctx, "telegram_token")
		require.NoError(t, err)
		require.Equal(t, "<redacted>", got.Value)
		plain, err := a.SecretSetting(ctx, "telegram_token")
		require.NoError(t, err)
		require.Equal(t, botToken, plain)
		_, err = a.Settings(ctx)
		require.NoError(t, err)

		// Audited without the secret.
		entries, err := a.Audit(ctx, 100)
		require.NoError(t, err)
		var found bool
		for _, e := range entries {
			require.NotContains(t, string(e.Before)+string(e.After), botToken[10:])
			if e.Action == "config.set" && e.Target == "telegram_token" {
				found = true
				require.Equal(t, "admin-alice", e.Actor)
				require.JSONEq(t, `{"value": "<redacted>"}`, string(e.After))
			}
		}
		require.True(t, found, "an audit row for the change")

		// A wrong value is refused without being echoed.
		_, err = a.SetSetting(ctx, "admin-alice", "telegram_token", "not-a-token-secretish")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.NotContains(t, err.Error(), "secretish")

		// Another master key cannot open it and says what to do.
		other := app.New(app.Deps{Store: st, Log: storetest.Logger(t), MasterKey: strings.Repeat("z", 32)})
		_, err = other.SecretSetting(ctx, "telegram_token")
		require.ErrorContains(t, err, "MONITOR_MASTER_KEY")
		noKey := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		_, err = noKey.SecretSetting(ctx, "telegram_token")
		require.ErrorContains(t, err, "set MONITOR_MASTER_KEY")

		// "default" removes it.
		v, err = a.SetSetting(ctx, "admin-alice", "telegram_token", "default")
		require.NoError(t, err)
		require.False(t, v.Set)
		require.Equal(t, "", v.Value)
		plain, err = a.SecretSetting(ctx, "telegram_token")
		require.NoError(t, err)
		require.Equal(t, "", plain)

		_, err = a.SecretSetting(ctx, "timezone")
		require.ErrorIs(t, err, app.ErrInvalid)
	})
}

func TestSecretSettingNeedsMasterKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
		_, err := a.SetSetting(ctx, "cli", "telegram_token", botToken)
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "set MONITOR_MASTER_KEY to store secret settings")
		require.NotContains(t, err.Error(), botToken)

		short := app.New(app.Deps{Store: st, Log: storetest.Logger(t), MasterKey: "k3y"})
		_, err = short.SetSetting(ctx, "cli", "telegram_token", botToken)
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "at least 16")

		stored, err := st.SettingList(ctx)
		require.NoError(t, err)
		require.Empty(t, stored, "nothing was stored")
	})
}

func TestSettingGet(t *testing.T) {
	t.Parallel()
	st := storetest.New(t, "sqlite")
	ctx := context.Background()
	a := app.New(app.Deps{Store: st, Log: storetest.Logger(t)})
	v, err := a.Setting(ctx, "timezone")
	require.NoError(t, err)
	require.Equal(t, "UTC", v.Value)
	require.False(t, v.Set)
	_, err = a.SetSetting(ctx, "cli", "timezone", "Asia/Shanghai")
	require.NoError(t, err)
	v, err = a.Setting(ctx, "timezone")
	require.NoError(t, err)
	require.Equal(t, "Asia/Shanghai", v.Value)
	require.True(t, v.Set)
	_, err = a.Setting(ctx, "no_such_key")
	require.ErrorIs(t, err, app.ErrInvalid)
	require.ErrorContains(t, err, "telegram_token")
}
