package blob

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Batch stores many objects and makes them durable together: an import
// of thousands of small media would otherwise wait for two fsyncs per
// object (the file and its directory), which cost more than the copy.
// Objects put through a batch are readable at once, like Put's, but only
// durable once Sync returned; a caller records them anywhere durable (a
// database commit) only after that.
type Batch interface {
	// Put is Store.Put of a key that does not exist yet, durable only
	// after Sync. Nothing may read the key before Sync returned: the file
	// store writes it in place (an existing key is an error there).
	Put(ctx context.Context, key string, r io.Reader) (Info, error)
	// Sync makes every object put through the batch so far durable.
	Sync(ctx context.Context) error
}

// Unwrapper is a Store that wraps another, such as one counting its
// reads; NewBatch batches the store underneath.
type Unwrapper interface {
	Unwrap() Store
}

// NewBatch returns a batch over s. On the file store the objects' bytes
// and renames are synced once, at Sync; any other store's Put is durable
// when it returns (an S3 upload), and its Sync does nothing.
func NewBatch(s Store) Batch {
	for {
		u, ok := s.(Unwrapper)
		if !ok {
			break
		}
		s = u.Unwrap()
	}
	if f, ok := s.(*FS); ok {
		return &fsBatch{f: f, dirs: map[string]bool{}}
	}
	return storeBatch{s}
}

// storeBatch is a batch of a store whose Put is durable on return.
type storeBatch struct{ s Store }

func (b storeBatch) Put(ctx context.Context, key string, r io.Reader) (Info, error) {
	return b.s.Put(ctx, key, r)
}

func (storeBatch) Sync(context.Context) error { return nil }

// fsBatch writes new files in place, without staging or syncing them,
// and syncs them all at Sync.
type fsBatch struct {
	f *FS
	// mu guards what the batch put since the last Sync: the files and
	// the directories their renames changed.
	mu    sync.Mutex
	files []string
	dirs  map[string]bool
}

func (b *fsBatch) Put(ctx context.Context, key string, r io.Reader) (Info, error) {
	info, err := b.f.putNew(ctx, key, r)
	if err != nil {
		return info, err
	}
	p, _ := b.f.path(key) // put checked it
	b.mu.Lock()
	b.files = append(b.files, p)
	for dir := filepath.Dir(p); !b.dirs[dir]; dir = filepath.Dir(dir) {
		b.dirs[dir] = true
		if dir == b.f.root {
			break
		}
	}
	b.mu.Unlock()
	return info, nil
}

// Sync syncs the file system holding the store in one call where the
// system has one (syncfs on Linux); elsewhere each file and directory the
// batch touched.
func (b *fsBatch) Sync(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.files) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ok, err := syncFileSystem(b.f.root)
	if err != nil {
		return fmt.Errorf("blob: sync %s: %w", b.f.root, err)
	}
	if !ok {
		for _, p := range b.files {
			if err := syncFile(p); err != nil {
				return fmt.Errorf("blob: sync: %w", err)
			}
		}
		for dir := range b.dirs {
			if err := syncDir(dir); err != nil {
				return fmt.Errorf("blob: sync: %w", err)
			}
		}
	}
	b.files, b.dirs = nil, map[string]bool{}
	return nil
}

func syncFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
