// Package blobtest is the behaviour suite every blob.Store implementation
// must pass. Each implementation's tests call Run with a constructor for a
// fresh, empty store, so the file store and the S3 store stay
// interchangeable.
package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/blob"
)

// Run runs the conformance suite against the stores newStore returns. Every
// subtest calls newStore for its own empty store and most run in parallel,
// so newStore must be safe to call concurrently and must register its own
// cleanup with t.
func Run(t *testing.T, newStore func(t *testing.T) blob.Store) {
	t.Run("PutGet", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		data := randomBytes(1, 100_000)
		info := put(t, s, "t1/objects/a", data)
		require.Equal(t, "t1/objects/a", info.Key)
		require.Equal(t, int64(len(data)), info.Size)
		require.Equal(t, sha256Hex(data), info.SHA256)
		require.False(t, info.ModTime.IsZero(), "Put must set ModTime")

		got, ginfo := get(t, s, "t1/objects/a", nil)
		require.Equal(t, data, got)
		require.Equal(t, "t1/objects/a", ginfo.Key)
		require.Equal(t, int64(len(data)), ginfo.Size)
		if ginfo.SHA256 != "" {
			require.Equal(t, info.SHA256, ginfo.SHA256)
		}
	})

	t.Run("PutEmpty", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		info := put(t, s, "t1/objects/empty", nil)
		require.Equal(t, int64(0), info.Size)
		require.Equal(t, sha256Hex(nil), info.SHA256)
		got, ginfo := get(t, s, "t1/objects/empty", nil)
		require.Empty(t, got)
		require.Equal(t, int64(0), ginfo.Size)
	})

	t.Run("PutLargeStreamed", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// Generated on the fly and checked by hashing, so the test itself
		// never holds the object; the size is deliberately not a multiple
		// of any likely buffer size.
		const size = 6<<20 + 12345
		info, err := s.Put(t.Context(), "t1/objects/large", io.LimitReader(streamReader(7), size))
		require.NoError(t, err)
		wantSum := streamSHA256(t, 7, size)
		require.Equal(t, int64(size), info.Size)
		require.Equal(t, wantSum, info.SHA256)

		rc, ginfo, err := s.Get(t.Context(), "t1/objects/large", nil)
		require.NoError(t, err)
		defer rc.Close()
		h := sha256.New()
		n, err := io.Copy(h, rc)
		require.NoError(t, err)
		require.Equal(t, int64(size), n)
		require.Equal(t, int64(size), ginfo.Size)
		require.Equal(t, wantSum, hex.EncodeToString(h.Sum(nil)))
	})

	t.Run("Overwrite", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "t1/objects/a", []byte("first version, rather long"))
		second := []byte("second")
		info := put(t, s, "t1/objects/a", second)
		require.Equal(t, sha256Hex(second), info.SHA256)
		got, _ := get(t, s, "t1/objects/a", nil)
		require.Equal(t, second, got)
		st, err := s.Stat(t.Context(), "t1/objects/a")
		require.NoError(t, err)
		require.Equal(t, int64(len(second)), st.Size)
	})

	t.Run("OverwriteIsAtomic", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		const writers, size = 6, 256 << 10
		versions := make([][]byte, writers)
		for i := range versions {
			versions[i] = bytes.Repeat([]byte{byte('A' + i)}, size)
		}
		put(t, s, "t1/objects/a", versions[0])

		var wg sync.WaitGroup
		errs := make(chan error, 2*writers)
		for i := range writers {
			wg.Go(func() {
				if _, err := s.Put(context.Background(), "t1/objects/a", bytes.NewReader(versions[i])); err != nil {
					errs <- err
				}
			})
			// Readers racing the writers must always see one whole version.
			wg.Go(func() {
				rc, _, err := s.Get(context.Background(), "t1/objects/a", nil)
				if err != nil {
					errs <- err
					return
				}
				defer rc.Close()
				got, err := io.ReadAll(rc)
				if err == nil && !slices.ContainsFunc(versions, func(v []byte) bool { return bytes.Equal(v, got) }) {
					err = fmt.Errorf("read a torn object of %d bytes", len(got))
				}
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		got, _ := get(t, s, "t1/objects/a", nil)
		require.True(t, slices.ContainsFunc(versions, func(v []byte) bool { return bytes.Equal(v, got) }),
			"final object is not one of the written versions")
	})

	t.Run("GetRange", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		data := randomBytes(2, 1000)
		put(t, s, "t1/objects/r", data)
		for _, tc := range []struct {
			name string
			rng  blob.Range
			want []byte
		}{
			{"whole", blob.Range{Offset: 0, Length: -1}, data},
			{"middle", blob.Range{Offset: 10, Length: 20}, data[10:30]},
			{"to end", blob.Range{Offset: 990, Length: -1}, data[990:]},
			{"length past end is cut", blob.Range{Offset: 990, Length: 100}, data[990:]},
			{"zero length", blob.Range{Offset: 100, Length: 0}, nil},
			{"offset at end", blob.Range{Offset: 1000, Length: -1}, nil},
			{"last byte", blob.Range{Offset: 999, Length: 1}, data[999:]},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, info := get(t, s, "t1/objects/r", &tc.rng)
				if len(tc.want) == 0 {
					require.Empty(t, got)
				} else {
					require.Equal(t, tc.want, got)
				}
				require.Equal(t, int64(len(data)), info.Size, "Info describes the whole object")
			})
		}
		for _, rng := range []blob.Range{{Offset: 1001, Length: 0}, {Offset: 5000, Length: -1}, {Offset: -1, Length: 5}} {
			rc, _, err := s.Get(t.Context(), "t1/objects/r", &rng)
			if rc != nil {
				rc.Close()
			}
			require.ErrorIs(t, err, blob.ErrInvalidRange, "range %+v", rng)
		}
	})

	t.Run("Stat", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		data := randomBytes(3, 4321)
		put(t, s, "t1/objects/s", data)
		info, err := s.Stat(t.Context(), "t1/objects/s")
		require.NoError(t, err)
		require.Equal(t, "t1/objects/s", info.Key)
		require.Equal(t, int64(len(data)), info.Size)
		require.False(t, info.ModTime.IsZero())
		if info.SHA256 != "" {
			require.Equal(t, sha256Hex(data), info.SHA256)
		}
	})

	t.Run("Missing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "t1/objects/present", []byte("x"))
		for _, key := range []string{"t1/objects/absent", "t2/objects/present", "t1/objects/present/child", "t1/objects"} {
			_, err := s.Stat(t.Context(), key)
			require.ErrorIs(t, err, blob.ErrNotFound, "Stat %s", key)
			rc, _, err := s.Get(t.Context(), key, nil)
			if rc != nil {
				rc.Close()
			}
			require.ErrorIs(t, err, blob.ErrNotFound, "Get %s", key)
			_, _, err = s.Get(t.Context(), key, &blob.Range{Offset: 0, Length: 1})
			require.ErrorIs(t, err, blob.ErrNotFound, "Get range %s", key)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		put(t, s, "t1/objects/a", []byte("a"))
		put(t, s, "t1/objects/b", []byte("b"))
		require.NoError(t, s.Delete(t.Context(), "t1/objects/a"))
		_, err := s.Stat(t.Context(), "t1/objects/a")
		require.ErrorIs(t, err, blob.ErrNotFound)
		_, _, err = s.Get(t.Context(), "t1/objects/a", nil)
		require.ErrorIs(t, err, blob.ErrNotFound)
		require.Equal(t, []string{"t1/objects/b"}, listKeys(t, s, ""), "Delete removes only its key")

		// The key can be written again after a delete.
		put(t, s, "t1/objects/a", []byte("again"))
		got, _ := get(t, s, "t1/objects/a", nil)
		require.Equal(t, []byte("again"), got)
	})

	t.Run("DeleteMissing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		require.NoError(t, s.Delete(t.Context(), "t1/objects/never"))
		put(t, s, "t1/objects/a", []byte("a"))
		require.NoError(t, s.Delete(t.Context(), "t1/objects/a"))
		require.NoError(t, s.Delete(t.Context(), "t1/objects/a"), "second delete")
	})

	t.Run("ListPrefix", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		sizes := map[string]int{"t1/objects/a": 1, "t1/objects/b": 22, "t2/objects/c": 333, "t10/objects/d": 4}
		for key, n := range sizes {
			put(t, s, key, bytes.Repeat([]byte("x"), n))
		}
		for _, tc := range []struct {
			prefix string
			want   []string
		}{
			{"t1/", []string{"t1/objects/a", "t1/objects/b"}},
			{"t1/objects/", []string{"t1/objects/a", "t1/objects/b"}},
			{"t1/objects/b", []string{"t1/objects/b"}},
			{"t1", []string{"t1/objects/a", "t1/objects/b", "t10/objects/d"}},
			{"t2/objects/c", []string{"t2/objects/c"}},
			{"", []string{"t1/objects/a", "t1/objects/b", "t10/objects/d", "t2/objects/c"}},
			{"t3/", nil},
			{"t1/objects/a/", nil},
			{"t1/obj", []string{"t1/objects/a", "t1/objects/b"}},
		} {
			require.Equal(t, tc.want, listKeys(t, s, tc.prefix), "prefix %q", tc.prefix)
		}
		err := s.List(t.Context(), "", func(info blob.Info) error {
			if info.Size != int64(sizes[info.Key]) {
				return fmt.Errorf("%s: size %d, want %d", info.Key, info.Size, sizes[info.Key])
			}
			return nil
		})
		require.NoError(t, err)
	})

	t.Run("ListOrder", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// '-' and '.' sort before '/', which sorts before digits and
		// letters: a file-tree walk in name order gets this wrong.
		keys := []string{"o/a0", "o/a/b", "o/a-c", "o/a.d", "o/A", "o/_x", "o/a/b-c/d", "o/a/b0", "o/Z/z"}
		for _, key := range keys {
			put(t, s, key, []byte(key))
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		require.Equal(t, want, listKeys(t, s, ""))
		require.Equal(t, want, listKeys(t, s, "o/"))
	})

	t.Run("ListStops", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, key := range []string{"t1/objects/a", "t1/objects/b", "t1/objects/c"} {
			put(t, s, key, []byte(key))
		}
		errStop := errors.New("stop here")
		var seen []string
		err := s.List(t.Context(), "t1/", func(info blob.Info) error {
			seen = append(seen, info.Key)
			if len(seen) == 2 {
				return errStop
			}
			return nil
		})
		require.ErrorIs(t, err, errStop)
		require.Equal(t, []string{"t1/objects/a", "t1/objects/b"}, seen)
	})

	t.Run("ListInvalidPrefix", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, prefix := range []string{"../", "..", "a/../", "a/../b", "/a", "a//", "a/./", `a\b`, "a b", "a\x00", strings.Repeat("a", blob.MaxKeyLen+1)} {
			err := s.List(t.Context(), prefix, func(blob.Info) error { return nil })
			require.ErrorIs(t, err, blob.ErrInvalidKey, "prefix %q", prefix)
		}
	})

	t.Run("InvalidKeys", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, key := range InvalidKeys() {
			_, err := s.Put(t.Context(), key, strings.NewReader("payload"))
			require.ErrorIs(t, err, blob.ErrInvalidKey, "Put %q", key)
			_, _, err = s.Get(t.Context(), key, nil)
			require.ErrorIs(t, err, blob.ErrInvalidKey, "Get %q", key)
			_, err = s.Stat(t.Context(), key)
			require.ErrorIs(t, err, blob.ErrInvalidKey, "Stat %q", key)
			require.ErrorIs(t, s.Delete(t.Context(), key), blob.ErrInvalidKey, "Delete %q", key)
		}
		require.Empty(t, listKeys(t, s, ""), "invalid keys must write nothing")
	})

	t.Run("PutReaderFails", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		errBroken := errors.New("upstream connection reset")
		_, err := s.Put(t.Context(), "t1/objects/a", failingReader(randomBytes(4, 300_000), errBroken))
		require.ErrorIs(t, err, errBroken)
		_, err = s.Stat(t.Context(), "t1/objects/a")
		require.ErrorIs(t, err, blob.ErrNotFound)
		require.Empty(t, listKeys(t, s, ""))
	})

	t.Run("PutReaderFailsKeepsOld", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		old := randomBytes(5, 5000)
		put(t, s, "t1/objects/a", old)
		errBroken := errors.New("upstream connection reset")
		_, err := s.Put(t.Context(), "t1/objects/a", failingReader(randomBytes(6, 300_000), errBroken))
		require.ErrorIs(t, err, errBroken)
		got, info := get(t, s, "t1/objects/a", nil)
		require.Equal(t, old, got)
		require.Equal(t, int64(len(old)), info.Size)
	})

	t.Run("PutCancelled", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := s.Put(ctx, "t1/objects/a", bytes.NewReader(randomBytes(7, 10_000)))
		require.ErrorIs(t, err, context.Canceled)
		_, err = s.Stat(t.Context(), "t1/objects/a")
		require.ErrorIs(t, err, blob.ErrNotFound)
		require.Empty(t, listKeys(t, s, ""))
	})

	t.Run("PutCancelledMidway", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		old := []byte("previous content")
		put(t, s, "t1/objects/a", old)
		put(t, s, "t1/objects/b", old[:4])

		for _, key := range []string{"t1/objects/a", "t1/objects/new"} {
			ctx, cancel := context.WithCancel(t.Context())
			// The reader cancels after 1 MiB and would go on for 32 MiB
			// more: the store must notice the cancel and stop early.
			r := &cancellingReader{r: io.LimitReader(streamReader(8), 33<<20), after: 1 << 20, cancel: cancel}
			_, err := s.Put(ctx, key, r)
			cancel()
			require.ErrorIs(t, err, context.Canceled, "Put %s", key)
			require.Less(t, r.read, int64(16<<20), "Put %s kept reading after cancel", key)
		}
		got, _ := get(t, s, "t1/objects/a", nil)
		require.Equal(t, old, got, "a cancelled overwrite keeps the old object")
		_, err := s.Stat(t.Context(), "t1/objects/new")
		require.ErrorIs(t, err, blob.ErrNotFound)
		require.Equal(t, []string{"t1/objects/a", "t1/objects/b"}, listKeys(t, s, ""))
	})

	t.Run("ObjectKey", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		key := blob.ObjectKey([16]byte{1, 2, 3}, [16]byte{4, 5, 6})
		require.NoError(t, blob.ValidateKey(key))
		put(t, s, key, []byte("media"))
		require.Equal(t, []string{key}, listKeys(t, s, key[:37]))
	})
}

// InvalidKeys returns keys every Store must refuse with blob.ErrInvalidKey.
func InvalidKeys() []string {
	return []string{
		"",
		"../x",
		"..",
		".",
		"a/../../b",
		"a/..",
		"/abs",
		"trailing/",
		"a//b",
		"a/./b",
		`a\b`,
		`..\x`,
		"a\x00b",
		"a b",
		"a/b?c",
		"ünicode",
		strings.Repeat("a/", blob.MaxKeyLen/2) + "a", // too long
	}
}

func put(t *testing.T, s blob.Store, key string, data []byte) blob.Info {
	t.Helper()
	info, err := s.Put(t.Context(), key, bytes.NewReader(data))
	require.NoError(t, err, "Put %s", key)
	return info
}

func get(t *testing.T, s blob.Store, key string, rng *blob.Range) ([]byte, blob.Info) {
	t.Helper()
	rc, info, err := s.Get(t.Context(), key, rng)
	require.NoError(t, err, "Get %s", key)
	defer rc.Close()
	data, err := io.ReadAll(rc)
	require.NoError(t, err, "read %s", key)
	require.NoError(t, rc.Close())
	return data, info
}

func listKeys(t *testing.T, s blob.Store, prefix string) []string {
	t.Helper()
	var keys []string
	err := s.List(t.Context(), prefix, func(info blob.Info) error {
		keys = append(keys, info.Key)
		return nil
	})
	require.NoError(t, err, "List %q", prefix)
	return keys
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// streamReader returns an endless deterministic pseudo-random byte stream.
func streamReader(seed byte) io.Reader {
	return rand.NewChaCha8([32]byte{seed})
}

func streamSHA256(t *testing.T, seed byte, size int64) string {
	t.Helper()
	h := sha256.New()
	_, err := io.Copy(h, io.LimitReader(streamReader(seed), size))
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

func randomBytes(seed byte, n int) []byte {
	data := make([]byte, n)
	_, _ = io.ReadFull(streamReader(seed), data)
	return data
}

// failingReader yields data and then fails with err.
func failingReader(data []byte, err error) io.Reader {
	return io.MultiReader(bytes.NewReader(data), errReader{err})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// cancellingReader calls cancel once more than after bytes have been read.
type cancellingReader struct {
	r      io.Reader
	after  int64
	cancel context.CancelFunc
	read   int64
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	if c.read > c.after {
		c.cancel()
	}
	return n, err
}
