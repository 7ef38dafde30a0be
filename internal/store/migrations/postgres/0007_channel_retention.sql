-- Retention of the channel plumbing (mirrors
-- migrations/sqlite/0006_channel_retention.sql): handled updates, their
-- work items, replies and the bot messages that carry buttons are deleted
-- after channel_retention_days. The indexes serve the oldest-first scans of
-- each purge batch; inbox (created_at) has its index since 0001.

-- Finished work by when it finished; pending and leased work is never purged.
CREATE INDEX channel_work_finished_idx ON channel_work (updated_at) WHERE state IN ('done', 'failed');

CREATE INDEX replies_created_at_idx ON replies (created_at);

CREATE INDEX channel_messages_created_at_idx ON channel_messages (created_at);


-- ===========================================================================
-- SECURITY DEFINER functions of the channel retention purge
-- ===========================================================================

-- The purge runs as no tenant and deletes every tenant's rows, so each step
-- is a function that deletes at most p_limit rows older than p_cutoff,
-- oldest first, and returns how many it deleted. Rows another transaction
-- holds are skipped for the next run. Nothing else crosses tenants: the
-- functions take only a cutoff and a batch size.

-- Work items that ended (done or failed) before p_cutoff. Pending and leased
-- work is never touched; a submission keeps its delivery progress, which
-- lives on the submission.
CREATE FUNCTION monitor_channel_work_purge(p_cutoff timestamptz, p_limit integer)
    RETURNS bigint
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    WITH old AS (
        SELECT w.id
          FROM channel_work w
         WHERE w.state IN ('done', 'failed') AND w.updated_at < p_cutoff
         ORDER BY w.updated_at
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM channel_work w USING old WHERE w.id = old.id AND w.state IN ('done', 'failed')
        RETURNING 1
    )
    SELECT count(*) FROM gone;
END;
REVOKE EXECUTE ON FUNCTION monitor_channel_work_purge(timestamptz, integer) FROM PUBLIC;

-- Replies written before p_cutoff, unless their update still has work
-- pending or leased.
CREATE FUNCTION monitor_replies_purge(p_cutoff timestamptz, p_limit integer)
    RETURNS bigint
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    WITH old AS (
        SELECT r.id
          FROM replies r
         WHERE r.created_at < p_cutoff
           AND NOT EXISTS (SELECT 1 FROM channel_work w
                            WHERE w.inbox_id = r.inbox_id AND w.state IN ('pending', 'leased'))
         ORDER BY r.created_at
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM replies r USING old WHERE r.id = old.id
        RETURNING 1
    )
    SELECT count(*) FROM gone;
END;
REVOKE EXECUTE ON FUNCTION monitor_replies_purge(timestamptz, integer) FROM PUBLIC;

-- Updates stored before p_cutoff that no work item or reply refers to any
-- more (run it after the two above).
CREATE FUNCTION monitor_inbox_purge(p_cutoff timestamptz, p_limit integer)
    RETURNS bigint
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    WITH old AS (
        SELECT b.id
          FROM inbox b
         WHERE b.created_at < p_cutoff
           AND NOT EXISTS (SELECT 1 FROM channel_work w WHERE w.inbox_id = b.id)
           AND NOT EXISTS (SELECT 1 FROM replies r WHERE r.inbox_id = b.id)
         ORDER BY b.created_at
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM inbox b USING old WHERE b.id = old.id
        RETURNING 1
    )
    SELECT count(*) FROM gone;
END;
REVOKE EXECUTE ON FUNCTION monitor_inbox_purge(timestamptz, integer) FROM PUBLIC;

-- Bot messages with buttons recorded before p_cutoff: a press on one of them
-- is refused afterwards, as too old.
CREATE FUNCTION monitor_channel_messages_purge(p_cutoff timestamptz, p_limit integer)
    RETURNS bigint
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public
BEGIN ATOMIC
    WITH old AS (
        SELECT m.channel_id, m.chat_id, m.message_id
          FROM channel_messages m
         WHERE m.created_at < p_cutoff
         ORDER BY m.created_at
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM channel_messages m USING old
         WHERE m.channel_id = old.channel_id AND m.chat_id = old.chat_id AND m.message_id = old.message_id
        RETURNING 1
    )
    SELECT count(*) FROM gone;
END;
REVOKE EXECUTE ON FUNCTION monitor_channel_messages_purge(timestamptz, integer) FROM PUBLIC;
