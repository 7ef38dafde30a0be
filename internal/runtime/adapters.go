package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gotd/td/crypto"
	gotd "github.com/gotd/td/telegram"
	"github.com/gotd/td/telegram/dcs"
	"github.com/gotd/td/tg"

	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/config"
)

// BuiltinNames lists the adapters shipped in this binary, which `monitor
// serve` runs in-process.
func BuiltinNames() []string { return []string{"x", "telegram"} }

// BuiltinAdapter builds one of the adapters shipped in this binary.
func BuiltinAdapter(name string, cfg *config.Config) (adapterv1.AdapterServer, error) {
	switch name {
	case "x":
		return x.NewWithSession(x.Options{BaseURL: cfg.FxTwitterURL}, x.Options{BaseURL: cfg.XAPIURL}), nil
	case "telegram":
		mt, err := TelegramMTProto(cfg)
		if err != nil {
			return nil, err
		}
		return telegram.NewWithMTProto(telegram.Options{BaseURL: cfg.TmeURL}, mt), nil
	}
	return nil, fmt.Errorf("no built-in adapter %q; built-in adapters: %s", name, strings.Join(BuiltinNames(), ", "))
}

// TelegramMTProto is the configuration of the Telegram adapter's mtproto
// provider and of the sign-in: the app credentials, and another data
// center than Telegram's own when MONITOR_TELEGRAM_DC_ADDR names one.
func TelegramMTProto(cfg *config.Config) (telegram.MTProto, error) {
	mt := telegram.MTProto{AppID: cfg.TelegramAppID, AppHash: cfg.TelegramAppHash}
	if (cfg.TelegramDCAddr == "") != (cfg.TelegramDCKeys == "") {
		return mt, errors.New("config: set both MONITOR_TELEGRAM_DC_ADDR and MONITOR_TELEGRAM_DC_KEYS, or neither")
	}
	if cfg.TelegramDCAddr == "" {
		return mt, nil
	}
	host, portText, _ := net.SplitHostPort(cfg.TelegramDCAddr)
	port, err := strconv.Atoi(portText)
	if err != nil {
		return mt, fmt.Errorf("config: MONITOR_TELEGRAM_DC_ADDR: port %q is not a number", portText)
	}
	pem, err := os.ReadFile(cfg.TelegramDCKeys)
	if err != nil {
		return mt, fmt.Errorf("config: MONITOR_TELEGRAM_DC_KEYS: %w", err)
	}
	keys, err := crypto.ParseRSAPublicKeys(pem)
	if err != nil || len(keys) == 0 {
		return mt, fmt.Errorf("config: MONITOR_TELEGRAM_DC_KEYS holds no RSA public key in PEM form")
	}
	for _, k := range keys {
		mt.PublicKeys = append(mt.PublicKeys, gotd.PublicKey{RSA: k})
	}
	// Sessions start on DC 2, as with Telegram's own data centers.
	mt.DCList = dcs.List{Options: []tg.DCOption{{ID: 2, IPAddress: host, Port: port}}}
	return mt, nil
}

// builtins runs the built-in adapters on private loopback listeners, so
// core reaches them through the same registry and gRPC client as external
// ones.
type builtins struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	addrs  []string
}

func startBuiltins(cfg *config.Config, log *slog.Logger) (*builtins, error) {
	ctx, cancel := context.WithCancel(context.Background())
	b := &builtins{cancel: cancel}
	for _, name := range BuiltinNames() {
		srv, err := BuiltinAdapter(name, cfg)
		if err != nil {
			b.stop()
			return nil, err
		}
		lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
		if err != nil {
			b.stop()
			return nil, fmt.Errorf("adapters: listen for built-in adapter %s: %w", name, err)
		}
		b.addrs = append(b.addrs, lis.Addr().String())
		alog := log.With(slog.String("adapter", name))
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			if err := adapterapi.Serve(ctx, lis, srv, alog); err != nil {
				alog.Error("built-in adapter stopped", slog.Any("err", err))
			}
		}()
	}
	return b, nil
}

// stop ends the built-in adapters and waits for them.
func (b *builtins) stop() {
	b.cancel()
	b.wg.Wait()
}
