package x_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// harness is the adapter behind a real gRPC server on a loopback TCP port,
// talking to a fake FxTwitter.
type harness struct {
	fake    *testkit.FxTwitter
	client  adapterv1.AdapterClient
	schemas kittest.Schemas
}

// newHarness starts a fake FxTwitter and the adapter; edit adjusts the
// adapter's options (BaseURL already points at the fake).
func newHarness(t *testing.T, edit func(*x.Options)) *harness {
	t.Helper()
	fake := testkit.NewFxTwitter(t)
	opts := x.Options{BaseURL: fake.URL()}
	if edit != nil {
		edit(&opts)
	}
	h := &harness{fake: fake, client: kittest.Serve(t, x.New(opts))}
	d, err := h.client.Describe(context.Background(), &adapterv1.DescribeRequest{})
	require.NoError(t, err)
	h.schemas = kittest.CompileSchemas(t, d)
	return h
}

// fetchPost calls Fetch for a post id through the fxtwitter provider.
func (h *harness) fetchPost(t *testing.T, id string) *adapterv1.FetchResponse {
	t.Helper()
	resp, err := h.client.Fetch(context.Background(), &adapterv1.FetchRequest{
		ProviderId: x.ProviderFxTwitter,
		Target: &adapterv1.Target{
			Platform: "x", EntityType: "x.post", ExternalId: id, CanonicalUrl: "https://x.com/i/status/" + id,
		},
	})
	require.NoError(t, err)
	return resp
}
