package runtime

import (
	"context"
	"log/slog"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/tgchannel"
)

// telegramToken is the token serve runs its in-process Telegram bot with:
// MONITOR_TELEGRAM_TOKEN, else the telegram_token runtime setting ("" = no
// bot). A setting that cannot be read is logged, and serve runs without
// the bot rather than without its REST API.
func telegramToken(ctx context.Context, cfg *config.Config, a *app.App, log *slog.Logger) string {
	if cfg.TelegramToken != "" {
		return cfg.TelegramToken
	}
	token, err := a.SecretSetting(ctx, "telegram_token")
	if err != nil {
		log.WarnContext(ctx, "the Telegram bot stays off: cannot read the telegram_token setting", slog.Any("err", err))
		return ""
	}
	return token
}

// runTelegram runs the Telegram bot in this process against this core's
// channel API until ctx ends; done is closed when it has stopped. A bot
// that cannot run (a revoked token, say) is logged; core keeps serving.
func (c *Core) runTelegram(ctx context.Context) (done <-chan struct{}) {
	ch := make(chan struct{})
	if c.telegramToken == "" || c.channelListener == nil {
		close(ch)
		return ch
	}
	go func() {
		defer close(ch)
		err := tgchannel.Run(ctx, tgchannel.Config{
			Token:  c.telegramToken,
			APIURL: c.cfg.TelegramAPIURL,
			Core:   channelapi.NewClient("http://"+c.ChannelAddr(), c.channelSecret, nil),
			Log:    c.log,
		})
		if err != nil && ctx.Err() == nil {
			c.log.Error("the Telegram bot stopped", slog.Any("err", err))
		}
	}()
	return ch
}
