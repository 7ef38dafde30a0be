package telegram_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/telegram"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

func messageRequest(post string) *adapterv1.FetchRequest {
	ch, _, _ := strings.Cut(post, "/")
	return &adapterv1.FetchRequest{ProviderId: telegram.ProviderTmePublic, Target: &adapterv1.Target{
		Platform: telegram.Platform, EntityType: telegram.EntityTypeMessage, ObjectScope: ch, ExternalId: post,
		CanonicalUrl: "https://t.me/" + post,
	}}
}

func channelRequest(ch string) *adapterv1.FetchRequest {
	return &adapterv1.FetchRequest{ProviderId: telegram.ProviderTmePublic, Target: &adapterv1.Target{
		Platform: telegram.Platform, EntityType: telegram.EntityTypeChannel, ExternalId: ch, CanonicalUrl: "https://t.me/" + ch,
	}}
}

// TestConformance runs the adapter suite over every post and channel page
// of the t.me fixtures, and over a post and a channel t.me does not have.
func TestConformance(t *testing.T) {
	t.Parallel()
	s := kittest.Subject{
		Start: func(t *testing.T) adapterv1.AdapterServer {
			return telegram.New(telegram.Options{BaseURL: testkit.NewTme(t).URL()})
		},
		Failures: []kittest.Failure{
			{Name: "unknown post", Request: messageRequest("tidewatch_demo/999"), Code: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND},
			{Name: "channel without a preview", Request: channelRequest("no_preview_demo"), Code: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND},
		},
	}
	for _, p := range testkit.TmeFixturePosts() {
		s.Fixtures = append(s.Fixtures, messageRequest(p))
	}
	for _, ch := range testkit.TmeFixtureChannels() {
		s.Fixtures = append(s.Fixtures, channelRequest(ch))
	}
	require.Len(t, s.Fixtures, 16)
	kittest.Run(t, s)
}
