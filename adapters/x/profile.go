package x

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Messages of the profile errors people see.
const (
	msgProfileNotFound  = "X account %s not found: check the handle, or the account was deleted or renamed"
	msgProfileSuspended = "X account %s is suspended"
	msgProfilePrivate   = "X account %s is protected: only its approved followers see its posts, and Monitor has no X account connection to read them"
)

// timelineCount is the most posts asked of one timeline page (FxTwitter
// accepts 1 to 100).
const timelineCount = 100

// maxCursorLen bounds page cursors; FxTwitter's are about 50 characters.
const maxCursorLen = 1024

// profileRef is how a profile target names its account: by handle, or
// by the stable numeric id.
type profileRef struct {
	handle string // lowercase; empty when id is set
	id     string
}

// parseProfileRef reads a profile target's external id: "@<handle>" or a
// bare handle (Resolve's temporary forms), "<id>" (the canonical form) or
// "id:<id>" (older targets). A handle of digits only reads as an id.
func parseProfileRef(externalID string) (profileRef, bool) {
	s := externalID
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		return profileRef{handle: strings.ToLower(rest)}, validHandle(rest)
	}
	if rest, ok := strings.CutPrefix(s, "id:"); ok {
		s = rest
	}
	if id, ok := parseID(s); ok {
		return profileRef{id: id}, true
	}
	if strings.HasPrefix(externalID, "id:") {
		return profileRef{}, false
	}
	return profileRef{handle: strings.ToLower(s)}, validHandle(s)
}

// path is the {handle} of FxTwitter's profile routes.
func (r profileRef) path() string {
	if r.id != "" {
		return "id:" + r.id
	}
	return r.handle
}

// String names the account in messages.
func (r profileRef) String() string {
	if r.id != "" {
		return "with id " + r.id
	}
	return "@" + r.handle
}

// profileTargetOf is the stable target of the account with id: what
// FetchResponse.canonical_target says for every profile, so that a
// profile submitted by handle and by id land in one collection.
func profileTargetOf(id string) *adapterv1.Target {
	return &adapterv1.Target{
		Platform:     Platform,
		EntityType:   EntityTypeProfile,
		ExternalId:   id,
		CanonicalUrl: "https://x.com/i/user/" + id,
	}
}

// fetchProfile reads /2/profile/{handle} and, unless expand is "none",
// the timeline from cursor as related targets.
func (a *Adapter) fetchProfile(ctx context.Context, ref profileRef, req *adapterv1.FetchRequest) *adapterv1.FetchResponse {
	cursor := req.GetPageCursor()
	out, u, src, fail := a.readProfile(ctx, ref, cursor)
	if fail != nil {
		return fail
	}
	out.SourceResponses = []*adapterv1.SourceResponse{src}
	out.CanonicalTarget = profileTargetOf(u.ID)
	if req.GetExpand() == adapterv1.ExpandNone {
		return out
	}
	if u.Protected {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_PRIVATE, fmt.Sprintf(msgProfilePrivate, "@"+u.ScreenName))
	}
	who := "id:" + u.ID
	if validHandle(u.ScreenName) {
		who = u.ScreenName
	}
	got, e := kit.Collect(ctx, cursor, req.GetPageSize(), len(src.GetBody()), func(ctx context.Context, cursor string, want int) (*kit.UpstreamPage, *adapterv1.Error) {
		return a.timelinePage(ctx, who, cursor, want)
	})
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	out.RelatedTargets = got.Targets
	out.SourceResponses = append(out.SourceResponses, got.Sources...)
	out.NextPageCursor = got.Next
	return out
}

// validCursor accepts the characters of FxTwitter's cursors (base64 and
// URL-safe base64 with a few separators).
func validCursor(s string) bool {
	if len(s) > maxCursorLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_=+/.:~|", c) >= 0) {
			return false
		}
	}
	return true
}

// decodeProfile maps FxTwitter's answer of /2/profile/{handle} to the
// account or the error a person reads.
func (a *Adapter) decodeProfile(resp *kit.Response, ref profileRef) (*fxUser, *adapterv1.Error) {
	var r fxProfileResponse
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		if e := decodeJSON(resp, &r); e != nil {
			return nil, e
		}
		if r.Code >= 300 {
			code = r.Code
		}
	} else {
		_ = decodeJSON(resp, &r) // the error body's reason, when it has one
	}
	switch code {
	case http.StatusNotFound, http.StatusGone:
		if shortReason(r.Reason) == "suspended" {
			return nil, kit.NotFound(fmt.Sprintf(msgProfileSuspended, ref), "suspended")
		}
		return nil, kit.NotFound(fmt.Sprintf(msgProfileNotFound, ref), shortReason(r.Reason))
	case http.StatusUnauthorized:
		return nil, kit.Err(adapterv1.ErrorCode_ERROR_CODE_PRIVATE, fmt.Sprintf(msgProfilePrivate, ref))
	}
	if e := a.upstreamStatusError(resp, code, fmt.Sprintf(msgProfileNotFound, ref), fmt.Sprintf(msgProfilePrivate, ref)); e != nil {
		return nil, e
	}
	u := r.User
	switch {
	case u == nil:
		return nil, kit.BadResponse("FxTwitter's answer is missing user")
	case !canonicalID(u.ID):
		return nil, kit.BadResponse(fmt.Sprintf("FxTwitter's user.id %s is not an X user id", kit.Quote(u.ID)))
	case u.ScreenName == "":
		return nil, kit.BadResponse("FxTwitter's answer is missing user.screen_name")
	case ref.id != "" && u.ID != ref.id, ref.handle != "" && !strings.EqualFold(u.ScreenName, ref.handle):
		return nil, kit.BadResponse(fmt.Sprintf("FxTwitter answered with account %s (id %s) instead of the account %s",
			kit.Quote("@"+u.ScreenName), u.ID, ref))
	}
	return u, nil
}

// buildProfile is the FetchResponse of an account: its x.profile entity
// with the avatar (without the size suffix) and the banner as resources.
func buildProfile(u *fxUser) (*adapterv1.FetchResponse, error) {
	g := &kit.Graph{}
	var res []*adapterv1.Media
	if m := profileImage(u.AvatarURL, purposeAvatar); m != nil {
		res = append(res, m)
	}
	if m := profileImage(u.BannerURL, purposeBanner); m != nil {
		res = append(res, m)
	}
	key := "profile:" + u.ID
	if err := g.AddEntity(key, EntityTypeProfile, u.ID, profileDataOf(u), g.AddMedia(res...)); err != nil {
		return nil, err
	}
	name := u.Name
	if name == "" {
		name = "@" + u.ScreenName
	}
	return &adapterv1.FetchResponse{
		Visibility: adapterv1.Visibility_VISIBILITY_PUBLIC,
		Display: &adapterv1.Display{
			Text:       u.Description,
			TextKind:   adapterv1.TextKind_TEXT_KIND_PLAIN,
			Summary:    summary(name, u.Description, nil),
			AuthorName: name,
		},
		Media: g.Media,
		Graph: g.Proto(key),
	}, nil
}

// timelinePage reads one page of /2/profile/{who}/statuses. A 404 there
// (FxTwitter's "user not found or empty timeline", after the profile was
// found) is the end of the timeline.
func (a *Adapter) timelinePage(ctx context.Context, who, cursor string, want int) (*kit.UpstreamPage, *adapterv1.Error) {
	q := url.Values{"count": {strconv.Itoa(min(max(want, 1), timelineCount))}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	resp, e := a.fx.Get(ctx, "/2/profile/"+url.PathEscape(who)+"/statuses?"+q.Encode())
	if e != nil {
		return nil, e
	}
	if resp.StatusCode == http.StatusNotFound {
		return &kit.UpstreamPage{Source: resp.Source()}, nil
	}
	if e := a.upstreamStatusError(resp, resp.StatusCode, "the timeline of @"+who+" was not found", fmt.Sprintf(msgProfilePrivate, "@"+who)); e != nil {
		return nil, e
	}
	var tl fxTimelineResponse
	if e := decodeJSON(resp, &tl); e != nil {
		return nil, e
	}
	if tl.Code == http.StatusNotFound {
		return &kit.UpstreamPage{Source: resp.Source()}, nil
	}
	if tl.Code >= 300 {
		if e := a.upstreamStatusError(resp, tl.Code, "the timeline of @"+who+" was not found", fmt.Sprintf(msgProfilePrivate, "@"+who)); e != nil {
			return nil, e
		}
	}
	p := &kit.UpstreamPage{Source: resp.Source()}
	for _, st := range tl.Results {
		// A post FxTwitter could not load leaves no target; its id, if
		// any, is not enough to name it.
		if st == nil || st.Type == "tombstone" || !canonicalID(st.ID) {
			continue
		}
		u := postURL(st)
		p.URLs = append(p.URLs, u)
		if at, ok := publishedAt(st); ok {
			if p.Published == nil {
				p.Published = map[string]time.Time{}
			}
			p.Published[u] = at
		}
	}
	if tl.Cursor != nil && tl.Cursor.Bottom != nil {
		p.Next = *tl.Cursor.Bottom
		if !validCursor(p.Next) {
			return nil, kit.BadResponse("FxTwitter's timeline cursor has characters the X adapter does not expect")
		}
	}
	return p, nil
}

// readProfile checks the page cursor, then reads and builds the profile
// from /2/profile/{handle} (profiles are public, whichever provider
// asks); fail, when not nil, is the answer to give instead.
func (a *Adapter) readProfile(ctx context.Context, ref profileRef, cursor string) (out *adapterv1.FetchResponse, u *fxUser, src *adapterv1.SourceResponse, fail *adapterv1.FetchResponse) {
	if cursor != "" && !validCursor(cursor) {
		return nil, u, nil, kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("page cursor %s is not one the X adapter gave; start from the first page", kit.Quote(cursor)))
	}
	resp, e := a.fx.Get(ctx, "/2/profile/"+url.PathEscape(ref.path()))
	if e != nil {
		return nil, u, nil, &adapterv1.FetchResponse{Error: e}
	}
	if u, e = a.decodeProfile(resp, ref); e != nil {
		return nil, u, nil, &adapterv1.FetchResponse{Error: e}
	}
	out, err := buildProfile(u)
	if err != nil {
		return nil, u, nil, kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, "cannot encode the profile: "+err.Error())
	}
	return out, u, resp.Source(), nil
}
