package x

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// reservedPaths are first path segments of x.com pages that are not
// profiles. "i" is handled before this list (it has post and user forms).
func reservedPath(seg string) bool {
	switch seg {
	case "home", "explore", "search", "settings", "i", "messages", "notifications",
		"compose", "hashtag", "login", "logout", "signup", "tos", "privacy", "intent", "share":
		return true
	}
	return false
}

// profileTab reports whether seg, after a handle, is a tab of the profile
// page; such URLs resolve to the profile itself.
func profileTab(seg string) bool {
	switch seg {
	case "media", "with_replies", "highlights", "articles", "likes",
		"followers", "following", "verified_followers":
		return true
	}
	return false
}

// Resolve turns an X URL into a target. Failures are answered in
// ResolveResponse.error; only an empty request is an RPC error.
func (a *Adapter) Resolve(_ context.Context, req *adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error) {
	if err := kit.CheckRequest(req); err != nil {
		return nil, err
	}
	return resolve(req.GetUrl()), nil
}

// resolve does the work of Resolve on a non-empty URL.
func resolve(raw string) *adapterv1.ResolveResponse {
	segs, resp := gate().Check(raw)
	if resp != nil {
		return resp
	}
	first := strings.ToLower(segs[0])

	if first == "i" {
		return resolveI(segs)
	}
	if reservedPath(first) {
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("x.com/%s is an X page, not a post or a profile; send a link to a post or a profile", first))
	}
	handle := segs[0]
	if !validHandle(handle) {
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
			fmt.Sprintf("%s is not a valid X handle (1 to %d letters, digits or _)", kit.Quote(handle), maxHandleLen))
	}
	handle = strings.ToLower(handle)
	if len(segs) == 1 || (len(segs) == 2 && profileTab(strings.ToLower(segs[1]))) {
		return profileTarget("@"+handle, "https://x.com/"+handle)
	}
	if second := strings.ToLower(segs[1]); second == "status" || second == "statuses" {
		if len(segs) < 3 {
			return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, "the link has no post id after /status/; copy the link again")
		}
		id, errResp := postID(segs[2])
		if errResp != nil {
			return errResp
		}
		// Anything after the id (/photo/1, /video/1, /analytics, a
		// translation suffix) points into the same post.
		return postTarget(id, "https://x.com/"+handle+"/status/"+id)
	}
	return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
		"this X page is not supported; send a link to a post (x.com/<handle>/status/<id>) or a profile (x.com/<handle>)")
}

// resolveI handles the /i/... forms: /i/status/<id>, /i/web/status/<id>
// and /i/user/<id>.
func resolveI(segs []string) *adapterv1.ResolveResponse {
	missing := kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, "the link is missing its id; copy the link again")
	unsupported := kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
		"this x.com/i/ page is not a post or a profile; send a link to a post or a profile")
	if len(segs) < 2 {
		return unsupported
	}
	switch strings.ToLower(segs[1]) {
	case "status":
		if len(segs) < 3 {
			return missing
		}
		return iPost(segs[2])
	case "web":
		if len(segs) < 3 || strings.ToLower(segs[2]) != "status" {
			return unsupported
		}
		if len(segs) < 4 {
			return missing
		}
		return iPost(segs[3])
	case "user":
		if len(segs) < 3 {
			return missing
		}
		if len(segs) > 3 {
			return unsupported
		}
		id, ok := parseID(segs[2])
		if !ok {
			return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
				fmt.Sprintf("user id %s is not a valid X user id", kit.Quote(segs[2])))
		}
		return profileTarget(id, "https://x.com/i/user/"+id)
	}
	return unsupported
}

// iPost resolves the id of an /i/status or /i/web/status link, which has no
// handle to put in the canonical URL.
func iPost(seg string) *adapterv1.ResolveResponse {
	id, errResp := postID(seg)
	if errResp != nil {
		return errResp
	}
	return postTarget(id, "https://x.com/i/status/"+id)
}

// postID validates a post id segment and returns it in canonical form.
func postID(seg string) (string, *adapterv1.ResolveResponse) {
	id, ok := parseID(seg)
	if !ok {
		return "", kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
			fmt.Sprintf("post id %s is not a valid X post id", kit.Quote(seg)))
	}
	return id, nil
}

// parseID accepts a non-zero decimal number that fits in uint64 and
// returns it without leading zeros. X ids are 64-bit snowflakes.
func parseID(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	n, err := strconv.ParseUint(strings.TrimLeft(s, "0"), 10, 64)
	if err != nil || n == 0 {
		return "", false
	}
	return strconv.FormatUint(n, 10), true
}

// maxHandleLen bounds handles. X issues at most 15 characters today, but
// older accounts (and the recorded fixtures' harbor_notes_demo) have longer
// ones, and X routes post links by id alone, so links with them must work.
const maxHandleLen = 50

// validHandle accepts 1 to maxHandleLen of [A-Za-z0-9_].
func validHandle(s string) bool {
	return len(s) >= 1 && len(s) <= maxHandleLen && isHandleText(s)
}

// isHandleText reports whether s has only [A-Za-z0-9_].
func isHandleText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func postTarget(id, canonical string) *adapterv1.ResolveResponse {
	return &adapterv1.ResolveResponse{Target: &adapterv1.Target{
		Platform:     Platform,
		EntityType:   EntityTypePost,
		ExternalId:   id,
		CanonicalUrl: canonical,
	}}
}

// profileTarget: an explicit submit of a profile always reads it again and
// expands its posts. externalID is "@<handle>" (lowercase), which Fetch
// answers with the canonical target "<id>", or "<id>" itself: the "@"
// keeps a handle of digits apart from a user id.
func profileTarget(externalID, canonical string) *adapterv1.ResolveResponse {
	return &adapterv1.ResolveResponse{
		Target: &adapterv1.Target{
			Platform:     Platform,
			EntityType:   EntityTypeProfile,
			ExternalId:   externalID,
			CanonicalUrl: canonical,
		},
		RefreshOnSubmit: true,
		Collection:      true,
	}
}
