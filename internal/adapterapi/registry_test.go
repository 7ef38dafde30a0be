package adapterapi_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const postSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["id", "text"],
  "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
  "additionalProperties": false
}`

// fakeAdapter is a programmable adapter.v1 server: the adapter under test in
// these tests is core's registry, so the adapter is the outside world.
type fakeAdapter struct {
	adapterv1.UnimplementedAdapterServer
	desc    *adapterv1.DescribeResponse
	resolve func(*adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error)
	fetch   func(*adapterv1.FetchRequest) (*adapterv1.FetchResponse, error)
}

func (f *fakeAdapter) Describe(context.Context, *adapterv1.DescribeRequest) (*adapterv1.DescribeResponse, error) {
	return f.desc, nil
}

func (f *fakeAdapter) Resolve(_ context.Context, r *adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error) {
	if f.resolve == nil {
		return f.UnimplementedAdapterServer.Resolve(context.Background(), r)
	}
	return f.resolve(r)
}

func (f *fakeAdapter) Fetch(_ context.Context, r *adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
	if f.fetch == nil {
		return f.UnimplementedAdapterServer.Fetch(context.Background(), r)
	}
	return f.fetch(r)
}

func describe(id string, hosts ...string) *adapterv1.DescribeResponse {
	return &adapterv1.DescribeResponse{
		AdapterId:   id,
		DisplayName: "Demo",
		Protocol:    &adapterv1.ProtocolVersion{Major: 1, Minor: 0},
		Hosts:       hosts,
		Providers: []*adapterv1.Provider{{
			Id: "public", AuthMode: adapterv1.AuthMode_AUTH_MODE_NONE, DefaultProvider: true,
			Visibilities: []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC},
			Capabilities: []*adapterv1.Capability{
				adapterv1.Cap1(adapterv1.CapCaptureFetch), adapterv1.Cap1(adapterv1.CapEntityGraph),
				{Name: "future.teleport", Major: 7, Minor: 3}, // unknown: ignored
			},
			EntityTypes: []string{"demo.post"},
		}},
		EntityTypes: []*adapterv1.EntityType{{Name: "demo.post", JsonSchema: postSchema}},
	}
}

// serve runs f on a loopback listener until the test ends and returns its
// address.
func serve(t *testing.T, f *fakeAdapter) (addr string, stop func()) {
	t.Helper()
	lis := listen(t)
	return lis.Addr().String(), serveOn(t, lis, f)
}

// listen is a loopback listener.
func listen(t *testing.T) net.Listener {
	t.Helper()
	lis, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return lis
}

// serveOn runs f on lis until the test ends.
func serveOn(t *testing.T, lis net.Listener, f adapterv1.AdapterServer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- adapterapi.Serve(ctx, lis, f, slog.New(slog.DiscardHandler)) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			require.NoError(t, <-done)
		}
	}
	t.Cleanup(stop)
	return stop
}

func dial(t *testing.T, addrs ...string) (*adapterapi.Registry, error) {
	t.Helper()
	r, err := adapterapi.Dial(context.Background(), addrs, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Cleanup(r.Close)
	}
	return r, err
}

func TestDialValidatesDescribe(t *testing.T) {
	a, _ := serve(t, &fakeAdapter{desc: describe("demo", "demo.example")})
	r, err := dial(t, a)
	require.NoError(t, err)
	require.Len(t, r.Adapters(), 1)
	require.Equal(t, "demo", r.Adapters()[0].ID())
	require.True(t, r.Adapters()[0].Online())

	cases := []struct {
		name   string
		mutate func(d *adapterv1.DescribeResponse)
		want   string
	}{
		{"major 2", func(d *adapterv1.DescribeResponse) { d.Protocol.Major = 2 }, "speaks adapter.v1 protocol 2.0; this monitor speaks 1.x"},
		{"bad id", func(d *adapterv1.DescribeResponse) { d.AdapterId = "Demo Adapter" }, `has id "Demo Adapter"`},
		{"no hosts", func(d *adapterv1.DescribeResponse) { d.Hosts = nil }, "declares no hosts"},
		{"wildcard host", func(d *adapterv1.DescribeResponse) { d.Hosts = []string{"*.example"} }, `declares host "*.example"`},
		{"schema not JSON", func(d *adapterv1.DescribeResponse) { d.EntityTypes[0].JsonSchema = "{" }, "entity type demo.post: schema is not valid JSON"},
		{"schema does not compile", func(d *adapterv1.DescribeResponse) {
			d.EntityTypes[0].JsonSchema = `{"type": "no-such-type"}`
		}, "entity type demo.post: schema does not compile"},
		{"schema loads a file", func(d *adapterv1.DescribeResponse) {
			d.EntityTypes[0].JsonSchema = `{"$ref": "file:///etc/passwd"}`
		}, "schema does not compile"},
		{"provider lists undeclared type", func(d *adapterv1.DescribeResponse) {
			d.Providers[0].EntityTypes = []string{"demo.ghost"}
		}, "provider public lists entity type demo.ghost, which the adapter does not declare"},
		{"two defaults", func(d *adapterv1.DescribeResponse) {
			p := proto.Clone(d.Providers[0]).(*adapterv1.Provider)
			p.Id = "other"
			d.Providers = append(d.Providers, p)
		}, "two default providers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := describe("demo", "demo.example")
			tc.mutate(d)
			addr, _ := serve(t, &fakeAdapter{desc: d})
			_, err := dial(t, addr)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestDialRefusesDuplicates(t *testing.T) {
	a, _ := serve(t, &fakeAdapter{desc: describe("demo", "demo.example")})
	b, _ := serve(t, &fakeAdapter{desc: describe("demo", "other.example")})
	c, _ := serve(t, &fakeAdapter{desc: describe("second", "www.other.example", "demo.example")})

	_, err := dial(t, a, b)
	require.ErrorContains(t, err, `adapters: two adapters have id "demo"`)
	_, err = dial(t, a, c)
	require.EqualError(t, err, "adapters: host demo.example is claimed by both demo and second")
}

func TestUnreachableAdapterIsDiscoveredLater(t *testing.T) {
	// A listener that accepts connections but speaks no gRPC yet.
	lis, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := lis.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r, err := adapterapi.Dial(ctx, []string{addr}, slog.New(slog.DiscardHandler))
	require.NoError(t, err, "an unreachable adapter must not stop start-up")
	t.Cleanup(r.Close)
	require.Equal(t, []string{addr}, r.Pending())
	_, err = r.Route("https://demo.example/p/1")
	require.EqualError(t, err, "no adapter handles links to demo.example yet; 1 configured adapter(s) are not reachable")

	sctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- adapterapi.Serve(sctx, lis, &fakeAdapter{desc: describe("demo", "demo.example")}, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { stop(); require.NoError(t, <-done) })

	r.CheckHealth(context.Background())
	require.Empty(t, r.Pending())
	a, err := r.Route("https://demo.example/p/1")
	require.NoError(t, err)
	require.True(t, a.Online())
}

func TestRoute(t *testing.T) {
	a, _ := serve(t, &fakeAdapter{desc: describe("demo", "demo.example", "www.demo.example")})
	r, err := dial(t, a)
	require.NoError(t, err)

	for _, u := range []string{"https://demo.example/p/1", "http://WWW.Demo.Example/p/1", "https://demo.example:443/p/1"} {
		got, err := r.Route(u)
		require.NoError(t, err, u)
		require.Equal(t, "demo", got.ID())
	}
	for u, want := range map[string]string{
		"https://demo.example.evil.example/p/1": "no adapter handles links to demo.example.evil.example",
		"https://evil.example/demo.example/p/1": "no adapter handles links to evil.example",
		"javascript:alert(1)":                   "not a web link",
		"file:///etc/passwd":                    "not a web link",
		"data:text/html,hello":                  "not a web link",
		"demo.example/p/1":                      "not a web link",
		"":                                      "not a web link",
	} {
		_, err := r.Route(u)
		require.ErrorIs(t, err, adapterapi.ErrNoAdapter, u)
		require.ErrorContains(t, err, want, u)
	}
}

func TestResolve(t *testing.T) {
	f := &fakeAdapter{desc: describe("demo", "demo.example")}
	f.resolve = func(r *adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error) {
		if r.GetUrl() == "https://demo.example/bad" {
			return &adapterv1.ResolveResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, Message: "post id is not a number"}}, nil
		}
		return &adapterv1.ResolveResponse{Target: &adapterv1.Target{
			Platform: "demo", EntityType: "demo.post", ExternalId: "1", CanonicalUrl: "https://demo.example/p/1",
		}}, nil
	}
	a, _ := serve(t, f)
	r, err := dial(t, a)
	require.NoError(t, err)

	got, err := r.Resolve(context.Background(), "https://demo.example/p/1?utm=x")
	require.NoError(t, err)
	require.Equal(t, "demo", got.Adapter)
	require.Equal(t, "public", got.Provider)
	require.Equal(t, "1", got.Target.GetExternalId())

	_, err = r.Resolve(context.Background(), "https://demo.example/bad")
	var ae *adapterapi.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, ae.Code)
	require.EqualError(t, err, "adapter demo: post id is not a number")
}

func TestDeclaredButUnimplementedIsPermanent(t *testing.T) {
	a, _ := serve(t, &fakeAdapter{desc: describe("demo", "demo.example")}) // no resolve, no fetch
	r, err := dial(t, a)
	require.NoError(t, err)

	_, err = r.Resolve(context.Background(), "https://demo.example/p/1")
	require.ErrorIs(t, err, adapterapi.ErrContract)
	var ae *adapterapi.Error
	require.ErrorAs(t, err, &ae)
	require.True(t, ae.Permanent())
	require.EqualError(t, err, "adapter demo: declares capture.fetch but answered UNIMPLEMENTED to resolve")

	_, err = r.Fetch(context.Background(), "demo", &adapterv1.FetchRequest{ProviderId: "public", Target: &adapterv1.Target{ExternalId: "1"}})
	require.ErrorIs(t, err, adapterapi.ErrContract)
	require.ErrorAs(t, err, &ae)
	require.True(t, ae.Permanent())
}

func TestMissingCapabilityIsCheckedBeforeCalling(t *testing.T) {
	d := describe("demo", "demo.example")
	d.Providers[0].Capabilities = []*adapterv1.Capability{{Name: adapterv1.CapCaptureFetch, Major: 2}}
	called := false
	f := &fakeAdapter{desc: d, resolve: func(*adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error) {
		called = true
		return &adapterv1.ResolveResponse{}, nil
	}}
	a, _ := serve(t, f)
	r, err := dial(t, a)
	require.NoError(t, err)
	_, err = r.Resolve(context.Background(), "https://demo.example/p/1")
	require.ErrorContains(t, err, "provider public cannot capture (no capture.fetch capability)")
	require.False(t, called)
}

func graphResponse(mutate func(*adapterv1.FetchResponse)) *adapterv1.FetchResponse {
	resp := &adapterv1.FetchResponse{
		Visibility: adapterv1.Visibility_VISIBILITY_PUBLIC,
		Media:      []*adapterv1.Media{{Url: "https://demo.example/m/1.jpg", Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE}},
		Graph: &adapterv1.Graph{
			RootKey: "post:1",
			Entities: []*adapterv1.Entity{
				{Key: "post:1", Type: "demo.post", ExternalId: "1", DataJson: `{"id":"1","text":"hello"}`, ResourceIndexes: []uint32{0}},
				{Key: "post:2", Type: "demo.post", ExternalId: "2", DataJson: `{"id":"2","text":"quoted"}`},
			},
			Relations: []*adapterv1.Relation{{FromKey: "post:1", Name: "quotes", ToKey: "post:2"}},
		},
	}
	if mutate != nil {
		mutate(resp)
	}
	return resp
}

func TestFetchValidatesGraph(t *testing.T) {
	var next *adapterv1.FetchResponse
	f := &fakeAdapter{desc: describe("demo", "demo.example"), fetch: func(*adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
		return next, nil
	}}
	a, _ := serve(t, f)
	r, err := dial(t, a)
	require.NoError(t, err)
	fetch := func() error {
		_, err := r.Fetch(context.Background(), "demo", &adapterv1.FetchRequest{ProviderId: "public", Target: &adapterv1.Target{ExternalId: "1"}})
		return err
	}

	next = graphResponse(nil)
	require.NoError(t, fetch())

	cases := []struct {
		name   string
		mutate func(*adapterv1.FetchResponse)
		want   string
	}{
		{"undeclared type", func(r *adapterv1.FetchResponse) { r.Graph.Entities[1].Type = "demo.ghost" },
			`adapter demo: entity post:2 has type "demo.ghost", which the adapter does not declare`},
		{"schema violation", func(r *adapterv1.FetchResponse) { r.Graph.Entities[0].DataJson = `{"id":1,"extra":true}` },
			"adapter demo: entity post:1 (demo.post) breaks its schema: /: additional properties 'extra' not allowed; /: missing property 'text'; /id: got number, want string"},
		{"not JSON", func(r *adapterv1.FetchResponse) { r.Graph.Entities[0].DataJson = `{"id":` },
			"adapter demo: entity post:1 (demo.post): data is not valid JSON"},
		{"relation to missing entity", func(r *adapterv1.FetchResponse) { r.Graph.Relations[0].ToKey = "post:3" },
			"adapter demo: relation post:1 -quotes-> post:3 points at missing entity post:3"},
		{"missing root", func(r *adapterv1.FetchResponse) { r.Graph.RootKey = "post:9" },
			`adapter demo: graph root "post:9" is not one of its entities`},
		{"resource out of range", func(r *adapterv1.FetchResponse) { r.Graph.Entities[0].ResourceIndexes = []uint32{1} },
			"adapter demo: entity post:1 points at resource 1, but the response has 1 media"},
		{"duplicate key", func(r *adapterv1.FetchResponse) { r.Graph.Entities[1].Key = "post:1" },
			"adapter demo: returned entity key post:1 twice"},
	}
	for _, tc := range cases {
		next = graphResponse(tc.mutate)
		err := fetch()
		require.ErrorIs(t, err, adapterapi.ErrContract, tc.name)
		require.EqualError(t, err, tc.want, tc.name)
		var ae *adapterapi.Error
		require.ErrorAs(t, err, &ae)
		require.True(t, ae.Permanent(), tc.name)
	}
}

func TestFetchPassesTypedErrors(t *testing.T) {
	f := &fakeAdapter{desc: describe("demo", "demo.example"), fetch: func(*adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
		return &adapterv1.FetchResponse{Error: &adapterv1.Error{
			Code: adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, Message: "rate limited by the upstream", Retryable: true, RetryAfterSeconds: 60,
		}}, nil
	}}
	a, _ := serve(t, f)
	r, err := dial(t, a)
	require.NoError(t, err)
	_, err = r.Fetch(context.Background(), "demo", &adapterv1.FetchRequest{ProviderId: "public"})
	var ae *adapterapi.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, ae.Code)
	require.True(t, ae.Retryable)
	require.Equal(t, time.Minute, ae.RetryAfter)

	_, err = r.Fetch(context.Background(), "demo", &adapterv1.FetchRequest{ProviderId: "nope"})
	require.EqualError(t, err, `adapter demo: has no provider "nope"`)
	_, err = r.Fetch(context.Background(), "ghost", &adapterv1.FetchRequest{ProviderId: "public"})
	require.ErrorContains(t, err, "not configured")
}

func TestHealthTracksOnlineStatus(t *testing.T) {
	a, stop := serve(t, &fakeAdapter{desc: describe("demo", "demo.example")})
	r, err := dial(t, a)
	require.NoError(t, err)
	r.CheckHealth(context.Background())
	require.True(t, r.Adapters()[0].Online())

	stop()
	r.CheckHealth(context.Background())
	require.False(t, r.Adapters()[0].Online())
	_, err = r.Fetch(context.Background(), "demo", &adapterv1.FetchRequest{ProviderId: "public"})
	var ae *adapterapi.Error
	require.ErrorAs(t, err, &ae)
	require.True(t, ae.Retryable, "an unreachable adapter is worth retrying")
	require.False(t, errors.Is(err, adapterapi.ErrContract))
}

// BenchmarkFetchValidated measures one Fetch through the registry over a
// loopback gRPC connection, graph validation against the schemas included.
func BenchmarkFetchValidated(b *testing.B) {
	resp := graphResponse(nil)
	f := &fakeAdapter{desc: describe("demo", "demo.example"), fetch: func(*adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
		return resp, nil
	}}
	lis, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- adapterapi.Serve(ctx, lis, f, slog.New(slog.DiscardHandler)) }()
	defer func() { cancel(); <-done }()
	r, err := adapterapi.Dial(context.Background(), []string{lis.Addr().String()}, slog.New(slog.DiscardHandler))
	require.NoError(b, err)
	defer r.Close()
	req := &adapterv1.FetchRequest{ProviderId: "public", Target: &adapterv1.Target{ExternalId: "1"}}
	for b.Loop() {
		if _, err := r.Fetch(context.Background(), "demo", req); err != nil {
			b.Fatal(err)
		}
	}
}
