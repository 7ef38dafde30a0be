package tgchannel

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
)

func TestChatOrderRunsAChatsUpdatesInTurn(t *testing.T) {
	t.Parallel()
	var o chatOrder
	upd := func(chat int64) channelapi.Work {
		return channelapi.Work{ID: uuid.New(), Kind: channelapi.WorkUpdate, Update: &channelapi.Update{ChatID: chat}}
	}
	first, second, other := o.next(upd(1)), o.next(upd(1)), o.next(upd(2))
	deliver := o.next(channelapi.Work{Kind: channelapi.WorkDeliver})
	ctx := t.Context()
	require.NoError(t, first.wait(ctx))
	require.NoError(t, other.wait(ctx), "other chats do not wait")
	require.NoError(t, deliver.wait(ctx), "deliveries do not wait")

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, second.wait(short), context.DeadlineExceeded, "the second waits for the first")
	first.done()
	require.NoError(t, second.wait(ctx))
	second.done()
	other.done()
	deliver.done()
	require.Empty(t, o.last, "nothing left behind")
}
