-- Pushed channel posts, and watcher counts that follow deletes (mirrors
-- migrations/sqlite/0016_watch_push.sql).

-- A post the bot received from a watched channel (a channel_post update,
-- or a message of a public supergroup), stored with its River job in the
-- transaction that accepts the update, so a crash loses nothing. The job
-- archives it for every active watcher once its album is complete: parts
-- sharing group_key (the media_group_id; "m<message id>" for a post on its
-- own) are gathered until none came for the quiet time. url is the post's
-- t.me link. Only the public source's data, never a tenant's.
CREATE TABLE watch_pushes (
    id          UUID PRIMARY KEY,
    source_id   UUID NOT NULL REFERENCES watch_sources (id),
    message_id  BIGINT NOT NULL,
    group_key   TEXT NOT NULL,
    url         TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'done')),
    received_at TIMESTAMPTZ NOT NULL,
    done_at     TIMESTAMPTZ,
    UNIQUE (source_id, message_id)
);

CREATE INDEX watch_pushes_group_idx ON watch_pushes (source_id, group_key);

-- Like watch_sources: a public source's posts, shared by its watchers.
ALTER TABLE watch_pushes ENABLE ROW LEVEL SECURITY;
ALTER TABLE watch_pushes FORCE ROW LEVEL SECURITY;
CREATE POLICY watch_pushes_shared ON watch_pushes FOR ALL USING (true) WITH CHECK (true);

-- A watch that goes (deleted by its tenant, or with its tenant: the
-- foreign key cascades) counts one watcher less on its source, in the
-- transaction that removes it. A rejected watch was not counted.
CREATE FUNCTION monitor_watch_release_source() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, public
AS $$
BEGIN
    UPDATE watch_sources SET watchers = watchers - 1 WHERE id = OLD.source_id AND watchers > 0;
    RETURN NULL;
END;
$$;

CREATE TRIGGER watches_release_source AFTER DELETE ON watches
    FOR EACH ROW WHEN (OLD.state <> 'rejected') EXECUTE FUNCTION monitor_watch_release_source();

-- Counts left too high by tenants deleted before this migration.
UPDATE watch_sources SET watchers = (SELECT count(*) FROM watches w
    WHERE w.source_id = watch_sources.id AND w.state <> 'rejected');
