package main

import (
	"errors"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/tgchannel"
)

func newTelegramCmd(d *deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "telegram",
		Short: "Run the Telegram bot as its own process, talking to core's channel API",
		Long: `Run the Telegram channel: long-poll the Bot API with MONITOR_TELEGRAM_TOKEN and
hand what is addressed to the bot to core's internal channel API at
MONITOR_CHANNEL_ADDR (the host:port core listens on for channels), sending
MONITOR_CHANNEL_SECRET. Core keeps every state (the update offset, leased work,
delivery progress, the file_id cache), so this process can be restarted or
moved at will; run only one per bot, since Telegram serves its updates to one
poller. It needs no database or media store of its own.

monitor serve runs the bot in-process when MONITOR_TELEGRAM_TOKEN is set; use
this command for the scale mode, where core replicas and the bot run apart.
Stops gracefully on SIGINT or SIGTERM, handing unfinished work back to core.`,
		Example: `  MONITOR_TELEGRAM_TOKEN=123:ABC MONITOR_CHANNEL_SECRET=s3cret \
    monitor telegram --channel-addr 10.0.0.5:8081
  MONITOR_TELEGRAM_TOKEN_FILE=/run/secrets/bot MONITOR_CHANNEL_SECRET_FILE=/run/secrets/channel \
    MONITOR_CHANNEL_ADDR=core:8081 monitor telegram`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := d.loadConfig(cmd)
			if err != nil {
				return err
			}
			switch {
			case cfg.TelegramToken == "":
				return errors.New("telegram: MONITOR_TELEGRAM_TOKEN is not set; set the bot token from @BotFather (or MONITOR_TELEGRAM_TOKEN_FILE)")
			case cfg.ChannelAddr == "":
				return errors.New("telegram: MONITOR_CHANNEL_ADDR is not set; set it (or --channel-addr) to the host:port of core's channel API")
			case cfg.ChannelSecret == "":
				return errors.New("telegram: MONITOR_CHANNEL_SECRET is not set; set the same secret core's channel API uses (or MONITOR_CHANNEL_SECRET_FILE)")
			}
			// Core must start answering within a minute; media bodies then
			// stream for as long as an upload takes.
			transport := http.DefaultTransport.(*http.Transport).Clone()
			transport.ResponseHeaderTimeout = time.Minute
			core := channelapi.NewClient("http://"+cfg.ChannelAddr, cfg.ChannelSecret, &http.Client{Transport: transport})
			return tgchannel.Run(cmd.Context(), tgchannel.Config{
				Token:  cfg.TelegramToken,
				APIURL: cfg.TelegramAPIURL,
				Core:   core,
				Log:    d.logger(cfg),
			})
		},
	}
	config.RegisterFlags(cmd.Flags(), "channel-addr", "telegram-api-url")
	if f := cmd.Flags().Lookup("channel-addr"); f != nil {
		f.Usage = "host:port of core's channel API to connect to (env MONITOR_CHANNEL_ADDR)"
	}
	return cmd
}
