package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The synthetic timeline of these tests: 25 posts over upstream pages of
// 5, a tenth of a real one (250 posts, FxTwitter's pages of 20 and pages of
// 100), since pagesLimits' pages hold 10 posts.
const (
	timelineHandle = "timeline_demo"
	timelineID     = "4400000000000000001"
	timelinePosts  = 25
	timelinePage   = 5
	testPageSize   = 10
)

// pagesLimits make pages of testPageSize posts and let a tenant run 8
// captures at once: the pages are the subject, not the per-tenant slot
// rule (tested elsewhere).
func pagesLimits() app.Limits {
	l := testLimits()
	l.TenantCaptures = 8
	l.PageSize = testPageSize
	return l
}

// waitSubmission waits until a submission's pages and posts have ended.
func (p *pipeline) waitSubmission(t testing.TB, tenantID, id uuid.UUID) app.SubmissionView {
	t.Helper()
	return waitSubmission(t, p.app, tenantID, id)
}

// waitSubmission waits until a submission's pages and posts have ended.
func waitSubmission(t testing.TB, a *app.App, tenantID, id uuid.UUID) app.SubmissionView {
	t.Helper()
	deadline := time.Now().Add(4 * testcore.WaitTimeout)
	for {
		v, err := a.Submission(context.Background(), tenantID, id)
		require.NoError(t, err)
		if testcore.Ended(v.State) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("submission %s did not end: %+v", id, v)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFirstChild waits until a page has made its first child.
func (p *pipeline) waitFirstChild(t testing.TB, tenantID, id uuid.UUID) {
	t.Helper()
	deadline := time.Now().Add(4 * testcore.WaitTimeout)
	for {
		v, err := p.app.Submission(context.Background(), tenantID, id)
		require.NoError(t, err)
		if v.Progress.Total > 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "no child was made")
		time.Sleep(5 * time.Millisecond)
	}
}

// members lists every member of a collection the tenant archived.
func (p *pipeline) members(t testing.TB, tenantID, collectionID uuid.UUID) []app.CollectionView {
	t.Helper()
	var out []app.CollectionView
	cursor := ""
	for {
		page, err := p.app.Members(context.Background(), tenantID, collectionID, 100, cursor)
		require.NoError(t, err)
		out = append(out, page.Items...)
		if page.NextCursor == "" {
			return out
		}
		cursor = page.NextCursor
	}
}

// distinctURLs checks the members are distinct posts of the timeline and
// returns their links.
func distinctURLs(t testing.TB, ms []app.CollectionView) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range ms {
		require.False(t, seen[m.SourceURL], "member %s listed twice", m.SourceURL)
		require.Contains(t, m.SourceURL, "/status/")
		seen[m.SourceURL] = true
	}
	return seen
}

func TestProfilePagesMoreAndEnd(t *testing.T) {
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTextTimeline(timelineHandle, timelineID, timelinePosts, timelinePage)
		alice := p.tenant(t, "alice", nil)

		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		first := p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, "profile", first.Kind)
		require.Equal(t, app.StateComplete, first.State, first.Error)
		require.Equal(t, app.SubmissionProgress{Total: 10, Complete: 10}, first.Progress)
		require.True(t, first.HasMore)
		require.Nil(t, first.NextSubmission)

		// The profile itself is archived with its header.
		prof, err := p.app.Collection(ctx, alice, first.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "Synthetic "+timelineHandle, prof.AuthorName)
		ms := p.members(t, alice, first.CollectionID)
		require.Len(t, ms, 10)
		seen := distinctURLs(t, ms)
		require.True(t, seen[tl.Posts[0]], "the newest post is on the first page")
		require.True(t, seen[tl.Posts[9]])
		require.False(t, seen[tl.Posts[10]])

		// More adds the next 10; asking again for the page after the
		// same submission is the same page.
		more, err := p.app.More(ctx, alice, res.SubmissionID)
		require.NoError(t, err)
		again, err := p.app.More(ctx, alice, res.SubmissionID)
		require.NoError(t, err)
		require.Equal(t, more.SubmissionID, again.SubmissionID)
		second := p.waitSubmission(t, alice, more.SubmissionID)
		require.Equal(t, 10, second.Progress.Total)
		root := p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, 20, root.Progress.Total, "the first page counts the pages after it")
		require.Equal(t, more.SubmissionID, *root.NextSubmission)
		require.Len(t, distinctURLs(t, p.members(t, alice, first.CollectionID)), 20)

		// The last 5, then nothing more.
		last, err := p.app.More(ctx, alice, more.SubmissionID)
		require.NoError(t, err)
		end := p.waitSubmission(t, alice, last.SubmissionID)
		require.Equal(t, 5, end.Progress.Total)
		require.False(t, end.HasMore)
		_, err = p.app.More(ctx, alice, last.SubmissionID)
		require.ErrorIs(t, err, app.ErrConflict)
		require.ErrorContains(t, err, "archived to its end")
		require.Len(t, distinctURLs(t, p.members(t, alice, first.CollectionID)), timelinePosts)
		root = p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, app.SubmissionProgress{Total: timelinePosts, Complete: timelinePosts}, root.Progress)
		require.False(t, root.HasMore)

		// A post of the profile is a child: no more or stop on it.
		_, err = p.app.More(ctx, alice, uuid.Must(uuid.NewV7()))
		require.ErrorIs(t, err, app.ErrNotFound)
	})
}

func TestProfileBatchStopsAtItsLimit(t *testing.T) {
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTextTimeline(timelineHandle, timelineID, timelinePosts, timelinePage)
		alice := p.tenant(t, "alice", nil)
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL, Limit: 23})
		require.NoError(t, err)
		v := p.waitSubmission(t, alice, res.SubmissionID)
		// Pages chain by themselves until the limit: 10 + 10 + 3.
		for v.NextSubmission != nil && v.Progress.Total < 23 {
			time.Sleep(20 * time.Millisecond)
			v = p.waitSubmission(t, alice, res.SubmissionID)
		}
		require.Equal(t, app.SubmissionProgress{Total: 23, Complete: 23}, v.Progress)
		require.Len(t, distinctURLs(t, p.members(t, alice, v.CollectionID)), 23)

		// Bad limits are refused before anything is written.
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL, Limit: 1001})
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "largest batch, 1000")
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: photosPost, Limit: 5})
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "single post")
		_, err = p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL, Expand: "everything"})
		require.ErrorIs(t, err, app.ErrInvalid)
	})
}

func TestProfileStopMakesNothingAfterIt(t *testing.T) {
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTextTimeline(timelineHandle, timelineID, 50, timelinePage)
		alice := p.tenant(t, "alice", nil)
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL, Limit: 50})
		require.NoError(t, err)
		// Stop as soon as the first children exist.
		p.waitFirstChild(t, alice, res.SubmissionID)
		stopped, err := p.app.Stop(ctx, alice, res.SubmissionID)
		require.NoError(t, err)
		require.True(t, stopped.Stopped)
		made := stopped.Progress.Total
		require.Less(t, made, 50)

		end := p.waitSubmission(t, alice, res.SubmissionID)
		require.True(t, end.Stopped)
		require.False(t, end.HasMore, "a stopped collection offers no more")
		require.Equal(t, made, end.Progress.Total, "no child after the stop")
		time.Sleep(300 * time.Millisecond) // an expansion that was waiting looks again
		end = p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, made, end.Progress.Total, "no child after the stop")
		_, err = p.app.More(ctx, alice, res.SubmissionID)
		if end.NextSubmission == nil {
			require.ErrorIs(t, err, app.ErrConflict)
			require.ErrorContains(t, err, "stopped")
		}
	})
}

func TestProfilePageFailingMidwayKeepsProgress(t *testing.T) {
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTextTimeline(timelineHandle, timelineID, 15, 2)
		alice := p.tenant(t, "alice", nil)
		// The third upstream page fails once.
		p.fx.FailTimelinePage(timelineHandle, 2, 500)
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		first := p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, 4, first.Progress.Total, "the two pages read before the failure are kept")
		require.True(t, first.HasMore)

		more, err := p.app.More(ctx, alice, res.SubmissionID)
		require.NoError(t, err)
		p.waitSubmission(t, alice, more.SubmissionID)
		seen := distinctURLs(t, p.members(t, alice, first.CollectionID))
		require.Len(t, seen, 14, "more resumes where the failure stopped")
		require.True(t, seen[tl.Posts[4]], "the post after the failure is archived")
	})
}

func TestProfileSharedAcrossTenants(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTimeline(timelineHandle, timelineID, 12, 4)
		alice, bob := p.tenant(t, "alice", nil), p.tenant(t, "bob", nil)
		a, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL})
		require.NoError(t, err)
		require.Equal(t, 12, p.waitSubmission(t, alice, a.SubmissionID).Progress.Total)
		fetchedOnce := p.fx.Hits("/2/status/" + lastPathPart(tl.Posts[0]))

		// Bob asks for the same profile by its id.
		b, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: bob, URL: "https://x.com/i/user/" + timelineID})
		require.NoError(t, err)
		bv := p.waitSubmission(t, bob, b.SubmissionID)
		require.Equal(t, 12, bv.Progress.Total)
		av := p.waitSubmission(t, alice, a.SubmissionID)
		require.Equal(t, av.CollectionID, bv.CollectionID, "a profile by handle and by id is one collection")
		require.Equal(t, fetchedOnce, p.fx.Hits("/2/status/"+lastPathPart(tl.Posts[0])), "archived posts are shared, not fetched again")

		// Each tenant has the posts in its own library and is charged.
		require.Len(t, p.members(t, bob, bv.CollectionID), 12)
		require.Len(t, p.members(t, alice, av.CollectionID), 12)
		for _, tenant := range []uuid.UUID{alice, bob} {
			u, err := p.app.Usage(ctx, tenant)
			require.NoError(t, err)
			require.Positive(t, u.UsedBytes)
		}
		// Neither sees the other's submissions.
		_, err = p.app.Submission(ctx, bob, a.SubmissionID)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = p.app.Stop(ctx, bob, a.SubmissionID)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = p.app.More(ctx, bob, a.SubmissionID)
		require.ErrorIs(t, err, app.ErrNotFound)
	})
}

func TestProfileUnknownOrProtectedFails(t *testing.T) {
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: "https://x.com/no_such_user_demo"})
		require.NoError(t, err)
		v := p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, app.StateFailed, v.State)
		require.NotEmpty(t, v.Error)
		require.Zero(t, v.Progress.Total)
		require.False(t, v.HasMore, "a first page that failed is sent again, not continued")
	})
}

func TestProfileBatchSurvivesARestart(t *testing.T) {
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		tl := p.fx.AddTextTimeline(timelineHandle, timelineID, 30, timelinePage)
		alice := p.tenant(t, "alice", nil)
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: tl.ProfileURL, Limit: 30})
		require.NoError(t, err)
		p.waitFirstChild(t, alice, res.SubmissionID)
		// The process stops mid-batch and starts again.
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		require.NoError(t, p.q.Stop(sctx))
		cancel()
		p.start(t)
		v := p.waitSubmission(t, alice, res.SubmissionID)
		for v.Progress.Total < 30 && v.NextSubmission != nil {
			time.Sleep(20 * time.Millisecond)
			v = p.waitSubmission(t, alice, res.SubmissionID)
		}
		require.Equal(t, 30, v.Progress.Total)
		require.Len(t, distinctURLs(t, p.members(t, alice, v.CollectionID)), 30, "no duplicate child")
	})
}

func lastPathPart(u string) string { return u[strings.LastIndex(u, "/")+1:] }

// lister is a third party's adapter that lists more related targets on one
// page than the protocol allows.
type lister struct {
	adapterv1.UnimplementedAdapterServer
	items int
}

func (l *lister) Describe(context.Context, *adapterv1.DescribeRequest) (*adapterv1.DescribeResponse, error) {
	return &adapterv1.DescribeResponse{
		AdapterId: "lister", DisplayName: "Lister",
		Protocol:       &adapterv1.ProtocolVersion{Major: adapterv1.ProtocolMajor, Minor: adapterv1.ProtocolMinor},
		AdapterVersion: "0.0.1", Hosts: []string{"lister.example"},
		Providers: []*adapterv1.Provider{{
			Id: "public", AuthMode: adapterv1.AuthMode_AUTH_MODE_NONE, DefaultProvider: true,
			Visibilities: []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC},
			Capabilities: []*adapterv1.Capability{adapterv1.Cap1(adapterv1.CapCaptureFetch), adapterv1.Cap1(adapterv1.CapCaptureRelated),
				adapterv1.Cap1(adapterv1.CapContentText)},
			EntityTypes: []string{"lister.list"},
		}},
		EntityTypes: []*adapterv1.EntityType{{Name: "lister.list", JsonSchema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`}},
	}, nil
}

func (l *lister) Resolve(_ context.Context, req *adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error) {
	return &adapterv1.ResolveResponse{Collection: true, RefreshOnSubmit: true, Target: &adapterv1.Target{
		Platform: "lister", EntityType: "lister.list", ObjectScope: "list", ExternalId: "1", CanonicalUrl: req.GetUrl()}}, nil
}

func (l *lister) Fetch(context.Context, *adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
	resp := &adapterv1.FetchResponse{
		Visibility: adapterv1.Visibility_VISIBILITY_PUBLIC,
		Display:    &adapterv1.Display{Text: "a long list", Summary: "a long list"},
		Graph: &adapterv1.Graph{RootKey: "list", Entities: []*adapterv1.Entity{
			{Key: "list", Type: "lister.list", ExternalId: "1", DataJson: `{}`}}},
	}
	for i := range l.items {
		resp.RelatedTargets = append(resp.RelatedTargets, &adapterv1.RelatedTarget{Url: fmt.Sprintf("%s?n=%d", photosPost, i)})
	}
	return resp, nil
}

func TestPageWithTooManyRelatedTargetsIsRefused(t *testing.T) {
	testcore.Each(t, testcore.Options{Adapters: []adapterv1.AdapterServer{&lister{items: 201}}}, func(t *testing.T, c *testcore.Core) {
		p := pipelineOf(c)
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: "https://lister.example/list"})
		require.NoError(t, err)
		v := p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, app.StateFailed, v.State)
		require.Contains(t, v.Error, "listed 201 links on one page")
		require.Contains(t, v.Error, "at most 200")
		require.Zero(t, v.Progress.Total, "the page is refused, not truncated")
		require.Empty(t, p.members(t, alice, v.CollectionID))
	})
}

func TestChannelPages(t *testing.T) {
	eachPipeline(t, pagesLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		ch := p.tme.AddChannel("longtide_demo", 13, timelinePage)
		alice := p.tenant(t, "alice", nil)
		res, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: "https://t.me/s/longtide_demo"})
		require.NoError(t, err)
		first := p.waitSubmission(t, alice, res.SubmissionID)
		require.Equal(t, "channel", first.Kind)
		require.Equal(t, app.SubmissionProgress{Total: 10, Complete: 10}, first.Progress, first.Error)
		require.True(t, first.HasMore)
		header, err := p.app.Collection(ctx, alice, first.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "telegram.channel", header.EntityType)

		seen := map[string]bool{}
		for _, m := range p.members(t, alice, first.CollectionID) {
			seen[m.SourceURL] = true
		}
		require.Len(t, seen, 10)
		require.True(t, seen[ch.Posts[0]], "the newest post is on the first page")
		require.True(t, seen[ch.Posts[9]])

		// The next page, by the stored cursor, to the end.
		last, err := p.app.More(ctx, alice, res.SubmissionID)
		require.NoError(t, err)
		end := p.waitSubmission(t, alice, last.SubmissionID)
		require.Equal(t, 3, end.Progress.Total)
		require.False(t, end.HasMore)
		ms := p.members(t, alice, first.CollectionID)
		require.Len(t, ms, 13)
		for _, m := range ms {
			require.Equal(t, "telegram.message", m.EntityType, m.SourceURL)
		}

		// The same channel by t.me/<name> is the same collection.
		again, err := p.app.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: ch.URL})
		require.NoError(t, err)
		require.Equal(t, first.CollectionID, p.waitSubmission(t, alice, again.SubmissionID).CollectionID)
	})
}
