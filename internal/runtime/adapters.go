package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"

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
		return telegram.NewWithMTProto(telegram.Options{BaseURL: cfg.TmeURL},
			telegram.MTProto{AppID: cfg.TelegramAppID, AppHash: cfg.TelegramAppHash}), nil
	}
	return nil, fmt.Errorf("no built-in adapter %q; built-in adapters: %s", name, strings.Join(BuiltinNames(), ", "))
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
