package blob

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// SyncTree makes every file and folder under root durable, for a writer
// that wrote many files without syncing each and now moves them into
// place (a capsule export): in one syncfs(2) call where the system has
// one, which covers the whole file system holding root, and elsewhere by
// syncing each file and folder.
func SyncTree(root string) error {
	ok, err := syncFileSystem(root)
	if err != nil {
		return fmt.Errorf("sync %s: %w", root, err)
	}
	if ok {
		return nil
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			err = syncDir(p)
		} else {
			err = syncFile(p)
		}
		if err != nil {
			return fmt.Errorf("sync %s: %w", p, err)
		}
		return nil
	})
}

// SyncDir makes the entries of a folder durable, such as a file or
// folder just renamed into it.
func SyncDir(dir string) error {
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
