package kit

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Bounds of one collection page (seed 000, "关联目标和 Profile 采集").
const (
	// DefaultPageSize is the number of related targets a page aims for
	// when FetchRequest.page_size is 0.
	DefaultPageSize = 100
	// MaxRelatedTargets is the most related targets one FetchResponse
	// carries; core refuses a page with more.
	MaxRelatedTargets = 200
	// MaxUpstreamPages is the most upstream pages one Fetch reads.
	MaxUpstreamPages = 20
	// MaxSourceBytes is what core keeps of raw upstream responses per
	// capture; a page whose answers would pass it stops before.
	MaxSourceBytes = 4 << 20
)

// UpstreamPage is one page of a collection as an adapter read it.
type UpstreamPage struct {
	// Source is the raw answer, kept with the capture.
	Source *adapterv1.SourceResponse
	// URLs are the page's members in the platform's order.
	URLs []string
	// Published is when members were published, by URL, where the page
	// shows it; the targets carry it.
	Published map[string]time.Time
	// Next is the cursor of the following page; empty at the end.
	Next string
}

// ReadPage reads the upstream page at cursor ("" for the first); want is
// how many members are still wanted, for upstreams that take a count.
type ReadPage func(ctx context.Context, cursor string, want int) (*UpstreamPage, *adapterv1.Error)

// Collected is what Collect gathered for one FetchResponse.
type Collected struct {
	// Targets are the members, de-duplicated, refresh_after_seconds 0.
	Targets []*adapterv1.RelatedTarget
	// Sources are the raw answers of the pages whose members were taken.
	Sources []*adapterv1.SourceResponse
	// Next is the cursor to continue from; empty at the end.
	Next string
}

// Collect reads a collection from cursor, page after page, until it has
// pageSize members (0: DefaultPageSize; at most MaxRelatedTargets), the
// collection ends, or MaxUpstreamPages were read; spent is the size of
// the raw answers the Fetch already keeps. A page is taken whole or not at
// all: one that would pass MaxRelatedTargets or MaxSourceBytes is left for
// the next Fetch. A failure on the first page is the Fetch's error; a
// later one ends the page early, and Next resumes at the failed page, so
// the progress so far is kept.
func Collect(ctx context.Context, cursor string, pageSize uint32, spent int, read ReadPage) (*Collected, *adapterv1.Error) {
	want := int(pageSize)
	if want <= 0 {
		want = DefaultPageSize
	}
	want = min(want, MaxRelatedTargets)
	out := &Collected{}
	seen := map[string]bool{}
	for n := 0; n < MaxUpstreamPages; n++ {
		p, e := read(ctx, cursor, want-len(out.Targets))
		if e != nil {
			if n == 0 {
				return nil, e
			}
			out.Next = cursor
			return out, nil
		}
		var fresh []string
		for _, u := range p.URLs {
			if !seen[u] {
				seen[u] = true
				fresh = append(fresh, u)
			}
		}
		size := 0
		if p.Source != nil {
			size = len(p.Source.GetBody())
		}
		if len(out.Targets)+len(fresh) > MaxRelatedTargets || spent+size > MaxSourceBytes {
			if n == 0 {
				return nil, Err(adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE, fmt.Sprintf(
					"one upstream page has %d posts in %s, over the %d posts or %s one capture keeps; it was not kept",
					len(fresh), ByteSize(int64(size)), MaxRelatedTargets, ByteSize(MaxSourceBytes)))
			}
			out.Next = cursor
			return out, nil
		}
		spent += size
		for _, u := range fresh {
			rt := &adapterv1.RelatedTarget{Url: u}
			if at, ok := p.Published[u]; ok && !at.IsZero() {
				rt.PublishedAt = timestamppb.New(at)
			}
			out.Targets = append(out.Targets, rt)
		}
		if p.Source != nil {
			out.Sources = append(out.Sources, p.Source)
		}
		if len(p.URLs) == 0 || p.Next == "" || p.Next == cursor {
			return out, nil
		}
		cursor = p.Next
		if len(out.Targets) >= want {
			break
		}
	}
	out.Next = cursor
	return out, nil
}
