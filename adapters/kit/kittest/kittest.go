// Package kittest is the test side of adapters/kit: a real gRPC server for
// an adapter under test, core's checks of its schemas and entity graphs,
// and the conformance suite every adapter runs (Run). Adapters' tests
// bring their own fakes of the outside world; nothing here talks to it.
package kittest

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

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Serve registers a on a gRPC server listening on 127.0.0.1 and returns a
// client dialled to it; both stop when the test ends.
func Serve(t testing.TB, a adapterv1.AdapterServer) adapterv1.AdapterClient {
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

// Schemas are an adapter's compiled entity schemas by entity type.
type Schemas map[string]*jsonschema.Schema

// noLoader refuses external references, as core does: entity schemas must
// be self-contained.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema is not self-contained: it refers to %s", url)
}

// CompileSchemas compiles the entity schemas d declares the way core does
// (JSON Schema 2020-12, no external references), failing the test on any
// that does not compile.
func CompileSchemas(t testing.TB, d *adapterv1.DescribeResponse) Schemas {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	out := Schemas{}
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

// Validate checks data (JSON) against the schema of typ.
func (s Schemas) Validate(typ, data string) error {
	sch, ok := s[typ]
	if !ok {
		return fmt.Errorf("undeclared entity type %q", typ)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// CheckGraph applies core's checks to a successful answer: declared types
// with schema-valid data, unique keys, a root that exists, named relations
// between existing entities, resource indexes inside media, every
// non-display media a resource of some entity.
func CheckGraph(t testing.TB, s Schemas, resp *adapterv1.FetchResponse) {
	t.Helper()
	require.Nil(t, resp.GetError())
	g := resp.GetGraph()
	require.NotNil(t, g)
	keys := map[string]bool{}
	owned := map[uint32]bool{}
	for _, e := range g.GetEntities() {
		require.False(t, keys[e.GetKey()], "duplicate key %s", e.GetKey())
		keys[e.GetKey()] = true
		require.NoError(t, s.Validate(e.GetType(), e.GetDataJson()), "%s: %s", e.GetKey(), e.GetDataJson())
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

// Describe calls Describe on client and fails the test on an RPC error.
func Describe(t testing.TB, client adapterv1.AdapterClient) *adapterv1.DescribeResponse {
	t.Helper()
	d, err := client.Describe(context.Background(), &adapterv1.DescribeRequest{
		Protocol: &adapterv1.ProtocolVersion{Major: adapterv1.ProtocolMajor, Minor: adapterv1.ProtocolMinor},
	})
	require.NoError(t, err)
	return d
}

// ViewRelations lists rs as "from -name-> to", in order.
func ViewRelations(rs []*adapterv1.Relation) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.GetFromKey()+" -"+r.GetName()+"-> "+r.GetToKey())
	}
	return out
}

// EntityData returns the data_json of the entity with key, failing the
// test when the graph has none.
func EntityData(t testing.TB, resp *adapterv1.FetchResponse, key string) string {
	t.Helper()
	for _, e := range resp.GetGraph().GetEntities() {
		if e.GetKey() == key {
			return e.GetDataJson()
		}
	}
	t.Fatalf("no entity %s", key)
	return ""
}
