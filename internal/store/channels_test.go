package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// channelFixture is a channel with one person: a tenant and its identity.
type channelFixture struct {
	channel  store.Channel
	tenant   uuid.UUID
	identity store.Identity
}

func newChannelFixture(t *testing.T, st *store.Store, name, user string) channelFixture {
	t.Helper()
	ctx := context.Background()
	var f channelFixture
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		var err error
		f.channel, err = tx.ChannelUpsert(ctx, "telegram", "bot-1", "monitor_bot")
		return err
	}))
	tctx, id := newTenantCtx(ctx)
	f.tenant = id
	require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
		if _, err := tx.TenantInsert(tctx, store.Tenant{ID: id, Name: name, Kind: store.TenantPersonal, Status: store.TenantEnabled}); err != nil {
			return err
		}
		var err error
		f.identity, err = tx.IdentityInsert(tctx, store.Identity{ChannelID: f.channel.ID, ExternalID: user, TenantID: id})
		return err
	}))
	return f
}

// update stores an update of the fixture's person with its work item,
// reporting whether it was new.
func (f channelFixture) update(t *testing.T, st *store.Store, updateID int64) (store.ChannelWork, bool) {
	t.Helper()
	ctx := store.WithTenant(context.Background(), f.tenant)
	var w store.ChannelWork
	var created bool
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		e, ok, err := tx.InboxInsert(ctx, store.InboxEntry{ChannelID: f.channel.ID, UpdateID: updateID, TenantID: f.tenant,
			IdentityID: f.identity.ID, Kind: "message", Payload: []byte(`{"text":"hi"}`)})
		if err != nil || !ok {
			return err
		}
		created = true
		w, err = tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: f.channel.ID, Kind: store.WorkUpdate, InboxID: &e.ID, TenantID: f.tenant})
		return err
	}))
	return w, created
}

func TestChannelUpdatesAreStoredOnceAndTheOffsetOnlyAdvances(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		f := newChannelFixture(t, st, "tg42", "42")

		// Registering the same bot again keeps its id and offset.
		var again store.Channel
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			again, err = tx.ChannelUpsert(ctx, "telegram", "bot-1", "renamed_bot")
			return err
		}))
		require.Equal(t, f.channel.ID, again.ID)
		require.Equal(t, "renamed_bot", again.Name)

		_, created := f.update(t, st, 7)
		require.True(t, created)
		_, created = f.update(t, st, 7)
		require.False(t, created, "a redelivered update is not stored twice")
		_, created = f.update(t, st, 8)
		require.True(t, created)
		n, err := st.InboxCount(store.WithTenant(ctx, f.tenant), f.channel.ID)
		require.NoError(t, err)
		require.Equal(t, 2, n)

		advance := func(next int64) int64 {
			var stored int64
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				var err error
				stored, err = tx.ChannelAdvanceOffset(ctx, f.channel.ID, next)
				return err
			}))
			return stored
		}
		require.Equal(t, int64(9), advance(9))
		require.Equal(t, int64(9), advance(3), "the offset never moves back")
		got, err := st.ChannelGet(ctx, f.channel.ID)
		require.NoError(t, err)
		require.Equal(t, int64(9), got.NextOffset)
	})
}

func TestIdentityLookupFindsEveryTenantsIdentity(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newChannelFixture(t, st, "tg42", "42")
		// No tenant in the context: resolution happens before it is known.
		got, err := st.IdentityLookup(context.Background(), f.channel.ID, "42")
		require.NoError(t, err)
		require.Equal(t, f.identity.ID, got.ID)
		require.Equal(t, f.tenant, got.TenantID)
		_, err = st.IdentityLookup(context.Background(), f.channel.ID, "43")
		require.ErrorIs(t, err, store.ErrNotFound)

		var dup error
		ctx := store.WithTenant(context.Background(), f.tenant)
		dup = st.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.IdentityInsert(ctx, store.Identity{ChannelID: f.channel.ID, ExternalID: "42", TenantID: f.tenant})
			return err
		})
		require.ErrorIs(t, dup, store.ErrConflict, "one identity per (channel, user)")
	})
}

func TestChannelWorkLeaseExpiresAndGoesToAnotherOwner(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		f := newChannelFixture(t, st, "tg42", "42")
		w, _ := f.update(t, st, 1)
		tctx := store.WithTenant(ctx, f.tenant)
		ttl := 90 * time.Second
		t0 := time.Now().UTC().Add(time.Second)

		got, err := st.ChannelWorkClaim(ctx, f.channel.ID, "bot-a", 10, t0, t0.Add(ttl))
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, w.ID, got[0].ID)
		require.Equal(t, f.tenant, got[0].TenantID, "the claim says which tenant the work acts for")
		require.Equal(t, 1, got[0].Attempts)
		tenantID, err := st.ChannelWorkTenant(ctx, w.ID)
		require.NoError(t, err)
		require.Equal(t, f.tenant, tenantID)

		// Leased: nobody else gets it while the lease runs.
		got, err = st.ChannelWorkClaim(ctx, f.channel.ID, "bot-b", 10, t0.Add(89*time.Second), t0.Add(89*time.Second+ttl))
		require.NoError(t, err)
		require.Empty(t, got)
		require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
			_, err := tx.ChannelWorkProgress(tctx, w.ID, "bot-a", t0.Add(10*time.Second), []byte(`{"sent":[1]}`))
			return err
		}))
		err = st.InTx(tctx, func(tx *store.Tx) error {
			_, err := tx.ChannelWorkProgress(tctx, w.ID, "bot-b", t0.Add(10*time.Second), []byte(`{}`))
			return err
		})
		require.ErrorIs(t, err, store.ErrLeaseLost, "only the owner reports progress")

		// Not renewed for 90 s: the lease is gone.
		late := t0.Add(ttl + time.Second)
		err = st.InTx(tctx, func(tx *store.Tx) error {
			_, err := tx.ChannelWorkRenew(tctx, w.ID, "bot-a", late, late.Add(ttl))
			return err
		})
		require.ErrorIs(t, err, store.ErrLeaseLost)
		got, err = st.ChannelWorkClaim(ctx, f.channel.ID, "bot-b", 10, late, late.Add(ttl))
		require.NoError(t, err)
		require.Len(t, got, 1, "an expired lease goes back to the pool")
		require.Equal(t, 2, got[0].Attempts)
		require.JSONEq(t, `{"sent":[1]}`, string(got[0].Progress), "progress survives the handover")

		err = st.InTx(tctx, func(tx *store.Tx) error {
			_, err := tx.ChannelWorkFinish(tctx, w.ID, "bot-a", late, store.WorkDone, "")
			return err
		})
		require.ErrorIs(t, err, store.ErrLeaseLost, "the old owner lost the work")
		require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
			_, err := tx.ChannelWorkFinish(tctx, w.ID, "bot-b", late, store.WorkDone, "")
			return err
		}))
		got, err = st.ChannelWorkClaim(ctx, f.channel.ID, "bot-c", 10, late.Add(time.Hour), late.Add(time.Hour+ttl))
		require.NoError(t, err)
		require.Empty(t, got, "done work is never claimed again")

		// Deferred work waits until its time.
		w2, _ := f.update(t, st, 2)
		got, err = st.ChannelWorkClaim(ctx, f.channel.ID, "bot-a", 10, late, late.Add(ttl))
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
			_, err := tx.ChannelWorkDefer(tctx, w2.ID, "bot-a", late, late.Add(time.Minute), "429 from the platform")
			return err
		}))
		got, err = st.ChannelWorkClaim(ctx, f.channel.ID, "bot-a", 10, late.Add(59*time.Second), late.Add(59*time.Second+ttl))
		require.NoError(t, err)
		require.Empty(t, got)
		got, err = st.ChannelWorkClaim(ctx, f.channel.ID, "bot-a", 10, late.Add(time.Minute), late.Add(time.Minute+ttl))
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, w2.ID, got[0].ID)
	})
}

func TestChannelWorkClaimsNeverOverlap(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		f := newChannelFixture(t, st, "tg42", "42")
		const items = 40
		for i := range items {
			f.update(t, st, int64(i))
		}
		now := time.Now().UTC().Add(time.Second)
		seen := make(chan uuid.UUID, items)
		errs := make(chan error, 4)
		for c := range 4 {
			go func() {
				for {
					got, err := st.ChannelWorkClaim(ctx, f.channel.ID, fmt.Sprintf("owner-%d", c), 3, now, now.Add(time.Minute))
					if err != nil || len(got) == 0 {
						errs <- err
						return
					}
					for _, w := range got {
						seen <- w.ID
					}
				}
			}()
		}
		for range 4 {
			require.NoError(t, <-errs)
		}
		close(seen)
		ids := map[uuid.UUID]bool{}
		for id := range seen {
			require.False(t, ids[id], "work %s claimed twice", id)
			ids[id] = true
		}
		require.Len(t, ids, items)
	})
}

// TestChannelRowLevelSecurity connects as monitor_app with raw SQL: one
// tenant's updates, work, replies and button messages are invisible and
// untouchable for another.
func TestChannelRowLevelSecurity(t *testing.T) {
	t.Parallel()
	if !contains(storetest.Drivers(), "postgres") {
		t.Skip("PostgreSQL is not reachable; row-level security exists only there")
	}
	st, appURL := storetest.NewWithURL(t, "postgres")
	db, err := sql.Open("pgx", appURL)
	require.NoError(t, err)
	defer db.Close()

	a := newChannelFixture(t, st, "tg1", "1")
	bctx, b := newTenantCtx(context.Background())
	require.NoError(t, st.InTx(bctx, func(tx *store.Tx) error {
		_, err := tx.TenantInsert(bctx, store.Tenant{ID: b, Name: "tg2", Kind: store.TenantPersonal, Status: store.TenantEnabled})
		return err
	}))
	w, _ := a.update(t, st, 1)
	actx := store.WithTenant(context.Background(), a.tenant)
	require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
		return tx.ChannelMessagesInsert(actx, a.channel.ID, "100", []string{"900"}, a.tenant, a.identity.ID)
	}))
	reply := uuid.New()
	require.NoError(t, asTenant(t, db, a.tenant, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO replies (id, inbox_id, tenant_id, chat_id, created_at) VALUES ($1, $2, $3, '100', now())`,
			reply, *w.InboxID, a.tenant)
		return err
	}))

	for _, as := range []uuid.UUID{b, uuid.Nil} {
		require.NoError(t, asTenant(t, db, as, func(tx *sql.Tx) error {
			for _, q := range []struct {
				table, where string
				arg          any
			}{
				{"inbox", "channel_id = $1", a.channel.ID},
				{"channel_work", "id = $1", w.ID},
				{"replies", "id = $1", reply},
				{"channel_messages", "channel_id = $1", a.channel.ID},
			} {
				var n int
				require.NoError(t, tx.QueryRow(`SELECT count(*) FROM `+q.table+` WHERE `+q.where, q.arg).Scan(&n))
				require.Zero(t, n, "%s: another tenant sees the row", q.table)
				res, err := tx.Exec(`UPDATE `+q.table+` SET created_at = now() WHERE `+q.where, q.arg)
				require.NoError(t, err)
				changed, _ := res.RowsAffected()
				require.Zero(t, changed, "%s: another tenant changed the row", q.table)
			}
			return nil
		}))
	}
	// Nor can B write rows for A, or own a button with A's identity.
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO channel_messages (channel_id, chat_id, message_id, tenant_id, identity_id, created_at) VALUES ($1, '100', '901', $2, $3, now())`,
			[]any{a.channel.ID, a.tenant, a.identity.ID}},
		{`INSERT INTO channel_messages (channel_id, chat_id, message_id, tenant_id, identity_id, created_at) VALUES ($1, '100', '902', $2, $3, now())`,
			[]any{a.channel.ID, b, a.identity.ID}},
		{`INSERT INTO channel_work (id, channel_id, kind, inbox_id, tenant_id, not_before, created_at, updated_at) VALUES ($1, $2, 'update', $3, $4, now(), now(), now())`,
			[]any{uuid.New(), a.channel.ID, *w.InboxID, b}},
	} {
		err := asTenant(t, db, b, func(tx *sql.Tx) error { _, err := tx.Exec(q.sql, q.args...); return err })
		require.Error(t, err, q.sql)
	}
	// The shared channel tables stay readable: a bot is no tenant's.
	require.NoError(t, asTenant(t, db, b, func(tx *sql.Tx) error {
		var n int
		require.NoError(t, tx.QueryRow(`SELECT count(*) FROM channels WHERE id = $1`, a.channel.ID).Scan(&n))
		require.Equal(t, 1, n)
		return nil
	}))
	// B's button lookup does not find A's message: a press by B is refused.
	_, err = st.ChannelMessageGet(bctx, a.channel.ID, "100", "900")
	require.ErrorIs(t, err, store.ErrNotFound)
	m, err := st.ChannelMessageGet(actx, a.channel.ID, "100", "900")
	require.NoError(t, err)
	require.Equal(t, a.identity.ID, m.IdentityID)
}

func TestChannelPollLeaseHasOneHolderAtATime(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		f := newChannelFixture(t, st, "tg42", "42")
		id := f.channel.ID
		t0 := time.Now().UTC().Truncate(time.Second)
		ttl := 90 * time.Second
		acquire := func(owner string, at time.Time) (store.PollLease, bool) {
			t.Helper()
			l, ok, err := st.ChannelPollLeaseAcquire(ctx, id, owner, at, at.Add(ttl))
			require.NoError(t, err)
			return l, ok
		}
		check := func(owner string, at time.Time) error {
			return st.InTx(ctx, func(tx *store.Tx) error { return tx.ChannelPollLeaseCheck(ctx, id, owner, at) })
		}
		require.ErrorIs(t, check("a", t0), store.ErrLeaseLost, "nobody holds a new channel's lease")

		l, ok := acquire("a", t0)
		require.True(t, ok, "a free lease is granted")
		require.Equal(t, "a", l.Owner)
		require.WithinDuration(t, t0.Add(ttl), *l.ExpiresAt, time.Millisecond)
		require.NoError(t, check("a", t0.Add(time.Second)))

		l, ok = acquire("b", t0.Add(10*time.Second))
		require.False(t, ok, "a second owner is refused while the lease is held")
		require.Equal(t, "a", l.Owner, "the refusal names the holder")
		require.WithinDuration(t, t0.Add(ttl), *l.ExpiresAt, time.Millisecond)
		require.ErrorIs(t, check("b", t0.Add(10*time.Second)), store.ErrLeaseLost)

		l, ok = acquire("a", t0.Add(60*time.Second))
		require.True(t, ok, "the holder renews")
		require.WithinDuration(t, t0.Add(60*time.Second+ttl), *l.ExpiresAt, time.Millisecond)
		_, ok = acquire("b", t0.Add(ttl+time.Second))
		require.False(t, ok, "the renewal moved the expiry on")

		late := t0.Add(60*time.Second + ttl + time.Second)
		require.ErrorIs(t, check("a", late), store.ErrLeaseLost, "an expired lease is lost")
		l, ok = acquire("b", late)
		require.True(t, ok, "an expired lease goes to whoever asks")
		require.Equal(t, "b", l.Owner)
		_, ok = acquire("a", late)
		require.False(t, ok, "the former holder is refused")

		require.NoError(t, st.ChannelPollLeaseRelease(ctx, id, "a"), "releasing a lease one does not hold is a no-op")
		_, ok = acquire("a", late)
		require.False(t, ok, "only the holder releases")
		require.NoError(t, st.ChannelPollLeaseRelease(ctx, id, "b"))
		require.ErrorIs(t, check("b", late), store.ErrLeaseLost, "a released lease is lost")
		l, ok = acquire("a", late)
		require.True(t, ok, "a released lease is granted at once")
		require.Equal(t, int64(0), l.NextOffset)

		_, _, err := st.ChannelPollLeaseAcquire(ctx, uuid.New(), "a", late, late.Add(ttl))
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

func TestIdentitiesOfTenantListsOnlyItsOwn(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		f := newChannelFixture(t, st, "tg42", "42")
		other := newChannelFixture(t, st, "tg43", "43")
		ctx := store.WithTenant(context.Background(), f.tenant)
		var got []store.Identity
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			got, err = tx.IdentitiesOfTenant(ctx, f.tenant)
			return err
		}))
		require.Len(t, got, 1)
		require.Equal(t, f.identity.ID, got[0].ID)
		require.Equal(t, "42", got[0].ExternalID)
		octx := store.WithTenant(context.Background(), other.tenant)
		require.NoError(t, st.InTx(octx, func(tx *store.Tx) error {
			var err error
			got, err = tx.IdentitiesOfTenant(octx, other.tenant)
			return err
		}))
		require.Len(t, got, 1)
		require.Equal(t, other.identity.ID, got[0].ID)
	})
}

func TestInboxLatestOfTenantIsItsNewestUpdate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		a := newChannelFixture(t, st, "alice", "100")
		_, ok := a.update(t, st, 1)
		require.True(t, ok)
		second, ok := a.update(t, st, 2)
		require.True(t, ok)
		ctx := store.WithTenant(context.Background(), a.tenant)
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			e, err := tx.InboxLatestOfTenant(ctx, a.tenant)
			require.NoError(t, err)
			require.Equal(t, *second.InboxID, e.ID)
			return nil
		}))

		other, oid := newTenantCtx(context.Background())
		require.NoError(t, st.InTx(other, func(tx *store.Tx) error {
			if _, err := tx.TenantInsert(other, store.Tenant{ID: oid, Name: "bob", Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
				return err
			}
			_, err := tx.InboxLatestOfTenant(other, oid)
			require.ErrorIs(t, err, store.ErrNotFound)
			return nil
		}))
	})
}
