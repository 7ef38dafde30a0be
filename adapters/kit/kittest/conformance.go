package kittest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Subject is one adapter under the conformance suite.
type Subject struct {
	// Start returns the adapter under test, talking to fakes of its
	// upstream that live as long as t.
	Start func(t *testing.T) adapterv1.AdapterServer
	// Fixtures are fetches the fakes answer from a fixture; every one must
	// succeed with a graph the declared schemas accept. At least one.
	Fixtures []*adapterv1.FetchRequest
	// Failures are fetches the fakes answer with an upstream error; each
	// must fail with its code.
	Failures []Failure
}

// Failure is a fetch that must fail with Code.
type Failure struct {
	// Name says what the case is, for failure messages.
	Name string
	// Request is the fetch to send.
	Request *adapterv1.FetchRequest
	// Code is the error code the answer must carry.
	Code adapterv1.ErrorCode
}

// Run is the conformance suite every adapter passes: its Describe is
// complete and its schemas compile, a URL on a host it does not declare is
// refused with ERROR_CODE_NOT_THIS_ADAPTER, every error is typed (a code,
// a message, retryable only when trying later can help), and every
// fixture fetch validates against the declared schemas, with at most
// kit.MaxRelatedTargets related targets the adapter itself resolves and
// the capabilities its pages, canonical targets and threads need.
func Run(t *testing.T, s Subject) {
	t.Helper()
	require.NotEmpty(t, s.Fixtures, "the conformance suite needs at least one fixture fetch")
	client := Serve(t, s.Start(t))
	d := Describe(t, client)

	t.Run("describe", func(t *testing.T) {
		require.NotEmpty(t, d.GetAdapterId())
		require.NotEmpty(t, d.GetDisplayName())
		require.NotEmpty(t, d.GetAdapterVersion())
		require.EqualValues(t, adapterv1.ProtocolMajor, d.GetProtocol().GetMajor())
		require.NotEmpty(t, d.GetHosts())
		seen := map[string]bool{}
		for _, h := range d.GetHosts() {
			require.Equal(t, strings.ToLower(h), h, "hosts are lowercase")
			require.False(t, seen[h], "host %s declared twice", h)
			seen[h] = true
		}
		schemas := CompileSchemas(t, d)
		require.NotEmpty(t, d.GetProviders())
		defaults := map[adapterv1.AuthMode]int{}
		for _, p := range d.GetProviders() {
			require.NotEmpty(t, p.GetId())
			require.NotEmpty(t, p.GetVisibilities(), p.GetId())
			require.NotEmpty(t, p.GetCapabilities(), p.GetId())
			if p.GetDefaultProvider() {
				defaults[p.GetAuthMode()]++
			}
			for _, et := range p.GetEntityTypes() {
				require.Contains(t, schemas, et, "provider %s names entity type %s without a schema", p.GetId(), et)
			}
		}
		require.NotEmpty(t, defaults, "a default provider")
		for mode, n := range defaults {
			require.Equal(t, 1, n, "exactly one default provider of %s", mode)
		}
	})

	t.Run("foreign hosts are refused", func(t *testing.T) {
		var urls []string
		for _, h := range d.GetHosts() {
			urls = append(urls,
				"https://"+h+".evil.example/a/1", // the host as a subdomain of another
				"https://evil"+h+"/a/1",          // a longer name ending in it
				"https://"+h+"@evil.example/a/1", // the host as a user name
				"https://evil.example/"+h+"/a/1", // the host in the path
				"https://evil.example/?u=https://"+h+"/a/1",
			)
		}
		urls = append(urls, "https://example.org/a/1", "http://127.0.0.1/a/1", "https://[::1]/a/1")
		for _, u := range urls {
			resp, err := client.Resolve(context.Background(), &adapterv1.ResolveRequest{Url: u})
			require.NoError(t, err, u)
			require.Nil(t, resp.GetTarget(), u)
			require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER, resp.GetError().GetCode(), "%s: %s", u, resp.GetError().GetMessage())
			requireTyped(t, resp.GetError(), u)
		}
	})

	t.Run("errors are typed", func(t *testing.T) {
		ctx := context.Background()
		host := d.GetHosts()[0]
		for _, u := range []string{
			"not a url", "ftp://" + host + "/a/1", "https://" + host + ":8443/a/1", "https://" + host + "/",
			"https://" + host + "//a", "https://" + host + "/" + strings.Repeat("a", 5000), "https://" + host + "/%zz",
		} {
			resp, err := client.Resolve(ctx, &adapterv1.ResolveRequest{Url: u})
			require.NoError(t, err, u)
			require.Nil(t, resp.GetTarget(), u)
			requireTyped(t, resp.GetError(), u)
		}
		_, err := client.Resolve(ctx, &adapterv1.ResolveRequest{})
		require.Equal(t, codes.InvalidArgument, status.Code(err), "an empty Resolve is an RPC error")
		_, err = client.Fetch(ctx, &adapterv1.FetchRequest{ProviderId: d.GetProviders()[0].GetId()})
		require.Equal(t, codes.InvalidArgument, status.Code(err), "a Fetch without a target is an RPC error")

		good := s.Fixtures[0]
		bad := map[string]*adapterv1.FetchRequest{
			"unknown provider": {ProviderId: "no-such-provider", Target: good.GetTarget()},
			"other platform": {ProviderId: good.GetProviderId(), Target: &adapterv1.Target{
				Platform: "no-such-platform", EntityType: good.GetTarget().GetEntityType(), ExternalId: good.GetTarget().GetExternalId()}},
			"unknown entity type": {ProviderId: good.GetProviderId(), Target: &adapterv1.Target{
				Platform: good.GetTarget().GetPlatform(), EntityType: "no.such.type", ExternalId: good.GetTarget().GetExternalId()}},
		}
		for name, req := range bad {
			resp, err := client.Fetch(ctx, req)
			require.NoError(t, err, name)
			requireTyped(t, resp.GetError(), name)
			require.False(t, resp.GetError().GetRetryable(), "%s: a bad request is permanent", name)
			require.Nil(t, resp.GetGraph(), name)
		}
		for _, f := range s.Failures {
			resp, err := client.Fetch(ctx, f.Request)
			require.NoError(t, err, f.Name)
			requireTyped(t, resp.GetError(), f.Name)
			require.Equal(t, f.Code, resp.GetError().GetCode(), "%s: %s", f.Name, resp.GetError().GetMessage())
			require.Nil(t, resp.GetGraph(), f.Name)
			require.Empty(t, resp.GetMedia(), f.Name)
		}
	})

	t.Run("fixtures validate", func(t *testing.T) {
		schemas := CompileSchemas(t, d)
		for _, req := range s.Fixtures {
			name := req.GetTarget().GetEntityType() + " " + req.GetTarget().GetExternalId()
			p := provider(d, req.GetProviderId())
			require.NotNil(t, p, "%s: provider %s is not declared", name, req.GetProviderId())
			resp, err := client.Fetch(context.Background(), req)
			require.NoError(t, err, name)
			require.Nil(t, resp.GetError(), "%s: %s", name, resp.GetError().GetMessage())
			CheckGraph(t, schemas, resp)
			for _, e := range resp.GetGraph().GetEntities() {
				require.Contains(t, p.GetEntityTypes(), e.GetType(), "%s: entity %s has a type its provider does not declare", name, e.GetKey())
			}
			require.Contains(t, p.GetVisibilities(), resp.GetVisibility(), name)
			require.NotEmpty(t, resp.GetDisplay().GetSummary(), name)
			// Related targets, pages and canonical targets need their
			// capabilities, and every related URL is one the adapter
			// resolves itself.
			require.LessOrEqual(t, len(resp.GetRelatedTargets()), kit.MaxRelatedTargets, name)
			if len(resp.GetRelatedTargets()) > 0 {
				require.True(t, hasCapability(p, adapterv1.CapCaptureRelated), "%s: related targets without capture.related", name)
			}
			if resp.GetNextPageCursor() != "" {
				require.True(t, hasCapability(p, adapterv1.CapCapturePage), "%s: a next page without capture.page", name)
			}
			if resp.GetCanonicalTarget() != nil {
				require.True(t, hasCapability(p, adapterv1.CapCaptureCanonical), "%s: a canonical target without capture.canonical", name)
				require.Equal(t, req.GetTarget().GetPlatform(), resp.GetCanonicalTarget().GetPlatform(), name)
				require.Equal(t, req.GetTarget().GetEntityType(), resp.GetCanonicalTarget().GetEntityType(), name)
			}
			if req.GetExpand() == adapterv1.ExpandThread {
				require.True(t, hasCapability(p, adapterv1.CapCaptureThread), "%s: a thread without capture.thread", name)
			}
			for _, rt := range resp.GetRelatedTargets() {
				r, err := client.Resolve(context.Background(), &adapterv1.ResolveRequest{Url: rt.GetUrl()})
				require.NoError(t, err, name)
				require.Nil(t, r.GetError(), "%s: related target %s: %s", name, rt.GetUrl(), r.GetError().GetMessage())
			}
			if hasCapability(p, adapterv1.CapSourceRaw) {
				require.NotEmpty(t, resp.GetSourceResponses(), "%s: source.raw is declared", name)
				for _, src := range resp.GetSourceResponses() {
					require.NotEmpty(t, src.GetBody(), name)
					require.NotEmpty(t, src.GetRequestUrl(), name)
				}
			}
		}
	})
}

// requireTyped checks that e is an error a person and core can act on:
// a code, a message, and retryable only for the codes where waiting helps.
func requireTyped(t *testing.T, e *adapterv1.Error, what string) {
	t.Helper()
	require.NotNil(t, e, "%s: want an error", what)
	require.NotEqual(t, adapterv1.ErrorCode_ERROR_CODE_UNSPECIFIED, e.GetCode(), "%s: %s", what, e.GetMessage())
	_, known := adapterv1.ErrorCode_name[int32(e.GetCode())]
	require.True(t, known, "%s: unknown code %d", what, e.GetCode())
	require.NotEmpty(t, strings.TrimSpace(e.GetMessage()), "%s: an error says what happened", what)
	if e.GetRetryable() {
		require.Contains(t, []adapterv1.ErrorCode{adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE},
			e.GetCode(), "%s: only rate limits and outages are retryable", what)
	}
}

func provider(d *adapterv1.DescribeResponse, id string) *adapterv1.Provider {
	for _, p := range d.GetProviders() {
		if p.GetId() == id {
			return p
		}
	}
	return nil
}

func hasCapability(p *adapterv1.Provider, name string) bool {
	return slices.ContainsFunc(p.GetCapabilities(), func(c *adapterv1.Capability) bool { return c.GetName() == name })
}
