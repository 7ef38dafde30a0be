package telegram_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// harness is the adapter behind a real gRPC server on a loopback TCP port,
// talking to a fake t.me.
type harness struct {
	fake    *testkit.Tme
	client  adapterv1.AdapterClient
	schemas map[string]*jsonschema.Schema
}

// newHarness starts a fake t.me and the adapter; edit adjusts the
// adapter's options (BaseURL already points at the fake).
func newHarness(t *testing.T, edit func(*telegram.Options)) *harness {
	t.Helper()
	fake := testkit.NewTme(t)
	opts := telegram.Options{BaseURL: fake.URL()}
	if edit != nil {
		edit(&opts)
	}
	h := &harness{fake: fake, client: serve(t, telegram.New(opts))}
	d, err := h.client.Describe(context.Background(), &adapterv1.DescribeRequest{})
	require.NoError(t, err)
	h.schemas = compileSchemas(t, d)
	return h
}

// serve registers a on a gRPC server listening on 127.0.0.1 and returns a
// client dialled to it; both stop when the test ends.
func serve(t *testing.T, a adapterv1.AdapterServer) adapterv1.AdapterClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	adapterv1.RegisterAdapterServer(srv, a)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return adapterv1.NewAdapterClient(conn)
}

// noLoader refuses external references, as core does: entity schemas must
// be self-contained.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema is not self-contained: it refers to %s", url)
}

// compileSchemas compiles the declared entity schemas the way core does.
func compileSchemas(t *testing.T, d *adapterv1.DescribeResponse) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	out := map[string]*jsonschema.Schema{}
	for _, et := range d.GetEntityTypes() {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(et.GetJsonSchema()))
		require.NoError(t, err, et.GetName())
		loc := "urn:monitor:entity:" + et.GetName()
		require.NoError(t, c.AddResource(loc, doc), et.GetName())
		sch, err := c.Compile(loc)
		require.NoError(t, err, et.GetName())
		out[et.GetName()] = sch
	}
	return out
}

// validate checks data against the schema of typ.
func (h *harness) validate(typ, data string) error {
	sch, ok := h.schemas[typ]
	if !ok {
		return fmt.Errorf("undeclared entity type %q", typ)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// fetchMessage calls Fetch for "<channel>/<id>" through tme-public, with
// the target Resolve gives for it.
func (h *harness) fetchMessage(t *testing.T, channel string, id int) *adapterv1.FetchResponse {
	t.Helper()
	ext := fmt.Sprintf("%s/%d", channel, id)
	resp, err := h.client.Fetch(context.Background(), &adapterv1.FetchRequest{
		ProviderId: telegram.ProviderTmePublic,
		Target: &adapterv1.Target{
			Platform: "telegram", EntityType: "telegram.message", ObjectScope: channel, ExternalId: ext,
			CanonicalUrl: "https://t.me/" + ext,
		},
	})
	require.NoError(t, err)
	return resp
}

// fetchChannel calls Fetch for a channel through tme-public.
func (h *harness) fetchChannel(t *testing.T, channel string) *adapterv1.FetchResponse {
	t.Helper()
	resp, err := h.client.Fetch(context.Background(), &adapterv1.FetchRequest{
		ProviderId: telegram.ProviderTmePublic,
		Target: &adapterv1.Target{
			Platform: "telegram", EntityType: "telegram.channel", ExternalId: channel, CanonicalUrl: "https://t.me/" + channel,
		},
	})
	require.NoError(t, err)
	return resp
}

// checkGraph applies core's checks to a successful answer: declared types
// with schema-valid data, unique keys, a root that exists, named relations
// between existing entities, resource indexes inside media, every
// non-display media a resource of some entity.
func (h *harness) checkGraph(t *testing.T, resp *adapterv1.FetchResponse) {
	t.Helper()
	require.Nil(t, resp.GetError())
	g := resp.GetGraph()
	require.NotNil(t, g)
	keys := map[string]bool{}
	owned := map[uint32]bool{}
	for _, e := range g.GetEntities() {
		require.False(t, keys[e.GetKey()], "duplicate key %s", e.GetKey())
		keys[e.GetKey()] = true
		require.NoError(t, h.validate(e.GetType(), e.GetDataJson()), "%s: %s", e.GetKey(), e.GetDataJson())
		for _, i := range e.GetResourceIndexes() {
			require.Less(t, int(i), len(resp.GetMedia()), e.GetKey())
			owned[i] = true
		}
	}
	require.True(t, keys[g.GetRootKey()], "root %s", g.GetRootKey())
	for _, r := range g.GetRelations() {
		require.NotEmpty(t, r.GetName())
		require.True(t, keys[r.GetFromKey()], "relation from %s", r.GetFromKey())
		require.True(t, keys[r.GetToKey()], "relation to %s", r.GetToKey())
	}
	for i, m := range resp.GetMedia() {
		if m.GetPurpose() != "" {
			require.True(t, owned[uint32(i)], "media %d (%s) belongs to no entity", i, m.GetPurpose())
		}
	}
}
