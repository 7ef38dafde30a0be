package kit_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// pages is a collection of numbered members, size a page, cursors
// "p<offset>", each answer bodyBytes long.
type pages struct {
	total, size int
	bodyBytes   int
	reads       int
}

func (p *pages) read(_ context.Context, cursor string, _ int) (*kit.UpstreamPage, *adapterv1.Error) {
	p.reads++
	off := 0
	if cursor != "" {
		off, _ = strconv.Atoi(cursor[1:])
	}
	out := &kit.UpstreamPage{Source: &adapterv1.SourceResponse{Body: make([]byte, p.bodyBytes)}}
	end := min(off+p.size, p.total)
	for i := off; i < end; i++ {
		out.URLs = append(out.URLs, fmt.Sprintf("https://example.org/%d", i))
	}
	if end < p.total {
		out.Next = "p" + strconv.Itoa(end)
	}
	return out, nil
}

func TestCollect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	p := &pages{total: 250, size: 30}
	got, e := kit.Collect(ctx, "", 0, 0, p.read)
	require.Nil(t, e)
	require.Len(t, got.Targets, 120, "whole pages up to the default 100")
	require.Equal(t, "p120", got.Next)
	require.Len(t, got.Sources, 4)

	p = &pages{total: 50, size: 30}
	got, e = kit.Collect(ctx, "", 0, 0, p.read)
	require.Nil(t, e)
	require.Len(t, got.Targets, 50)
	require.Empty(t, got.Next, "the end")

	// 190 then a page of 30: the page that would pass 200 waits.
	p = &pages{total: 400, size: 190}
	got, e = kit.Collect(ctx, "", 1000, 0, p.read)
	require.Nil(t, e)
	require.Len(t, got.Targets, 190)
	require.Equal(t, "p190", got.Next)

	// A first page over 200 cannot be kept at all.
	p = &pages{total: 400, size: 201}
	_, e = kit.Collect(ctx, "", 0, 0, p.read)
	require.Equal(t, adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE, e.GetCode())
	require.Contains(t, e.GetMessage(), "201 posts")

	// Raw answers stop before core's 4 MiB per capture.
	p = &pages{total: 400, size: 10, bodyBytes: 1 << 20}
	got, e = kit.Collect(ctx, "", 0, 1<<20, p.read)
	require.Nil(t, e)
	require.Len(t, got.Targets, 30, "1 MiB kept already, three more pages fit")
	require.Equal(t, "p30", got.Next)

	// At most 20 upstream reads.
	p = &pages{total: 400, size: 1}
	got, e = kit.Collect(ctx, "", 0, 0, p.read)
	require.Nil(t, e)
	require.Equal(t, 20, p.reads)
	require.Equal(t, "p20", got.Next)
}

func TestCollectFailure(t *testing.T) {
	t.Parallel()
	fail := kit.Retryable(adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, "down")
	calls := 0
	read := func(_ context.Context, cursor string, _ int) (*kit.UpstreamPage, *adapterv1.Error) {
		calls++
		if calls == 3 {
			return nil, fail
		}
		return &kit.UpstreamPage{URLs: []string{"u" + cursor}, Next: cursor + "x"}, nil
	}
	got, e := kit.Collect(context.Background(), "c", 0, 0, read)
	require.Nil(t, e)
	require.Len(t, got.Targets, 2)
	require.Equal(t, "cxx", got.Next, "resume at the page that failed")

	_, e = kit.Collect(context.Background(), "", 0, 0, func(context.Context, string, int) (*kit.UpstreamPage, *adapterv1.Error) {
		return nil, fail
	})
	require.Equal(t, fail, e, "nothing read: the failure is the answer")
}
