package demo

import (
	"io/fs"
	"testing"
)

// Files lists the sizes of the embedded capsule's files, for tests.
func Files(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
