package x

import (
	"context"
	"time"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// fetchThread reads /2/thread/{id}: the post, archived as fetchPost does,
// with the other posts of its author's thread as related targets in
// thread order (refresh_after_seconds 0: an archived one is reused). Posts
// of other accounts in the answer (replies) are not the author's thread
// and are left out.
func (a *Adapter) fetchThread(ctx context.Context, id string) *adapterv1.FetchResponse {
	resp, e := a.fx.Get(ctx, "/2/thread/"+id)
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	if e := a.upstreamStatusError(resp, resp.StatusCode, msgPostNotFound, msgPostPrivate); e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	var r fxThreadResponse
	if e := decodeJSON(resp, &r); e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	if r.Code >= 300 {
		if e := a.upstreamStatusError(resp, r.Code, msgPostNotFound, msgPostPrivate); e != nil {
			return &adapterv1.FetchResponse{Error: e}
		}
	}
	st, e := checkStatus(r.Status, id)
	if e != nil {
		return &adapterv1.FetchResponse{Error: e}
	}
	out, err := buildPost(st, time.Now())
	if err != nil {
		return kit.FetchError(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, "cannot encode the post: "+err.Error())
	}
	out.SourceResponses = []*adapterv1.SourceResponse{resp.Source()}
	seen := map[string]bool{st.ID: true}
	for _, p := range r.Thread {
		if p == nil || p.Type == "tombstone" || !canonicalID(p.ID) || seen[p.ID] ||
			p.Author == nil || p.Author.ID != st.Author.ID {
			continue
		}
		seen[p.ID] = true
		if len(out.RelatedTargets) >= kit.MaxRelatedTargets {
			// X unrolls far shorter threads; the bound only keeps a
			// hostile answer from making the page one core refuses.
			break
		}
		out.RelatedTargets = append(out.RelatedTargets, &adapterv1.RelatedTarget{Url: postURL(p)})
	}
	return out
}
