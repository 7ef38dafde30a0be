// Package backup backs up and restores a whole instance on the embedded
// default: a snapshot is a zip of a consistent SQLite copy (VACUUM INTO),
// the media objects it records and a small manifest. Unlike a capsule it is
// not meant to be read by people; it restores one instance exactly. A
// restore is verified, staged in the data directory, and swapped in at the
// next start, before the database is opened, keeping the old files as a
// rollback copy.
//
// It sits beside store and blob, below app: it knows the database file, the
// media directory and the schema, and nothing of the business rules.
package backup

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// Format is the snapshot format this package writes and reads.
const Format = 1

// Names inside a snapshot zip and the data directory.
const (
	manifestName = "snapshot.json"
	dbName       = "monitor.db"
	objectsDir   = "objects"
	// RestoreDir is where a verified snapshot waits in the data directory.
	RestoreDir = "restore"
	readyName  = "READY"
	// stagedName describes the staged snapshot, for StagedInfo.
	stagedName = "staged.json"
)

// File modes. A snapshot is an export its owner keeps (group may read it,
// for a backup user); what is staged in the data directory is the
// instance's own data, read by Monitor's user alone.
const (
	exportPerm = 0o640
	dataPerm   = 0o600
	dirPerm    = 0o750
)

// Manifest describes a snapshot.
type Manifest struct {
	Format     int       `json:"format"`
	Generator  string    `json:"generator"`
	CreatedAt  time.Time `json:"created_at"`
	Migrations []string  `json:"migrations"`
	Objects    int       `json:"objects"`
}

// Result says what an export wrote.
type Result struct {
	Objects int
	Bytes   int64
}

// Export writes a snapshot of the store and the file blob store rooted at
// objectsRoot to out, a zip file that must not exist. It is staged beside
// out and renamed into place when complete.
func Export(ctx context.Context, st *store.Store, objectsRoot, out, generator string) (Result, error) {
	var res Result
	if st.Driver() != "sqlite" {
		return res, store.ErrSnapshotUnsupported
	}
	if _, err := os.Stat(out); err == nil {
		return res, fmt.Errorf("snapshot: %s exists already; choose another -o or remove it", out)
	}
	parent := filepath.Dir(filepath.Clean(out))
	staging, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".staging-")
	if err != nil {
		return res, fmt.Errorf("snapshot: cannot stage beside %s: %w", out, err)
	}
	defer os.RemoveAll(staging)
	dbCopy := filepath.Join(staging, dbName)
	if err := st.SnapshotInto(ctx, dbCopy); err != nil {
		return res, err
	}
	info, err := store.VerifySnapshot(ctx, dbCopy)
	if err != nil {
		return res, err
	}
	zipTmp := filepath.Join(staging, "snapshot.zip")
	f, err := os.OpenFile(zipTmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, exportPerm)
	if err != nil {
		return res, fmt.Errorf("snapshot: %w", err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	now := time.Now().UTC().Truncate(time.Second)
	var objects []store.SnapshotObject
	var missing []string
	for _, o := range info.Objects {
		p := filepath.Join(objectsRoot, filepath.FromSlash(o.Key))
		if _, err := os.Stat(p); err != nil {
			// Garbage and unfinished uploads may be gone; attached ones
			// are the archive.
			if o.State == store.ObjectAttached {
				missing = append(missing, o.Key)
			}
			continue
		}
		objects = append(objects, o)
	}
	if len(missing) > 0 {
		return res, fmt.Errorf("snapshot: %d stored media file(s) are missing from %s, the first %s; nothing was written", len(missing), objectsRoot, missing[0])
	}
	man := Manifest{Format: Format, Generator: generator, CreatedAt: now, Migrations: info.Migrations, Objects: len(objects)}
	mb, _ := json.MarshalIndent(man, "", "  ")
	if err := addBytes(zw, manifestName, mb, now); err != nil {
		return res, err
	}
	if err := addFile(zw, dbName, dbCopy, now, zip.Deflate); err != nil {
		return res, err
	}
	for _, o := range objects {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := addFile(zw, objectsDir+"/"+o.Key, filepath.Join(objectsRoot, filepath.FromSlash(o.Key)), now, zip.Store); err != nil {
			return res, err
		}
	}
	if err := zw.Close(); err != nil {
		return res, fmt.Errorf("snapshot: %w", err)
	}
	if err := f.Close(); err != nil {
		return res, fmt.Errorf("snapshot: %w", err)
	}
	if err := os.Rename(zipTmp, out); err != nil {
		return res, fmt.Errorf("snapshot: %w", err)
	}
	res.Objects = len(objects)
	if st, err := os.Stat(out); err == nil {
		res.Bytes = st.Size()
	}
	return res, nil
}

func addBytes(zw *zip.Writer, name string, data []byte, at time.Time) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: at})
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	_, err = w.Write(data)
	return err
}

func addFile(zw *zip.Writer, name, file string, at time.Time, method uint16) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: at})
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("snapshot: %s: %w", name, err)
	}
	return nil
}

// Staged is a verified snapshot waiting for the next start.
type Staged struct {
	Manifest Manifest `json:"manifest"`
	Objects  int      `json:"objects"`
	// Pending counts the migrations the next start applies to it.
	Pending int `json:"pending"`
	// Source is the zip file's name; StagedAt when it was staged.
	Source   string    `json:"source"`
	StagedAt time.Time `json:"staged_at"`
}

// ReadManifest reads a snapshot zip's manifest without unpacking it, to
// show what a restore would bring back; Stage verifies the rest.
func ReadManifest(zipPath string) (Manifest, error) {
	var m Manifest
	zr, err := zip.OpenReader(zipPath)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return m, fmt.Errorf("snapshot: %s is not a readable zip file: %v", filepath.Base(zipPath), err)
	}
	defer zr.Close()
	var mf, db *zip.File
	for _, f := range zr.File {
		switch f.Name {
		case manifestName:
			mf = f
		case dbName:
			db = f
		}
	}
	if mf == nil || db == nil {
		return m, fmt.Errorf("snapshot: %s has no %s or %s; it is not a Monitor snapshot", filepath.Base(zipPath), manifestName, dbName)
	}
	if err := readJSON(mf, &m); err != nil {
		return m, fmt.Errorf("snapshot: %s: %s: %w", filepath.Base(zipPath), manifestName, err)
	}
	if m.Format > Format {
		return m, fmt.Errorf("snapshot: format %d is newer than this monitor understands (%d); use a newer monitor", m.Format, Format)
	}
	return m, nil
}

// StagedInfo describes the snapshot staged in dataDir for the next start;
// ok is false when none is.
func StagedInfo(dataDir string) (s Staged, ok bool, err error) {
	restore := filepath.Join(dataDir, RestoreDir)
	if _, err := os.Stat(filepath.Join(restore, readyName)); errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	} else if err != nil {
		return s, false, fmt.Errorf("snapshot: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(restore, stagedName))
	if errors.Is(err, fs.ErrNotExist) {
		return s, true, nil // staged by an older monitor: no description
	}
	if err != nil {
		return s, true, fmt.Errorf("snapshot: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, true, fmt.Errorf("snapshot: %s: %w", stagedName, err)
	}
	return s, true, nil
}

// CancelStaged removes the snapshot staged in dataDir, so the next start
// keeps the data it has; ok is false when none was staged.
func CancelStaged(dataDir string) (ok bool, err error) {
	restore := filepath.Join(dataDir, RestoreDir)
	if _, err := os.Stat(filepath.Join(restore, readyName)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	// READY goes first: a crash part-way leaves nothing the next start
	// would swap in.
	if err := os.Remove(filepath.Join(restore, readyName)); err != nil {
		return false, fmt.Errorf("snapshot: %w", err)
	}
	if err := os.RemoveAll(restore); err != nil {
		return true, fmt.Errorf("snapshot: %w", err)
	}
	return true, nil
}

// Stage verifies a snapshot zip and unpacks it into dataDir/restore for
// the next start to swap in. Nothing in use is touched; a snapshot that
// fails any check leaves no trace.
func Stage(ctx context.Context, zipPath, dataDir string) (Staged, error) {
	var out Staged
	zr, err := zip.OpenReader(zipPath)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return out, fmt.Errorf("snapshot: %s is not a readable zip file: %v", zipPath, err)
	}
	defer zr.Close()
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if !fs.ValidPath(f.Name) || strings.Contains(f.Name, `\`) || f.Mode()&fs.ModeSymlink != 0 {
			return out, fmt.Errorf("snapshot: entry %q would be written outside the data directory; this is not a snapshot Monitor made", f.Name)
		}
		entries[f.Name] = f
	}
	mf, ok := entries[manifestName]
	if !ok || entries[dbName] == nil {
		return out, fmt.Errorf("snapshot: %s has no %s or %s; it is not a Monitor snapshot", zipPath, manifestName, dbName)
	}
	if err := readJSON(mf, &out.Manifest); err != nil {
		return out, fmt.Errorf("snapshot: %s: %w", manifestName, err)
	}
	if out.Manifest.Format > Format {
		return out, fmt.Errorf("snapshot: format %d is newer than this monitor understands (%d); use a newer monitor", out.Manifest.Format, Format)
	}
	if err := os.MkdirAll(dataDir, dirPerm); err != nil {
		return out, fmt.Errorf("snapshot: %w", err)
	}
	tmp, err := os.MkdirTemp(dataDir, ".restore-")
	if err != nil {
		return out, fmt.Errorf("snapshot: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := extract(entries[dbName], filepath.Join(tmp, dbName)); err != nil {
		return out, err
	}
	info, err := store.VerifySnapshot(ctx, filepath.Join(tmp, dbName))
	if err != nil {
		return out, fmt.Errorf("snapshot refused, nothing was replaced: %w", err)
	}
	if err := checkSchema(ctx, tmp, info); err != nil {
		return out, fmt.Errorf("snapshot refused, nothing was replaced: %w", err)
	}
	out.Pending = info.Pending
	for _, o := range info.Objects {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if err := blob.ValidateKey(o.Key); err != nil {
			return out, fmt.Errorf("snapshot refused, nothing was replaced: %w", err)
		}
		f, ok := entries[objectsDir+"/"+o.Key]
		if !ok {
			if o.State == store.ObjectAttached {
				return out, fmt.Errorf("snapshot refused, nothing was replaced: stored media %s is missing from it", o.Key)
			}
			continue
		}
		if err := extract(f, filepath.Join(tmp, objectsDir, filepath.FromSlash(o.Key))); err != nil {
			return out, err
		}
		out.Objects++
	}
	if err := os.MkdirAll(filepath.Join(tmp, objectsDir), dirPerm); err != nil {
		return out, fmt.Errorf("snapshot: %w", err)
	}
	out.Source, out.StagedAt = filepath.Base(zipPath), time.Now().UTC().Truncate(time.Second)
	desc, err := json.Marshal(out)
	if err != nil {
		return out, fmt.Errorf("snapshot: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, stagedName), desc, dataPerm); err != nil {
		return out, fmt.Errorf("snapshot: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, readyName), []byte(out.StagedAt.Format("20060102T150405Z")+"\n"), dataPerm); err != nil {
		return out, fmt.Errorf("snapshot: %w", err)
	}
	dst := filepath.Join(dataDir, RestoreDir)
	if err := os.RemoveAll(dst); err != nil {
		return out, fmt.Errorf("snapshot: replace the restore waiting in %s: %w", dst, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return out, fmt.Errorf("snapshot: %w", err)
	}
	keep = true
	return out, nil
}

// maxDifferences is how many schema differences a refusal names.
const maxDifferences = 5

// checkSchema refuses a snapshot whose database holds anything its
// migrations do not create, or lacks anything they do: a trigger, a view,
// an index, a table or a column added or dropped by hand. The known schema
// is not a list kept here but a fresh database, in dir, migrated to the
// snapshot's versions by this binary's own migrations, Monitor's and
// River's.
func checkSchema(ctx context.Context, dir string, info store.SnapshotInfo) error {
	refDir, err := os.MkdirTemp(dir, ".schema-")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer os.RemoveAll(refDir)
	ref, err := store.Open(ctx, config.Database{Driver: "sqlite", Path: filepath.Join(refDir, dbName)}, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer ref.Close()
	last := info.Migrations[len(info.Migrations)-1]
	if _, err := ref.MigrateThrough(ctx, last); err != nil {
		return err
	}
	if info.QueueVersion > 0 {
		if err := queue.MigrateTo(ctx, ref, info.QueueVersion); err != nil {
			return fmt.Errorf("its job queue tables are at River version %d, which this monitor cannot recreate (%v); restore it with the monitor that made it", info.QueueVersion, err)
		}
	}
	want, err := ref.SchemaGet(ctx)
	if err != nil {
		return err
	}
	diffs := store.SchemaCompare(info.Schema, want)
	if len(diffs) == 0 {
		return nil
	}
	version := "migration " + strings.SplitN(last, "_", 2)[0]
	var msgs []string
	for i, d := range diffs {
		if i == maxDifferences {
			msgs = append(msgs, fmt.Sprintf("and %d more difference(s)", len(diffs)-i))
			break
		}
		v := version
		if strings.HasPrefix(d.Object.Table, "river_") {
			v = fmt.Sprintf("River's queue migration %d", info.QueueVersion)
		}
		msgs = append(msgs, d.Describe(v))
	}
	return fmt.Errorf("%s; a snapshot holds exactly the schema Monitor's migrations create, so this one was changed after export: restore one as monitor export snapshot wrote it", strings.Join(msgs, "; "))
}

func readJSON(f *zip.File, v any) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return json.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(v)
}

func extract(f *zip.File, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), dirPerm); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("snapshot: %s: %w", f.Name, err)
	}
	defer rc.Close()
	w, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, dataPerm)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if _, err := io.Copy(w, rc); err != nil {
		_ = w.Close()
		return fmt.Errorf("snapshot: %s is damaged: %v", f.Name, err)
	}
	return w.Close()
}

// ApplyStaged swaps a staged snapshot in, before anything opens the
// database: the current database file (with its WAL) and objects folder
// move to dataDir/rollback-<time>, the staged ones take their places. It
// reports whether it did; with nothing staged it does nothing. Each step
// skips what is done already, so a crash part-way is finished by the next
// start.
func ApplyStaged(dataDir, dbPath, objectsRoot string) (rollback string, err error) {
	restore := filepath.Join(dataDir, RestoreDir)
	stamp, err := os.ReadFile(filepath.Join(restore, readyName))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	rollback = filepath.Join(dataDir, "rollback-"+strings.TrimSpace(string(stamp)))
	if err := os.MkdirAll(rollback, dirPerm); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	move := func(from, to string) error {
		if _, err := os.Stat(from); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err := os.Rename(from, to); err != nil {
			return fmt.Errorf("snapshot: restore: %w", err)
		}
		return nil
	}
	staged := filepath.Join(restore, dbName)
	if _, err := os.Stat(staged); err == nil {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := move(dbPath+suffix, filepath.Join(rollback, path.Base(filepath.ToSlash(dbPath))+suffix)); err != nil {
				return "", err
			}
		}
		if err := move(staged, dbPath); err != nil {
			return "", err
		}
	}
	if _, err := os.Stat(filepath.Join(restore, objectsDir)); err == nil {
		if err := move(objectsRoot, filepath.Join(rollback, objectsDir)); err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(objectsRoot), dirPerm); err != nil {
			return "", fmt.Errorf("snapshot: %w", err)
		}
		if err := move(filepath.Join(restore, objectsDir), objectsRoot); err != nil {
			return "", err
		}
	}
	if err := os.RemoveAll(restore); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	return rollback, nil
}
