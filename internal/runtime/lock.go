package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monitorhq/monitor/internal/config"
)

// On the embedded default one process owns a data dir: `monitor serve`,
// `monitor migrate` and `monitor import capsule` hold an exclusive lock on
// the data dir itself (the directory, so no file appears in it) for as
// long as they run, and a second one refuses to start beside them rather
// than share the SQLite writer and the job queue. The lock is the
// kernel's (flock), so a killed process leaves no stale lock behind.
// Scale mode (PostgreSQL) runs many processes and takes no lock.

// dataDirLock is a held lock; nil when none was needed.
type dataDirLock struct{ f *os.File }

// errLocked is what tryLock answers when another process holds the lock.
var errLocked = errors.New("locked")

// lockDataDir takes the data dir's lock, or says that another process
// holds it.
func lockDataDir(cfg *config.Config) (*dataDirLock, error) {
	if !Embedded(cfg) {
		return nil, nil
	}
	dir := filepath.Dir(cfg.Database.Path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, notWritable(dir, err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, notWritable(dir, err)
	}
	if err := tryLock(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("data dir %s is in use by another monitor process: only one monitor serve, migrate or import may run on an embedded data dir at a time; stop that one first, or give this one its own MONITOR_DATA_DIR", dir)
		}
		return nil, fmt.Errorf("data dir %s: cannot lock it: %v", dir, err)
	}
	return &dataDirLock{f: f}, nil
}

// release gives the lock up (closing the directory releases it).
func (l *dataDirLock) release() {
	if l != nil {
		_ = l.f.Close()
	}
}
