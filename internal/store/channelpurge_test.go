package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// backdate moves a channel row of the fixture's tenant into the past: set
// is the SET list with the time as $2, where the row's key is $1.
func (f channelFixture) backdate(t *testing.T, st *store.Store, table, set, where string, key any, at time.Time) {
	t.Helper()
	ctx := store.WithTenant(context.Background(), f.tenant)
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.SQL().ExecContext(ctx, `UPDATE `+table+` SET `+set+` WHERE `+where, key, at.UTC())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		require.NoError(t, err)
		require.Equal(t, int64(1), n, "%s: one row backdated", table)
		return nil
	}))
}

// reply writes a reply to an update of the fixture's person, as of at.
func (f channelFixture) reply(t *testing.T, st *store.Store, inboxID uuid.UUID, at time.Time) uuid.UUID {
	t.Helper()
	ctx := store.WithTenant(context.Background(), f.tenant)
	id := uuid.Must(uuid.NewV7())
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.SQL().ExecContext(ctx,
			`INSERT INTO replies (id, inbox_id, tenant_id, chat_id, created_at) VALUES ($1, $2, $3, '100', $4)`,
			id, inboxID, f.tenant, at.UTC())
		return err
	}))
	return id
}

// exists reports whether the fixture's tenant still has the row.
func (f channelFixture) exists(t *testing.T, st *store.Store, table, where string, args ...any) bool {
	t.Helper()
	ctx := store.WithTenant(context.Background(), f.tenant)
	var n int
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		return tx.SQL().QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE `+where, args...).Scan(&n)
	}))
	return n > 0
}

// purgeChannel runs every purge step as the periodic job does, acting for
// no tenant, in batches of limit until a batch comes back short, and
// returns how many rows each step deleted.
func purgeChannel(t *testing.T, st *store.Store, cutoff time.Time, limit int) [4]int64 {
	t.Helper()
	ctx := context.Background()
	var total [4]int64
	steps := []func(*store.Tx, context.Context, time.Time, int) (int64, error){
		(*store.Tx).ChannelWorkDeleteBefore, (*store.Tx).ReplyDeleteBefore,
		(*store.Tx).InboxDeleteBefore, (*store.Tx).ChannelMessageDeleteBefore,
	}
	for i, del := range steps {
		for {
			var n int64
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				var err error
				n, err = del(tx, ctx, cutoff, limit)
				return err
			}))
			require.LessOrEqual(t, n, int64(limit), "a batch is bounded")
			total[i] += n
			if n < int64(limit) {
				break
			}
		}
	}
	return total
}

func TestChannelPurgeDeletesOnlyOldFinishedRows(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := newChannelFixture(t, st, "tg1", "1")
		b := newChannelFixture(t, st, "tg2", "2")

		// Alice's updates: two that ended long ago, one waiting and one
		// leased since long ago, one that ended just now; Bob's ended long
		// ago. Every item is claimed, then ended, deferred or kept leased.
		var items [6]store.ChannelWork
		for i := range items {
			f := a
			if i == 5 {
				f = b
			}
			w, ok := f.update(t, st, int64(10+i))
			require.True(t, ok)
			items[i] = w
		}
		doneOld, failedOld, pendingOld, leasedOld, doneNew, bobDoneOld := items[0], items[1], items[2], items[3], items[4], items[5]
		now := time.Now().UTC()
		old := now.Add(-40 * 24 * time.Hour)
		cutoff := now.Add(-30 * 24 * time.Hour)
		claimed, err := st.ChannelWorkClaim(ctx, a.channel.ID, "bot", 10, now, now.Add(time.Minute))
		require.NoError(t, err)
		require.Len(t, claimed, len(items))
		for _, e := range []struct {
			f     channelFixture
			w     store.ChannelWork
			state string
		}{
			{a, doneOld, store.WorkDone}, {a, failedOld, store.WorkFailed}, {a, pendingOld, store.WorkPending},
			{a, doneNew, store.WorkDone}, {b, bobDoneOld, store.WorkDone},
		} {
			tctx := store.WithTenant(ctx, e.f.tenant)
			require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
				var err error
				if e.state == store.WorkPending {
					_, err = tx.ChannelWorkDefer(tctx, e.w.ID, "bot", now, now.Add(time.Hour), "later")
				} else {
					_, err = tx.ChannelWorkFinish(tctx, e.w.ID, "bot", now, e.state, "")
				}
				return err
			}))
		}
		for _, e := range []struct {
			f channelFixture
			w store.ChannelWork
		}{{a, doneOld}, {a, failedOld}, {a, pendingOld}, {a, leasedOld}, {b, bobDoneOld}} {
			e.f.backdate(t, st, "channel_work", "created_at = $2, updated_at = $2", "id = $1", e.w.ID, old)
			e.f.backdate(t, st, "inbox", "created_at = $2", "id = $1", *e.w.InboxID, old)
		}
		// An old update whose work ended just now stays with its update.
		a.backdate(t, st, "inbox", "created_at = $2", "id = $1", *doneNew.InboxID, old)

		// Replies: an old one to a finished update, an old one to the
		// waiting update, a recent one to a finished old update.
		replyOld := a.reply(t, st, *doneOld.InboxID, old)
		replyWaiting := a.reply(t, st, *pendingOld.InboxID, old)
		replyNew := a.reply(t, st, *failedOld.InboxID, now)

		// Bot messages with buttons: old and recent ones of Alice, an old
		// one of Bob.
		for _, m := range []struct {
			f   channelFixture
			id  string
			old bool
		}{{a, "900", true}, {a, "901", false}, {b, "902", true}} {
			mctx := store.WithTenant(ctx, m.f.tenant)
			require.NoError(t, st.InTx(mctx, func(tx *store.Tx) error {
				return tx.ChannelMessagesInsert(mctx, a.channel.ID, "100", []string{m.id}, m.f.tenant, m.f.identity.ID)
			}))
			if m.old {
				m.f.backdate(t, st, "channel_messages", "created_at = $2", "message_id = $1", m.id, old)
			}
		}

		// A batch of one: every step repeats until a batch comes back short.
		got := purgeChannel(t, st, cutoff, 1)
		require.Equal(t, [4]int64{3, 1, 2, 2}, got, "work, replies, inbox, messages deleted")

		gone := func(f channelFixture, w store.ChannelWork) {
			t.Helper()
			_, err := st.ChannelWorkGet(store.WithTenant(ctx, f.tenant), w.ID)
			require.ErrorIs(t, err, store.ErrNotFound, "work %s", w.ID)
		}
		kept := func(f channelFixture, w store.ChannelWork, state string) {
			t.Helper()
			got, err := st.ChannelWorkGet(store.WithTenant(ctx, f.tenant), w.ID)
			require.NoError(t, err, "work %s", w.ID)
			require.Equal(t, state, got.State)
			_, err = st.InboxGet(store.WithTenant(ctx, f.tenant), *w.InboxID)
			require.NoError(t, err, "the update of work %s", w.ID)
		}
		inboxGone := func(f channelFixture, id uuid.UUID) {
			t.Helper()
			_, err := st.InboxGet(store.WithTenant(ctx, f.tenant), id)
			require.ErrorIs(t, err, store.ErrNotFound, "inbox %s", id)
		}

		// Old finished work goes, and its update with it, whoever's it is.
		gone(a, doneOld)
		inboxGone(a, *doneOld.InboxID)
		gone(b, bobDoneOld)
		inboxGone(b, *bobDoneOld.InboxID)
		require.False(t, a.exists(t, st, "replies", "id = $1", replyOld))
		// Old failed work goes, but a recent reply keeps its update.
		gone(a, failedOld)
		_, err = st.InboxGet(store.WithTenant(ctx, a.tenant), *failedOld.InboxID)
		require.NoError(t, err, "a recent reply still refers to the update")
		require.True(t, a.exists(t, st, "replies", "id = $1", replyNew))
		// Waiting and leased work is never purged, however old, nor are its
		// update and the reply to it.
		kept(a, pendingOld, store.WorkPending)
		kept(a, leasedOld, store.WorkLeased)
		require.True(t, a.exists(t, st, "replies", "id = $1", replyWaiting))
		// Recently finished work stays with its (old) update.
		kept(a, doneNew, store.WorkDone)

		// Old button messages go: a press finds nothing.
		_, err = st.ChannelMessageGet(store.WithTenant(ctx, a.tenant), a.channel.ID, "100", "900")
		require.ErrorIs(t, err, store.ErrNotFound)
		_, err = st.ChannelMessageGet(store.WithTenant(ctx, b.tenant), a.channel.ID, "100", "902")
		require.ErrorIs(t, err, store.ErrNotFound)
		m, err := st.ChannelMessageGet(store.WithTenant(ctx, a.tenant), a.channel.ID, "100", "901")
		require.NoError(t, err)
		require.Equal(t, a.identity.ID, m.IdentityID)

		// Nothing more is old enough; a later cutoff takes the rest of the
		// finished rows but still no waiting or leased work.
		require.Equal(t, [4]int64{}, purgeChannel(t, st, cutoff, 1))
		got = purgeChannel(t, st, now.Add(time.Hour), 100)
		require.Equal(t, [4]int64{1, 1, 2, 1}, got, "the recently done work, the recent reply (not the waiting one), the updates they held, the recent message")
		kept(a, pendingOld, store.WorkPending)
		kept(a, leasedOld, store.WorkLeased)
		require.True(t, a.exists(t, st, "replies", "id = $1", replyWaiting))
	})
}
