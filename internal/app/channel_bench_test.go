package app_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// The channel's hot paths in core: every Telegram update goes through
// ChannelAcceptUpdates and then one claim → done cycle; a new user's first
// update also creates their personal tenant. Each sub-benchmark runs on a
// fresh store of its database, an App with no queue (the channel API needs
// none) and one registered channel.

// benchKnownUsers is how many users send the updates of a batch, round
// robin; their identities exist before the timer starts.
const benchKnownUsers = 10

// benchOwner is the claiming channel process.
const benchOwner = "bench-bot"

// channelBench is an App on a fresh store with one registered channel.
type channelBench struct {
	store   *store.Store
	app     *app.App
	channel uuid.UUID
	nextID  int64 // the next update id
}

// eachChannelStore runs fn as a sub-benchmark per database: SQLite always,
// PostgreSQL when it is reachable.
func eachChannelStore(b *testing.B, fn func(b *testing.B, driver string)) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			if driver == "postgres" && !slices.Contains(storetest.Drivers(), "postgres") {
				b.Skip("PostgreSQL is not reachable")
			}
			fn(b, driver)
		})
	}
}

// benchPoller holds the poll lease of the benchmark's channel.
const benchPoller = "bench-poller"

func newChannelBench(b *testing.B, driver string) *channelBench {
	b.Helper()
	st := storetest.New(b, driver)
	a := app.New(app.Deps{Store: st, Log: storetest.Logger(b)})
	h, err := a.ChannelHello(b.Context(), app.ChannelInstance{Kind: "telegram", ExternalID: "1000", Name: "monitor_bot"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.ChannelPollLease(b.Context(), app.ChannelPollLeaseRequest{ChannelID: h.ChannelID, Owner: benchPoller}); err != nil {
		b.Fatal(err)
	}
	return &channelBench{store: st, app: a, channel: h.ChannelID, nextID: 1}
}

// benchUpdate is a private-chat message with a link, as most updates are.
func benchUpdate(userID int64) app.ChannelUpdate {
	const text = "https://x.com/archivist_demo/status/2078399740166950912"
	return app.ChannelUpdate{Kind: app.ChannelUpdateMessage,
		From:   app.ChannelUser{ID: userID, Username: fmt.Sprintf("user%d", userID), DisplayName: "Bench User", Language: "en"},
		ChatID: userID, ChatType: "private", Text: text,
		Entities: []app.ChannelEntity{{Type: "url", Offset: 0, Length: len(text)}}}
}

// batchOf is a batch of n updates from users, round robin.
func batchOf(users []int64, n int) []app.ChannelUpdate {
	out := make([]app.ChannelUpdate, n)
	for i := range out {
		out[i] = benchUpdate(users[i%len(users)])
	}
	return out
}

// accept numbers the batch's updates from the next update id and stores
// them, failing unless every one is stored.
func (c *channelBench) accept(b *testing.B, batch []app.ChannelUpdate) {
	for i := range batch {
		batch[i].UpdateID = c.nextID
		batch[i].MessageID = c.nextID
		c.nextID++
	}
	r, err := c.app.ChannelAcceptUpdates(b.Context(), app.ChannelUpdatesRequest{ChannelID: c.channel, Owner: benchPoller, Updates: batch, NextOffset: c.nextID})
	if err != nil {
		b.Fatal(err)
	}
	if r.Stored != len(batch) || r.NextOffset != c.nextID {
		b.Fatalf("stored %d of %d, next offset %d (want %d)", r.Stored, len(batch), r.NextOffset, c.nextID)
	}
}

// knownUsers gives benchKnownUsers users an identity and a tenant.
func (c *channelBench) knownUsers(b *testing.B) []int64 {
	users := make([]int64, benchKnownUsers)
	for i := range users {
		users[i] = 5_000_000 + int64(i)
	}
	c.accept(b, batchOf(users, len(users)))
	return users
}

// BenchmarkChannelAcceptUpdates stores batches of updates from users who
// wrote before: per update, an identity lookup and one transaction with
// the inbox entry and its work item; per batch, the channel's lookup and
// its offset. One op is one batch; ns/update is the per-update cost.
func BenchmarkChannelAcceptUpdates(b *testing.B) {
	eachChannelStore(b, func(b *testing.B, driver string) {
		for _, size := range []int{1, 100} {
			b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
				c := newChannelBench(b, driver)
				batch := batchOf(c.knownUsers(b), size)
				for b.Loop() {
					c.accept(b, batch)
				}
				updates := float64(b.N * size)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/updates, "ns/update")
				b.ReportMetric(updates/b.Elapsed().Seconds(), "updates/s")
			})
		}
	})
}

// BenchmarkChannelClaimDone leases update work items and ends each with
// Done, as the bot does once it has answered. The bot claims up to as many
// items as it has free workers (4 by default), so max=1 is the busy bot
// and max=4 the idle one. One op is one item; the updates that make the
// items are stored with the timer stopped. Finished items stay in the
// table until retention deletes them, and each op adds one, so ns/op
// depends on how many there are: backlog is how many finished items the
// table holds before the first op, and runs meant to be compared should
// use the same -benchtime Nx. On PostgreSQL the backlog is also dead index
// entries (each item was updated twice) until autovacuum runs, as after a
// burst of traffic.
func BenchmarkChannelClaimDone(b *testing.B) {
	eachChannelStore(b, func(b *testing.B, driver string) {
		for _, backlog := range []int{0, 10_000} {
			for _, claimMax := range []int{1, 4} {
				b.Run(fmt.Sprintf("backlog=%d/max=%d", backlog, claimMax), func(b *testing.B) {
					benchmarkClaimDone(b, driver, backlog, claimMax)
				})
			}
		}
	})
}

func benchmarkClaimDone(b *testing.B, driver string, backlog, claimMax int) {
	c := newChannelBench(b, driver)
	ctx := b.Context()
	refill := batchOf(c.knownUsers(b), 100)
	// The known users' first updates are items too: finish them.
	first := c.claim(b, 50)
	for _, w := range first {
		if err := c.app.ChannelDone(ctx, w.ID, benchOwner); err != nil {
			b.Fatal(err)
		}
	}
	c.finishedBacklog(b, first[0].Tenant.ID, backlog)

	ready := 0
	var leased []app.ChannelWork
	for b.Loop() {
		if len(leased) == 0 {
			if ready < claimMax {
				b.StopTimer()
				c.accept(b, refill)
				ready += len(refill)
				b.StartTimer()
			}
			leased = c.claim(b, claimMax)
			if len(leased) != claimMax {
				b.Fatalf("claimed %d items, want %d", len(leased), claimMax)
			}
			ready -= len(leased)
		}
		w := leased[0]
		leased = leased[1:]
		if err := c.app.ChannelDone(ctx, w.ID, benchOwner); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// finishedBacklog adds n finished work items of the tenant to the channel,
// through the store in three transactions rather than n claims.
func (c *channelBench) finishedBacklog(b *testing.B, tenantID uuid.UUID, n int) {
	if n == 0 {
		return
	}
	ctx := store.WithTenant(b.Context(), tenantID)
	err := c.store.InTx(ctx, func(tx *store.Tx) error {
		for range n {
			if _, err := tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: c.channel, Kind: store.WorkUpdate, TenantID: tenantID}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	work, err := c.store.ChannelWorkClaim(ctx, c.channel, "backlog", n, now, now.Add(time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	if len(work) != n {
		b.Fatalf("claimed %d of %d backlog items", len(work), n)
	}
	err = c.store.InTx(ctx, func(tx *store.Tx) error {
		for _, w := range work {
			if _, err := tx.ChannelWorkFinish(ctx, w.ID, "backlog", now, store.WorkDone, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func (c *channelBench) claim(b *testing.B, n int) []app.ChannelWork {
	work, err := c.app.ChannelClaim(b.Context(), app.ChannelClaimRequest{ChannelID: c.channel, Owner: benchOwner, Max: n})
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range work {
		if w.Kind != app.ChannelWorkUpdate || w.Update == nil {
			b.Fatalf("claimed a %s item without its update", w.Kind)
		}
	}
	return work
}

// BenchmarkChannelFirstContact stores the first update of a user never
// seen before: the identity lookup misses, then the settings, a free
// tenant name, and one transaction with the personal tenant, its sign-up
// audit entry, the identity, the inbox entry and its work item. One op is
// one request carrying one new user's update.
func BenchmarkChannelFirstContact(b *testing.B) {
	eachChannelStore(b, func(b *testing.B, driver string) {
		c := newChannelBench(b, driver)
		batch := make([]app.ChannelUpdate, 1)
		user := int64(7_000_000)
		for b.Loop() {
			user++
			batch[0] = benchUpdate(user)
			c.accept(b, batch)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "users/s")

		tenants, err := c.app.Tenants(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if len(tenants) != b.N {
			b.Fatalf("%d tenants after %d first contacts", len(tenants), b.N)
		}
	})
}
