package x_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// expand "thread": the post as usual, and the other posts of its author's
// thread (testdata/thread.json, the /2/thread shape of FxTwitter's OpenAPI
// document) as related targets in order; another account's reply is not
// the author's thread.
func TestFetchThread(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	body, err := os.ReadFile("testdata/thread.json")
	require.NoError(t, err)
	h.fake.SetOverride("/2/thread/2078399740166950912", http.StatusOK, "application/json", body)

	req := postRequest("2078399740166950912")
	req.Expand = adapterv1.ExpandThread
	resp := fetch(t, h.client, req)
	require.Nil(t, resp.GetError())
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, "post:2078399740166950912", resp.GetGraph().GetRootKey())
	require.Equal(t, []string{
		"https://x.com/archivist_demo",
		"https://x.com/archivist_demo/status/2078400112233445566",
		"https://x.com/archivist_demo/status/2078400998877665544",
	}, urls(resp))
	require.EqualValues(t, 60, resp.GetRelatedTargets()[0].GetRefreshAfterSeconds(), "the author, at most every minute")
	require.Zero(t, resp.GetRelatedTargets()[1].GetRefreshAfterSeconds())
	require.Len(t, resp.GetSourceResponses(), 1)
	require.Equal(t, 1, h.fake.Hits("/2/thread/2078399740166950912"))
	require.Zero(t, h.fake.Hits("/2/status/2078399740166950912"), "the thread answer has the post")

	// A thread FxTwitter does not know is the post's not-found.
	req = postRequest("1000000000000000001")
	req.Expand = adapterv1.ExpandThread
	h.fake.SetOverride("/2/thread/1000000000000000001", http.StatusNotFound, "application/json",
		[]byte(`{"code":404,"status":null,"thread":null,"author":null}`))
	resp = fetch(t, h.client, req)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, resp.GetError().GetCode())
	require.Equal(t, "post not found or not public", resp.GetError().GetMessage())
}

// expand "none" leaves out the author's profile.
func TestFetchPostWithoutRelated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	req := postRequest("2078399740166950912")
	req.Expand = adapterv1.ExpandNone
	resp := fetch(t, h.client, req)
	require.Nil(t, resp.GetError())
	require.Empty(t, resp.GetRelatedTargets())
	require.Equal(t, x.EntityTypePost, resp.GetGraph().GetEntities()[0].GetType())
}
