package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/blob/blobtest"
)

func newFS(t testing.TB) *blob.FS {
	t.Helper()
	f, err := blob.NewFS(filepath.Join(t.TempDir(), "objects"))
	require.NoError(t, err)
	return f
}

func TestFSConformance(t *testing.T) {
	t.Parallel()
	blobtest.Run(t, func(t *testing.T) blob.Store { return newFS(t) })
}

func TestFSObjectsLandAtRootKey(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	data := []byte("photo bytes")
	_, err := f.Put(t.Context(), "t1/objects/a", bytes.NewReader(data))
	require.NoError(t, err)

	p := filepath.Join(f.Root(), "t1", "objects", "a")
	st, err := os.Lstat(p)
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular(), "object must be a plain file, got %v", st.Mode())
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, data, got)
	require.True(t, filepath.IsAbs(f.Root()))
}

func TestFSNoTempFilesLeft(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	tmpDir := filepath.Join(f.Root(), ".tmp")
	put := func(ctx context.Context, r io.Reader) {
		_, err := f.Put(ctx, "t1/objects/a", r)
		require.Error(t, err)
	}

	put(t.Context(), io.MultiReader(strings.NewReader(strings.Repeat("x", 200_000)), failReader{}))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	put(ctx, strings.NewReader("never written"))
	ctx, cancel = context.WithCancel(t.Context())
	put(ctx, io.MultiReader(strings.NewReader(strings.Repeat("x", 200_000)), cancelReader{cancel}, strings.NewReader("more")))

	entries, err := os.ReadDir(tmpDir)
	require.NoError(t, err)
	require.Empty(t, entries, "failed puts must remove their staged files")
	_, err = os.Stat(filepath.Join(f.Root(), "t1", "objects", "a"))
	require.ErrorIs(t, err, os.ErrNotExist)

	// A successful put leaves nothing staged either.
	_, err = f.Put(t.Context(), "t1/objects/a", strings.NewReader("ok"))
	require.NoError(t, err)
	entries, err = os.ReadDir(tmpDir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestFSStagingDirIsHidden(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	require.NoError(t, os.WriteFile(filepath.Join(f.Root(), ".tmp", "put-123"), []byte("partial"), 0o600))
	_, err := f.Put(t.Context(), "t1/objects/a", strings.NewReader("a"))
	require.NoError(t, err)

	for _, prefix := range []string{"", ".", ".tm", ".tmp", ".tmp/"} {
		var keys []string
		err := f.List(t.Context(), prefix, func(info blob.Info) error {
			keys = append(keys, info.Key)
			return nil
		})
		require.NoError(t, err)
		if prefix == "" {
			require.Equal(t, []string{"t1/objects/a"}, keys)
		} else {
			require.Empty(t, keys, "prefix %q", prefix)
		}
	}
	for _, key := range []string{".tmp", ".tmp/put-123", ".tmp/x/y"} {
		_, err := f.Put(t.Context(), key, strings.NewReader("x"))
		require.ErrorIs(t, err, blob.ErrInvalidKey, key)
		_, err = f.Stat(t.Context(), key)
		require.ErrorIs(t, err, blob.ErrInvalidKey, key)
		require.ErrorIs(t, f.Delete(t.Context(), key), blob.ErrInvalidKey, key)
	}
	_, err = os.Stat(filepath.Join(f.Root(), ".tmp", "put-123"))
	require.NoError(t, err, "staged file must be untouched")
}

func TestFSListSkipsForeignFiles(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	_, err := f.Put(t.Context(), "t1/objects/a", strings.NewReader("a"))
	require.NoError(t, err)
	// Files no valid key could name, and symlinks, are not objects.
	require.NoError(t, os.WriteFile(filepath.Join(f.Root(), "t1", "objects", "bad name"), nil, 0o600))
	require.NoError(t, os.Symlink(filepath.Join(f.Root(), "t1", "objects", "a"), filepath.Join(f.Root(), "t1", "objects", "link")))

	var keys []string
	require.NoError(t, f.List(t.Context(), "", func(info blob.Info) error {
		keys = append(keys, info.Key)
		return nil
	}))
	require.Equal(t, []string{"t1/objects/a"}, keys)
}

func TestFSDeletePrunesEmptyDirs(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	for _, key := range []string{"t1/objects/a", "t1/objects/b", "t2/objects/c"} {
		_, err := f.Put(t.Context(), key, strings.NewReader(key))
		require.NoError(t, err)
	}

	require.NoError(t, f.Delete(t.Context(), "t1/objects/a"))
	require.DirExists(t, filepath.Join(f.Root(), "t1", "objects"), "still holds b")

	require.NoError(t, f.Delete(t.Context(), "t1/objects/b"))
	require.NoDirExists(t, filepath.Join(f.Root(), "t1"))

	require.NoError(t, f.Delete(t.Context(), "t2/objects/c"))
	require.NoDirExists(t, filepath.Join(f.Root(), "t2"))
	require.DirExists(t, f.Root(), "root is never removed")
	require.DirExists(t, filepath.Join(f.Root(), ".tmp"))

	// Deleting a key that names a directory is a no-op, not a recursive delete.
	_, err := f.Put(t.Context(), "t3/objects/d", strings.NewReader("d"))
	require.NoError(t, err)
	require.NoError(t, f.Delete(t.Context(), "t3/objects"))
	_, err = f.Stat(t.Context(), "t3/objects/d")
	require.NoError(t, err)
}

// A Delete pruning a now-empty directory races a Put into that directory;
// the Put must still succeed.
func TestFSPutDeleteRace(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, key := range []string{"t1/objects/a", "t1/objects/b", "t1/other/c", "t1/d"} {
		wg.Go(func() {
			for range 200 {
				if _, err := f.Put(ctx, key, strings.NewReader(key)); err != nil {
					errs <- err
					return
				}
				if err := f.Delete(ctx, key); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestFSPutOverObjectPathFails(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	_, err := f.Put(t.Context(), "t1/objects/a", strings.NewReader("a"))
	require.NoError(t, err)
	_, err = f.Put(t.Context(), "t1/objects/a/b", strings.NewReader("b"))
	require.Error(t, err, "a file cannot also be a directory")
	got, err := f.Stat(t.Context(), "t1/objects/a")
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Size)
}

func TestNewFSCreatesRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "data", "objects")
	f, err := blob.NewFS(root)
	require.NoError(t, err)
	require.Equal(t, root, f.Root())
	st, err := os.Stat(root)
	require.NoError(t, err)
	require.True(t, st.IsDir())

	// Opening an existing root again works and keeps its objects.
	_, err = f.Put(t.Context(), "t1/objects/a", strings.NewReader("a"))
	require.NoError(t, err)
	f2, err := blob.NewFS(root)
	require.NoError(t, err)
	_, err = f2.Stat(t.Context(), "t1/objects/a")
	require.NoError(t, err)
}

func TestNewFSRejectsUnusableRoot(t *testing.T) {
	t.Parallel()
	// A regular file where the directory should be fails even for root,
	// which CI runs as.
	file := filepath.Join(t.TempDir(), "objects")
	require.NoError(t, os.WriteFile(file, []byte("not a dir"), 0o600))

	for _, root := range []string{file, filepath.Join(file, "objects")} {
		_, err := blob.NewFS(root)
		require.Error(t, err, root)
		msg := err.Error()
		require.Contains(t, msg, root, "error names the path")
		require.Contains(t, msg, "MONITOR_DATA_DIR", "error says what to do")
		require.True(t, strings.HasPrefix(msg, "blob: "), msg)
	}

	_, err := blob.NewFS("")
	require.ErrorContains(t, err, "MONITOR_DATA_DIR")
}

func TestNewFSRemovesStaleStagedFiles(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	tmpDir := filepath.Join(f.Root(), ".tmp")
	stale := filepath.Join(tmpDir, "put-stale")
	fresh := filepath.Join(tmpDir, "put-fresh")
	require.NoError(t, os.WriteFile(stale, []byte("crashed upload"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("upload in progress"), 0o600))
	old := time.Now().Add(-48 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))

	_, err := blob.NewFS(f.Root())
	require.NoError(t, err)
	require.NoFileExists(t, stale)
	require.FileExists(t, fresh)
}

func BenchmarkFSPut(b *testing.B) {
	f := newFS(b)
	data := bytes.Repeat([]byte("0123456789abcdef"), (1<<20)/16)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		// Overwriting one key keeps the disk use flat; each Put still
		// stages, fsyncs and renames a full object.
		if _, err := f.Put(ctx, "t1/objects/bench", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFSGet(b *testing.B) {
	f := newFS(b)
	data := bytes.Repeat([]byte("0123456789abcdef"), (1<<20)/16)
	ctx := context.Background()
	if _, err := f.Put(ctx, "t1/objects/bench", bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rc, _, err := f.Get(ctx, "t1/objects/bench", nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rc); err != nil {
			b.Fatal(err)
		}
		rc.Close()
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

// cancelReader cancels its context when read and then yields nothing more,
// so the copy continues to the next reader only if the store ignores ctx.
type cancelReader struct{ cancel context.CancelFunc }

func (c cancelReader) Read([]byte) (int, error) {
	c.cancel()
	return 0, io.EOF
}
