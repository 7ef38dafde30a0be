package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

func TestTelegramHelp(t *testing.T) {
	t.Parallel()
	out, _, code := cli(t, nil, "--help")
	require.Equal(t, 0, code)
	require.Regexp(t, `(?m)^  telegram +\S.*$`, out)
	out, _, code = cli(t, nil, "telegram", "--help")
	require.Equal(t, 0, code)
	for _, s := range []string{"MONITOR_TELEGRAM_TOKEN", "MONITOR_CHANNEL_ADDR", "MONITOR_CHANNEL_SECRET", "--channel-addr", "--telegram-api-url", "Examples:"} {
		require.Contains(t, out, s)
	}
}

func TestTelegramNeedsTokenAddressAndSecret(t *testing.T) {
	t.Parallel()
	full := map[string]string{
		"MONITOR_TELEGRAM_TOKEN": "1:x", "MONITOR_CHANNEL_ADDR": "127.0.0.1:1", "MONITOR_CHANNEL_SECRET": "s",
	}
	for missing, want := range map[string]string{
		"MONITOR_TELEGRAM_TOKEN": "monitor: telegram: MONITOR_TELEGRAM_TOKEN is not set",
		"MONITOR_CHANNEL_ADDR":   "monitor: telegram: MONITOR_CHANNEL_ADDR is not set",
		"MONITOR_CHANNEL_SECRET": "monitor: telegram: MONITOR_CHANNEL_SECRET is not set",
	} {
		env := map[string]string{}
		for k, v := range full {
			if k != missing {
				env[k] = v
			}
		}
		_, errOut, code := cli(t, env, "telegram")
		require.Equal(t, 1, code, missing)
		require.Contains(t, lastLine(errOut), want)
	}
	_, errOut, code := cli(t, map[string]string{"MONITOR_TELEGRAM_TOKEN": "1:x", "MONITOR_CHANNEL_ADDR": "nonsense", "MONITOR_CHANNEL_SECRET": "s"}, "telegram")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "MONITOR_CHANNEL_ADDR")
}

func TestTelegramRefusedToken(t *testing.T) {
	t.Parallel()
	bot := testkit.NewBotAPI(t)
	_, errOut, code := cli(t, map[string]string{
		"MONITOR_TELEGRAM_TOKEN": "1:wrong", "MONITOR_TELEGRAM_API_URL": bot.URL(),
		"MONITOR_CHANNEL_ADDR": "127.0.0.1:1", "MONITOR_CHANNEL_SECRET": "s", "MONITOR_LOG_LEVEL": "error",
	}, "telegram")
	require.Equal(t, 1, code)
	require.Contains(t, lastLine(errOut), "the bot token was refused")
}
