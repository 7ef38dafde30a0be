-- Retention of the channel plumbing (mirrors
-- migrations/postgres/0007_channel_retention.sql): handled updates, their
-- work items, replies and the bot messages that carry buttons are deleted
-- after channel_retention_days. The indexes serve the oldest-first scans of
-- each purge batch; inbox (created_at) has its index since 0001.

-- Finished work by when it finished; pending and leased work is never purged.
CREATE INDEX channel_work_finished_idx ON channel_work (updated_at) WHERE state IN ('done', 'failed');

CREATE INDEX replies_created_at_idx ON replies (created_at);

CREATE INDEX channel_messages_created_at_idx ON channel_messages (created_at);
