package adapterapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// stopGrace is how long in-flight adapter calls get when the server stops.
const stopGrace = 5 * time.Second

// Serve runs an adapter on a listener with the standard health service until
// ctx ends, then stops gracefully. Both `monitor adapter NAME` and the
// built-in adapters of `monitor serve` use it, so core always reaches
// adapters over gRPC.
func Serve(ctx context.Context, lis net.Listener, srv adapterv1.AdapterServer, log *slog.Logger) error {
	gs := grpc.NewServer(grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage))
	adapterv1.RegisterAdapterServer(gs, srv)
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(gs, hs)

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		hs.Shutdown()
		stopped := make(chan struct{})
		go func() { gs.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(stopGrace):
			gs.Stop()
		}
	}()
	log.InfoContext(ctx, "adapter serving", slog.String("addr", lis.Addr().String()))
	err := gs.Serve(lis)
	close(done)
	wg.Wait()
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}
