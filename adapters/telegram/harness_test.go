package telegram_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// harness is the adapter behind a real gRPC server on a loopback TCP port,
// talking to a fake t.me.
type harness struct {
	fake    *testkit.Tme
	client  adapterv1.AdapterClient
	schemas kittest.Schemas
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
	h := &harness{fake: fake, client: kittest.Serve(t, telegram.New(opts))}
	d, err := h.client.Describe(context.Background(), &adapterv1.DescribeRequest{})
	require.NoError(t, err)
	h.schemas = kittest.CompileSchemas(t, d)
	return h
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
