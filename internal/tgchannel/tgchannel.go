// Package tgchannel is the Telegram channel: a process that long-polls the
// Bot API, hands the updates addressed to the bot to core through the
// internal channel API, and does the work core hands back — answering
// commands and delivering archived posts with their media.
//
// It talks only to Telegram and to core. Core keeps every durable state
// (the offset, the inbox, leased work, delivery progress, the file_id
// cache), so the process can be stopped, killed or run again anywhere
// without losing or repeating what was confirmed. Several processes may
// run the same bot at once: they share the work through leases, and only
// the one holding the bot's poll lease in core calls getUpdates.
package tgchannel

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// Config is what Run needs.
type Config struct {
	// Token is the Bot API token; APIURL the Bot API's base URL
	// ("" = https://api.telegram.org).
	Token, APIURL string
	// Core is the client of core's channel API.
	Core *channelapi.Client
	// Log receives the channel's logs (nil: discarded). Logs never carry
	// the token or message texts.
	Log *slog.Logger
	// HTTPClient makes the Bot API requests (nil: a new client); every
	// call sets its own timeout.
	HTTPClient *http.Client
	// Workers is how many work items run at once (0 = 4).
	Workers int
	// Owner names this process on the leases it takes ("" = generated,
	// unique per run).
	Owner string
	// UploadLimit is the largest media file the Bot API takes (0: 50 MB
	// on api.telegram.org, 2000 MB on any other APIURL, which is a local
	// telegram-bot-api server). Larger media are not sent; the result links
	// the item's page in the web library instead, and says why.
	UploadLimit int64
}

// defaultWorkers is Config.Workers' default.
const defaultWorkers = 4

// channel is a running Telegram channel.
type channel struct {
	tg        *telegram
	core      *channelapi.Client
	log       *slog.Logger
	reg       *registry
	me        botIdentity
	channelID uuid.UUID
	owner     string
	workers   int
	maxUpload int64 // Config.UploadLimit, resolved
	wake      chan struct{}
	order     chatOrder
}

// Run runs the channel until ctx is done: getMe and setMyCommands, Hello
// to core, then working, and polling while it holds the poll lease. It returns nil when ctx ends, and an
// error when the channel cannot run (a refused token, a bad config).
// Core being unreachable is not an error: Run waits for it.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Token == "" {
		return errors.New("telegram: no bot token (set MONITOR_TELEGRAM_TOKEN)")
	}
	if cfg.Core == nil {
		return errors.New("telegram: no channel API client")
	}
	if cfg.APIURL == "" {
		cfg.APIURL = "https://api.telegram.org"
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = defaultWorkers
	}
	if cfg.Owner == "" {
		cfg.Owner = newOwner()
	}
	log := cfg.Log.With("component", "telegram")
	tg, err := newTelegram(cfg.APIURL, cfg.Token, cfg.HTTPClient, log)
	if err != nil {
		return err
	}
	ch := &channel{tg: tg, core: cfg.Core, log: log, reg: newRegistry(), owner: cfg.Owner,
		workers: cfg.Workers, maxUpload: uploadLimit(cfg.APIURL, cfg.UploadLimit), wake: make(chan struct{}, 1)}

	if err := ch.start(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	log.Info("telegram channel running", "bot", ch.me.Username, "channel_id", ch.channelID, "owner", ch.owner, "workers", ch.workers)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var pollErr error
	wg.Go(func() {
		pollErr = ch.poll(ctx)
		cancel() // a fatal polling error stops the channel
	})
	wg.Go(func() { ch.workLoop(ctx) })
	wg.Wait()
	return pollErr
}

// start learns who the bot is, publishes the command menu and registers
// with core, retrying what may heal.
func (ch *channel) start(ctx context.Context) error {
	wait := newBackoff(time.Second, 30*time.Second)
	for {
		err := ch.tg.call(ctx, 0, false, callTimeout, func(ctx context.Context) error {
			u, err := ch.tg.bot.GetMe(ctx)
			if err == nil {
				ch.me = botIdentity{ID: u.ID, Username: u.Username}
			}
			return err
		})
		if err == nil {
			break
		}
		if errors.Is(err, bot.ErrorUnauthorized) || errors.Is(err, bot.ErrorNotFound) {
			return errors.New("telegram: the bot token was refused by getMe; check MONITOR_TELEGRAM_TOKEN")
		}
		ch.log.Warn("getMe failed; retrying", "error", err)
		if !sleep(ctx, wait.next()) {
			return ctx.Err()
		}
	}
	if ch.me.Username == "" {
		return errors.New("telegram: getMe returned a bot without a username")
	}
	// The menu in English for everyone, and in Chinese for clients set to
	// Chinese (Telegram matches "zh" to every zh-… language_code).
	for _, m := range []struct {
		code string
		l    locale
	}{{"", langEN}, {"zh", langZH}} {
		err := ch.tg.call(ctx, 0, false, callTimeout, func(ctx context.Context) error {
			_, err := ch.tg.bot.SetMyCommands(ctx, &bot.SetMyCommandsParams{Commands: ch.reg.menu(m.l), LanguageCode: m.code})
			return err
		})
		if err != nil {
			// The menu is a convenience; commands work without it.
			ch.log.Warn("setMyCommands failed", "language_code", m.code, "error", err)
		}
	}
	wait.reset()
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		h, err := ch.core.Hello(cctx, channelapi.Hello{Kind: "telegram", ExternalID: strconv.FormatInt(ch.me.ID, 10), Name: ch.me.Username})
		cancel()
		if err == nil {
			ch.channelID = h.ChannelID
			return nil
		}
		if channelapi.IsCode(err, channelapi.CodeUnauthorized) {
			return errors.New("telegram: core refused the channel secret; check MONITOR_CHANNEL_SECRET")
		}
		ch.log.Warn("core's channel API is not answering; retrying", "error", err)
		if !sleep(ctx, wait.next()) {
			return ctx.Err()
		}
	}
}

// nudge tells the work loop that work may be waiting.
func (ch *channel) nudge() {
	select {
	case ch.wake <- struct{}{}:
	default:
	}
}

// newOwner names this process on leases: host, pid and a random part, so
// a restarted process never passes for its predecessor.
func newOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "host"
	}
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("telegram-%s-%d-%s", host, os.Getpid(), hex.EncodeToString(r[:]))
}
