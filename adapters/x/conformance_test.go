package x_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

func postRequest(id string) *adapterv1.FetchRequest {
	return &adapterv1.FetchRequest{ProviderId: x.ProviderFxTwitter, Target: &adapterv1.Target{
		Platform: x.Platform, EntityType: x.EntityTypePost, ExternalId: id, CanonicalUrl: "https://x.com/i/status/" + id,
	}}
}

// TestConformance runs the adapter suite over every post and profile
// route of the FxTwitter fixtures (routes.json) and a thread: the 200s
// must validate, the errors must carry their codes.
func TestConformance(t *testing.T) {
	t.Parallel()
	var table struct {
		Routes []struct {
			Path   string `json:"path"`
			Status int    `json:"status"`
		} `json:"routes"`
	}
	b, err := os.ReadFile(filepath.Join(testkit.FixturesDir(t, "fxtwitter"), "routes.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &table))
	codes := map[int]adapterv1.ErrorCode{
		401: adapterv1.ErrorCode_ERROR_CODE_PRIVATE,
		404: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND,
		500: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE,
	}
	threadBody, err := os.ReadFile("testdata/thread.json")
	require.NoError(t, err)
	s := kittest.Subject{Start: func(t *testing.T) adapterv1.AdapterServer {
		fake := testkit.NewFxTwitter(t)
		fake.SetOverride("/2/thread/2078399740166950912", 200, "application/json", threadBody)
		return x.New(x.Options{BaseURL: fake.URL()})
	}}
	for _, r := range table.Routes {
		var req *adapterv1.FetchRequest
		if id, ok := strings.CutPrefix(r.Path, "/2/status/"); ok {
			req = postRequest(id)
		} else if h, ok := strings.CutPrefix(r.Path, "/2/profile/"); ok && !strings.Contains(h, "/") {
			req = profileRequest("@"+h, "", 0)
		} else {
			continue
		}
		if r.Status == 200 {
			s.Fixtures = append(s.Fixtures, req)
		} else if code, ok := codes[r.Status]; ok {
			s.Failures = append(s.Failures, kittest.Failure{Name: r.Path, Request: req, Code: code})
		}
	}
	thread := postRequest("2078399740166950912")
	thread.Expand = adapterv1.ExpandThread
	s.Fixtures = append(s.Fixtures, thread)
	require.Len(t, s.Fixtures, 6, "four posts, a profile with its timeline, a thread")
	require.Len(t, s.Failures, 6, "four posts, two profiles")
	kittest.Run(t, s)
}
