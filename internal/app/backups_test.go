package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/backup"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// newBackupCore is a business layer on SQLite and media files whose
// snapshots go to a directory of the test.
func newBackupCore(t *testing.T) (*opsCore, string) {
	t.Helper()
	objects := t.TempDir()
	fs, err := blob.NewFS(objects)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "backups")
	c := newOpsCore(t, storetest.New(t, "sqlite"), app.Deps{Blob: fs, Backups: app.BackupConfig{Dir: dir, ObjectsRoot: objects, Generator: "monitor test"}}, false)
	return c, dir
}

// runScheduled inserts the scheduled snapshot check and waits for it.
func runScheduled(t *testing.T, c *opsCore, done func()) {
	t.Helper()
	_, err := c.q.Insert(context.Background(), queue.ScheduledSnapshotArgs{}, nil)
	require.NoError(t, err)
	done()
}

func TestScheduledSnapshotsKeepTheNewest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, dir := newBackupCore(t)
	done := testcore.JobDone(t, c.q, queue.ScheduledSnapshotArgs{}.Kind())
	require.NoError(t, c.q.Start(ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.q.Stop(ctx)
	})
	names := func() []string {
		t.Helper()
		list, err := c.app.Snapshots(ctx)
		require.NoError(t, err)
		var out []string
		for _, s := range list {
			require.Positive(t, s.Size)
			out = append(out, s.Name)
		}
		return out
	}

	// Off by default: the check writes nothing.
	runScheduled(t, c, done)
	require.Empty(t, names())

	c.set(t, "backup_interval_hours", "6")
	c.set(t, "backup_keep_count", "2")
	runScheduled(t, c, done)
	first := names()
	require.Len(t, first, 1, "no snapshot yet: one is written")
	require.True(t, strings.HasPrefix(first[0], "monitor-snapshot-"))

	c.clock.Advance(time.Hour)
	runScheduled(t, c, done)
	require.Equal(t, first, names(), "the newest is an hour old: not due")

	c.clock.Advance(5 * time.Hour)
	runScheduled(t, c, done)
	require.Len(t, names(), 2)

	c.clock.Advance(6 * time.Hour)
	runScheduled(t, c, done)
	now := names()
	require.Len(t, now, 2, "the keep count holds")
	require.NotContains(t, now, first[0], "the oldest was deleted")
	_, err := os.Stat(filepath.Join(dir, first[0]))
	require.ErrorIs(t, err, os.ErrNotExist)

	// The newest restores: it verifies and stages like `monitor import snapshot`.
	p, err := c.app.SnapshotPath(ctx, now[0])
	require.NoError(t, err)
	staged, err := backup.Stage(ctx, p, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, "monitor test", staged.Manifest.Generator)

	entries, err := c.app.Audit(ctx, 100)
	require.NoError(t, err)
	snaps := 0
	for _, e := range entries {
		if e.Action == "backup.snapshot" {
			snaps++
			require.Equal(t, app.ActorSystem, e.Actor)
		}
	}
	require.Equal(t, 3, snaps)
}

func TestSnapshotNowAndDownloadPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, dir := newBackupCore(t)
	c.set(t, "backup_keep_count", "1")
	s, err := c.app.SnapshotNow(ctx, "admin-alice")
	require.NoError(t, err)
	require.Positive(t, s.Size)
	p, err := c.app.SnapshotPath(ctx, s.Name)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, s.Name), p)

	c.clock.Advance(time.Minute)
	s2, err := c.app.SnapshotNow(ctx, "admin-alice")
	require.NoError(t, err)
	list, err := c.app.Snapshots(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{s2.Name}, []string{list[0].Name}, "keep count 1")
	require.Len(t, list, 1)

	for _, bad := range []string{"../monitor.db", s.Name, "monitor-snapshot-x.zip", "/etc/passwd"} {
		_, err := c.app.SnapshotPath(ctx, bad)
		require.ErrorIs(t, err, app.ErrNotFound, bad)
	}

	// PostgreSQL or S3 instances have no snapshots, and say why.
	none := newOpsCore(t, storetest.New(t, "sqlite"), app.Deps{}, false)
	_, err = none.app.SnapshotNow(ctx, "admin")
	require.ErrorIs(t, err, app.ErrInvalid)
	require.ErrorContains(t, err, "pg_dump")
	_, err = none.app.Snapshots(ctx)
	require.ErrorContains(t, err, "snapshots are for the embedded default")
	_, err = c.app.SetSetting(ctx, "admin", "backup_keep_count", "0")
	require.ErrorContains(t, err, "from 1 to 1000")
}

// A snapshot is staged for the next start through the import path: its
// preview says what it brings back, a second staging is refused until the
// first is cancelled, a damaged file stages nothing; each step is audited.
func TestSnapshotRestoreIsStagedForTheNextStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	objects := t.TempDir()
	fs, err := blob.NewFS(objects)
	require.NoError(t, err)
	data := t.TempDir()
	dir := filepath.Join(data, "backups")
	c := newOpsCore(t, storetest.New(t, "sqlite"), app.Deps{Blob: fs,
		Backups: app.BackupConfig{Dir: dir, ObjectsRoot: objects, Generator: "monitor test", DataDir: data}}, false)

	s, err := c.app.SnapshotNow(ctx, "admin-alice")
	require.NoError(t, err)
	pv, err := c.app.PreviewSnapshot(ctx, s.Name)
	require.NoError(t, err)
	require.Equal(t, "monitor test", pv.Generator)
	require.Positive(t, pv.Migrations)
	require.Equal(t, s.Size, pv.Size)
	pending, err := c.app.PendingRestore(ctx)
	require.NoError(t, err)
	require.Nil(t, pending, "nothing staged yet")

	st, err := c.app.StageRestore(ctx, "admin-alice", s.Name)
	require.NoError(t, err)
	require.Equal(t, s.Name, st.Snapshot)
	pending, err = c.app.PendingRestore(ctx)
	require.NoError(t, err)
	require.NotNil(t, pending)
	require.Equal(t, s.Name, pending.Snapshot)
	_, err = os.Stat(filepath.Join(data, backup.RestoreDir, "monitor.db"))
	require.NoError(t, err, "staged where the next start swaps it in")

	_, err = c.app.StageRestore(ctx, "admin-alice", s.Name)
	require.ErrorIs(t, err, app.ErrConflict)
	require.ErrorContains(t, err, s.Name+" is staged already and waits for the next start; cancel it before staging another")

	require.NoError(t, c.app.CancelRestore(ctx, "admin-alice"))
	pending, err = c.app.PendingRestore(ctx)
	require.NoError(t, err)
	require.Nil(t, pending)
	_, err = os.Stat(filepath.Join(data, backup.RestoreDir))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing left for the next start")
	require.ErrorIs(t, c.app.CancelRestore(ctx, "admin-alice"), app.ErrNotFound)

	// A damaged file in the backup directory: refused, nothing staged.
	bad := "monitor-snapshot-20260101T000000Z.zip"
	require.NoError(t, os.WriteFile(filepath.Join(dir, bad), []byte("not a zip"), 0o600))
	_, err = c.app.PreviewSnapshot(ctx, bad)
	require.ErrorIs(t, err, app.ErrInvalid)
	require.ErrorContains(t, err, bad+" cannot be restored: snapshot: "+bad+" is not a readable zip file")
	_, err = c.app.StageRestore(ctx, "admin-alice", bad)
	require.ErrorIs(t, err, app.ErrInvalid)
	require.ErrorContains(t, err, "is not a readable zip file")
	pending, err = c.app.PendingRestore(ctx)
	require.NoError(t, err)
	require.Nil(t, pending)
	_, err = c.app.StageRestore(ctx, "admin-alice", "monitor-snapshot-x.zip")
	require.ErrorIs(t, err, app.ErrNotFound)

	entries, err := c.app.Audit(ctx, 100)
	require.NoError(t, err)
	var actions []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "backup.restore") {
			actions = append(actions, e.Action)
			require.Equal(t, "admin-alice", e.Actor)
		}
	}
	require.ElementsMatch(t, []string{"backup.restore.stage", "backup.restore.cancel"}, actions)
}
