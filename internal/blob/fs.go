package blob

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	// tmpDirName is the directory inside the root where Put stages uploads.
	// Being inside the root keeps it on the same file system, so the final
	// rename is atomic. Keys starting with this segment are refused.
	tmpDirName = ".tmp"
	// staleTmpAge is how old a staged upload must be before NewFS treats it
	// as left behind by a crash and removes it.
	staleTmpAge = 24 * time.Hour
	// copyBufSize is the chunk size Put copies with; the context is checked
	// between chunks.
	copyBufSize = 64 << 10
	// putAttempts bounds how often Put recreates the parent directory when a
	// concurrent Delete removes it between mkdir and rename.
	putAttempts = 10
	dirPerm     = 0o750
	filePerm    = 0o600 // instance data, read by Monitor's user alone
)

// FS is a Store on the local file system: the object at key "a/b/c" is the
// file <root>/a/b/c. It is the embedded-mode store, rooted at
// $MONITOR_DATA_DIR/objects. It is safe for concurrent use within one
// process and across processes sharing the directory.
//
// Because objects are files, a key cannot be both an object and a prefix
// directory of another object ("a/b" and "a/b/c"); Monitor's keys
// (see ObjectKey) never are. FS does not keep SHA-256 digests, so Get, Stat
// and List return Info with an empty SHA256.
type FS struct {
	root  string // absolute, cleaned
	under string // root with a trailing separator: every object path starts with it
	tmp   string // root/.tmp
	// bufs are Put's copy buffers, reused: an import puts thousands of
	// small objects.
	bufs *sync.Pool
}

var _ Store = (*FS)(nil)

// NewFS opens the file store rooted at root (normally
// $MONITOR_DATA_DIR/objects), creating the directory if it is missing and
// checking that it is a writable directory. It also removes uploads staged
// more than a day ago that a crash left behind.
func NewFS(root string) (*FS, error) {
	if root == "" {
		return nil, errors.New("blob: objects dir is empty; set MONITOR_DATA_DIR")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("blob: objects dir %s: %w; set MONITOR_DATA_DIR to a usable path", root, err)
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		err = os.MkdirAll(abs, dirPerm)
		if err != nil {
			return nil, fmt.Errorf("blob: cannot create objects dir %s: %w; check the path or set MONITOR_DATA_DIR", abs, err)
		}
		st, err = os.Stat(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("blob: objects dir %s: %w; check the path or set MONITOR_DATA_DIR", abs, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("blob: objects dir %s is not a directory; move the file away or set MONITOR_DATA_DIR", abs)
	}
	if err := probeWritable(abs); err != nil {
		return nil, fmt.Errorf("blob: objects dir %s is not writable: %w; fix its permissions or set MONITOR_DATA_DIR", abs, unwrapPath(err))
	}
	f := &FS{root: abs, under: abs, tmp: filepath.Join(abs, tmpDirName),
		bufs: &sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}}
	if !strings.HasSuffix(abs, string(filepath.Separator)) {
		f.under += string(filepath.Separator)
	}
	if err := os.MkdirAll(f.tmp, dirPerm); err != nil {
		return nil, fmt.Errorf("blob: cannot create staging dir %s: %w; fix its permissions or set MONITOR_DATA_DIR", f.tmp, unwrapPath(err))
	}
	f.removeStaleTmp(time.Now().Add(-staleTmpAge))
	return f, nil
}

// Root returns the absolute directory the store keeps its objects in.
func (f *FS) Root() string { return f.root }

// Put implements Store. The bytes are staged in root/.tmp, hashed while
// copying, fsynced, renamed into place and made durable by syncing the parent
// directory.
func (f *FS) Put(ctx context.Context, key string, r io.Reader) (info Info, err error) {
	dst, err := f.path(key)
	if err != nil {
		return Info{}, fmt.Errorf("blob: put: %w", err)
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("blob: put %s: %w", key, err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	if err := os.MkdirAll(f.tmp, dirPerm); err != nil {
		return Info{}, err
	}
	tmp, err := os.CreateTemp(f.tmp, "put-*")
	if err != nil {
		return Info{}, err
	}
	staged := true
	defer func() {
		if staged {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()

	h := sha256.New()
	bp := f.bufs.Get().(*[]byte)
	size, err := io.CopyBuffer(io.MultiWriter(tmp, h), ctxReader{ctx: ctx, r: r}, *bp)
	f.bufs.Put(bp)
	if err != nil {
		return Info{}, err
	}
	if err := tmp.Chmod(filePerm); err != nil {
		return Info{}, err
	}
	if err := tmp.Sync(); err != nil {
		return Info{}, err
	}
	st, err := tmp.Stat()
	if err != nil {
		return Info{}, err
	}
	if err := tmp.Close(); err != nil {
		return Info{}, err
	}
	// Last chance to honour a cancel before the object becomes visible.
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	created, err := f.rename(tmp.Name(), dst)
	if err != nil {
		return Info{}, err
	}
	staged = false
	if err := f.syncParents(dst, created); err != nil {
		return Info{}, err
	}
	return Info{Key: key, Size: size, SHA256: hex.EncodeToString(h.Sum(nil)), ModTime: st.ModTime()}, nil
}

// rename moves the staged file to dst, creating dst's parent directories as
// needed. A concurrent Delete may remove an emptied parent between mkdir and
// rename, so a missing parent is retried a few times. created reports
// whether any directory was made.
func (f *FS) rename(src, dst string) (created bool, err error) {
	for attempt := 1; ; attempt++ {
		err = os.Rename(src, dst)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || attempt == putAttempts {
			return created, err
		}
		// MkdirAll fails with "not exist" or "exists" when a Delete prunes
		// a directory it is walking through; the next attempt sorts it out.
		err = os.MkdirAll(filepath.Dir(dst), dirPerm)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) {
			return created, err
		}
		created = true
	}
}

// syncParents makes the rename durable by syncing dst's directory and, when
// directories were created for it, every directory up to the root.
func (f *FS) syncParents(dst string, created bool) error {
	dir := filepath.Dir(dst)
	if err := syncDir(dir); err != nil {
		return err
	}
	for created && dir != f.root {
		dir = filepath.Dir(dir)
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// Get implements Store. The whole object comes back as an *os.File, so
// callers such as http.ServeContent can seek in it.
func (f *FS) Get(ctx context.Context, key string, rng *Range) (io.ReadCloser, Info, error) {
	p, err := f.path(key)
	if err != nil {
		return nil, Info{}, fmt.Errorf("blob: get: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, Info{}, fmt.Errorf("blob: get %s: %w", key, err)
	}
	file, err := os.Open(p)
	if err != nil {
		return nil, Info{}, fmt.Errorf("blob: get %s: %w", key, notFound(err))
	}
	st, err := file.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = ErrNotFound
	}
	if err != nil {
		_ = file.Close()
		return nil, Info{}, fmt.Errorf("blob: get %s: %w", key, err)
	}
	info := fileInfo(key, st)
	if rng == nil {
		return file, info, nil
	}
	off, n, err := rng.bounds(info.Size)
	if err != nil {
		_ = file.Close()
		return nil, Info{}, fmt.Errorf("blob: get %s: %w", key, err)
	}
	return sectionReadCloser{io.NewSectionReader(file, off, n), file}, info, nil
}

// Stat implements Store.
func (f *FS) Stat(ctx context.Context, key string) (Info, error) {
	p, err := f.path(key)
	if err != nil {
		return Info{}, fmt.Errorf("blob: stat: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	st, err := os.Stat(p)
	if err == nil && !st.Mode().IsRegular() {
		err = ErrNotFound
	}
	if err != nil {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, notFound(err))
	}
	return fileInfo(key, st), nil
}

// Delete implements Store. After removing the file it removes parent
// directories that became empty, up to but not including the root; that
// cleanup is best effort.
func (f *FS) Delete(ctx context.Context, key string) error {
	p, err := f.path(key)
	if err != nil {
		return fmt.Errorf("blob: delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err == nil && st.IsDir() {
		return nil // nothing stored under this key
	}
	if err != nil {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	// os.Remove only removes empty directories, so this stops at the first
	// directory still holding something.
	for dir := filepath.Dir(p); strings.HasPrefix(dir, f.under); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// List implements Store. It walks only the directory the prefix names, and
// visits entries in an order that yields keys sorted byte-wise without
// collecting them first.
func (f *FS) List(ctx context.Context, prefix string, fn func(Info) error) error {
	if err := checkPrefix(prefix); err != nil {
		return fmt.Errorf("blob: list: %w", err)
	}
	dirKey, namePrefix := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dirKey, namePrefix = prefix[:i], prefix[i+1:]
	}
	if dirKey == tmpDirName || strings.HasPrefix(dirKey, tmpDirName+"/") {
		return nil
	}
	dir := f.root
	keyPrefix := ""
	if dirKey != "" {
		dir = filepath.Join(f.root, filepath.FromSlash(dirKey))
		keyPrefix = dirKey + "/"
	}
	err := f.walk(ctx, dir, keyPrefix, namePrefix, fn)
	if err != nil {
		return fmt.Errorf("blob: list %q: %w", prefix, err)
	}
	return nil
}

// walk yields the objects in dir whose names start with namePrefix, and
// everything below matching subdirectories, in key order.
func (f *FS) walk(ctx context.Context, dir, keyPrefix, namePrefix string, fn func(Info) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil // nothing under this prefix, or removed while listing
		}
		return err
	}
	entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool {
		name := e.Name()
		return !strings.HasPrefix(name, namePrefix) ||
			dir == f.root && name == tmpDirName ||
			keyProblem(name) != "" // not something Put could have written
	})
	// A directory's keys all begin with "name/", so sorting directories by
	// that string puts them exactly where their keys belong among the files.
	sortName := func(e fs.DirEntry) string {
		if e.IsDir() {
			return e.Name() + "/"
		}
		return e.Name()
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return cmp.Compare(sortName(a), sortName(b)) })

	for _, e := range entries {
		key := keyPrefix + e.Name()
		switch {
		case e.IsDir():
			if err := f.walk(ctx, filepath.Join(dir, e.Name()), key+"/", "", fn); err != nil {
				return err
			}
		case e.Type().IsRegular():
			st, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted while listing
			}
			if err != nil {
				return err
			}
			if err := fn(fileInfo(key, st)); err != nil {
				return err
			}
		}
	}
	return nil
}

// path maps a key to its file, refusing keys that are invalid, that would
// reach into the staging directory or that could leave the root.
func (f *FS) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	if key == tmpDirName || strings.HasPrefix(key, tmpDirName+"/") {
		return "", fmt.Errorf("%w %s: %q is reserved by the file store", ErrInvalidKey, quoteKey(key), tmpDirName)
	}
	rel := filepath.FromSlash(key)
	p := filepath.Join(f.root, rel)
	// ValidateKey already rules out escapes; this guards against it ever
	// being loosened.
	if !filepath.IsLocal(rel) || !strings.HasPrefix(p, f.under) {
		return "", fmt.Errorf("%w %s: leaves the store root", ErrInvalidKey, quoteKey(key))
	}
	return p, nil
}

// removeStaleTmp deletes staged uploads last written before cutoff: a crash
// between create and rename leaves them behind. Best effort.
func (f *FS) removeStaleTmp(cutoff time.Time) {
	entries, err := os.ReadDir(f.tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		if st, err := e.Info(); err == nil && st.Mode().IsRegular() && st.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(f.tmp, e.Name()))
		}
	}
}

// probeWritable creates and removes a file in dir.
func probeWritable(dir string) error {
	p, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	name := p.Name()
	cerr := p.Close()
	if err := os.Remove(name); err != nil {
		return err
	}
	return cerr
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func fileInfo(key string, st fs.FileInfo) Info {
	return Info{Key: key, Size: st.Size(), ModTime: st.ModTime()}
}

// notFound turns "no such file" (and "a parent is not a directory", which
// happens when a key's parent path is itself an object) into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return ErrNotFound
	}
	return err
}

// unwrapPath drops the *fs.PathError wrapper so messages name the path once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ctxReader stops a copy once its context is done; it is checked before
// every chunk.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// sectionReadCloser reads a range of a file and closes the file.
type sectionReadCloser struct {
	*io.SectionReader
	io.Closer
}

// putNew writes the object at a key that must not exist yet straight to
// its file, without staging, a rename or a sync: a batch's put
// (fsBatch). A reader could see the file while it is written, so it is
// only for keys nothing reads until the batch is synced and recorded
// (a pending object's); a failed write removes the file, and a crash
// leaves it to the collector of pending objects.
func (f *FS) putNew(ctx context.Context, key string, r io.Reader) (info Info, err error) {
	dst, err := f.path(key)
	if err != nil {
		return Info{}, fmt.Errorf("blob: put: %w", err)
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("blob: put %s: %w", key, err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	open := func() (*os.File, error) { return os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, filePerm) }
	file, err := open()
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dst), dirPerm); err != nil {
			return Info{}, err
		}
		file, err = open()
	}
	if err != nil {
		return Info{}, err
	}
	done := false
	defer func() {
		if !done {
			_ = file.Close()
			_ = os.Remove(dst)
		}
	}()
	h := sha256.New()
	bp := f.bufs.Get().(*[]byte)
	size, err := io.CopyBuffer(io.MultiWriter(file, h), ctxReader{ctx: ctx, r: r}, *bp)
	f.bufs.Put(bp)
	if err != nil {
		return Info{}, err
	}
	st, err := file.Stat()
	if err != nil {
		return Info{}, err
	}
	done = true
	if err := file.Close(); err != nil {
		_ = os.Remove(dst)
		return Info{}, err
	}
	return Info{Key: key, Size: size, SHA256: hex.EncodeToString(h.Sum(nil)), ModTime: st.ModTime()}, nil
}
