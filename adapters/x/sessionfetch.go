package x

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Messages of the x-session provider's post errors.
const (
	msgSessionNotFound  = "post not found, or the connected X account cannot see it"
	msgSessionProtected = "this post is from a protected account the connected X account does not follow"
)

// sessionFetch reads a target through the tenant's session: a post
// (TweetResultByRestId; with expand "thread", TweetDetail) or a profile
// (from FxTwitter, its timeline through UserTweets). Everything read this
// way is private unless X gave evidence it is public.
func (a *Adapter) sessionFetch(ctx context.Context, req *adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
	if resp, err := kit.CheckFetch(req, "X", ProviderXSession, Platform); resp != nil || err != nil {
		return resp, err
	}
	c, e := openCredential(req.GetCredential())
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}, nil
	}
	t := req.GetTarget()
	expand := req.GetExpand()
	switch t.GetEntityType() {
	case EntityTypePost:
		id, ok := parseID(t.GetExternalId())
		if !ok {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				fmt.Sprintf("post id %s is not a valid X post id", kit.Quote(t.GetExternalId()))), nil
		}
		switch expand {
		case "":
			return a.sessionPost(ctx, c, id), nil
		case adapterv1.ExpandNone:
			out := a.sessionPost(ctx, c, id)
			out.RelatedTargets = nil
			return out, nil
		case adapterv1.ExpandThread:
			return a.sessionThread(ctx, c, id), nil
		}
	case EntityTypeProfile:
		ref, ok := parseProfileRef(t.GetExternalId())
		if !ok {
			return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				fmt.Sprintf("profile %s is not an X handle or user id", kit.Quote(t.GetExternalId()))), nil
		}
		if expand == "" || expand == adapterv1.ExpandNone {
			return a.sessionProfile(ctx, c, ref, req), nil
		}
	default:
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("entity type %s is not one the X adapter fetches", kit.Quote(t.GetEntityType()))), nil
	}
	return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
		fmt.Sprintf("expand %s is not something the X adapter does for an %s", kit.Quote(expand), t.GetEntityType())), nil
}

// tweetResultResponse is the answer of TweetResultByRestId.
type tweetResultResponse struct {
	Data struct {
		TweetResult gqlTweetResult `json:"tweetResult"`
	} `json:"data"`
}

// sessionPost reads one post through TweetResultByRestId.
func (a *Adapter) sessionPost(ctx context.Context, c sessionCredential, id string) *adapterv1.FetchResponse {
	resp, e := a.gql(ctx, c, opTweetResultByRestID, map[string]any{
		"tweetId": id, "withCommunity": true, "includePromotedContent": false, "withVoice": false})
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	var r tweetResultResponse
	if e := decodeGQL(resp, &r); e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	if r.Data.TweetResult.Result == nil {
		if e, ok := missingData(resp); ok {
			return &adapterv1.FetchResponse{Error: e}
		}
	}
	out := buildSessionPost(r.Data.TweetResult.Result, id)
	if out.Error == nil {
		out.SourceResponses = []*adapterv1.SourceResponse{private(resp.Source())}
	}
	return out
}

// buildSessionPost turns a tweet result into the FetchResponse of post
// id: the FxTwitter provider's content, with the visibility X's answer
// shows evidence of.
func buildSessionPost(t *gqlTweet, id string) *adapterv1.FetchResponse {
	if e := unavailable(t); e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	inner, _ := t.unwrap()
	if !inner.usable() {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, "X's answer is missing the post's id, text or author")
	}
	if inner.id() != id {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, fmt.Sprintf("X answered with post %s instead of %s", kit.Quote(inner.id()), id))
	}
	s := statusOf(t)
	out, err := buildPost(s.st, time.Now())
	if err != nil {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, "cannot encode the post: "+err.Error())
	}
	out.Visibility = adapterv1.Visibility_VISIBILITY_PRIVATE
	if s.public {
		out.Visibility = adapterv1.Visibility_VISIBILITY_PUBLIC
	}
	return out
}

// unavailable is the error of a tweet result that holds no post: none at
// all, a tombstone, or an unavailable post with X's reason.
func unavailable(t *gqlTweet) *adapterv1.Error {
	if t == nil {
		return kit.NotFound(msgSessionNotFound, "")
	}
	switch t.Typename {
	case "TweetTombstone":
		msg := msgSessionNotFound
		if t.Tombstone != nil {
			if m := shortMessage(strings.TrimSuffix(t.Tombstone.Text.Text, " Learn more")); m != "" {
				msg += " (X says: " + m + ")"
			}
		}
		return kit.NotFound(msg, "tombstone")
	case "TweetUnavailable":
		reason := shortReason(strings.ToLower(t.Reason))
		if reason == "protected" {
			return kit.Err(adapterv1.ErrorCode_ERROR_CODE_PRIVATE, msgSessionProtected)
		}
		return notFoundError(msgSessionNotFound, reason)
	}
	return nil
}

// tweetDetailResponse is the answer of TweetDetail.
type tweetDetailResponse struct {
	Data struct {
		Conversation struct {
			Instructions []gqlInstruction `json:"instructions"`
		} `json:"threaded_conversation_with_injections_v2"`
	} `json:"data"`
}

// sessionThread reads a post with TweetDetail: the post as sessionPost
// archives it, and its author's other posts of the conversation, in
// order, as related targets.
func (a *Adapter) sessionThread(ctx context.Context, c sessionCredential, id string) *adapterv1.FetchResponse {
	resp, e := a.gql(ctx, c, opTweetDetail, map[string]any{
		"focalTweetId": id, "with_rux_injections": false, "includePromotedContent": false, "withCommunity": true,
		"withQuickPromoteEligibilityTweetFields": false, "withBirdwatchNotes": true, "withVoice": false})
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	var r tweetDetailResponse
	if e := decodeGQL(resp, &r); e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	if len(r.Data.Conversation.Instructions) == 0 {
		if e, ok := missingData(resp); ok {
			return &adapterv1.FetchResponse{Error: e}
		}
	}
	tl := readTimeline(r.Data.Conversation.Instructions)
	var focal *gqlTweet
	for _, t := range tl.Tweets {
		if inner, _ := t.unwrap(); inner != nil && inner.id() == id {
			focal = t
			break
		}
	}
	out := buildSessionPost(focal, id)
	if out.Error != nil {
		return out
	}
	out.SourceResponses = []*adapterv1.SourceResponse{private(resp.Source())}
	inner, _ := focal.unwrap()
	authorID := inner.author().RestID
	seen := map[string]bool{id: true}
	for _, t := range tl.Tweets {
		p, _ := t.unwrap()
		if p == nil || !p.usable() || seen[p.id()] || p.author().RestID != authorID {
			continue
		}
		seen[p.id()] = true
		if len(out.RelatedTargets) >= kit.MaxRelatedTargets {
			break
		}
		out.RelatedTargets = append(out.RelatedTargets, &adapterv1.RelatedTarget{Url: gqlPostURL(p)})
	}
	return out
}

// gqlPostURL is a usable post's x.com URL.
func gqlPostURL(p *gqlTweet) string {
	if h := p.author().screenName(); validHandle(h) {
		return "https://x.com/" + h + "/status/" + p.id()
	}
	return "https://x.com/i/status/" + p.id()
}

// userTweetsResponse is the answer of UserTweets, under timeline (2025
// and later) or timeline_v2 (2024).
type userTweetsResponse struct {
	Data struct {
		User struct {
			Result *struct {
				Typename string `json:"__typename"`
				Timeline *struct {
					Timeline struct {
						Instructions []gqlInstruction `json:"instructions"`
					} `json:"timeline"`
				} `json:"timeline"`
				TimelineV2 *struct {
					Timeline struct {
						Instructions []gqlInstruction `json:"instructions"`
					} `json:"timeline"`
				} `json:"timeline_v2"`
			} `json:"result"`
		} `json:"user"`
	} `json:"data"`
}

// instructions are the timeline's instructions in either envelope.
func (r *userTweetsResponse) instructions() []gqlInstruction {
	res := r.Data.User.Result
	switch {
	case res == nil:
		return nil
	case res.Timeline != nil:
		return res.Timeline.Timeline.Instructions
	case res.TimelineV2 != nil:
		return res.TimelineV2.Timeline.Instructions
	}
	return nil
}

// sessionProfile reads a profile as the FxTwitter provider does (profiles
// are public), then, unless expand is "none", its timeline through the
// account's UserTweets, page by page: the way to a protected account's
// posts. The profile is private when the account is protected.
func (a *Adapter) sessionProfile(ctx context.Context, c sessionCredential, ref profileRef, req *adapterv1.FetchRequest) *adapterv1.FetchResponse {
	cursor := req.GetPageCursor()
	out, u, src, fail := a.readProfile(ctx, ref, cursor)
	if fail != nil {
		return fail
	}
	out.SourceResponses = []*adapterv1.SourceResponse{private(src)}
	out.CanonicalTarget = profileTargetOf(u.ID)
	if u.Protected {
		out.Visibility = adapterv1.Visibility_VISIBILITY_PRIVATE
	}
	if req.GetExpand() == adapterv1.ExpandNone {
		return out
	}
	got, e := kit.Collect(ctx, cursor, req.GetPageSize(), len(src.GetBody()), func(ctx context.Context, cursor string, want int) (*kit.UpstreamPage, *adapterv1.Error) {
		return a.sessionTimelinePage(ctx, c, u.ID, cursor, want)
	})
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	out.RelatedTargets = got.Targets
	out.SourceResponses = append(out.SourceResponses, got.Sources...)
	out.NextPageCursor = got.Next
	// What the account listed is the account's view.
	out.Visibility = adapterv1.Visibility_VISIBILITY_PRIVATE
	if !u.Protected {
		out.Visibility = adapterv1.Visibility_VISIBILITY_PUBLIC
	}
	return out
}

// sessionTimelinePage reads one page of UserTweets. A page without posts
// is the end: X keeps answering a bottom cursor past the last post.
func (a *Adapter) sessionTimelinePage(ctx context.Context, c sessionCredential, userID, cursor string, want int) (*kit.UpstreamPage, *adapterv1.Error) {
	vars := map[string]any{"userId": userID, "count": min(max(want, 1), timelineCount), "includePromotedContent": false,
		"withQuickPromoteEligibilityTweetFields": false, "withVoice": false, "withV2Timeline": true}
	if cursor != "" {
		vars["cursor"] = cursor
	}
	resp, e := a.gql(ctx, c, opUserTweets, vars)
	if e != nil {
		return nil, e
	}
	var r userTweetsResponse
	if e := decodeGQL(resp, &r); e != nil {
		return nil, e
	}
	p := &kit.UpstreamPage{Source: private(resp.Source())}
	if r.Data.User.Result == nil {
		if e, ok := missingData(resp); ok {
			return nil, e
		}
		return p, nil // no such account's timeline: nothing more
	}
	tl := readTimeline(r.instructions())
	for _, t := range tl.Tweets {
		post, _ := t.unwrap()
		if post == nil {
			continue
		}
		// A repost stands for the post it repeats.
		if rs := post.Legacy; rs != nil && rs.RetweetedStatusResult != nil && rs.RetweetedStatusResult.Result != nil {
			if orig, _ := rs.RetweetedStatusResult.Result.unwrap(); orig != nil {
				post = orig
			}
		}
		if !post.usable() {
			continue
		}
		u := gqlPostURL(post)
		p.URLs = append(p.URLs, u)
		if at, err := time.Parse(time.RubyDate, post.Legacy.CreatedAt); err == nil {
			if p.Published == nil {
				p.Published = map[string]time.Time{}
			}
			p.Published[u] = at.UTC()
		}
	}
	if len(p.URLs) > 0 && tl.Bottom != "" {
		if !validCursor(tl.Bottom) {
			return nil, kit.BadResponse("X's timeline cursor has characters the X adapter does not expect")
		}
		p.Next = tl.Bottom
	}
	return p, nil
}
