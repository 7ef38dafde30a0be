package x_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// The real-sample suite: FxTwitter v2 bodies produced by FxTwitter's own
// server over X data its developers recorded
// (shared/fixtures/real/fxtwitter, provenance in its SOURCES.md), which
// may not be copied into this repository. testkit.RealFixturesDir skips it
// when they are absent and fails it then on CI.

// realEntry is one row of the samples' _index.json.
type realEntry struct {
	File    string            `json:"file"`
	Request string            `json:"request"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
}

func readRealIndex(t *testing.T) (string, []realEntry) {
	t.Helper()
	dir := testkit.RealFixturesDir(t, "fxtwitter/fxembed-run")
	b, err := os.ReadFile(filepath.Join(dir, "_index.json"))
	require.NoError(t, err)
	var idx []realEntry
	require.NoError(t, json.Unmarshal(b, &idx))
	require.NotEmpty(t, idx)
	return dir, idx
}

// TestRealStatuses serves every /2/status body of the samples from the
// fake FxTwitter, with its recorded status and content type, and fetches
// it: the 200s must give a graph the declared schemas accept, the errors
// their codes.
func TestRealStatuses(t *testing.T) {
	t.Parallel()
	dir, idx := readRealIndex(t)
	h := newHarness(t, nil)
	const free = "1000000000000000077" // for a sample whose id is not one Fetch accepts
	wantErr := map[int]adapterv1.ErrorCode{
		400: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
		404: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND,
	}
	got := map[string]*adapterv1.FetchResponse{}
	for _, e := range idx {
		method, raw, _ := strings.Cut(e.Request, " ")
		u, err := url.Parse(raw)
		require.NoError(t, err, e.File)
		id, ok := strings.CutPrefix(u.Path, "/2/status/")
		if method != "GET" || !ok {
			continue // profiles, timelines, threads and search: Fetch reads posts only (FuzzDecode reads them all)
		}
		if strings.Trim(id, "0123456789") != "" {
			id = free
		}
		body, err := os.ReadFile(filepath.Join(dir, e.File))
		require.NoError(t, err)
		h.fake.SetOverride("/2/status/"+id, e.Status, e.Headers["content-type"], body)
		resp := h.fetchPost(t, id)
		h.fake.ClearOverride("/2/status/" + id)
		if e.Status == 200 {
			require.Nil(t, resp.GetError(), "%s: %s", e.File, resp.GetError().GetMessage())
			kittest.CheckGraph(t, h.schemas, resp)
			require.Equal(t, body, resp.GetSourceResponses()[0].GetBody(), "%s: raw body byte for byte", e.File)
		} else {
			require.Equal(t, wantErr[e.Status], resp.GetError().GetCode(), "%s: %s", e.File, resp.GetError().GetMessage())
		}
		got[e.File] = resp
	}
	require.GreaterOrEqual(t, len(got), 12)
}

// displayURLs lists the addresses of the media shown with the post.
func displayURLs(resp *adapterv1.FetchResponse) []string {
	var out []string
	for _, m := range resp.GetMedia() {
		if m.GetPurpose() == "" {
			out = append(out, m.GetUrl())
		}
	}
	return out
}

// TestRealProfileAndThread serves the samples' profile, timeline and
// thread bodies: @X by handle answers with its stable id and its timeline
// post; the thread of 991202 names its author's earlier post and skips
// the deleted one and the post itself; unknown and suspended accounts fail
// with their reasons.
func TestRealProfileAndThread(t *testing.T) {
	t.Parallel()
	dir, _ := readRealIndex(t)
	h := newHarness(t, nil)
	serve := func(path, file string, status int) {
		body, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		h.fake.SetOverride(path, status, "application/json", body)
	}
	serve("/2/profile/x", "2_profile_x.json", 200)
	serve("/2/profile/X/statuses", "2_profile_x_statuses.json", 200)
	serve("/2/profile/notfound3842342", "2_profile_notfound3842342.json", 404)
	serve("/2/profile/testsuspendeduser", "2_profile_testsuspendeduser.json", 404)
	serve("/2/thread/991202", "2_thread_991202.json", 200)

	resp := fetch(t, h.client, profileRequest("@x", "", 0))
	require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, "783214", resp.GetCanonicalTarget().GetExternalId())
	require.Equal(t, "X：what's happening?!", resp.GetDisplay().GetSummary())
	var x struct {
		Verified     bool   `json:"verified"`
		VerifiedType string `json:"verified_type"`
	}
	require.NoError(t, json.Unmarshal([]byte(kittest.EntityData(t, resp, "profile:783214")), &x))
	require.True(t, x.Verified, "@X has the check mark")
	require.Equal(t, "organization", x.VerifiedType, "a gold (organization) check mark")
	require.Equal(t, "https://pbs.twimg.com/profile_images/1683899100922511378/5lY42eHs.jpg", resp.GetMedia()[0].GetUrl())
	require.Equal(t, "https://pbs.twimg.com/profile_banners/783214/1690175171", resp.GetMedia()[1].GetUrl())
	require.Equal(t, []string{"https://x.com/rtwlz/status/2036082537949434164"}, urls(resp))
	// The fake answers the same page for the cursor too: nothing new and
	// the same cursor back is the end.
	var cursors []string
	for _, r := range h.fake.Requests() {
		if r.Path == "/2/profile/X/statuses" {
			q, err := url.ParseQuery(r.RawQuery)
			require.NoError(t, err)
			cursors = append(cursors, q.Get("cursor"))
		}
	}
	require.Equal(t, []string{"", "DAAHCgABHEJR3hu___QLAAIAAAATMjAyODI4MTMxMzk2MzQ4MzM5NAgAAwAAAAIAAA"}, cursors)
	require.Empty(t, resp.GetNextPageCursor())

	resp = fetch(t, h.client, profileRequest("@notfound3842342", "", 0))
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, resp.GetError().GetCode())
	require.Empty(t, resp.GetError().GetReason())
	resp = fetch(t, h.client, profileRequest("@testsuspendeduser", "", 0))
	require.Equal(t, "suspended", resp.GetError().GetReason())
	require.Equal(t, "X account @testsuspendeduser is suspended", resp.GetError().GetMessage())

	req := postRequest("991202")
	req.Expand = adapterv1.ExpandThread
	resp = fetch(t, h.client, req)
	require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
	kittest.CheckGraph(t, h.schemas, resp)
	require.Equal(t, "foc", resp.GetDisplay().GetText())
	require.Equal(t, []string{"https://x.com/fixturethread", "https://x.com/fixturethread/status/991200"}, urls(resp))
}
