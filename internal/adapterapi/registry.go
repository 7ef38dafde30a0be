// Package adapterapi is core's side of adapter.v1: it dials the configured
// adapters, validates and caches their Describe answers, routes URLs by
// host, checks capabilities before each operation, validates what adapters
// return, and tracks whether each adapter is online.
package adapterapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Timeouts of the adapter calls.
const (
	describeTimeout = 10 * time.Second
	resolveTimeout  = 10 * time.Second
	fetchTimeout    = 2 * time.Minute
	healthTimeout   = 5 * time.Second
	// maxMessage bounds one adapter answer: raw responses may be 4 MiB.
	maxMessage = 32 << 20
)

// Registry is the set of adapters core talks to.
type Registry struct {
	log *slog.Logger

	mu       sync.RWMutex
	adapters map[string]*Adapter // by id
	hosts    map[string]*Adapter
	// pending are addresses that did not answer Describe yet; the health
	// loop keeps trying them.
	pending []string
}

// Adapter is one connected adapter.
type Adapter struct {
	addr   string
	d      *described
	conn   *grpc.ClientConn
	client adapterv1.AdapterClient
	health healthpb.HealthClient

	mu     sync.Mutex
	online bool
	// lastErr is why the last health check failed.
	lastErr string
}

// ID is the adapter's id.
func (a *Adapter) ID() string { return a.d.desc.GetAdapterId() }

// Describe is the adapter's cached Describe answer.
func (a *Adapter) Describe() *adapterv1.DescribeResponse { return a.d.desc }

// Online reports the result of the last health check.
func (a *Adapter) Online() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.online
}

// Dial connects to every address, calls Describe on each and validates the
// set: protocol major 1, unique adapter ids, no host claimed twice, every
// entity schema compiles. Any such problem is a startup error naming the
// adapter. An adapter that does not answer yet does not stop start-up: it
// stays pending and CheckHealth keeps trying it.
func Dial(ctx context.Context, addrs []string, log *slog.Logger) (*Registry, error) {
	r := &Registry{log: log, adapters: map[string]*Adapter{}, hosts: map[string]*Adapter{}}
	for _, addr := range addrs {
		a, err := dialOne(ctx, addr)
		var unreachable unreachableError
		if errors.As(err, &unreachable) {
			log.WarnContext(ctx, "adapter not reachable yet; will keep trying", slog.String("addr", addr), slog.String("err", err.Error()))
			r.pending = append(r.pending, addr)
			continue
		}
		if err == nil {
			err = r.add(ctx, a)
		}
		if err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// add takes a described adapter into the set unless its id or a host is
// taken.
func (r *Registry) add(ctx context.Context, a *Adapter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := a.ID()
	if other, dup := r.adapters[id]; dup {
		_ = a.conn.Close()
		return fmt.Errorf("adapters: two adapters have id %q (at %s and %s)", id, other.addr, a.addr)
	}
	for _, h := range a.d.desc.GetHosts() {
		if other, taken := r.hosts[h]; taken {
			_ = a.conn.Close()
			return fmt.Errorf("adapters: host %s is claimed by both %s and %s", h, other.ID(), id)
		}
	}
	r.adapters[id] = a
	for _, h := range a.d.desc.GetHosts() {
		r.hosts[h] = a
	}
	r.log.InfoContext(ctx, "adapter ready", slog.String("adapter", id), slog.String("addr", a.addr),
		slog.String("version", a.d.desc.GetAdapterVersion()), slog.Int("hosts", len(a.d.desc.GetHosts())))
	return nil
}

// unreachableError is a Describe that failed in transport: nobody answered.
type unreachableError struct{ error }

func (e unreachableError) Unwrap() error { return e.error }

func dialOne(ctx context.Context, addr string) (*Adapter, error) {
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage)),
	)
	if err != nil {
		return nil, fmt.Errorf("adapters: %s is not a usable address: %w", addr, err)
	}
	client := adapterv1.NewAdapterClient(conn)
	dctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	desc, err := client.Describe(dctx, &adapterv1.DescribeRequest{
		Protocol: &adapterv1.ProtocolVersion{Major: adapterv1.ProtocolMajor, Minor: adapterv1.ProtocolMinor},
	}, grpc.WaitForReady(true))
	if err != nil {
		_ = conn.Close()
		code := status.Code(err)
		err = fmt.Errorf("adapters: describe %s: %s", addr, status.Convert(err).Message())
		if code == codes.Unavailable || code == codes.DeadlineExceeded || code == codes.Canceled {
			return nil, unreachableError{err}
		}
		return nil, err
	}
	d, err := validateDescribe(addr, desc)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("adapters: %w", err)
	}
	return &Adapter{addr: addr, d: d, conn: conn, client: client, health: healthpb.NewHealthClient(conn), online: true}, nil
}

// Close disconnects from every adapter.
func (r *Registry) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.adapters {
		_ = a.conn.Close()
	}
}

// Adapters lists the adapters sorted by id.
func (r *Registry) Adapters() []*Adapter {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Adapter, 0, len(r.adapters))
	for _, a := range r.adapters {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}

// Get returns the adapter with the given id.
func (r *Registry) Get(id string) (*Adapter, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.adapters[id]
	return a, ok
}

// Route finds the adapter for a URL by its host. Only http and https links
// are routed.
func (r *Registry) Route(raw string) (*Adapter, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
			Message: "not a web link; send an http(s):// link to a post", err: ErrNoAdapter}
	}
	host := strings.ToLower(u.Hostname())
	r.mu.RLock()
	a, ok := r.hosts[host]
	pending := len(r.pending)
	r.mu.RUnlock()
	if !ok {
		if pending > 0 {
			return nil, &Error{Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, Retryable: true,
				Message: fmt.Sprintf("no adapter handles links to %s yet; %d configured adapter(s) are not reachable", host, pending), err: ErrNoAdapter}
		}
		return nil, &Error{Code: adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER,
			Message: fmt.Sprintf("no adapter handles links to %s", host), err: ErrNoAdapter}
	}
	return a, nil
}

// Resolved is a URL turned into a target by its adapter.
type Resolved struct {
	Adapter  string
	Provider string
	Target   *adapterv1.Target
	// RefreshOnSubmit: an explicit submit observes the target again.
	RefreshOnSubmit bool
	// Collection: an explicit submit expands related targets.
	Collection bool
}

// Resolve routes a URL and asks its adapter to resolve it, with the
// adapter's default public provider.
func (r *Registry) Resolve(ctx context.Context, raw string) (Resolved, error) {
	return r.resolve(ctx, raw, false)
}

// ResolveForAccount is Resolve for a capture through a tenant's account:
// links only an account can read (a private channel's) resolve too.
func (r *Registry) ResolveForAccount(ctx context.Context, raw string) (Resolved, error) {
	return r.resolve(ctx, raw, true)
}

func (r *Registry) resolve(ctx context.Context, raw string, account bool) (Resolved, error) {
	a, err := r.Route(raw)
	if err != nil {
		return Resolved{}, err
	}
	p, err := a.defaultProvider(adapterv1.AuthMode_AUTH_MODE_NONE)
	if err != nil {
		return Resolved{}, err
	}
	if !hasCapability(p, adapterv1.CapCaptureFetch, 0) {
		return Resolved{}, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			Message: fmt.Sprintf("provider %s cannot capture (no %s capability)", p.GetId(), adapterv1.CapCaptureFetch)}
	}
	cctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	resp, err := a.client.Resolve(cctx, &adapterv1.ResolveRequest{Url: raw, Account: account})
	if err != nil {
		return Resolved{}, a.callError("resolve", adapterv1.CapCaptureFetch, err)
	}
	if pe := resp.GetError(); pe != nil {
		return Resolved{}, fromProto(a.ID(), pe)
	}
	t := resp.GetTarget()
	if t.GetPlatform() == "" || t.GetEntityType() == "" || t.GetExternalId() == "" {
		return Resolved{}, contractError(a.ID(), "resolve answered a target without platform, entity type or external id")
	}
	if _, ok := a.d.schemas[t.GetEntityType()]; !ok {
		return Resolved{}, contractError(a.ID(), "resolve answered entity type %q, which the adapter does not declare", t.GetEntityType())
	}
	return Resolved{Adapter: a.ID(), Provider: p.GetId(), Target: t,
		RefreshOnSubmit: resp.GetRefreshOnSubmit(), Collection: resp.GetCollection()}, nil
}

// Fetch asks an adapter to read a target with the given provider. The
// capability is checked first; the answer's graph is validated against the
// adapter's entity types. A typed adapter error comes back as *Error.
func (r *Registry) Fetch(ctx context.Context, adapterID string, req *adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
	a, ok := r.Get(adapterID)
	if !ok {
		return nil, &Error{Adapter: adapterID, Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, Retryable: true,
			Message: "this adapter is not configured on this instance"}
	}
	p, ok := a.d.providers[req.GetProviderId()]
	if !ok {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: fmt.Sprintf("has no provider %q", req.GetProviderId())}
	}
	if !hasCapability(p, adapterv1.CapCaptureFetch, 0) {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			Message: fmt.Sprintf("provider %s cannot capture (no %s capability)", p.GetId(), adapterv1.CapCaptureFetch)}
	}
	cctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	resp, err := a.client.Fetch(cctx, req)
	if err != nil {
		return nil, a.callError("fetch", adapterv1.CapCaptureFetch, err)
	}
	if pe := resp.GetError(); pe != nil {
		return nil, fromProto(a.ID(), pe)
	}
	if err := validateGraph(a.ID(), a.d, resp); err != nil {
		return nil, err
	}
	if !hasCapability(p, adapterv1.CapMediaStream, 0) {
		for _, m := range resp.GetMedia() {
			if m.GetStreamRef() != "" {
				return nil, contractError(a.ID(), "provider %s answered a media stream reference without the %s capability", p.GetId(), adapterv1.CapMediaStream)
			}
		}
	}
	return resp, nil
}

// defaultProvider is the adapter's default provider of an auth mode.
func (a *Adapter) defaultProvider(mode adapterv1.AuthMode) (*adapterv1.Provider, error) {
	for _, p := range a.d.desc.GetProviders() {
		if p.GetAuthMode() == mode && p.GetDefaultProvider() {
			return p, nil
		}
	}
	return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT,
		Message: "has no public provider; this link needs an account connection"}
}

// callError classifies a gRPC failure: UNIMPLEMENTED for a declared
// capability is a broken contract (permanent); anything else is the adapter
// being unreachable or failing, which may pass.
func (a *Adapter) callError(op, capability string, err error) error {
	st := status.Convert(err)
	switch st.Code() {
	case codes.Unimplemented:
		return contractError(a.ID(), "declares %s but answered UNIMPLEMENTED to %s", capability, op)
	case codes.InvalidArgument:
		return &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, Message: op + ": " + st.Message(), err: err}
	case codes.DeadlineExceeded, codes.Canceled:
		if errors.Is(err, context.Canceled) {
			return err
		}
	}
	return &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, Retryable: true,
		Message: fmt.Sprintf("%s failed: %s (%s)", op, st.Message(), st.Code()), err: err}
}

// CheckHealth asks every adapter's health service once and records the
// answers, and tries once more to reach pending adapters.
func (r *Registry) CheckHealth(ctx context.Context) {
	r.discoverPending(ctx)
	for _, a := range r.Adapters() {
		hctx, cancel := context.WithTimeout(ctx, healthTimeout)
		resp, err := a.health.Check(hctx, &healthpb.HealthCheckRequest{})
		cancel()
		online := err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING
		a.mu.Lock()
		was := a.online
		a.online = online
		if err != nil {
			a.lastErr = status.Convert(err).Message()
		} else if !online {
			a.lastErr = resp.GetStatus().String()
		} else {
			a.lastErr = ""
		}
		lastErr := a.lastErr
		a.mu.Unlock()
		if was != online {
			r.log.InfoContext(ctx, "adapter status changed", slog.String("adapter", a.ID()),
				slog.Bool("online", online), slog.String("reason", lastErr))
		}
	}
}

// discoverPending tries every pending address; an adapter that answers and
// fits the set joins it, one that conflicts is logged and dropped.
func (r *Registry) discoverPending(ctx context.Context) {
	r.mu.Lock()
	addrs := r.pending
	r.pending = nil
	r.mu.Unlock()
	var still []string
	for _, addr := range addrs {
		a, err := dialOne(ctx, addr)
		var unreachable unreachableError
		switch {
		case errors.As(err, &unreachable):
			still = append(still, addr)
		case err != nil:
			r.log.ErrorContext(ctx, "adapter refused", slog.String("addr", addr), slog.String("err", err.Error()))
		default:
			if err := r.add(ctx, a); err != nil {
				r.log.ErrorContext(ctx, "adapter refused", slog.String("addr", addr), slog.String("err", err.Error()))
			}
		}
	}
	r.mu.Lock()
	r.pending = append(r.pending, still...)
	r.mu.Unlock()
}

// Pending lists the configured adapter addresses that have not answered.
func (r *Registry) Pending() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.pending...)
}

// WatchHealth checks health every interval until ctx ends.
func (r *Registry) WatchHealth(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.CheckHealth(ctx)
		}
	}
}
