-- One poller per bot (mirrors migrations/postgres/0008_poll_lease.sql):
-- several processes may run the same bot, but only the holder of a
-- channel's poll lease long-polls its platform and moves its offset. The
-- lease is renewed like a work lease; an empty owner means nobody holds it.
ALTER TABLE channels ADD COLUMN poller_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE channels ADD COLUMN poller_expires_at DATETIME;
