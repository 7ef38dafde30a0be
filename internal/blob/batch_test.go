package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/blob"
)

// wrapped is a store wrapping another, as the app's counting store does.
type wrapped struct{ blob.Store }

func (w wrapped) Unwrap() blob.Store { return w.Store }

func TestBatchFSPutsReadableAndSynced(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	b := blob.NewBatch(wrapped{f})
	want := map[string][]byte{}
	for i := range 20 {
		key := fmt.Sprintf("t1/objects/o%02d", i)
		data := bytes.Repeat([]byte{byte(i)}, 2048+i)
		info, err := b.Put(t.Context(), key, bytes.NewReader(data))
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		require.Equal(t, hex.EncodeToString(sum[:]), info.SHA256)
		require.Equal(t, int64(len(data)), info.Size)
		want[key] = data
	}
	// Readable before Sync, like Put's.
	for key, data := range want {
		rc, _, err := f.Get(t.Context(), key, nil)
		require.NoError(t, err)
		got, err := io.ReadAll(rc)
		require.NoError(t, rc.Close())
		require.NoError(t, err)
		require.Equal(t, data, got)
	}
	require.NoError(t, b.Sync(t.Context()))
	require.NoError(t, b.Sync(t.Context()), "a second Sync with nothing new")
	// Nothing staged is left behind.
	left, err := os.ReadDir(filepath.Join(f.Root(), ".tmp"))
	require.NoError(t, err)
	require.Empty(t, left)
}

func TestBatchFSFailedPutLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	b := blob.NewBatch(f)
	boom := errors.New("reader broke")
	_, err := b.Put(t.Context(), "t1/objects/broken", io.MultiReader(bytes.NewReader([]byte("part")), errReader{boom}))
	require.ErrorIs(t, err, boom)
	_, err = f.Stat(t.Context(), "t1/objects/broken")
	require.ErrorIs(t, err, blob.ErrNotFound)
	_, err = b.Put(t.Context(), "../escape", bytes.NewReader(nil))
	require.ErrorIs(t, err, blob.ErrInvalidKey)
	require.NoError(t, b.Sync(t.Context()))
}

func TestBatchSyncHonoursCancel(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	b := blob.NewBatch(f)
	_, err := b.Put(t.Context(), "t1/objects/a", bytes.NewReader([]byte("a")))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.ErrorIs(t, b.Sync(ctx), context.Canceled)
}

// plainStore is a store NewBatch knows nothing of: its batch puts through
// it.
type plainStore struct {
	blob.Store
	puts int
}

func (p *plainStore) Put(ctx context.Context, key string, r io.Reader) (blob.Info, error) {
	p.puts++
	return p.Store.Put(ctx, key, r)
}

func TestBatchOtherStorePutsThrough(t *testing.T) {
	t.Parallel()
	p := &plainStore{Store: newFS(t)}
	b := blob.NewBatch(p)
	_, err := b.Put(t.Context(), "t1/objects/a", bytes.NewReader([]byte("a")))
	require.NoError(t, err)
	require.Equal(t, 1, p.puts)
	require.NoError(t, b.Sync(t.Context()))
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestBatchFSRefusesAnExistingKey(t *testing.T) {
	t.Parallel()
	f := newFS(t)
	_, err := f.Put(t.Context(), "t1/objects/a", bytes.NewReader([]byte("first")))
	require.NoError(t, err)
	b := blob.NewBatch(f)
	_, err = b.Put(t.Context(), "t1/objects/a", bytes.NewReader([]byte("second")))
	require.ErrorIs(t, err, os.ErrExist)
	rc, _, err := f.Get(t.Context(), "t1/objects/a", nil)
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, rc.Close())
	require.NoError(t, err)
	require.Equal(t, "first", string(got), "the object there is left as it was")
}
