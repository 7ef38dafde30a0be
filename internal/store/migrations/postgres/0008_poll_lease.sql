-- One poller per bot (mirrors migrations/sqlite/0007_poll_lease.sql):
-- several processes may run the same bot, but only the holder of a
-- channel's poll lease long-polls its platform and moves its offset. The
-- lease is renewed like a work lease; an empty owner means nobody holds it.
-- channels is shared configuration (its policy of 0003), so the channel API
-- takes and checks the lease without a definer function.
ALTER TABLE channels ADD COLUMN poller_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE channels ADD COLUMN poller_expires_at TIMESTAMPTZ;
