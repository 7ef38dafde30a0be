package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
)

func newAdapterCmd(d *deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "adapter NAME --listen ADDR",
		Short: "Serve one built-in source adapter over gRPC, for core processes elsewhere (" + strings.Join(runtime.BuiltinNames(), ", ") + ")",
		Long: `Serve one built-in source adapter alone over gRPC (adapter.v1, with the
standard health service), so that core replicas reach it through
MONITOR_ADAPTERS=host:port. Stops gracefully on SIGINT or SIGTERM.`,
		Example: `  monitor adapter x --listen 127.0.0.1:7001
  monitor adapter telegram --listen 127.0.0.1:7002
  MONITOR_ADAPTERS=127.0.0.1:7001,127.0.0.1:7002 monitor serve`,
		ValidArgs: runtime.BuiltinNames(),
		Args:      exactArgs(1, "the adapter NAME ("+strings.Join(runtime.BuiltinNames(), ", ")+")"),
	}
	var listen string
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:7001", "address to serve gRPC on: host:port, or unix:///path for a unix socket")
	config.RegisterFlags(cmd.Flags(), "fxtwitter-url", "tme-url")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := d.loadConfig(cmd)
		if err != nil {
			return err
		}
		srv, err := runtime.BuiltinAdapter(args[0], cfg)
		if err != nil {
			return usageError{err}
		}
		network, address := "tcp", listen
		if path, ok := strings.CutPrefix(listen, "unix://"); ok {
			network, address = "unix", path
		}
		lis, err := (&net.ListenConfig{}).Listen(cmd.Context(), network, address)
		if err != nil {
			return fmt.Errorf("adapter %s: cannot listen on --listen %s: %w", args[0], listen, err)
		}
		return adapterapi.Serve(cmd.Context(), lis, srv, d.logger(cfg).With("adapter", args[0]))
	}
	return cmd
}
