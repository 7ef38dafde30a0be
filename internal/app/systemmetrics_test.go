package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestSamplerRecordsPurgesAndBuckets(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := newOpsCore(t, st, app.Deps{}, false)
		s := c.app.NewSampler("proc-a")
		for range 6 { // three minutes of samples
			require.NoError(t, s.Sample(ctx))
			c.clock.Advance(app.MetricSampleInterval)
		}
		day, err := c.app.SystemMetrics(ctx, app.DayWindow, app.DayBucket)
		require.NoError(t, err)
		require.Len(t, day.Points, 720, "a day in two-minute buckets")
		require.Equal(t, app.DayBucket, day.Bucket)
		require.Equal(t, day.From.Add(app.DayWindow), day.To)
		filled := 0
		for _, p := range day.Points {
			if p.Goroutines != nil {
				filled++
			}
		}
		require.GreaterOrEqual(t, filled, 2, "three minutes of samples span at least two buckets")
		require.LessOrEqual(t, filled, 3)
		for _, name := range []string{app.MetricRSS, app.MetricGoroutines, app.MetricDB} {
			v, ok := day.Latest(name)
			require.True(t, ok, name)
			require.Positive(t, v, name)
		}
		media, ok := day.Latest(app.MetricBlob)
		require.True(t, ok, "the media usage is readable as the app role, across tenants")
		require.Zero(t, media, "nothing stored")
		jobs, ok := day.Latest(app.MetricQueueJobs)
		require.True(t, ok)
		require.Zero(t, jobs, "nothing queued")
		_, ok = day.Latest(app.MetricDownloadBPS)
		require.True(t, ok, "rates are known from the second sample on")
		_, ok = day.Latest(app.MetricCPU)
		require.True(t, ok)

		// Samples older than 48 hours are purged by the next sample.
		c.clock.Advance(49 * time.Hour)
		require.NoError(t, s.Sample(ctx))
		all, err := st.MetricSampleList(ctx, time.Unix(0, 0), c.clock.Now().Add(time.Hour))
		require.NoError(t, err)
		require.Len(t, all, 1, "only the new sample is left")
		require.NotNil(t, all[0].Goroutines)
	})
}

func TestSystemMetricsAddsProcessesAndAveragesTicks(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := newOpsCore(t, st, app.Deps{}, false)
		bucket := c.clock.Now().UTC().Truncate(app.DayBucket)
		i64 := func(v int64) *int64 { return &v }
		put := func(at time.Time, inst string, rss, db int64) {
			t.Helper()
			require.NoError(t, st.MetricSampleInsert(ctx, store.MetricSample{SampledAt: at, Instance: inst, RSSBytes: i64(rss), DBBytes: i64(db)},
				at.Add(-app.MetricRetention)))
		}
		// Two replicas at one tick, one of them at the next tick.
		put(bucket, "a", 100, 5000)
		put(bucket, "b", 50, 5000)
		put(bucket.Add(app.MetricSampleInterval), "a", 90, 6000)
		series, err := c.app.SystemMetrics(ctx, time.Hour, app.DayBucket)
		require.NoError(t, err)
		last := series.Points[len(series.Points)-1]
		require.Equal(t, bucket, last.At)
		require.NotNil(t, last.RSSBytes)
		require.InDelta(t, (150.0+90.0)/2, *last.RSSBytes, 0.001, "replicas add up per tick; ticks average")
		require.InDelta(t, (5000.0+6000.0)/2, *last.DBBytes, 0.001, "the database is counted once per tick")
		require.Nil(t, last.CPUPercent, "not measured")
		require.Nil(t, series.Points[0].RSSBytes, "an empty bucket has no value")
		require.Nil(t, series.Values("no_such_metric"))

		_, err = c.app.SystemMetrics(ctx, 72*time.Hour, app.DayBucket)
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "at most 48h0m0s")
		_, err = c.app.SystemMetrics(ctx, app.DayWindow, time.Second)
		require.ErrorContains(t, err, "a metrics bucket must be from 30s")
		_, err = c.app.SystemMetrics(ctx, 48*time.Hour, 30*time.Second)
		require.ErrorContains(t, err, "choose larger buckets")
	})
}
