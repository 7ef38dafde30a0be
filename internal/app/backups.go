package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/backup"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// Scheduled and on-demand snapshots (seed 003 "数据备份"): the same zip as
// `monitor export snapshot`, written into one directory, named by the time
// they were taken, the newest backup_keep_count kept. A snapshot is
// restored with `monitor import snapshot FILE`, or from the console
// (StageRestore): staged, swapped in at the next start.

// BackupConfig says where snapshots go. The zero value: this instance has
// none (PostgreSQL or S3 media have their own backup tools).
type BackupConfig struct {
	// Dir holds the snapshots, e.g. $MONITOR_DATA_DIR/backups.
	Dir string
	// ObjectsRoot is the media directory of the file blob store.
	ObjectsRoot string
	// Generator names the binary in each snapshot's manifest.
	Generator string
	// DataDir is the data directory, where a restore is staged for the
	// next start ("": restores only through the CLI).
	DataDir string
}

// snapshotPrefix and snapshotLayout name snapshot files:
// monitor-snapshot-20261201T130000Z.zip.
const (
	snapshotPrefix = "monitor-snapshot-"
	snapshotLayout = "20060102T150405Z"
	snapshotExt    = ".zip"
)

// SnapshotFile is one snapshot in the backup directory.
type SnapshotFile struct {
	Name      string    `json:"name"`
	Size      int64     `json:"size"`
	CreatedAt time.Time `json:"created_at"`
}

// errNoBackups is why this instance has no snapshots.
func errNoBackups() error {
	return errorf(ErrInvalid, "snapshots are for the embedded default (SQLite and media files); back up PostgreSQL with pg_dump and the media bucket with the S3 server's tools")
}

// snapshotTime parses a snapshot file name (false: not one).
func snapshotTime(name string) (time.Time, bool) {
	stamp, ok := strings.CutPrefix(name, snapshotPrefix)
	if !ok {
		return time.Time{}, false
	}
	stamp, ok = strings.CutSuffix(stamp, snapshotExt)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(snapshotLayout, stamp)
	return t, err == nil
}

// Snapshots lists the snapshots, the newest first.
func (a *App) Snapshots(context.Context) ([]SnapshotFile, error) {
	if a.backups.Dir == "" {
		return nil, errNoBackups()
	}
	entries, err := os.ReadDir(a.backups.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return []SnapshotFile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("app: list snapshots: %w", err)
	}
	out := []SnapshotFile{}
	for _, e := range entries {
		at, ok := snapshotTime(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // deleted meanwhile
		}
		out = append(out, SnapshotFile{Name: e.Name(), Size: info.Size(), CreatedAt: at})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

// SnapshotPath is the file of the named snapshot, to download it. A name
// that is not one of Snapshots' is ErrNotFound.
func (a *App) SnapshotPath(_ context.Context, name string) (string, error) {
	if a.backups.Dir == "" {
		return "", errNoBackups()
	}
	if _, ok := snapshotTime(name); !ok || filepath.Base(name) != name {
		return "", errorf(ErrNotFound, "no snapshot named %q; snapshots are named like %s%s%s", clip(name, 80), snapshotPrefix, snapshotLayout, snapshotExt)
	}
	p := filepath.Join(a.backups.Dir, name)
	if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
		return "", errorf(ErrNotFound, "no snapshot named %q", name)
	}
	return p, nil
}

// SnapshotNow writes a snapshot, deletes those beyond backup_keep_count
// and audits it by actor.
func (a *App) SnapshotNow(ctx context.Context, actor string) (SnapshotFile, error) {
	if a.backups.Dir == "" {
		return SnapshotFile{}, errNoBackups()
	}
	s, err := a.Settings(ctx)
	if err != nil {
		return SnapshotFile{}, err
	}
	return a.snapshot(ctx, actor, s.BackupKeep)
}

func (a *App) snapshot(ctx context.Context, actor string, keep int) (SnapshotFile, error) {
	a.snapshotMu.Lock()
	defer a.snapshotMu.Unlock()
	if err := os.MkdirAll(a.backups.Dir, 0o750); err != nil {
		return SnapshotFile{}, fmt.Errorf("app: backup directory: %w", err)
	}
	at := a.now().UTC().Truncate(time.Second)
	name := snapshotPrefix + at.Format(snapshotLayout) + snapshotExt
	if _, err := os.Stat(filepath.Join(a.backups.Dir, name)); err == nil {
		return SnapshotFile{}, errorf(ErrConflict, "a snapshot of this second exists already (%s); try again in a second", name)
	}
	start := time.Now()
	res, err := backup.Export(ctx, a.store, a.backups.ObjectsRoot, filepath.Join(a.backups.Dir, name), a.backups.Generator)
	if err != nil {
		a.LogError(ctx, ErrorRecord{Source: "backup", Stage: "snapshot", Message: "snapshot failed", Detail: err.Error()})
		return SnapshotFile{}, err
	}
	f := SnapshotFile{Name: name, Size: res.Bytes, CreatedAt: at}
	a.log.InfoContext(ctx, "snapshot written", "name", name, "bytes", res.Bytes, "objects", res.Objects, "took", time.Since(start).Round(time.Millisecond))
	deleted, err := a.pruneSnapshots(keep)
	if err != nil {
		a.log.WarnContext(ctx, "cannot delete old snapshots", "err", err)
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		return audit(ctx, tx, actor, "backup.snapshot", name, nil,
			map[string]any{"name": name, "bytes": res.Bytes, "objects": res.Objects, "deleted": deleted})
	})
	return f, err
}

// pruneSnapshots deletes every snapshot but the newest keep.
func (a *App) pruneSnapshots(keep int) ([]string, error) {
	all, err := a.Snapshots(context.Background())
	if err != nil {
		return nil, err
	}
	deleted := []string{}
	var errs []error
	for i := keep; i < len(all); i++ {
		if err := os.Remove(filepath.Join(a.backups.Dir, all[i].Name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		deleted = append(deleted, all[i].Name)
	}
	return deleted, errors.Join(errs...)
}

// scheduledSnapshot writes a snapshot when backup_interval_hours is set
// and the newest snapshot is at least that old (or there is none).
func (a *App) scheduledSnapshot(ctx context.Context) (bool, error) {
	if a.backups.Dir == "" {
		return false, nil
	}
	s, err := a.Settings(ctx)
	if err != nil || s.BackupInterval <= 0 {
		return false, err
	}
	all, err := a.Snapshots(ctx)
	if err != nil {
		return false, err
	}
	// A little slack: a check that runs a moment early still counts.
	if len(all) > 0 && a.now().Sub(all[0].CreatedAt) < s.BackupInterval-time.Minute {
		return false, nil
	}
	_, err = a.snapshot(ctx, ActorSystem, s.BackupKeep)
	return err == nil, err
}

// snapshotWorker runs the scheduled snapshot check.
type snapshotWorker struct {
	river.WorkerDefaults[queue.ScheduledSnapshotArgs]
	app *App
}

// Timeout lets a snapshot of a large archive finish.
func (w *snapshotWorker) Timeout(*river.Job[queue.ScheduledSnapshotArgs]) time.Duration {
	return 2 * time.Hour
}

func (w *snapshotWorker) Work(ctx context.Context, _ *river.Job[queue.ScheduledSnapshotArgs]) error {
	_, err := w.app.scheduledSnapshot(ctx)
	return err
}

// SnapshotPreview is what restoring a snapshot would bring back, read
// from its manifest.
type SnapshotPreview struct {
	SnapshotFile
	Generator string    `json:"generator"`
	TakenAt   time.Time `json:"taken_at"`
	// Migrations counts the schema migrations the snapshot's database has.
	Migrations int `json:"migrations"`
	Objects    int `json:"objects"`
}

// StagedRestore is a snapshot staged to be swapped in at the next start.
type StagedRestore struct {
	// Snapshot is the staged file's name ("" when an older monitor staged
	// it); TakenAt is when the snapshot was taken.
	Snapshot string    `json:"snapshot"`
	TakenAt  time.Time `json:"taken_at"`
	StagedAt time.Time `json:"staged_at"`
	Objects  int       `json:"objects"`
	// Pending counts the migrations the next start applies to it.
	Pending int `json:"pending"`
}

// restoreDir is the data directory a restore is staged in, or why this
// process stages none.
func (a *App) restoreDir() (string, error) {
	if a.backups.Dir == "" {
		return "", errNoBackups()
	}
	if a.backups.DataDir == "" {
		return "", errorf(ErrInvalid, "this process cannot stage a restore; run monitor import snapshot FILE")
	}
	return a.backups.DataDir, nil
}

// PreviewSnapshot reads the named snapshot's manifest: when it was taken,
// by which monitor, how many media files. A file that is not a snapshot
// is ErrInvalid.
func (a *App) PreviewSnapshot(ctx context.Context, name string) (SnapshotPreview, error) {
	p, err := a.SnapshotPath(ctx, name)
	if err != nil {
		return SnapshotPreview{}, err
	}
	info, err := os.Stat(p)
	if err != nil {
		return SnapshotPreview{}, errorf(ErrNotFound, "no snapshot named %q", name)
	}
	m, err := backup.ReadManifest(p)
	if err != nil {
		return SnapshotPreview{}, errorf(ErrInvalid, "%s cannot be restored: %v", name, err)
	}
	at, _ := snapshotTime(name)
	return SnapshotPreview{SnapshotFile: SnapshotFile{Name: name, Size: info.Size(), CreatedAt: at}, Generator: m.Generator,
		TakenAt: m.CreatedAt, Migrations: len(m.Migrations), Objects: m.Objects}, nil
}

// PendingRestore is the restore staged for the next start, nil when none.
func (a *App) PendingRestore(context.Context) (*StagedRestore, error) {
	dir, err := a.restoreDir()
	if err != nil {
		return nil, err
	}
	s, ok, err := backup.StagedInfo(dir)
	if err != nil || !ok {
		return nil, err
	}
	return stagedRestore(s), nil
}

func stagedRestore(s backup.Staged) *StagedRestore {
	return &StagedRestore{Snapshot: s.Source, TakenAt: s.Manifest.CreatedAt, StagedAt: s.StagedAt, Objects: s.Objects, Pending: s.Pending}
}

// StageRestore verifies the named snapshot and stages it, through the
// path `monitor import snapshot` takes, to be swapped in at the next
// start: the running instance is untouched until it restarts. A restore
// staged already is ErrConflict (cancel it first); a snapshot that fails
// verification is ErrInvalid and leaves nothing staged. Audited by actor.
func (a *App) StageRestore(ctx context.Context, actor, name string) (StagedRestore, error) {
	dir, err := a.restoreDir()
	if err != nil {
		return StagedRestore{}, err
	}
	p, err := a.SnapshotPath(ctx, name)
	if err != nil {
		return StagedRestore{}, err
	}
	a.restoreMu.Lock()
	defer a.restoreMu.Unlock()
	if cur, ok, err := backup.StagedInfo(dir); err != nil {
		return StagedRestore{}, err
	} else if ok {
		what := "a snapshot"
		if cur.Source != "" {
			what = cur.Source
		}
		return StagedRestore{}, errorf(ErrConflict, "%s is staged already and waits for the next start; cancel it before staging another", what)
	}
	st, err := backup.Stage(ctx, p, dir)
	if err != nil {
		if ctx.Err() != nil {
			return StagedRestore{}, err
		}
		return StagedRestore{}, errorf(ErrInvalid, "%v", err)
	}
	v := stagedRestore(st)
	a.log.InfoContext(ctx, "restore staged", "name", name, "objects", st.Objects, "pending_migrations", st.Pending)
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		return audit(ctx, tx, actor, "backup.restore.stage", name, nil, v)
	})
	return *v, err
}

// CancelRestore removes the staged restore, so the next start keeps the
// data it has; with none staged it is ErrNotFound. Audited by actor.
func (a *App) CancelRestore(ctx context.Context, actor string) error {
	dir, err := a.restoreDir()
	if err != nil {
		return err
	}
	a.restoreMu.Lock()
	defer a.restoreMu.Unlock()
	cur, ok, err := backup.StagedInfo(dir)
	if err != nil {
		return err
	}
	if !ok {
		return errorf(ErrNotFound, "no restore is staged")
	}
	if _, err := backup.CancelStaged(dir); err != nil {
		return err
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		return audit(ctx, tx, actor, "backup.restore.cancel", cur.Source, stagedRestore(cur), nil)
	})
}
